//! skinlab's joint orientation convention (Blender's, `docs/rigging.md`): a joint's rest frame has
//! **+Y along the bone** (head to tail or child), **+Z toward the side the joint flexes** and
//! **+X = Y × Z, the bend axis**, so that a positive Bend A (a positive turn about X) moves the
//! child toward +Z: elbows forward, knees backward, spine and neck forward, feet and toes down.
//! Mirror partners are mirrored (`M·R·M`, as Symmetrize does): Y and Z reflect, X follows, and a
//! positive Bend A flexes both sides alike.
//!
//! Directions are in the skin's bind space, read as a character standing Y up and facing +Z.
//! Template rigs give each joint its flexion side ([`Flex`]); Orient to child derives it from the
//! bone's bend or direction ([`flex_of_bone`]).

use glam::{DMat3, DVec3};

/// Bones closer to straight than this (radians) do not define a bend plane.
const STRAIGHT: f64 = 0.035;
/// Bends sharper than this (radians) are a change of limb (shin to foot), not a flexed joint.
const LIMB_TURN: f64 = 1.05;

/// The side a joint flexes toward, in a Y-up character facing +Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flex {
    /// Toward +Z (arms, spine, neck, head).
    Forward,
    /// Toward −Z (thighs and shins: knees).
    Backward,
    /// Toward −Y (feet, toes, fingers in a T-pose).
    Down,
}

impl Flex {
    /// The flexion side as a bind-space direction.
    #[must_use]
    pub fn direction(self) -> DVec3 {
        match self {
            Flex::Forward => DVec3::Z,
            Flex::Backward => DVec3::NEG_Z,
            Flex::Down => DVec3::NEG_Y,
        }
    }
}

/// The rest frame (columns X, Y, Z) of a bone along `bone` flexing toward `flex` (made
/// perpendicular to the bone; when the two are parallel, the first of +Z, −Y, +X that is not).
/// `None` for a zero or non-finite bone.
#[must_use]
pub fn convention_frame(bone: DVec3, flex: DVec3) -> Option<DMat3> {
    let y = bone.try_normalize()?;
    let z = [flex, DVec3::Z, DVec3::NEG_Y, DVec3::X]
        .into_iter()
        .find_map(|f| (f - y * f.dot(y)).try_normalize().filter(|z| z.dot(f) > 0.1 * f.length()))?;
    Some(DMat3::from_cols(y.cross(z), y, z))
}

/// The flexion side of a hand-placed bone `bone` whose parent bone is `parent_bone` (zero when
/// it has none), with `below_root` telling whether its head lies below the skeleton's root: a
/// bone bent against its parent by 2° to 60° (an elbow, a knee) keeps flexing the same way (X
/// along `parent × bone`); any other flexes backward when it points down below the root (a leg),
/// down when it points mostly along ±Z (a foot), forward otherwise.
#[must_use]
pub fn flex_of_bone(bone: DVec3, parent_bone: DVec3, below_root: bool) -> DVec3 {
    let (Some(y), p) = (bone.try_normalize(), parent_bone.try_normalize()) else {
        return DVec3::Z;
    };
    if let Some(p) = p {
        if (STRAIGHT..LIMB_TURN).contains(&p.angle_between(y)) {
            if let Some(x) = p.cross(y).try_normalize() {
                return x.cross(y);
            }
        }
    }
    if y.y < -0.5 && below_root {
        Flex::Backward.direction()
    } else if y.z.abs() > 0.7 {
        Flex::Down.direction()
    } else {
        Flex::Forward.direction()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_proper_and_flex_toward_z() {
        for (bone, flex) in [(DVec3::NEG_Y, DVec3::NEG_Z), (DVec3::X, DVec3::Z), (DVec3::Z, DVec3::Z)] {
            let f = convention_frame(bone, flex).unwrap();
            assert!((f.determinant() - 1.0).abs() < 1e-12);
            assert!((f.y_axis - bone).length() < 1e-12);
            // A positive turn about X moves the bone's end toward +Z (the flexion side).
            let turned = glam::DQuat::from_axis_angle(f.x_axis, 0.1) * f.y_axis;
            assert!(turned.dot(f.z_axis) > 0.09);
        }
        // Parallel flex falls back to another axis.
        assert!((convention_frame(DVec3::Z, DVec3::Z).unwrap().z_axis - DVec3::NEG_Y).length() < 1e-12);
        assert!(convention_frame(DVec3::ZERO, DVec3::Z).is_none());
    }

    #[test]
    fn hand_placed_bones_flex_as_the_body_does() {
        // A bent elbow keeps bending the way it is bent.
        let upper = DVec3::X;
        let fore = DVec3::new(1.0, 0.0, 0.3);
        let z = flex_of_bone(fore, upper, false);
        assert!(z.z > 0.9 && z.dot(fore).abs() < 1e-12, "{z}");
        // Straight legs bend backward, straight arms forward, feet down.
        assert_eq!(flex_of_bone(DVec3::NEG_Y, DVec3::NEG_Y, true), DVec3::NEG_Z);
        assert_eq!(flex_of_bone(DVec3::new(-0.7, -0.7, 0.0), DVec3::new(-0.7, -0.7, 0.0), false), DVec3::Z);
        assert_eq!(flex_of_bone(DVec3::Z, DVec3::NEG_Y, true), DVec3::NEG_Y);
    }
}
