//! A helper joint driven by joint rotations (a "live rig"): the helper's local transform is a
//! fixed linear map of quadratic features of the local rotations of its inputs (its parent and
//! the parent's child joints), so an engine (or skinlab, posing by hand) can move the helper
//! without keys. The formula, as `docs/emulation.md` states it for engine scripts:
//!
//! ```text
//! per input k (a node named in the driver, first the helper's parent):
//!   d_k = conj(rest_rotation_k) · q_k        (q_k: the input's local rotation; negated when d_k.w < 0)
//!   f_k = [dx, dy, dz, dx², dy², dz², dx·dy, dy·dz, dz·dx]   (of d_k)
//! f = [f_0, f_1, ...]                         (9 per input)
//! o = M f                                     (M: 6 × 9·inputs, row-major)
//! rotation    = normalise(o3, o4, o5, sqrt(max(0, 1 − o3² − o4² − o5²)))
//! translation = rest_translation + (o0, o1, o2) + pivot − rotation · pivot
//! scale       = (1, 1, 1)
//! ```
//!
//! `pivot` (in the helper's frame) is where the map is fitted best: (o0, o1, o2) is the motion of
//! that point, the rotation turns about it. With every input at its rest rotation `f = 0`, so the
//! helper sits at its rest translation, unrotated.

use glam::{DQuat, DVec3};

/// Features per input rotation.
pub const FEATURES: usize = 9;
/// Outputs of the map: a translation offset and the vector part of a rotation.
pub const OUTPUTS: usize = 6;

/// One rotation a driver reads.
#[derive(Clone, Debug, PartialEq)]
pub struct DriverInput {
    /// The input node's name (its `#N` index when it has no unique name).
    pub node: String,
    /// The node's rest local rotation, from which its rotation is measured.
    pub rest_rotation: DQuat,
}

/// The map from input rotations to a helper's local transform (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct HelperDriver {
    /// The rotations read, the helper's parent first.
    pub inputs: Vec<DriverInput>,
    /// The helper's local translation with every input at rest.
    pub rest_translation: DVec3,
    /// The point (helper frame) the map's translation moves and its rotation turns about.
    pub pivot: DVec3,
    /// The 6 × (9 · inputs) map, row-major.
    pub matrix: Vec<f64>,
}

/// The features of one rotation `q` measured from `rest_rotation`.
#[must_use]
pub fn features(rest_rotation: DQuat, q: DQuat) -> [f64; FEATURES] {
    let mut d = rest_rotation.normalize().conjugate() * q.normalize();
    if d.w < 0.0 {
        d = -d;
    }
    [d.x, d.y, d.z, d.x * d.x, d.y * d.y, d.z * d.z, d.x * d.y, d.y * d.z, d.z * d.x]
}

impl HelperDriver {
    /// The feature vector for the inputs' local rotations (one per input, in order).
    #[must_use]
    pub fn feature_vector(&self, rotations: &[DQuat]) -> Vec<f64> {
        self.inputs.iter().zip(rotations).flat_map(|(input, &q)| features(input.rest_rotation, q)).collect()
    }

    /// The helper's local translation and rotation (its scale is 1) for the inputs' local
    /// rotations (one per input, in order).
    #[must_use]
    pub fn local(&self, rotations: &[DQuat]) -> (DVec3, DQuat) {
        let f = self.feature_vector(rotations);
        let n = f.len();
        let mut o = [0.0; OUTPUTS];
        for (r, out) in o.iter_mut().enumerate() {
            *out = self.matrix.get(r * n..(r + 1) * n).map_or(0.0, |row| row.iter().zip(&f).map(|(m, x)| m * x).sum());
        }
        let w = (1.0 - o[3] * o[3] - o[4] * o[4] - o[5] * o[5]).max(0.0).sqrt();
        let q = DQuat::from_xyzw(o[3], o[4], o[5], w);
        let rotation = if q.is_finite() && q.length_squared() > 0.0 { q.normalize() } else { DQuat::IDENTITY };
        let offset = DVec3::new(o[0], o[1], o[2]) + self.pivot - rotation * self.pivot;
        (self.rest_translation + if offset.is_finite() { offset } else { DVec3::ZERO }, rotation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_rest_the_helper_rests_and_a_map_moves_it() {
        let rest_rotation = DQuat::from_rotation_y(0.3);
        let inputs = vec![
            DriverInput { node: "parent".into(), rest_rotation },
            DriverInput { node: "child".into(), rest_rotation: DQuat::IDENTITY },
        ];
        let mut driver = HelperDriver {
            inputs,
            rest_translation: DVec3::X,
            pivot: DVec3::ZERO,
            matrix: vec![0.0; OUTPUTS * 2 * FEATURES],
        };
        let at_rest = driver.local(&[rest_rotation, DQuat::IDENTITY]);
        assert_eq!(at_rest.0, DVec3::X);
        assert!(at_rest.1.abs_diff_eq(DQuat::IDENTITY, 1e-15));
        // o0 = the parent's dx, o5 = half the child's dz.
        driver.matrix[0] = 1.0;
        driver.matrix[5 * 2 * FEATURES + FEATURES + 2] = 0.5;
        let bend = DQuat::from_rotation_x(0.2);
        let child = DQuat::from_rotation_z(0.4);
        let t = driver.local(&[rest_rotation * bend, child]);
        assert!((t.0.x - (1.0 + (0.1f64).sin())).abs() < 1e-12);
        assert!((t.1.z - 0.5 * (0.2f64).sin()).abs() < 1e-12);
        assert!((t.1.length() - 1.0).abs() < 1e-12);
    }
}
