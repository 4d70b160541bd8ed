//! Keys on the timeline's clip (`rig::keys`): set a key of the selected joint, of a mesh's
//! morph-target weights or of the whole pose (joints and morph weights) at the current time (on a
//! new clip "Action" when none is chosen), delete the keys at the current time, move the keys at
//! one time to another, start a new clip, set keys' interpolation, edit a rotation key dragged in
//! the curve view. Each is one undo step
//! (a `ModelEdit` of the clips, with the pose shown at the time).

use super::EditorState;
use crate::app::command::{Command, KeyCommand};
use crate::model::{ChannelPath, Clip, ModelEdit, ModelParts};
use crate::rig::{key_interpolation, keys};

impl EditorState {
    /// Carries out one key command.
    pub(super) fn apply_key(&mut self, cmd: KeyCommand) {
        self.end_gesture();
        match cmd {
            KeyCommand::NewClip => {
                let name = self.unused_clip_name();
                let at = self.doc.model.clips.len();
                if self.edit_clips("New Clip", |clips| {
                    clips.push(Clip { name: Some(name), channels: Vec::new(), weights: Vec::new() });
                    true
                }) {
                    self.posing.clip = Some(at);
                    self.posing.playing = false;
                    self.posing.time_secs = 0.0;
                }
            }
            KeyCommand::Set { whole_pose } => {
                let (nodes, morphed) = match (whole_pose, self.selected) {
                    (false, Some(node)) => (vec![node], Vec::new()),
                    _ => (keys::posable_nodes(&self.doc.model, &self.doc.pose), self.doc.model.morphed_nodes()),
                };
                if nodes.is_empty() && morphed.is_empty() {
                    self.set_error("nothing to key: the model has no joints".into());
                    return;
                }
                let label = if nodes.len() == 1 { "Set Key" } else { "Set Key (whole pose)" };
                let what = format!("{} joint(s)", nodes.len());
                self.set_keys(label, &nodes, &morphed, &what);
            }
            KeyCommand::SetMorph { node } => {
                if self.doc.model.morphs_of(node).is_none() {
                    return;
                }
                let what = format!("the morph targets of {}", self.doc.model.nodes.key(node));
                self.set_keys("Key Morph Targets", &[], &[node], &what);
            }
            KeyCommand::Delete { whole_pose } => {
                let Some(clip) = self.posing.clip else { return };
                let nodes = if whole_pose { None } else { self.selected.map(|n| vec![n]) };
                let time = self.posing.time_secs;
                if !self.edit_clips("Delete Key", |clips| keys::delete_keys(&mut clips[clip], nodes.as_deref(), time)) {
                    self.set_info(format!("no key at {time:.2} s"));
                }
            }
            KeyCommand::Move { from_secs, to_secs } => {
                let Some(clip) = self.posing.clip else { return };
                if self.edit_clips("Move Keys", |clips| keys::move_keys(&mut clips[clip], None, from_secs, to_secs)) {
                    self.apply(Command::SetTime(keys::f32_exact(to_secs.max(0.0))));
                }
            }
            KeyCommand::Interpolation { mode, here_only } => {
                let Some(clip) = self.posing.clip else { return };
                let nodes = self.selected.map(|n| vec![n]);
                let time = here_only.then_some(self.posing.time_secs);
                if self.edit_clips("Interpolation", |clips| {
                    key_interpolation::set_interpolation(&mut clips[clip], nodes.as_deref(), time, mode)
                }) {
                    self.apply(Command::SetTime(self.posing.time_secs));
                } else {
                    self.set_info(if here_only {
                        format!("no key to change at {:.2} s", self.posing.time_secs)
                    } else {
                        "no key to change".to_owned()
                    });
                }
            }
            KeyCommand::EditRotationKey { node, from_secs, to_secs, rotation } => {
                let Some(clip) = self.posing.clip else { return };
                let r = rotation.normalize();
                let to = keys::f32_exact(to_secs.max(0.0));
                if self.edit_clips("Edit Key", |clips| {
                    let clip = &mut clips[clip];
                    let moved = (to - from_secs).abs() > keys::KEY_TIME_TOLERANCE
                        && keys::move_keys(clip, Some(&[node]), from_secs, to);
                    let at = if moved { to } else { from_secs };
                    keys::set_key_value(clip, node, ChannelPath::Rotation, at, [r.x, r.y, r.z, r.w]) || moved
                }) {
                    self.apply(Command::SetTime(self.posing.time_secs));
                }
            }
        }
    }

    /// Keys `nodes`' transforms and `morphed` mesh nodes' morph-target weights at the current time
    /// on the chosen clip (a new one when none is chosen), as one undo step named `label`.
    fn set_keys(&mut self, label: &'static str, nodes: &[usize], morphed: &[usize], what: &str) {
        if self.posing.clip.is_none_or(|c| c >= self.doc.model.clips.len()) {
            self.apply_key(KeyCommand::NewClip);
        }
        let Some(clip) = self.posing.clip else { return };
        let (tree, pose, time) = (self.doc.model.nodes.clone(), self.doc.pose.clone(), self.posing.time_secs);
        let weights: Vec<(usize, Vec<f32>)> = morphed.iter().map(|&n| (n, self.morph_weights(n))).collect();
        if self.edit_clips(label, |clips| {
            keys::set_keys(&mut clips[clip], &tree, &pose, nodes, time);
            for (node, w) in &weights {
                keys::set_weight_keys(&mut clips[clip], *node, w, time);
            }
            true
        }) {
            self.set_info(format!("keyed {what} at {time:.2} s"));
        }
    }

    /// The morph-target weights `node` shows now: the pose's, else its mesh's defaults (empty
    /// without targets).
    #[must_use]
    pub fn morph_weights(&self, node: usize) -> Vec<f32> {
        let Some(morphs) = self.doc.model.morphs_of(node) else { return Vec::new() };
        let mut w = self.doc.pose.morph_weights.get(&node).cloned().unwrap_or_else(|| morphs.default_weights.clone());
        w.resize(morphs.len(), 0.0);
        w
    }

    /// Changes the clips through `f` (which returns whether it changed anything) as one undo step.
    pub(super) fn edit_clips(&mut self, label: &'static str, f: impl FnOnce(&mut Vec<Clip>) -> bool) -> bool {
        let mut clips = self.doc.model.clips.clone();
        if !f(&mut clips) || clips == self.doc.model.clips {
            return false;
        }
        let before = ModelParts::of(&self.doc.model);
        super::refresh::edit_model(&mut self.doc.model, &mut self.doc.model_edits).clips = clips;
        let edit = ModelEdit::since(label, before, &self.doc.model);
        self.doc.history.record_model(edit, &self.doc.pose);
        self.rig.unsaved += 1;
        true
    }

    /// "Action", or "Action.001", ... : the first name no clip carries.
    fn unused_clip_name(&self) -> String {
        let taken = |n: &str| self.doc.model.clips.iter().any(|c| c.name.as_deref() == Some(n));
        std::iter::once("Action".to_owned())
            .chain((1..).map(|i| format!("Action.{i:03}")))
            .find(|n| !taken(n))
            .unwrap_or_default()
    }

    /// The times the timeline shows and can be scrubbed over: the clip's range from 0 (or its
    /// start, if earlier) to a second past its end, so new keys can be set after the last one.
    #[must_use]
    pub fn timeline_range(&self) -> (f64, f64) {
        let (a, b) = self.posing.clip.and_then(|c| self.doc.model.clips.get(c)).map_or((0.0, 0.0), Clip::range);
        (a.min(0.0), b.max(a) + 1.0)
    }
}
