//! A joint's bone axis: the direction a twist turns about, in the joint's *rotation frame* — the
//! frame its local rotation acts in (the joint's own axes after its local scale, before its local
//! rotation), so that `local · R(axis, θ)` is a twist that keeps the bone where it is and
//! `local · axis` is the bone's direction in the joint's parent space.
//!
//! Which direction (the first rule that gives a non-zero offset wins):
//! 1. an explicit bone tail on the node (Blender's tail, [`crate::model::Node::bone_tail`]);
//! 2. the first child joint of a skin below the node (children in order, depth first, non-joint
//!    nodes between skipped), at its position in the joint's own frame in the current pose;
//! 3. a leaf continues its parent joint's bone: the parent's axis carried into the leaf's frame at
//!    the leaf's *rest* rotation (so the axis turns with the leaf, as the bone it stands for does);
//! 4. a lone joint uses its local +Y (Blender's bone axis).
//!
//! Invariant: the axis is a finite unit vector.

use glam::{DMat4, DQuat, DVec3};

use super::Pose;
use crate::model::Model;

/// Offsets shorter than this (model units in the joint's frame) do not define a direction.
const MIN_OFFSET: f64 = 1e-9;

/// Where a bone axis came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisSource {
    /// The node's explicit bone tail.
    Tail,
    /// The direction to this child joint (a node index).
    Child(usize),
    /// A leaf: its parent joint's bone continued (the parent's node index).
    Parent(usize),
    /// A lone joint: local +Y.
    LocalY,
}

/// A joint's bone axis in its rotation frame, with where it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoneAxis {
    /// Unit direction in the joint's rotation frame.
    pub axis: DVec3,
    /// The rule that gave it.
    pub source: AxisSource,
}

impl BoneAxis {
    /// The bone's direction in the joint's parent space for the local rotation `local`.
    #[must_use]
    pub fn in_parent(&self, local: DQuat) -> DVec3 {
        local.normalize() * self.axis
    }
}

/// Whether each node is a joint of some skin.
#[must_use]
pub fn joint_flags(model: &Model) -> Vec<bool> {
    let mut is_joint = vec![false; model.nodes.len()];
    for &j in model.skins.iter().flat_map(|s| &s.joints) {
        if let Some(f) = is_joint.get_mut(j) {
            *f = true;
        }
    }
    is_joint
}

/// The bone axis of `node` in `pose` (see the module documentation for the rules). A node index
/// out of range gets local +Y.
#[must_use]
pub fn bone_axis(model: &Model, pose: &Pose, node: usize) -> BoneAxis {
    let is_joint = joint_flags(model);
    if let Some(b) = own_axis(model, pose, &is_joint, node) {
        return b;
    }
    if let Some(b) = leaf_axis(model, pose, &is_joint, node) {
        return b;
    }
    BoneAxis { axis: DVec3::Y, source: AxisSource::LocalY }
}

/// Rules 1 and 2: the tail or the first child joint, in the node's rotation frame.
fn own_axis(model: &Model, pose: &Pose, is_joint: &[bool], node: usize) -> Option<BoneAxis> {
    let n = model.nodes.nodes.get(node)?;
    let scale = pose.local_trs(&model.nodes, node).scale;
    let in_rotation_frame = |offset: DVec3| (scale * offset).try_normalize().filter(|_| offset.length() > MIN_OFFSET);
    if let Some(axis) = n.bone_tail.and_then(in_rotation_frame) {
        return Some(BoneAxis { axis, source: AxisSource::Tail });
    }
    child_offsets(model, pose, is_joint, node).into_iter().find_map(|(child, offset)| {
        in_rotation_frame(offset).map(|axis| BoneAxis { axis, source: AxisSource::Child(child) })
    })
}

/// Every child joint below `node` (children in order, depth first, stopping at the first joint on
/// each branch) with its position in `node`'s own frame.
fn child_offsets(model: &Model, pose: &Pose, is_joint: &[bool], node: usize) -> Vec<(usize, DVec3)> {
    let tree = &model.nodes;
    let mut out = Vec::new();
    // (node, node_from_it): the frames below `node` composed from the pose's local matrices.
    let mut stack: Vec<(usize, DMat4)> = Vec::new();
    let push_children = |stack: &mut Vec<(usize, DMat4)>, at: usize, m: DMat4| {
        if let Some(n) = tree.nodes.get(at) {
            for &c in n.children.iter().rev() {
                stack.push((c, m * pose.local_matrix(tree, c)));
            }
        }
    };
    push_children(&mut stack, node, DMat4::IDENTITY);
    while let Some((c, m)) = stack.pop() {
        if is_joint.get(c).copied().unwrap_or(false) {
            let p = m.w_axis.truncate();
            if p.is_finite() {
                out.push((c, p));
            }
        } else {
            push_children(&mut stack, c, m);
        }
    }
    out
}

