//! Turning a joint about an axis, expressed as its new local rotation: about an axis fixed in
//! model space (the gizmo's world rings), about one of the joint's own axes (its local rings and
//! the twist ring about the bone), and the model-space directions of those axes as the gizmo
//! draws them.
//!
//! A joint's model-space rotation is `parent · local`, where `parent` is the rotation part of its
//! parent's `model_from_node` (identity for a root). A parent with non-uniform scale shears its
//! children's frames; the rotation part is then the nearest rotation, as everywhere in posing.

use glam::{DMat4, DQuat, DVec3};

use crate::model::NodeTree;

/// The rotation part of a `model_from_node` matrix (identity when it is degenerate).
#[must_use]
pub fn rotation_of_matrix(m: &DMat4) -> DQuat {
    let (_, r, _) = m.to_scale_rotation_translation();
    if r.is_finite() && r.length_squared() > 0.5 {
        r.normalize()
    } else {
        DQuat::IDENTITY
    }
}

/// The model-space rotation of `node`'s parent frame (identity for a root or an index out of range).
#[must_use]
pub fn parent_rotation(tree: &NodeTree, model_from_node: &[DMat4], node: usize) -> DQuat {
    tree.nodes
        .get(node)
        .and_then(|n| n.parent)
        .and_then(|p| model_from_node.get(p))
        .map_or(DQuat::IDENTITY, rotation_of_matrix)
}

/// The local rotation that turns a joint (parent rotation `parent`, local rotation `local`) by
/// `angle_rad` about `axis_model`, a direction in model space, pivoting on the joint.
#[must_use]
pub fn rotate_about_model_axis(parent: DQuat, local: DQuat, axis_model: DVec3, angle_rad: f64) -> DQuat {
    let Some(axis) = axis_model.try_normalize() else { return local };
    let delta = DQuat::from_axis_angle(axis, angle_rad);
    (parent.inverse() * delta * parent * local).normalize()
}

/// The local rotation that turns a joint by `angle_rad` about `axis_joint`, a direction in its own
/// rotation frame (a local axis, the bone axis): `local · R(axis, angle)`.
#[must_use]
pub fn rotate_about_joint_axis(local: DQuat, axis_joint: DVec3, angle_rad: f64) -> DQuat {
    let Some(axis) = axis_joint.try_normalize() else { return local };
    (local * DQuat::from_axis_angle(axis, angle_rad)).normalize()
}

/// The model-space direction of `axis_joint` (a direction in the joint's rotation frame).
#[must_use]
pub fn joint_axis_in_model(parent: DQuat, local: DQuat, axis_joint: DVec3) -> DVec3 {
    (parent * local.normalize() * axis_joint).normalize_or(DVec3::Y)
}

/// The joint's own X, Y and Z axes in model space.
#[must_use]
pub fn joint_axes_in_model(parent: DQuat, local: DQuat) -> [DVec3; 3] {
    DVec3::AXES.map(|a| joint_axis_in_model(parent, local, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_agree_about_a_joint_axis_shown_in_model_space() {
        let parent = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        let local = DQuat::from_euler(glam::EulerRot::XYZ, -0.2, 0.4, 0.9);
        let axis = DVec3::new(0.2, 0.9, -0.3).normalize();
        let shown = joint_axis_in_model(parent, local, axis);
        let a = rotate_about_joint_axis(local, axis, 0.8);
        let b = rotate_about_model_axis(parent, local, shown, 0.8);
        assert!((a - b).length().min((a + b).length()) < 1e-12);
        // The model-space rotation changed by exactly 0.8 rad about the shown axis.
        let change = (parent * a) * (parent * local).inverse();
        let (ax, ang) = change.to_axis_angle();
        assert!((ang - 0.8).abs() < 1e-12 && (ax - shown).length() < 1e-9, "{ax} {ang}");
    }
}
