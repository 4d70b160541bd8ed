//! Dense f64 linear algebra through nalgebra: polar decomposition of joint matrices and the
//! least-squares centre of rotation of the SBS paper (section 4). The only module that uses nalgebra.

use glam::{DMat3, DVec3};
use nalgebra::Matrix3;

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
///
/// Allocation-free for any number of joints: the stacked system is reduced row by row to a 3x3
/// triangle `R` by Givens rotations (`D = Q R`, an orthogonal change of basis that keeps the
/// singular values and the least-squares solution), then `R` is decomposed by SVD.
#[must_use]
pub fn least_squares_centre(rotations: &[DMat3], translations: &[DVec3]) -> DVec3 {
    let n = rotations.len().min(translations.len());
    if n < 2 {
        return DVec3::ZERO;
    }
    let mut tri = [[0.0f64; 3]; 3];
    let mut qe = [0.0f64; 3];
    for a in 0..n {
        for b in a + 1..n {
            let diff = rotations[a] - rotations[b];
            let rhs = translations[b] - translations[a];
            for r in 0..3 {
                let line = diff.row(r);
                givens_row(&mut tri, &mut qe, [line.x, line.y, line.z], rhs[r]);
            }
        }
    }
    let m =
        Matrix3::new(tri[0][0], tri[0][1], tri[0][2], tri[1][0], tri[1][1], tri[1][2], tri[2][0], tri[2][1], tri[2][2]);
    let svd = m.svd(true, true);
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return DVec3::ZERO;
    };
    pseudo_inverse_solve(|r, i| u[(r, i)], &v_t, svd.singular_values.as_slice(), &qe)
}

/// Folds one row `line · r = rhs` into the upper triangle `tri` and the rotated right-hand side.
fn givens_row(tri: &mut [[f64; 3]; 3], qe: &mut [f64; 3], mut line: [f64; 3], mut rhs: f64) {
    for c in 0..3 {
        if line[c] == 0.0 {
            continue;
        }
        // The entries are differences of rotations and of translations: no overflow to guard
        // against, so a plain square root (hypot is several times slower).
        let r = (tri[c][c] * tri[c][c] + line[c] * line[c]).sqrt();
        let (cs, sn) = (tri[c][c] / r, line[c] / r);
        for k in c..3 {
            let (a, b) = (tri[c][k], line[k]);
            tri[c][k] = cs * a + sn * b;
            line[k] = cs * b - sn * a;
        }
        let (a, b) = (qe[c], rhs);
        qe[c] = cs * a + sn * b;
        rhs = cs * b - sn * a;
    }
}

/// The same centre for a set of exactly two joints, in closed form from their unit quaternions
/// `qa`, `qb` and translations: with `R_rel = R_aᵀ R_b` (quaternion `(v, w) = q_a* q_b`, turning by
/// θ about `v/|v|`) the system is `(I − R_rel) r = R_aᵀ (t_b − t_a)`, whose non-zero singular values
/// are both `2 sin(θ/2) = 2|v|`, and whose minimum-norm solution is
/// `½ (d⊥ + w (v × d) / |v|²)` with `d⊥` the part of `d` orthogonal to `v`.
#[must_use]
pub fn two_joint_centre(qa: glam::DQuat, ta: DVec3, qb: glam::DQuat, tb: DVec3) -> DVec3 {
    let rel = qa.conjugate() * qb;
    let v = DVec3::new(rel.x, rel.y, rel.z);
    let vv = v.length_squared();
    if !(2.0 * vv.sqrt() >= CENTRE_SINGULAR_EPS) {
        return DVec3::ZERO;
    }
    let d = qa.conjugate() * (tb - ta);
    let d_perp = d - (v.dot(d) / vv) * v;
    0.5 * (d_perp + (rel.w / vv) * v.cross(d))
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

    /// The reference: the stacked system's SVD pseudo-inverse through a dynamic matrix.
    fn dense_centre(rotations: &[DMat3], translations: &[DVec3]) -> DVec3 {
        let n = rotations.len();
        let rows = 3 * n * (n - 1) / 2;
        let mut d = nalgebra::DMatrix::<f64>::zeros(rows, 3);
        let mut e = nalgebra::DMatrix::<f64>::zeros(rows, 1);
        let mut row = 0;
        for a in 0..n {
            for b in a + 1..n {
                let diff = rotations[a] - rotations[b];
                let rhs = translations[b] - translations[a];
                for r in 0..3 {
                    for c in 0..3 {
                        d[(row + r, c)] = diff.row(r)[c];
                    }
                    e[(row + r, 0)] = rhs[r];
                }
                row += 3;
            }
        }
        let x = d.svd(true, true).solve(&e, CENTRE_SINGULAR_EPS).unwrap();
        DVec3::new(x[(0, 0)], x[(1, 0)], x[(2, 0)])
    }

    fn random_parts(seed: u64, n: usize) -> (Vec<DQuat>, Vec<DMat3>, Vec<DVec3>) {
        let mut x = seed;
        let mut next = move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let quats: Vec<DQuat> =
            (0..n).map(|_| DQuat::from_xyzw(next(), next(), next(), next() + 1.5).normalize()).collect();
        let rots = quats.iter().map(|&q| DMat3::from_quat(q)).collect();
        let ts = (0..n).map(|_| DVec3::new(next(), next(), next()) * 3.0).collect();
        (quats, rots, ts)
    }

    #[test]
    fn streaming_solve_matches_the_dense_svd() {
        for n in 2..=9 {
            for seed in 0..20 {
                let (_, rots, ts) = random_parts(seed * 31 + n as u64, n);
                let fast = least_squares_centre(&rots, &ts);
                let dense = dense_centre(&rots, &ts);
                assert!((fast - dense).length() <= 1e-9 * (1.0 + dense.length()), "n {n} seed {seed}: {fast} {dense}");
            }
        }
    }

    #[test]
    fn two_joint_closed_form_matches_the_svd() {
        for seed in 0..200 {
            let (quats, rots, ts) = random_parts(seed, 2);
            let fast = two_joint_centre(quats[0], ts[0], quats[1], ts[1]);
            let dense = dense_centre(&rots, &ts);
            assert!((fast - dense).length() <= 1e-9 * (1.0 + dense.length()), "seed {seed}: {fast} {dense}");
        }
        // No relative rotation: r_c = 0.
        let q = DQuat::from_rotation_y(0.3);
        assert_eq!(two_joint_centre(q, DVec3::X, q, DVec3::Y), DVec3::ZERO);
    }

    #[test]
    fn centre_is_zero_without_relative_rotation() {
        let c = least_squares_centre(&[DMat3::IDENTITY; 3], &[DVec3::X, DVec3::Y, DVec3::Z]);
        assert_eq!(c, DVec3::ZERO);
    }
}
