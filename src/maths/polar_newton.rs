//! Polar decomposition by Higham's scaled Newton iteration `X ← ½ (γ X + γ⁻¹ X⁻ᵀ)`, for the
//! per-frame joint parts: joint matrices are rotations up to f32 rounding of their inverse bind
//! matrices, or rotations times a scale, where the iteration converges in one to three steps
//! (a few hundred flops) against the general 3x3 SVD's microsecond. Same result as [`super::polar`]
//! to rounding (the polar factors are unique); falls back to it when the iteration does not
//! converge.

use glam::DMat3;

use super::Polar;

/// Iterations before falling back to the SVD (scaled Newton needs about 9 for a condition number
/// of 1e12; joint matrices need 1 to 3).
const MAX_ITERATIONS: usize = 24;

/// Frobenius-norm change, relative to `X`, below which the iteration has converged: the
/// iteration's error is then about the square of the change (quadratic convergence), far below
/// f64 rounding.
const CONVERGED: f64 = 1e-9;

/// Below this relative change the scaling γ is dropped (near convergence it only adds rounding).
const UNSCALED_BELOW: f64 = 1e-2;

/// Frobenius norm of a 3x3 matrix.
fn frobenius(m: &DMat3) -> f64 {
    (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared()).sqrt()
}

/// `A / s` (with `s² = tr(AᵀA)/3`) this close to orthogonal (max abs entry of `XᵀX − I`) is
/// finished by two Newton–Schulz steps `X ← X (3I − XᵀX) / 2`: no inverse, and since
/// `XᵀX − I` becomes about `−¾ (XᵀX − I)²` each step, two steps take 1e-5 below 1e-19.
const NEAR_ORTHOGONAL: f64 = 1e-5;

/// The polar decomposition `A = R · S` of a 3x3 matrix with positive determinant, by scaled
/// Newton iteration (Newton–Schulz when `A` is a rotation times a scale up to rounding, the
/// usual joint matrix); `None` when `det(A) <= 0` or `A` is not finite (as [`super::polar`]).
#[must_use]
pub fn polar_newton(a: DMat3) -> Option<Polar> {
    let det = a.determinant();
    if !det.is_finite() || det <= 0.0 {
        return None;
    }
    let ata = a.transpose() * a;
    let scale2 = (ata.x_axis.x + ata.y_axis.y + ata.z_axis.z) / 3.0;
    let xtx = ata * (1.0 / scale2);
    if max_abs(&(xtx - DMat3::IDENTITY)) < NEAR_ORTHOGONAL {
        let three = DMat3::from_diagonal(glam::DVec3::splat(3.0));
        let x = a * (1.0 / scale2.sqrt());
        let x = x * (three - xtx) * 0.5;
        let x = x * (three - x.transpose() * x) * 0.5;
        return Some(split(x, a));
    }
    let mut x = a;
    let mut scaled = true;
    for _ in 0..MAX_ITERATIONS {
        let inv_t = x.inverse().transpose();
        let norm = frobenius(&x);
        let gamma = if scaled { (frobenius(&inv_t) / norm).sqrt() } else { 1.0 };
        let next = (x * gamma + inv_t * (1.0 / gamma)) * 0.5;
        let change = frobenius(&(next - x)) / frobenius(&next);
        x = next;
        if !change.is_finite() {
            break;
        }
        if change < CONVERGED {
            return Some(split(x, a));
        }
        scaled = change >= UNSCALED_BELOW;
    }
    super::polar(a)
}

/// `R = x` and the symmetric `S = Rᵀ A`.
fn split(x: DMat3, a: DMat3) -> Polar {
    let s = x.transpose() * a;
    Polar { rotation: x, stretch: (s + s.transpose()) * 0.5 }
}

/// Largest absolute entry.
fn max_abs(m: &DMat3) -> f64 {
    m.x_axis.abs().max_element().max(m.y_axis.abs().max_element()).max(m.z_axis.abs().max_element())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    fn assert_same(a: DMat3) {
        let fast = polar_newton(a).unwrap();
        let svd = super::super::polar(a).unwrap();
        assert!((fast.rotation - svd.rotation).abs_diff_eq(DMat3::ZERO, 1e-12), "{a}: {fast:?} vs {svd:?}");
        assert!((fast.stretch - svd.stretch).abs_diff_eq(DMat3::ZERO, 1e-12 * frobenius(&a)), "{a}");
        assert!((fast.rotation.transpose() * fast.rotation - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, 1e-14));
        assert!((fast.rotation * fast.stretch - a).abs_diff_eq(DMat3::ZERO, 1e-12 * frobenius(&a)));
    }

    #[test]
    fn matches_the_svd_on_rotations_scales_and_stretches() {
        let r = DMat3::from_quat(DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7));
        // A rotation with f32 rounding, as joint matrices built from f32 inverse bind matrices are.
        let rounded = DMat3::from_cols_array(&r.to_cols_array().map(|v| f64::from(v as f32)));
        assert_same(rounded);
        // Uniform scales (FBX ×100 armatures, IBMs with scale 0.5).
        assert_same(r * 100.0);
        assert_same(rounded * 2.0);
        // Non-uniform, strong and nearly singular stretches.
        assert_same(r * DMat3::from_diagonal(DVec3::new(2.0, 0.5, 1.0)));
        assert_same(r * DMat3::from_diagonal(DVec3::new(0.983, 0.0202, 1.0263)));
        assert_same(r * DMat3::from_diagonal(DVec3::new(1e4, 1.0, 1e-4)));
        let shear = DMat3::from_cols(DVec3::X, DVec3::new(0.8, 1.0, 0.0), DVec3::new(0.1, -0.3, 1.0));
        assert_same(r * shear);
    }

    #[test]
    fn rejects_mirror_collapse_and_nan() {
        assert!(polar_newton(DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0))).is_none());
        assert!(polar_newton(DMat3::from_diagonal(DVec3::new(0.0, 1.0, 1.0))).is_none());
        assert!(polar_newton(DMat3::from_diagonal(DVec3::new(f64::NAN, 1.0, 1.0))).is_none());
    }
}
