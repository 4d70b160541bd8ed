//! Edits of where a joint is and how it is turned: move its bind position, orient it to aim at
//! its child by the orientation convention (`rig::joint_frame`), set its roll. Children and the
//! mesh stay where they are.

use glam::{DMat3, DMat4, DVec3};

use super::{
    bind_frame, bind_position, check_joint, describe, keep_rest_offsets, local_for_global, record_edit, rest_globals,
    rest_offsets, set_local, SkeletonEditError, SkeletonRecord,
};
use crate::model::{Model, NodeTree};
use crate::rig::bone::{frame_from_direction_roll, roll_of_frame};
use crate::rig::joint_frame::{convention_frame, flex_of_bone};

/// Gives every child of `node` the local transform that keeps its rest global `globals[c]` under
/// the node's new rest global `node_global`.
fn children_stay(tree: &mut NodeTree, globals: &[DMat4], node: usize, node_global: DMat4) {
    let inv = node_global.inverse();
    for c in tree.nodes[node].children.clone() {
        set_local(&mut tree.nodes[c], inv * globals[c]);
    }
}

/// The rest global of `node` from its parent's rest global and its (new) local transform.
fn global_of(tree: &NodeTree, globals: &[DMat4], node: usize) -> DMat4 {
    let local = tree.nodes[node].rest.to_matrix();
    tree.nodes[node].parent.map_or(local, |p| globals[p] * local)
}

/// Moves joint `node` to `pos_in_bind` in the bind space of its first skin. Only its translation
/// changes; its children keep their rest globals (so their bind positions), its inverse bind
/// matrices follow, and the mesh does not move in the rest pose.
pub fn move_joint(model: &mut Model, node: usize, pos_in_bind: DVec3) -> Result<SkeletonRecord, SkeletonEditError> {
    check_joint(model, node)?;
    if !pos_in_bind.is_finite() {
        return Err(SkeletonEditError::NotFinite(describe(&model.nodes, node)));
    }
    record_edit(model, "Move Joint", |model, _| {
        let globals = rest_globals(&model.nodes);
        let offsets = rest_offsets(model, &globals);
        let (_, offset) = bind_frame(model, &globals, node).ok_or(SkeletonEditError::NoSuchNode(node))?;
        let world = offset.transform_point3(pos_in_bind);
        let mut global = globals[node];
        global.w_axis = world.extend(1.0);
        let local = local_for_global(&model.nodes, &globals, node, global);
        set_local(&mut model.nodes.nodes[node], local);
        let actual = global_of(&model.nodes, &globals, node);
        children_stay(&mut model.nodes, &globals, node, actual);
        keep_rest_offsets(model, &globals, &offsets);
        Ok(())
    })
}

/// The bind-space point joint `node` aims at: the centroid of its children that are joints of
/// a skin (of all its children when none is), else its explicit tail.
fn aim_target(model: &Model, globals: &[DMat4], node: usize, offset: DMat4) -> Option<DVec3> {
    let children = &model.nodes.nodes[node].children;
    let joints: Vec<usize> =
        children.iter().copied().filter(|&c| model.skins.iter().any(|s| s.joints.contains(&c))).collect();
    let pick = if joints.is_empty() { children.clone() } else { joints };
    if pick.is_empty() {
        let tail = model.nodes.nodes[node].bone_tail?;
        return Some(offset.inverse().transform_point3(globals[node].transform_point3(tail)));
    }
    let to_bind = offset.inverse();
    let sum: DVec3 = pick.iter().map(|&c| to_bind.transform_point3(globals[c].transform_point3(DVec3::ZERO))).sum();
    Some(sum / pick.len() as f64)
}

/// Turns joint `node` to the orientation convention (`rig::joint_frame`): +Y aims at its
/// children's centroid (or its tail when it has no child), +Z toward the side it flexes
/// ([`flex_of_bone`]: the way the bone already bends against its parent, else backward for a leg
/// below the root, down for a foot, forward otherwise), X the bend axis. Its children and the mesh
/// stay in place; the node's tail and roll are set to the new bone (tail at the target, roll of
/// the new frame, see `rig::bone`).
pub fn orient_joint(model: &mut Model, node: usize) -> Result<SkeletonRecord, SkeletonEditError> {
    check_joint(model, node)?;
    let globals = rest_globals(&model.nodes);
    let (frame, offset) = bind_frame(model, &globals, node).ok_or(SkeletonEditError::NoSuchNode(node))?;
    let target = aim_target(model, &globals, node, offset)
        .ok_or_else(|| SkeletonEditError::NothingToAim(describe(&model.nodes, node)))?;
    let head = frame.transform_point3(DVec3::ZERO);
    let mut root = node;
    let mut parent_bone = DVec3::ZERO;
    while let Some(p) = model.nodes.nodes[root].parent.filter(|&p| bind_position(model, p).is_some()) {
        if root == node {
            parent_bone = head - bind_position(model, p).unwrap_or(head);
        }
        root = p;
    }
    let below_root = root != node && bind_position(model, root).is_some_and(|r| head.y < r.y);
    let flex = flex_of_bone(target - head, parent_bone, below_root);
    orient_joint_to(model, node, target, flex)
}

