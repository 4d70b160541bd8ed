//! Twist about the bone and bend across it: a swing–twist decomposition of a joint's local
//! rotation relative to its rest rotation, `local = rest · swing · twist`, where `twist` turns
//! about the bone axis (in the joint's rotation frame, [`super::bone_axis`]) and `swing` about an
//! axis perpendicular to it. The swing is written as a rotation vector `A·a + B·b` over two unit
//! axes `a`, `b` perpendicular to the bone (the joint's own axes least aligned with the bone, made
//! perpendicular to it), so the three numbers Twist, Bend A and Bend B read and write the same
//! rotation: [`compose`] of [`decompose`] is the identity, and [`decompose`] of [`compose`] gives
//! the numbers back while |twist| < 180° and the bend's length √(A² + B²) < 180°.
//!
//! Since the twist acts first, it never moves the bone: `rest · swing · twist · axis =
//! rest · swing · axis`.

use glam::{DQuat, DVec3};

/// Twist and bend angles, radians.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TwistBend {
    /// Turn about the bone axis, in (−π, π].
    pub twist: f64,
    /// Bend about [`BendAxes::a`].
    pub bend_a: f64,
    /// Bend about [`BendAxes::b`].
    pub bend_b: f64,
}

/// The bone axis and the two bend axes perpendicular to it (joint rotation frame, unit vectors,
/// right-handed or not depending on the bone's sign: `b` is chosen along its local axis).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BendAxes {
    /// The bone axis (twist).
    pub axis: DVec3,
    /// The first bend axis: the joint's local axis `a_local` made perpendicular to the bone.
    pub a: DVec3,
    /// The second bend axis, perpendicular to both.
    pub b: DVec3,
    /// Which local axis (0 X, 1 Y, 2 Z) `a` comes from.
    pub a_local: usize,
    /// Which local axis `b` comes from.
    pub b_local: usize,
}

impl BendAxes {
    /// The bend axes for the bone axis `axis` (normalised; a zero axis stands for +Y): the two
    /// local axes other than the one most aligned with the bone, in X, Y, Z order (a bone along
    /// ±Y bends about X and Z, as in Blender).
    #[must_use]
    pub fn new(axis: DVec3) -> Self {
        let axis = axis.try_normalize().unwrap_or(DVec3::Y);
        let along = axis.abs();
        let k = if along.x >= along.y && along.x >= along.z {
            0
        } else if along.y >= along.z {
            1
        } else {
            2
        };
        let (i, j) = match k {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        let unit = |n: usize| DVec3::AXES[n];
        let a = (unit(i) - axis * axis.dot(unit(i))).normalize();
        let mut b = axis.cross(a);
        if b.dot(unit(j)) < 0.0 {
            b = -b;
        }
        Self { axis, a, b, a_local: i, b_local: j }
    }
}

/// Splits `q` into `swing · twist` with `twist` about the unit `axis`; returns the swing and the
/// twist angle in (−π, π]. A half-turn swing (no twist component) gets a zero twist.
#[must_use]
pub fn swing_twist(q: DQuat, axis: DVec3) -> (DQuat, f64) {
    let q = q.normalize();
    let along = DVec3::new(q.x, q.y, q.z).dot(axis);
    let twist = if along.abs() < 1e-15 && q.w.abs() < 1e-15 { 0.0 } else { wrap(2.0 * along.atan2(q.w)) };
    let swing = (q * DQuat::from_axis_angle(axis, twist).inverse()).normalize();
    (swing, twist)
}

/// An angle wrapped into (−π, π].
#[must_use]
pub fn wrap(angle: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let a = angle.rem_euclid(TAU);
    if a > PI {
        a - TAU
    } else {
        a
    }
}

/// Twist and bend of `local` relative to `rest` about `axes`.
#[must_use]
pub fn decompose(rest: DQuat, local: DQuat, axes: &BendAxes) -> TwistBend {
    let delta = rest.normalize().inverse() * local.normalize();
    let (swing, twist) = swing_twist(delta, axes.axis);
    let swing = if swing.w < 0.0 { -swing } else { swing };
    let v = swing.xyz();
    let s = v.length();
    let rotation_vector = if s < 1e-300 { DVec3::ZERO } else { v * (2.0 * s.atan2(swing.w) / s) };
    TwistBend { twist, bend_a: rotation_vector.dot(axes.a), bend_b: rotation_vector.dot(axes.b) }
}

/// The local rotation with twist and bend `tb` relative to `rest` about `axes`.
#[must_use]
pub fn compose(rest: DQuat, tb: TwistBend, axes: &BendAxes) -> DQuat {
    let swing = DQuat::from_scaled_axis(axes.a * tb.bend_a + axes.b * tb.bend_b);
    let twist = DQuat::from_axis_angle(axes.axis, tb.twist);
    (rest.normalize() * swing * twist).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_y_bone_bends_about_x_and_z() {
        let axes = BendAxes::new(DVec3::Y);
        assert_eq!((axes.a, axes.b, axes.a_local, axes.b_local), (DVec3::X, DVec3::Z, 0, 2));
        let axes = BendAxes::new(DVec3::new(0.0, -1.0, 0.1));
        assert!(axes.b.dot(DVec3::Z) > 0.99 && axes.b.dot(axes.axis).abs() < 1e-15);
        let q = compose(DQuat::IDENTITY, TwistBend { twist: 0.0, bend_a: 0.4, bend_b: 0.0 }, &BendAxes::new(DVec3::Y));
        assert!((q - DQuat::from_rotation_x(0.4)).length() < 1e-12);
    }

    #[test]
    fn half_turns_and_wrap() {
        assert!((wrap(3.5) - (3.5 - std::f64::consts::TAU)).abs() < 1e-15);
        let (swing, twist) = swing_twist(DQuat::from_rotation_x(std::f64::consts::PI), DVec3::Y);
        assert_eq!(twist, 0.0);
        let half = DQuat::from_rotation_x(std::f64::consts::PI);
        assert!((swing - half).length().min((swing + half).length()) < 1e-12);
    }
}
