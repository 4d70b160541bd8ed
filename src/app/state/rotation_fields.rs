//! What the selected joint's rotation fields show: Euler angles in a chosen order and Twist /
//! Bend A / Bend B about the bone, relative to the joint's rest rotation, keeping each typed
//! triple for as long as the joint's rotation is the one it produced (`ui/rotation_fields.rs`
//! draws them). Derived Euler angles are continuous: of the equivalent triples (the two
//! solutions of every order, turns of 360°, and the free angle at gimbal lock), the fields show
//! the one nearest to what they showed last for the joint (to zero the first time), so a rotation
//! about one axis reads as one number that changes, never as a jump between solutions.

use std::collections::BTreeMap;

use glam::{DQuat, EulerRot};

use crate::rig::twist_bend::{compose, decompose, BendAxes, TwistBend};

/// An Euler rotation order: the axes in the order they turn, about the parent-side axes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EulerOrder {
    /// X, then Y, then Z (Blender's and Maya's default).
    #[default]
    Xyz,
    /// X, Z, Y.
    Xzy,
    /// Y, X, Z.
    Yxz,
    /// Y, Z, X.
    Yzx,
    /// Z, X, Y.
    Zxy,
    /// Z, Y, X.
    Zyx,
}

impl EulerOrder {
    /// Every order, in menu order.
    pub const ALL: [Self; 6] = [Self::Xyz, Self::Xzy, Self::Yxz, Self::Yzx, Self::Zxy, Self::Zyx];

    /// The menu label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Xyz => "XYZ",
            Self::Xzy => "XZY",
            Self::Yxz => "YXZ",
            Self::Yzx => "YZX",
            Self::Zxy => "ZXY",
            Self::Zyx => "ZYX",
        }
    }

    /// glam's sequence (extrinsic: the first axis turns first, about the fixed axes).
    #[must_use]
    pub fn glam(self) -> EulerRot {
        match self {
            Self::Xyz => EulerRot::XYZEx,
            Self::Xzy => EulerRot::XZYEx,
            Self::Yxz => EulerRot::YXZEx,
            Self::Yzx => EulerRot::YZXEx,
            Self::Zxy => EulerRot::ZXYEx,
            Self::Zyx => EulerRot::ZYXEx,
        }
    }

    /// The axes (0 X, 1 Y, 2 Z) in turning order.
    fn axes(self) -> [usize; 3] {
        match self {
            Self::Xyz => [0, 1, 2],
            Self::Xzy => [0, 2, 1],
            Self::Yxz => [1, 0, 2],
            Self::Yzx => [1, 2, 0],
            Self::Zxy => [2, 0, 1],
            Self::Zyx => [2, 1, 0],
        }
    }

    /// The rotation of X, Y, Z angles `xyz_rad` turned in this order.
    #[must_use]
    pub fn to_quat(self, xyz_rad: [f64; 3]) -> DQuat {
        let [a, b, c] = self.axes();
        DQuat::from_euler(self.glam(), xyz_rad[a], xyz_rad[b], xyz_rad[c])
    }

    /// The X, Y, Z angles (radians) of `q` in this order nearest to `previous` (radians): the
    /// triple of the two solutions (`(a, b, c)` and `(a ± π, π − b, c ± π)` in turning order),
    /// each angle moved by whole turns within ±2π, and at gimbal lock the free angle shared
    /// between the first and last turn, that is closest to `previous` in the sum of squares.
    #[must_use]
    pub fn angles_near(self, q: DQuat, previous: [f64; 3]) -> [f64; 3] {
        use std::f64::consts::{PI, TAU};
        let q = q.normalize();
        let [ia, ib, ic] = self.axes();
        let first = self.angles(q);
        let (a, b, c) = (first[ia], first[ib], first[ic]);
        let (pa, pb, pc) = (previous[ia], previous[ib], previous[ic]);
        // The whole turn of `v` nearest to `p` (on a tie, the one nearer 0), within ±360°.
        let near = |v: f64, p: f64| {
            let k = ((p - v) / TAU).floor();
            let (lo, hi) = (v + k * TAU, v + (k + 1.0) * TAU);
            let d = (p - lo).abs() - (hi - p).abs();
            let pick = if d.abs() < 1e-9 {
                if lo.abs() <= hi.abs() {
                    lo
                } else {
                    hi
                }
            } else if d < 0.0 {
                lo
            } else {
                hi
            };
            pick.clamp(-TAU, TAU)
        };
        let same = |t: (f64, f64, f64)| {
            let mut xyz = [0.0; 3];
            (xyz[ia], xyz[ib], xyz[ic]) = t;
            let r = self.to_quat(xyz);
            (r - q).length().min((r + q).length()) < 1e-6
        };
        let mut best: Option<((f64, f64, f64), f64)> = None;
        for (a, b, c) in [(a, b, c), (a + PI, PI - b, c + PI)] {
            let mut t = (near(a, pa), near(b, pb), near(c, pc));
            if b.cos().abs() < 1e-6 {
                // Gimbal lock: only a ± c counts; share the change between them.
                for sign in [1.0, -1.0] {
                    if same((t.0 + 0.1, t.1, t.2 + sign * 0.1)) {
                        let shift = ((pa - t.0) + sign * (pc - t.2)) * 0.5;
                        t = (near(t.0 + shift, pa), t.1, near(t.2 + sign * shift, pc));
                        break;
                    }
                }
            }
            if !same(t) {
                continue;
            }
            let d = (t.0 - pa).powi(2) + (t.1 - pb).powi(2) + (t.2 - pc).powi(2);
            if best.is_none_or(|(_, bd)| d < bd) {
                best = Some((t, d));
            }
        }
        let Some(((a, b, c), _)) = best else { return first };
        let mut xyz = [0.0; 3];
        (xyz[ia], xyz[ib], xyz[ic]) = (a, b, c);
        xyz
    }

    /// X, Y, Z angles (radians) of `q` in this order.
    #[must_use]
    pub fn angles(self, q: DQuat) -> [f64; 3] {
        let (p, q2, r) = q.normalize().to_euler(self.glam());
        let mut xyz = [0.0; 3];
        for (axis, v) in self.axes().into_iter().zip([p, q2, r]) {
            xyz[axis] = v;
        }
        xyz
    }
}

