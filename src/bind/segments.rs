//! Bone segments of a skin's joints in bind space, the heat sources of automatic weights.
//!
//! glTF joints have no tails, so unless a node carries an explicit `bone_tail` (in its own frame,
//! carried in node extras), each joint's segment runs from its bind-space head (the translation of
//! `inverse(joint_from_bind)`) to: its child joint's head; the centroid of its
//! child joints' heads when it has several; for a leaf, its head plus the parent's direction times
//! the parent's segment length; for a lone joint, its bind-space +Y axis times a tenth of the skin's
//! extent. "Child joints" are the nearest skin joints below it in the node tree (non-joint nodes in
//! between are skipped). Invariant: every point is finite.

use glam::{DMat4, DVec3};

use crate::model::{Model, Skin};

/// One joint's segment from `head` to `tail` (bind space, f64). `tail == head` is a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// The joint's head.
    pub head: DVec3,
    /// The segment's other end.
    pub tail: DVec3,
}

impl Segment {
    /// The closest point of the segment to `p`.
    #[must_use]
    pub fn closest_point(&self, p: DVec3) -> DVec3 {
        let d = self.tail - self.head;
        let len2 = d.length_squared();
        if len2 <= f64::MIN_POSITIVE {
            return self.head;
        }
        let t = ((p - self.head).dot(d) / len2).clamp(0.0, 1.0);
        self.head + d * t
    }

    /// Distance from `p` to the segment.
    #[must_use]
    pub fn distance(&self, p: DVec3) -> f64 {
        (self.closest_point(p) - p).length()
    }

    /// The segment's length.
    #[must_use]
    pub fn length(&self) -> f64 {
        (self.tail - self.head).length()
    }
}

/// Fraction of the skin extent a lone joint's segment gets.
const LONE_FRACTION: f64 = 0.1;

/// The segments of every joint of skin `skin_idx`, indexed like `skin.joints`. `extent` is the
/// bounding-box diagonal of the bound vertices (for lone joints).
#[must_use]
pub fn joint_segments(model: &Model, skin_idx: usize, extent: f64) -> Vec<Segment> {
    let Some(skin) = model.skins.get(skin_idx) else {
        return Vec::new();
    };
    let heads = bind_heads(skin);
    let n = skin.joints.len();
    let mut joint_of_node = vec![None; model.nodes.nodes.len()];
    for (j, &node) in skin.joints.iter().enumerate() {
        if let Some(slot) = joint_of_node.get_mut(node) {
            slot.get_or_insert(j);
        }
    }
    let parent: Vec<Option<usize>> =
        skin.joints.iter().map(|&node| parent_joint(model, node, &joint_of_node)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (j, p) in parent.iter().enumerate() {
        if let Some(p) = *p {
            if p != j {
                children[p].push(j);
            }
        }
    }
    let mut tails: Vec<Option<DVec3>> = vec![None; n];
    for j in 0..n {
        let explicit = model.nodes.nodes.get(skin.joints[j]).and_then(|node| node.bone_tail);
        if let Some(tail) = explicit {
            // The node's own frame at bind time is model_from_bind.
            tails[j] = skin.joint_from_bind.get(j).map(|ibm| model_from_bind(ibm).transform_point3(tail));
        } else if !children[j].is_empty() {
            let sum: DVec3 = children[j].iter().map(|&c| heads[c]).sum();
            tails[j] = Some(sum / children[j].len() as f64);
        }
    }
    // Leaves, parents first so that a chain of leaves (impossible) or deep trees resolve in order.
    let mut segments = Vec::with_capacity(n);
    for j in 0..n {
        let head = heads[j];
        let tail = match tails[j] {
            Some(t) => t,
            None => leaf_tail(j, &heads, &tails, &parent, skin, extent),
        };
        let tail = if tail.is_finite() { tail } else { head };
        segments.push(Segment { head, tail });
    }
    segments
}

/// The bind-space head of every joint: the translation of `model_from_bind = inverse(IBM)`.
fn bind_heads(skin: &Skin) -> Vec<DVec3> {
    skin.joint_from_bind
        .iter()
        .map(|ibm| {
            let m = model_from_bind(ibm);
            let h = m.w_axis.truncate();
            if h.is_finite() {
                h
            } else {
                DVec3::ZERO
            }
        })
        .collect()
}

fn model_from_bind(ibm: &DMat4) -> DMat4 {
    if ibm.determinant().abs() > 1e-300 {
        ibm.inverse()
    } else {
        DMat4::IDENTITY
    }
}

/// The nearest ancestor of `node` that is a joint of the skin.
fn parent_joint(model: &Model, node: usize, joint_of_node: &[Option<usize>]) -> Option<usize> {
    let mut cur = model.nodes.nodes.get(node)?.parent;
    let mut steps = 0;
    while let Some(p) = cur {
        if let Some(j) = joint_of_node.get(p).copied().flatten() {
            return Some(j);
        }
        steps += 1;
        if steps > model.nodes.nodes.len() {
            return None;
        }
        cur = model.nodes.nodes.get(p)?.parent;
    }
    None
}

fn leaf_tail(
    j: usize,
    heads: &[DVec3],
    tails: &[Option<DVec3>],
    parent: &[Option<usize>],
    skin: &Skin,
    extent: f64,
) -> DVec3 {
    let head = heads[j];
    if let Some(p) = parent[j] {
        let dir = head - heads[p];
        let parent_len = tails[p].map_or(dir.length(), |t| (t - heads[p]).length());
        if dir.length() > 1e-12 * extent.max(1e-30) && parent_len > 0.0 {
            return head + dir.normalize() * parent_len;
        }
    }
    let axis = skin.joint_from_bind.get(j).map_or(DVec3::Y, |ibm| model_from_bind(ibm).y_axis.truncate());
    let axis = axis.try_normalize().unwrap_or(DVec3::Y);
    head + axis * (LONE_FRACTION * extent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::SyntheticRig;

    #[test]
    fn segments_reach_children_and_extend_leaves() {
        let model = SyntheticRig { vertices: 64, joints: 5, influences: 2 }.build().unwrap();
        let segs = joint_segments(&model, 0, 4.0);
        assert_eq!(segs.len(), 5);
        let heads = bind_heads(&model.skins[0]);
        // Joints 0-1-2-3-4 form one chain in the synthetic rig (CHAIN = 4, then a branch).
        for (j, s) in segs.iter().enumerate() {
            assert!((s.head - heads[j]).length() < 1e-12);
            assert!(s.tail.is_finite());
            assert!(s.length() > 0.0, "joint {j}");
        }
        assert!((segs[0].tail - heads[1]).length() < 1e-12);
        let seg = Segment { head: DVec3::ZERO, tail: DVec3::X };
        assert!((seg.distance(DVec3::new(2.0, 1.0, 0.0)) - 2f64.sqrt()).abs() < 1e-12);
        assert!((seg.distance(DVec3::new(0.5, 1.0, 0.0)) - 1.0).abs() < 1e-12);
    }
}
