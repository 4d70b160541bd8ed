//! Pose tools: copy the pose of the selected joint and the joints below it (the whole pose with
//! nothing selected), paste it back, or paste it flipped across the symmetry plane
//! (`rig::mirror_pose`; partners by Left/Right names, else by mirrored rest position across the
//! names' plane, or the model's x = 0 plane without names; a joint without a partner flipped onto
//! itself). Each paste is one undo step.

use glam::{DMat4, DVec3};

use super::EditorState;
use crate::model::Model;
use crate::rig::mirror_pose::{partners_by_position, paste_mirrored, plane_normal};
use crate::rig::symmetry::mirror_name;
use crate::rig::{fk, keys, Pose};

/// A copied pose and the joints it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct CopiedPose {
    /// The pose when copied.
    pub pose: Pose,
    /// The joints copied.
    pub nodes: Vec<usize>,
}

impl EditorState {
    /// Copies the selected joint's limb (or every joint) from the current pose.
    pub(super) fn copy_pose(&mut self) {
        let nodes = self.limb_or_all();
        self.set_info(format!("copied the pose of {} joint(s)", nodes.len()));
        self.posing.clipboard = Some(CopiedPose { pose: self.doc.pose.clone(), nodes });
    }

    /// The selected joint and every joint below it, or every posable joint with none selected.
    pub(super) fn limb_or_all(&self) -> Vec<usize> {
        match self.selected {
            Some(node) => {
                let mut out = vec![node];
                let mut i = 0;
                while i < out.len() {
                    out.extend(self.doc.model.nodes.nodes[out[i]].children.iter().copied());
                    i += 1;
                }
                out
            }
            None => keys::posable_nodes(&self.doc.model, &self.doc.pose),
        }
    }

    /// Pastes the copied pose onto the same joints, or flipped onto their mirror partners.
    pub(super) fn paste_pose(&mut self, flipped: bool) {
        let Some(copied) = self.posing.clipboard.clone() else {
            self.set_error("nothing to paste: Copy Pose first".into());
            return;
        };
        let tree = &self.doc.model.nodes;
        let nodes: Vec<usize> = copied.nodes.iter().copied().filter(|&n| n < tree.len()).collect();
        let pose = if flipped {
            let (targets, normal) = mirror_partners(&self.doc.model, &nodes);
            paste_mirrored(tree, &copied.pose, &self.doc.pose, &nodes, &targets, normal)
        } else {
            let mut p = self.doc.pose.clone();
            for &n in &nodes {
                match copied.pose.overrides.get(&n) {
                    Some(o) => p.overrides.insert(n, *o),
                    None => p.overrides.remove(&n),
                };
            }
            p
        };
        if pose != self.doc.pose {
            self.end_gesture();
            self.doc.set_pose(pose);
            self.posing.playing = false;
            self.frame.dirty = true;
        }
    }
}

/// Each node's mirror partner (itself when it has none) and the symmetry plane's normal.
pub(super) fn mirror_partners(model: &Model, nodes: &[usize]) -> (Vec<usize>, DVec3) {
    let tree = &model.nodes;
    let mut joints = keys::posable_nodes(model, &Pose::rest());
    joints.extend(nodes.iter().copied());
    joints.sort_unstable();
    joints.dedup();
    let by_name = |n: usize| {
        let name = tree.nodes[n].name.as_deref()?;
        tree.find(&mirror_name(name)?).ok().filter(|&m| m != n)
    };
    let pairs: Vec<(usize, usize)> = joints.iter().filter_map(|&j| by_name(j).map(|m| (j, m))).collect();
    let normal = plane_normal(tree, &pairs);
    let mut rest: Vec<DMat4> = Vec::new();
    fk::model_from_node(tree, &Pose::rest(), &mut rest);
    let at = |n: usize| rest[n].w_axis.truncate();
    // Without Left/Right names: the model's own x = 0 plane (characters are modelled about it).
    let point = if pairs.is_empty() {
        DVec3::ZERO
    } else {
        pairs.iter().map(|&(a, b)| 0.5 * (at(a) + at(b))).sum::<DVec3>() / pairs.len() as f64
    };
    let (lo, hi) = joints.iter().fold((DVec3::MAX, DVec3::MIN), |(lo, hi), &j| (lo.min(at(j)), hi.max(at(j))));
    let tolerance = 0.02 * (hi - lo).length().max(1e-9);
    let targets = nodes
        .iter()
        .map(|&n| {
            by_name(n).or_else(|| partners_by_position(tree, &[n], &joints, point, normal, tolerance)[0]).unwrap_or(n)
        })
        .collect();
    (targets, normal)
}