/// Rule 3: a leaf continues its nearest ancestor joint's bone.
fn leaf_axis(model: &Model, pose: &Pose, is_joint: &[bool], node: usize) -> Option<BoneAxis> {
    let tree = &model.nodes;
    let parent_node = tree.nodes.get(node)?.parent?;
    // The ancestor joint and the frame of `node`'s parent seen from it.
    let mut joint = parent_node;
    let mut joint_from_parent = DMat4::IDENTITY;
    while !is_joint.get(joint).copied().unwrap_or(false) {
        joint_from_parent = pose.local_matrix(tree, joint) * joint_from_parent;
        joint = tree.nodes.get(joint)?.parent?;
    }
    let up = own_axis(model, pose, is_joint, joint)?;
    // The ancestor's axis in its own frame (undo its scale), then in `node`'s parent frame.
    let scale = pose.local_trs(tree, joint).scale;
    let in_joint_frame = up.axis / scale;
    let in_parent = joint_from_parent.inverse().transform_vector3(in_joint_frame);
    let rest = tree.nodes.get(node)?.rest.to_trs().rotation.normalize();
    let axis = (rest.inverse() * in_parent).try_normalize()?;
    Some(BoneAxis { axis, source: AxisSource::Parent(joint) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeTransform, NodeTree, Skin, Trs};

    fn node(parent: Option<usize>, children: Vec<usize>, t: DVec3, r: DQuat) -> Node {
        Node {
            parent,
            children,
            rest: NodeTransform::Trs(Trs { translation: t, rotation: r, ..Trs::default() }),
            ..Node::default()
        }
    }

    fn model(nodes: Vec<Node>, joints: Vec<usize>) -> Model {
        let n = joints.len();
        Model {
            nodes: NodeTree::new(nodes, vec![0]),
            skins: vec![Skin { joints, joint_from_bind: vec![DMat4::IDENTITY; n], ..Skin::default() }],
            ..Model::default()
        }
    }

    #[test]
    fn child_then_leaf_then_lone() {
        let r1 = DQuat::from_rotation_z(0.5);
        // 0 joint → 1 helper (not a joint) → 2 joint (leaf); 3 lone joint elsewhere.
        let m = model(
            vec![
                node(None, vec![1, 3], DVec3::ZERO, DQuat::IDENTITY),
                node(Some(0), vec![2], DVec3::new(1.0, 0.0, 0.0), r1),
                node(Some(1), vec![], DVec3::new(0.0, 2.0, 0.0), DQuat::from_rotation_x(0.3)),
                node(Some(0), vec![], DVec3::ZERO, DQuat::IDENTITY),
            ],
            vec![0, 2, 3],
        );
        let pose = Pose::rest();
        let a0 = bone_axis(&m, &pose, 0);
        assert_eq!(a0.source, AxisSource::Child(2));
        let want = (DVec3::X + r1 * DVec3::new(0.0, 2.0, 0.0)).normalize();
        assert!((a0.axis - want).length() < 1e-12, "{a0:?}");
        // The leaf continues the parent's bone: in model space its axis is the parent's.
        let a2 = bone_axis(&m, &pose, 2);
        assert_eq!(a2.source, AxisSource::Parent(0));
        let mut g = Vec::new();
        crate::rig::fk::model_from_node(&m.nodes, &pose, &mut g);
        let in_model = g[2].transform_vector3(a2.axis).normalize();
        assert!((in_model - want).length() < 1e-12, "{in_model} {want}");
        // Node 3 is a joint of the skin at the root's origin (a zero offset): the child rule skips
        // it; it is itself a leaf of joint 0.
        assert_eq!(bone_axis(&m, &pose, 3).source, AxisSource::Parent(0));
        let lone = model(vec![node(None, vec![], DVec3::ZERO, DQuat::IDENTITY)], vec![0]);
        assert_eq!(bone_axis(&lone, &pose, 0), BoneAxis { axis: DVec3::Y, source: AxisSource::LocalY });
    }

    #[test]
    fn a_tail_wins_and_scale_is_applied() {
        let mut nodes = vec![
            node(None, vec![1], DVec3::ZERO, DQuat::IDENTITY),
            node(Some(0), vec![], DVec3::new(0.0, 1.0, 0.0), DQuat::IDENTITY),
        ];
        nodes[0].bone_tail = Some(DVec3::new(1.0, 1.0, 0.0));
        nodes[0].rest = NodeTransform::Trs(Trs { scale: DVec3::new(2.0, 1.0, 1.0), ..Trs::default() });
        let m = model(nodes, vec![0, 1]);
        let a = bone_axis(&m, &Pose::rest(), 0);
        assert_eq!(a.source, AxisSource::Tail);
        assert!((a.axis - DVec3::new(2.0, 1.0, 0.0).normalize()).length() < 1e-12);
    }
}
