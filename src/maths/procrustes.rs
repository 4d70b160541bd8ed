//! The rotation of a weighted orthogonal Procrustes problem (Kabsch): the proper rotation `R`
//! that maximises `tr(Rᵀ H)` for a cross-covariance `H = Σ c (z − z̄)(u − ū)ᵀ`, so that `R u + t`
//! fits the points `z` best in the weighted least-squares sense. Used by `emulate`'s helper fit.

use glam::DMat3;
use nalgebra::Matrix3;

/// The rotation nearest to `h` in the Procrustes sense: `U diag(1, 1, det(U Vᵀ)) Vᵀ` from the SVD
/// `H = U Σ Vᵀ` (a reflection is never returned). `None` when `h` is not finite or the SVD fails.
#[must_use]
pub fn procrustes_rotation(h: DMat3) -> Option<DMat3> {
    if !h.to_cols_array().iter().all(|v| v.is_finite()) {
        return None;
    }
    let svd = Matrix3::from_column_slice(&h.to_cols_array()).svd(true, true);
    let (u, v_t) = (svd.u?, svd.v_t?);
    let d = (u * v_t).determinant().signum();
    let fix = Matrix3::from_diagonal(&nalgebra::Vector3::new(1.0, 1.0, if d == 0.0 { 1.0 } else { d }));
    let r = u * fix * v_t;
    let mut cols = [0.0; 9];
    cols.copy_from_slice(r.as_slice());
    Some(DMat3::from_cols_array(&cols))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    #[test]
    fn recovers_a_rotation_and_never_reflects() {
        let r = DMat3::from_quat(DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 1.1));
        let pts = [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(-1.0, 0.5, 0.2)];
        let mut h = DMat3::ZERO;
        for p in pts {
            h += DMat3::from_cols(r * p * p.x, r * p * p.y, r * p * p.z);
        }
        let got = procrustes_rotation(h).unwrap();
        assert!(got.abs_diff_eq(r, 1e-9));
        let mirror = procrustes_rotation(DMat3::from_diagonal(DVec3::new(1.0, 1.0, -1.0))).unwrap();
        assert!((mirror.determinant() - 1.0).abs() < 1e-9);
    }
}