/// Turns joint `node` to the orientation convention with its bone aimed at `target` and flexing
/// toward `flex` (both in bind space; see `rig::joint_frame`); its children and the mesh stay in
/// place, its tail is set to `target` and its roll to the new frame's.
pub fn orient_joint_to(
    model: &mut Model,
    node: usize,
    target: DVec3,
    flex: DVec3,
) -> Result<SkeletonRecord, SkeletonEditError> {
    check_joint(model, node)?;
    let globals = rest_globals(&model.nodes);
    let (frame, _) = bind_frame(model, &globals, node).ok_or(SkeletonEditError::NoSuchNode(node))?;
    let head = frame.transform_point3(DVec3::ZERO);
    let scale = frame.transform_vector3(DVec3::Y).length().max(f64::MIN_POSITIVE);
    let to_target = target - head;
    if to_target.length() <= 1e-9 * scale.max(head.length()) || !to_target.is_finite() || !flex.is_finite() {
        return Err(SkeletonEditError::ZeroLengthBone(describe(&model.nodes, node)));
    }
    let basis = convention_frame(to_target, flex)
        .ok_or_else(|| SkeletonEditError::ZeroLengthBone(describe(&model.nodes, node)))?;
    set_frame(model, node, "Orient Joint", basis * scale, target)
}

/// Sets joint `node`'s roll (radians, Blender's: the turn about the bone from Blender's default
/// frame for the bone's direction, `rig::bone`), keeping its bone's direction: toward its tail,
/// else its children's centroid, else its current +Y. Children and the mesh stay in place.
pub fn set_roll(model: &mut Model, node: usize, roll: f64) -> Result<SkeletonRecord, SkeletonEditError> {
    check_joint(model, node)?;
    if !roll.is_finite() {
        return Err(SkeletonEditError::NotFinite(describe(&model.nodes, node)));
    }
    let globals = rest_globals(&model.nodes);
    let (frame, offset) = bind_frame(model, &globals, node).ok_or(SkeletonEditError::NoSuchNode(node))?;
    let (target, dir) = roll_target(model, &globals, node, frame, offset);
    let scale = frame.transform_vector3(DVec3::Y).length().max(f64::MIN_POSITIVE);
    set_frame(model, node, "Set Roll", frame_from_direction_roll(dir, roll) * scale, target)
}

/// The bind-space unit direction [`set_roll`] turns joint `node` about (its bone's direction, as
/// `set_roll` keeps it). `None` when it is no joint.
#[must_use]
pub fn roll_axis(model: &Model, node: usize) -> Option<DVec3> {
    let globals = rest_globals(&model.nodes);
    let (frame, offset) = bind_frame(model, &globals, node)?;
    Some(roll_target(model, &globals, node, frame, offset).1)
}

/// The point a joint's bone aims at and the unit direction to it from the head (bind space):
/// its children's centroid, else its tail, else along its bind frame's +Y.
fn roll_target(model: &Model, globals: &[DMat4], node: usize, frame: DMat4, offset: DMat4) -> (DVec3, DVec3) {
    let head = frame.transform_point3(DVec3::ZERO);
    let scale = frame.transform_vector3(DVec3::Y).length().max(f64::MIN_POSITIVE);
    let target = aim_target(model, globals, node, offset)
        .filter(|t| (*t - head).length() > 1e-9 * scale.max(head.length()))
        .unwrap_or_else(|| head + frame.transform_vector3(DVec3::Y));
    (target, (target - head).normalize_or(DVec3::Y))
}

/// Joint `node`'s roll (radians, Blender's, as [`set_roll`] takes it): the turn about its bind
/// frame's +Y from Blender's default frame for that direction. `None` when it is no joint.
#[must_use]
pub fn joint_roll(model: &Model, node: usize) -> Option<f64> {
    let (s, j) = super::first_joint(model, node)?;
    let f = DMat3::from_mat4(model.skins[s].joint_from_bind[j].inverse());
    let rotation = DMat3::from_cols(f.x_axis.normalize(), f.y_axis.normalize(), f.z_axis.normalize());
    Some(roll_of_frame(rotation)).filter(|r| r.is_finite())
}

/// Gives joint `node` the bind-space rotation frame `basis` (columns X, Y, Z, with the joint's
/// scale) at its head, tail `target` and the frame's roll; children and the mesh stay in place.
fn set_frame(
    model: &mut Model,
    node: usize,
    label: &str,
    basis: DMat3,
    target: DVec3,
) -> Result<SkeletonRecord, SkeletonEditError> {
    let globals = rest_globals(&model.nodes);
    let (frame, offset) = bind_frame(model, &globals, node).ok_or(SkeletonEditError::NoSuchNode(node))?;
    let head = frame.transform_point3(DVec3::ZERO);
    record_edit(model, label, |model, _| {
        let offsets = rest_offsets(model, &globals);
        let new_frame = DMat4::from_cols(
            basis.x_axis.extend(0.0),
            basis.y_axis.extend(0.0),
            basis.z_axis.extend(0.0),
            head.extend(1.0),
        );
        let local = local_for_global(&model.nodes, &globals, node, offset * new_frame);
        set_local(&mut model.nodes.nodes[node], local);
        let actual = global_of(&model.nodes, &globals, node);
        children_stay(&mut model.nodes, &globals, node, actual);
        let tail = actual.inverse().transform_point3(offset.transform_point3(target));
        let rotation = DMat3::from_cols(basis.x_axis.normalize(), basis.y_axis.normalize(), basis.z_axis.normalize());
        let n = &mut model.nodes.nodes[node];
        n.bone_tail = Some(tail);
        n.bone_roll = Some(roll_of_frame(rotation));
        keep_rest_offsets(model, &globals, &offsets);
        Ok(())
    })
}
