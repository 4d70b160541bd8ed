//! Bone shape of a joint: Blender's head/tail/roll convention on glTF joints. A joint's frame
//! aims its +Y axis along the bone (Blender's and its glTF exporter's convention); the roll is the
//! twist of that frame about the bone relative to Blender's default frame for the bone's
//! direction (`vec_roll_to_mat3` in Blender's `armature.cc`), computed here in the skin's bind
//! space. Tails are stored in the joint's own frame ([`crate::model::Node::bone_tail`]).

use glam::{DMat3, DQuat, DVec3};

use crate::model::Model;

/// Blender's default bone frame for the unit direction `dir` rotated by `roll` radians about it
/// (columns: x, y = `dir`, z).
#[must_use]
pub fn frame_from_direction_roll(dir: DVec3, roll: f64) -> DMat3 {
    const SAFE: f64 = 6.1e-3;
    const CRITICAL_SQ: f64 = 2.5e-4 * 2.5e-4;
    let (x, y, z) = (dir.x, dir.y, dir.z);
    let mut theta = 1.0 + y;
    let theta_alt = x * x + z * z;
    let base = if theta > SAFE || theta_alt > CRITICAL_SQ {
        if theta <= SAFE {
            theta = theta_alt * 0.5 + theta_alt * theta_alt * 0.125;
        }
        DMat3::from_cols(
            DVec3::new(1.0 - x * x / theta, -x, -x * z / theta),
            DVec3::new(x, y, z),
            DVec3::new(-x * z / theta, -z, 1.0 - z * z / theta),
        )
    } else {
        DMat3::from_cols(DVec3::new(-1.0, 0.0, 0.0), DVec3::new(0.0, -1.0, 0.0), DVec3::Z)
    };
    DMat3::from_quat(DQuat::from_axis_angle(dir, roll)) * base
}

/// The roll of a rotation frame whose +Y axis is the bone direction (Blender's
/// `mat3_to_vec_roll`): the angle about +Y from [`frame_from_direction_roll`]`(y, 0)` to `frame`.
#[must_use]
pub fn roll_of_frame(frame: DMat3) -> f64 {
    let dir = frame.y_axis.normalize_or(DVec3::Y);
    let base = frame_from_direction_roll(dir, 0.0);
    let roll = base.transpose() * frame;
    roll.z_axis.x.atan2(roll.z_axis.z)
}

/// The explicit tail of `node` in the bind space of skin `skin` (where the mesh's rest positions
/// live), or `None` when the node has no tail or is not a joint of that skin. Automatic weights
/// use it as the bone segment's end in place of the children-derived one.
#[must_use]
pub fn bind_tail(model: &Model, skin: usize, node: usize) -> Option<DVec3> {
    let tail = model.nodes.nodes.get(node)?.bone_tail?;
    let s = model.skins.get(skin)?;
    let j = s.joints.iter().position(|&n| n == node)?;
    Some(s.joint_from_bind.get(j)?.inverse().transform_point3(tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_frames_and_rolls_follow_blender() {
        // A bone along +Y has the identity frame at roll 0.
        let f = frame_from_direction_roll(DVec3::Y, 0.0);
        assert!(f.abs_diff_eq(DMat3::IDENTITY, 1e-12), "{f}");
        // Along +Z (Blender's upright bone) the default frame turns +Y to +Z about +X.
        let f = frame_from_direction_roll(DVec3::Z, 0.0);
        assert!(f.abs_diff_eq(DMat3::from_rotation_x(std::f64::consts::FRAC_PI_2), 1e-12), "{f}");
        for dir in [DVec3::new(0.3, -0.2, 0.9).normalize(), DVec3::X, DVec3::new(0.01, -1.0, 0.01)] {
            let dir = dir.normalize();
            for roll in [-2.0, 0.0, 0.7, 3.0] {
                let f = frame_from_direction_roll(dir, roll);
                // Blender's series branch near -Y is accurate to about 1e-8.
                assert!((f.determinant() - 1.0).abs() < 1e-7);
                assert!((f.y_axis - dir).length() < 1e-7);
                assert!((roll_of_frame(f) - roll).abs() < 1e-7, "{dir} {roll} {}", roll_of_frame(f));
            }
        }
    }
}
