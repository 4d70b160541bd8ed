//! Dense f64 linear algebra through nalgebra: polar decomposition of joint matrices and the
//! least-squares centre of rotation of the SBS paper (section 4). The only module that uses nalgebra.

use glam::{DMat3, DVec3};
use nalgebra::{DMatrix, DVector, Matrix3, SMatrix, SVector};

/// Singular values below this are treated as zero in the centre solve (spec: absolute, 1e-6).
pub const CENTRE_SINGULAR_EPS: f64 = 1e-6;

/// The polar decomposition `A = R · S` of a 3x3 matrix with positive determinant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Polar {
    /// The rotation `R` (orthonormal, determinant +1).
    pub rotation: DMat3,
    /// The stretch `S` (symmetric positive definite).
    pub stretch: DMat3,
}

fn to_na(m: DMat3) -> Matrix3<f64> {
    Matrix3::from_column_slice(&m.to_cols_array())
}

fn from_na(m: &Matrix3<f64>) -> DMat3 {
    let mut cols = [0.0; 9];
    cols.copy_from_slice(m.as_slice());
    DMat3::from_cols_array(&cols)
}

/// Polar decomposition by SVD (`A = U Σ Vᵀ`, `R = U Vᵀ`, `S = V Σ Vᵀ`).
/// Returns `None` when `det(A) <= 0` or `A` is not finite: a mirror or a collapse has no rotation.
#[must_use]
pub fn polar(a: DMat3) -> Option<Polar> {
    let det = a.determinant();
    if !(det > 0.0) || !det.is_finite() {
        return None;
    }
    let svd = to_na(a).svd(true, true);
    let (u, v_t) = (svd.u?, svd.v_t?);
    let rotation = u * v_t;
    let stretch = v_t.transpose() * Matrix3::from_diagonal(&svd.singular_values) * v_t;
    Some(Polar { rotation: from_na(&rotation), stretch: from_na(&stretch) })
}

/// The rotation of the polar decomposition, or `None` when `det(A) <= 0`.
#[must_use]
pub fn polar_rotation(a: DMat3) -> Option<DMat3> {
    polar(a).map(|p| p.rotation)
}

/// Centre of rotation `r_c` for one joint set (SBS paper section 4, spec "sbs" step 2):
/// the minimum-norm least-squares solution of `(R_a − R_b) r = t_b − t_a` over all pairs `a < b`,
/// by SVD pseudo-inverse with singular values below [`CENTRE_SINGULAR_EPS`] treated as zero.
/// `rotations[i]`, `translations[i]` are the rigid parts of the set's joints; fewer than two give 0.
#[must_use]
pub fn least_squares_centre(rotations: &[DMat3], translations: &[DVec3]) -> DVec3 {
    let n = rotations.len().min(translations.len());
    if n < 2 {
        return DVec3::ZERO;
    }
    if n <= 4 {
        // Up to 6 pairs fit a fixed 18x3 system: no heap allocation per set per pose. Zero rows
        // change neither the singular values nor the least-squares solution.
        let mut d = SMatrix::<f64, 18, 3>::zeros();
        let mut e = SVector::<f64, 18>::zeros();
        fill_pairs(rotations, translations, n, |row, col, v| d[(row, col)] = v, |row, v| e[row] = v);
        let svd = d.svd(true, true);
        let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
            return DVec3::ZERO;
        };
        return pseudo_inverse_solve(|r, i| u[(r, i)], &v_t, svd.singular_values.as_slice(), e.as_slice());
    }
    let rows = 3 * n * (n - 1) / 2;
    let mut d = DMatrix::<f64>::zeros(rows, 3);
    let mut e = DVector::<f64>::zeros(rows);
    fill_pairs(rotations, translations, n, |row, col, v| d[(row, col)] = v, |row, v| e[row] = v);
    let svd = d.svd(true, true);
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return DVec3::ZERO;
    };
    let v_t = Matrix3::from_fn(|r, c| v_t[(r, c)]);
    pseudo_inverse_solve(|r, i| u[(r, i)], &v_t, svd.singular_values.as_slice(), e.as_slice())
}

/// Writes the stacked system `(R_a − R_b) r = t_b − t_a`, pairs `a < b` in order, 3 rows each.
fn fill_pairs(
    rotations: &[DMat3],
    translations: &[DVec3],
    n: usize,
    mut set_d: impl FnMut(usize, usize, f64),
    mut set_e: impl FnMut(usize, f64),
) {
    let mut row = 0;
    for a in 0..n {
        for b in a + 1..n {
            let diff = rotations[a] - rotations[b];
            let rhs = translations[b] - translations[a];
            for r in 0..3 {
                let line = diff.row(r);
                set_d(row + r, 0, line.x);
                set_d(row + r, 1, line.y);
                set_d(row + r, 2, line.z);
                set_e(row + r, rhs[r]);
            }
            row += 3;
        }
    }
}

/// `x = Σ (u_i · e / σ_i) v_i` over the singular values `σ_i >= CENTRE_SINGULAR_EPS`.
fn pseudo_inverse_solve(
    u: impl Fn(usize, usize) -> f64,
    v_t: &Matrix3<f64>,
    singular_values: &[f64],
    e: &[f64],
) -> DVec3 {
    let mut x = DVec3::ZERO;
    for (i, &sigma) in singular_values.iter().enumerate() {
        if !(sigma >= CENTRE_SINGULAR_EPS) || !sigma.is_finite() {
            continue;
        }
        let dot: f64 = (0..e.len()).map(|r| u(r, i) * e[r]).sum();
        x += (dot / sigma) * DVec3::new(v_t[(i, 0)], v_t[(i, 1)], v_t[(i, 2)]);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn polar_splits_rotation_and_stretch() {
        let r = DMat3::from_quat(DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7));
        let s = DMat3::from_diagonal(DVec3::new(2.0, 0.5, 1.0));
        let p = polar(r * s).unwrap();
        assert!((p.rotation - r).abs_diff_eq(DMat3::ZERO, 1e-12));
        assert!((p.stretch - s).abs_diff_eq(DMat3::ZERO, 1e-12));
    }

    #[test]
    fn polar_rejects_mirror_and_collapse() {
        assert!(polar(DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0))).is_none());
        assert!(polar(DMat3::from_diagonal(DVec3::new(0.0, 1.0, 1.0))).is_none());
    }

    #[test]
    fn centre_of_two_joints_is_their_shared_point() {
        // Joint b rotates 90° about z around the point (1, 0, 0); joint a is the identity.
        let rb = DMat3::from_rotation_z(std::f64::consts::FRAC_PI_2);
        let p = DVec3::new(1.0, 0.0, 0.0);
        let tb = p - rb * p;
        let c = least_squares_centre(&[DMat3::IDENTITY, rb], &[DVec3::ZERO, tb]);
        // Any point on the z axis through p solves it; the minimum-norm one is p itself.
        assert!((c - p).length() < 1e-12, "{c}");
    }

    #[test]
    fn centre_is_zero_without_relative_rotation() {
        let c = least_squares_centre(&[DMat3::IDENTITY; 3], &[DVec3::X, DVec3::Y, DVec3::Z]);
        assert_eq!(c, DVec3::ZERO);
    }
}