/// A triple the user typed and the rotation it gave.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Typed {
    model_rev: u64,
    degrees: [f64; 3],
    rotation: DQuat,
}

/// How far (radians) the joint's rotation may be from the typed one and still show the typed
/// numbers: rounding, never an edit.
const SAME_ROTATION_RAD: f64 = 1e-9;

/// The rotation fields' settings and what was typed into them (kept in the editor state).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RotationFields {
    /// The Euler order shown.
    pub order: EulerOrder,
    euler: BTreeMap<usize, Typed>,
    twist_bend: BTreeMap<usize, Typed>,
    /// The Euler angles (degrees) last shown per joint, with the model revision.
    shown: BTreeMap<usize, (u64, [f64; 3])>,
}

impl RotationFields {
    /// The Euler angles (degrees, X Y Z) shown for `node` with local rotation `local` and rest
    /// rotation `rest`: the typed triple, else the triple nearest to the one shown last
    /// ([`EulerOrder::angles_near`]), which is remembered.
    pub fn euler_shown(&mut self, model_rev: u64, node: usize, rest: DQuat, local: DQuat) -> [f64; 3] {
        let shown = recalled(&self.euler, model_rev, node, local).unwrap_or_else(|| {
            let previous = self.shown.get(&node).filter(|(rev, _)| *rev == model_rev).map_or([0.0; 3], |s| s.1);
            self.order.angles_near(rest.inverse() * local, previous.map(f64::to_radians)).map(f64::to_degrees)
        });
        self.shown.insert(node, (model_rev, shown));
        shown
    }

    /// The local rotation for Euler angles `degrees` (X Y Z) typed on `node`, remembered.
    pub fn type_euler(&mut self, model_rev: u64, node: usize, rest: DQuat, degrees: [f64; 3]) -> DQuat {
        let rotation = (rest * self.order.to_quat(degrees.map(f64::to_radians))).normalize();
        self.euler.insert(node, Typed { model_rev, degrees, rotation });
        rotation
    }

    /// Twist, Bend A, Bend B (degrees) shown for `node`.
    #[must_use]
    pub fn twist_bend_shown(
        &self,
        model_rev: u64,
        node: usize,
        rest: DQuat,
        local: DQuat,
        axes: &BendAxes,
    ) -> [f64; 3] {
        recalled(&self.twist_bend, model_rev, node, local).unwrap_or_else(|| {
            let tb = decompose(rest, local, axes);
            [tb.twist, tb.bend_a, tb.bend_b].map(f64::to_degrees)
        })
    }

