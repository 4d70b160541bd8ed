//! The document: the model with its name, revisions, first box and skeleton layout, the current
//! pose, and the undo history of both. Every concern reads it; edits go through
//! `EditorState::apply`, which bumps the revisions the caches watch.

use std::sync::Arc;

use glam::{DQuat, Vec3};

use super::edit_counts::EditCounts;
use crate::app::command::Command;
use crate::app::history::History;
use crate::model::Model;
use crate::render::overlays::SkeletonLayout;
use crate::rig::Pose;

/// The model, the pose and their history.
pub struct DocumentState {
    /// The model being posed (shared with the viewport's GPU scene).
    pub model: Arc<Model>,
    /// Its name for the title and status line.
    pub model_name: String,
    /// Bumped whenever `model` is replaced.
    pub model_rev: u64,
    /// Bumped when a new model is loaded, so its meshes (positions, triangles, normals, texture
    /// coordinates) replace the old ones; skeleton, weight and clip edits, which keep the meshes,
    /// change `model_rev` only.
    pub geometry_rev: u64,
    /// The model's box as first shown (posed, model space): places the grid, sizes the joints.
    pub model_bounds: (Vec3, Vec3),
    /// The skeleton, for the outliner and picking.
    pub skeleton: SkeletonLayout,
    /// The current pose.
    pub pose: Pose,
    /// Undo/redo of pose and model edits.
    pub history: History,
    /// Bumped by every edit of `model` in place except a dab's (which recolours its own vertices):
    /// weights, skeleton, clips, undo and redo.
    pub(super) model_edits: u64,
    /// Bumped by every dab (which `model_edits` leaves out): with `model_rev` and `model_edits`,
    /// what the model's weights were made from.
    pub(super) dabs: u64,
    /// What the status line's counts were last taken from, and what was saved.
    pub(super) counts: EditCounts,
}

impl Default for DocumentState {
    fn default() -> Self {
        Self {
            model: Arc::new(Model::default()),
            model_name: String::new(),
            model_rev: 0,
            geometry_rev: 0,
            model_bounds: (Vec3::ZERO, Vec3::ONE),
            skeleton: SkeletonLayout::default(),
            pose: Pose::rest(),
            history: History::default(),
            model_edits: 0,
            dabs: 0,
            counts: EditCounts::default(),
        }
    }
}

impl DocumentState {
    /// Carries out a pose edit (a joint's rotation, a morph target's weight, a joint or the whole
    /// pose back to rest) as an undo step (a rotation or weight joins its gesture's step); returns whether the pose changed. Other
    /// commands are left alone (`false`).
    pub fn apply_pose_edit(&mut self, cmd: &Command) -> bool {
        match *cmd {
            Command::SetRotation { node, rotation, gesture } => {
                if node >= self.model.nodes.len() || !rotation.is_finite() {
                    return false;
                }
                let rotation: DQuat = rotation.normalize();
                if self.pose.overrides.get(&node).and_then(|o| o.rotation) == Some(rotation) {
                    return false;
                }
                self.history.record(&self.pose, gesture);
                self.pose.set_rotation(node, rotation);
            }
            Command::SetMorphWeight { node, target, weight, gesture } => {
                let Some(morphs) = self.model.morphs_of(node) else { return false };
                if target >= morphs.len() || !weight.is_finite() {
                    return false;
                }
                let mut weights =
                    self.pose.morph_weights.get(&node).cloned().unwrap_or_else(|| morphs.default_weights.clone());
                weights.resize(morphs.len(), 0.0);
                if weights[target] == weight {
                    return false;
                }
                weights[target] = weight;
                self.history.record(&self.pose, gesture);
                self.pose.morph_weights.insert(node, weights);
            }
            Command::ResetJoint(node) => {
                if !self.pose.overrides.contains_key(&node) {
                    return false;
                }
                self.history.record(&self.pose, None);
                self.pose.overrides.remove(&node);
            }
            Command::ResetPose => {
                if self.pose.overrides.is_empty() && self.pose.morph_weights.is_empty() {
                    return false;
                }
                self.history.record(&self.pose, None);
                self.pose = Pose::rest();
            }
            _ => return false,
        }
        true
    }

    /// Shows `pose` as one undo step (a loaded pose file, a pasted pose).
    pub fn set_pose(&mut self, pose: Pose) {
        self.history.record(&self.pose, None);
        self.pose = pose;
    }
}
