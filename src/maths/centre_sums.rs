//! The SBS centre's normal equations from per-joint sums (spec "sbs" step 2), in O(n) for a set of
//! n joints instead of one 3x3 product per pair: with `S = Σ R_a`, `T = Σ t_a`, `U = Σ R_aᵀ t_a`
//! and `R_aᵀ R_a = I`,
//!
//! - `Σ_{a<b} (R_a − R_b)ᵀ (R_a − R_b) = n(n−1) I − Σ_{a≠b} R_aᵀ R_b = n² I − SᵀS`,
//! - `Σ_{a<b} (R_a − R_b)ᵀ (t_b − t_a) = SᵀT − n U`.
//!
//! The 3x3 system is solved by its adjugate (one division) where it is certainly well conditioned;
//! elsewhere [`super::least_squares_centre`] takes the truncated pseudo-inverse.

use glam::{DMat3, DVec3};

/// A smallest singular value of the stacked system `D` at least this large lets the centre come
/// from the normal equations: their error grows with the squared condition number, here at most
/// (2 n / 0.01)² ε, far above the truncation threshold 1e-6.
pub const NORMAL_EQUATIONS_MIN_SINGULAR: f64 = 1e-2;

/// Running sums over a joint set's rigid parts from which its centre's normal equations follow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CentreSums {
    /// `Σ R_a`.
    rotations: DMat3,
    /// `Σ t_a`.
    translations: DVec3,
    /// `Σ R_aᵀ t_a`.
    turned: DVec3,
    /// Joints added.
    count: u32,
}

impl Default for CentreSums {
    fn default() -> Self {
        Self::new()
    }
}

impl CentreSums {
    /// No joint yet.
    #[must_use]
    pub const fn new() -> Self {
        Self { rotations: DMat3::ZERO, translations: DVec3::ZERO, turned: DVec3::ZERO, count: 0 }
    }

    /// Adds one joint: its rotation `R`, translation `t` and `turned = Rᵀ t` (computed once per
    /// joint and pose, shared by every set the joint belongs to).
    #[inline]
    pub fn add(&mut self, rotation: &DMat3, translation: DVec3, turned: DVec3) {
        self.rotations += *rotation;
        self.translations += translation;
        self.turned += turned;
        self.count += 1;
    }

    /// Joints added.
    #[must_use]
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The centre by the normal equations `M x = b` when `D` certainly has no singular value below
    /// [`NORMAL_EQUATIONS_MIN_SINGULAR`]: `M` positive definite by its leading minors and
    /// `tr(M⁻¹) = Σ 1/σ_i² ≤ 1/0.01²` (the same test as a Cholesky factor's `‖L⁻¹‖_F`). `None`
    /// otherwise, and for fewer than three joints (two joints always leave their relative axis
    /// free).
    #[must_use]
    pub fn solve(&self) -> Option<DVec3> {
        if self.count < 3 {
            return None;
        }
        let n = f64::from(self.count);
        let n2 = n * n;
        let (c0, c1, c2) = (self.rotations.x_axis, self.rotations.y_axis, self.rotations.z_axis);
        // M = n² I − SᵀS (symmetric), b = SᵀT − n U.
        let m00 = n2 - c0.dot(c0);
        let m11 = n2 - c1.dot(c1);
        let m22 = n2 - c2.dot(c2);
        let m01 = -c0.dot(c1);
        let m02 = -c0.dot(c2);
        let m12 = -c1.dot(c2);
        let t = self.translations;
        let b = DVec3::new(c0.dot(t), c1.dot(t), c2.dot(t)) - n * self.turned;
        // Adjugate (symmetric): M⁻¹ = adj / det.
        let a00 = m11 * m22 - m12 * m12;
        let a11 = m00 * m22 - m02 * m02;
        let a22 = m00 * m11 - m01 * m01;
        let a01 = m02 * m12 - m01 * m22;
        let a02 = m01 * m12 - m02 * m11;
        let a12 = m01 * m02 - m00 * m12;
        let det = m00 * a00 + m01 * a01 + m02 * a02;
        let bound = NORMAL_EQUATIONS_MIN_SINGULAR;
        let trace_adj = a00 + a11 + a22;
        // Sylvester: m00 > 0, a22 > 0 (the leading 2x2 minor), det > 0.
        if !(m00 > 0.0 && a22 > 0.0 && det > 0.0 && det.is_finite() && trace_adj * bound * bound <= det) {
            return None;
        }
        let inv = 1.0 / det;
        Some(
            DVec3::new(
                a00 * b.x + a01 * b.y + a02 * b.z,
                a01 * b.x + a11 * b.y + a12 * b.z,
                a02 * b.x + a12 * b.y + a22 * b.z,
            ) * inv,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maths::tests::pairwise_normal_solution;
    use glam::DQuat;

    fn sums(rs: &[DMat3], ts: &[DVec3]) -> CentreSums {
        let mut s = CentreSums::new();
        for (r, &t) in rs.iter().zip(ts) {
            s.add(r, t, r.transpose() * t);
        }
        s
    }

    /// The sums give the pairwise normal equations' solution.
    #[test]
    fn sums_solve_the_pairwise_normal_equations() {
        for n in 3..=8 {
            let rs: Vec<DMat3> = (0..n)
                .map(|i| {
                    let axis = DVec3::new(0.3 + i as f64, 1.0 - 0.4 * i as f64, 0.7).normalize();
                    DMat3::from_quat(DQuat::from_axis_angle(axis, 0.3 + 0.41 * i as f64))
                })
                .collect();
            let ts: Vec<DVec3> = (0..n).map(|i| DVec3::new(1.0 - i as f64, 0.2 * (i * i) as f64, 0.5)).collect();
            let expect = pairwise_normal_solution(&rs, &ts);
            let got = sums(&rs, &ts).solve().expect("well conditioned");
            assert!((got - expect).length() < 1e-10 * expect.length().max(1.0), "n = {n}: {got} vs {expect}");
        }
    }

    /// Near-singular systems (equal rotations, two joints, nearly one axis) are left to the
    /// truncated pseudo-inverse.
    #[test]
    fn ill_conditioned_systems_are_refused() {
        let r = DMat3::from_rotation_x(0.4);
        assert_eq!(sums(&[r; 3], &[DVec3::X, DVec3::Y, DVec3::Z]).solve(), None);
        let two = [DMat3::IDENTITY, r];
        assert_eq!(sums(&two, &[DVec3::ZERO, DVec3::X]).solve(), None);
        // Three rotations about nearly the same axis: the system is nearly rank two.
        let axis = |e: f64| DVec3::new(e, 0.0, 1.0).normalize();
        let rs = [DMat3::IDENTITY, DMat3::from_axis_angle(axis(0.0), 0.5), DMat3::from_axis_angle(axis(1e-4), 1.0)];
        assert_eq!(sums(&rs, &[DVec3::ZERO, DVec3::X, DVec3::Y]).solve(), None);
    }
}