    /// The local rotation for Twist, Bend A, Bend B `degrees` typed on `node`, remembered.
    pub fn type_twist_bend(
        &mut self,
        model_rev: u64,
        node: usize,
        rest: DQuat,
        axes: &BendAxes,
        degrees: [f64; 3],
    ) -> DQuat {
        let [twist, bend_a, bend_b] = degrees.map(f64::to_radians);
        let rotation = compose(rest, TwistBend { twist, bend_a, bend_b }, axes);
        self.twist_bend.insert(node, Typed { model_rev, degrees, rotation });
        rotation
    }

    /// Shows Euler angles in `order` from now on (typed triples were in the old order: they go).
    pub fn set_order(&mut self, order: EulerOrder) {
        if order != self.order {
            self.order = order;
            self.euler.clear();
            self.shown.clear();
        }
    }
}

fn recalled(typed: &BTreeMap<usize, Typed>, model_rev: u64, node: usize, local: DQuat) -> Option<[f64; 3]> {
    let t = typed.get(&node).filter(|t| t.model_rev == model_rev)?;
    let d = (t.rotation - local.normalize()).length().min((t.rotation + local.normalize()).length());
    // |q1 − q2| ≈ half the angle between them for small angles.
    (d * 2.0 <= SAME_ROTATION_RAD).then_some(t.degrees)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_round_trip_and_xyz_turns_x_first() {
        let xyz = [0.3, -0.8, 1.2];
        for o in EulerOrder::ALL {
            let back = o.angles(o.to_quat(xyz));
            assert!(back.iter().zip(xyz).all(|(a, b)| (a - b).abs() < 1e-12), "{o:?}: {back:?}");
        }
        let q = EulerOrder::Xyz.to_quat(xyz);
        let m = DQuat::from_rotation_z(xyz[2]) * DQuat::from_rotation_y(xyz[1]) * DQuat::from_rotation_x(xyz[0]);
        assert!((q - m).length().min((q + m).length()) < 1e-12);
    }

    #[test]
    fn a_sweep_about_one_axis_reads_as_one_changing_number() {
        for o in EulerOrder::ALL {
            for axis in 0..3 {
                let mut previous = [0.0; 3];
                for k in 0..=72 {
                    let angle = (k as f64 * 2.5).to_radians();
                    let mut xyz = [0.0; 3];
                    xyz[axis] = angle;
                    let got = o.angles_near(o.to_quat(xyz), previous);
                    for i in 0..3 {
                        assert!((got[i] - xyz[i]).abs() < 1e-6, "{o:?} axis {axis} at {k}: {got:?}");
                    }
                    previous = got;
                }
            }
        }
    }

    #[test]
    fn typed_values_stay_until_the_rotation_changes() {
        let mut f = RotationFields::default();
        let rest = DQuat::from_rotation_z(0.4);
        let q = f.type_euler(1, 7, rest, [0.0, 150.0, 0.0]);
        assert_eq!(f.euler_shown(1, 7, rest, q), [0.0, 150.0, 0.0]);
        // Derived, the same rotation reads differently (Y beyond 90° flips X and Z).
        let derived = EulerOrder::Xyz.angles(rest.inverse() * q).map(f64::to_degrees);
        assert!((derived[1] - 30.0).abs() < 1e-9 && (derived[0].abs() - 180.0).abs() < 1e-9, "{derived:?}");
        // Changed elsewhere: derived again, nearest to what was shown (Y stays near 150).
        let moved = q * DQuat::from_rotation_x(0.01);
        let shown = f.euler_shown(1, 7, rest, moved);
        assert!(shown != [0.0, 150.0, 0.0] && (shown[1] - 150.0).abs() < 1.0, "{shown:?}");
        // Another model, or another order: derived (a typed whole turn is not recalled).
        let q = f.type_euler(1, 7, rest, [360.0, 150.0, 0.0]);
        assert_eq!(f.euler_shown(1, 7, rest, q), [360.0, 150.0, 0.0]);
        assert!((f.euler_shown(2, 7, rest, q)[0]).abs() < 1e-6);
        f.set_order(EulerOrder::Zyx);
        assert!((f.euler_shown(1, 7, rest, q)[0]).abs() < 1e-6);
    }
}
