//! Dense f64 linear algebra through nalgebra: polar decomposition of joint matrices and the
//! least-squares centre of rotation of the SBS paper (section 4). The only module that uses nalgebra.
//! Also the geometry and statistics every layer shares: closest points on triangles
//! (`triangle`), a hash grid of points (`point_grid`), the median of samples (`median`) and
//! disjoint sets for connected parts (`disjoint_sets`).
//!
//! In detail: polar decomposition (SVD, and `polar_newton.rs`: Newton–Schulz / scaled Newton for the
//! per-frame joint parts), least-squares centre (`centre_sums.rs`: normal equations from per-joint
//! sums, n²I − SᵀS, where well conditioned; else Givens QR + 3x3 SVD, the truncated pseudo-inverse),
//! `triangle.rs` (closest point of a triangle: BVH, transfer, mirror).
//!
//! Invariants: the only `nalgebra` user.

mod centre_sums;
mod disjoint_sets;
mod median;
pub mod point_grid;
mod polar_newton;
mod procrustes;
pub mod triangle;

pub use centre_sums::{CentreSums, NORMAL_EQUATIONS_MIN_SINGULAR};
pub use disjoint_sets::DisjointSets;
pub use median::median;
pub use polar_newton::polar_newton;
pub use procrustes::procrustes_rotation;

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
    if !det.is_finite() || det <= 0.0 {
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
/// Well-conditioned systems are solved by their normal equations built from per-joint sums
/// ([`CentreSums`]); the others by [`truncated_centre`].
#[must_use]
pub fn least_squares_centre(rotations: &[DMat3], translations: &[DVec3]) -> DVec3 {
    let n = rotations.len().min(translations.len());
    if n < 2 {
        return DVec3::ZERO;
    }
    let mut sums = CentreSums::new();
    for (r, &t) in rotations.iter().zip(translations).take(n) {
        sums.add(r, t, r.transpose() * t);
    }
    sums.solve().unwrap_or_else(|| truncated_centre(&rotations[..n], &translations[..n]))
}

/// The spec's truncated pseudo-inverse solution of the centre system, for any conditioning: the
/// stacked `3·n(n−1)/2 × 3` system is reduced to an upper-triangular `R` (with `Qᵀe`) by Givens
/// rotations, one row at a time (the same singular values and least-squares solution, no
/// allocation for any set size), then solved directly where `R` is certainly far from singular,
/// else by a 3x3 SVD with singular values below [`CENTRE_SINGULAR_EPS`] dropped (nalgebra's
/// general SVD of tall matrices mis-factors some inputs, e.g. ones with zero rows).
#[must_use]
pub fn truncated_centre(rotations: &[DMat3], translations: &[DVec3]) -> DVec3 {
    let n = rotations.len().min(translations.len());
    let mut r = [[0.0f64; 3]; 3];
    let mut y = [0.0f64; 3];
    for a in 0..n {
        for b in a + 1..n {
            let diff = rotations[a] - rotations[b];
            let rhs = translations[b] - translations[a];
            for row in 0..3 {
                let line = diff.row(row);
                givens_absorb(&mut r, &mut y, [line.x, line.y, line.z], rhs[row]);
            }
        }
    }
    if let Some(x) = well_conditioned_solve(&r, &y) {
        return x;
    }
    let m = Matrix3::new(r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2], r[2][0], r[2][1], r[2][2]);
    let svd = m.svd(true, true);
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return DVec3::ZERO;
    };
    let mut x = DVec3::ZERO;
    for (i, &sigma) in svd.singular_values.iter().enumerate() {
        if !sigma.is_finite() || sigma < CENTRE_SINGULAR_EPS {
            continue;
        }
        let dot = u[(0, i)] * y[0] + u[(1, i)] * y[1] + u[(2, i)] * y[2];
        x += (dot / sigma) * DVec3::new(v_t[(i, 0)], v_t[(i, 1)], v_t[(i, 2)]);
    }
    x
}

/// The singular values, largest first, of the stacked centre system `(R_a − R_b)` over all pairs
/// `a < b` of `rotations` (the matrix [`least_squares_centre`] inverts): reduced to its 3x3 triangle
/// by the same Givens rotations, then a 3x3 SVD. Zero for fewer than two rotations. A two-joint
/// system always has a zero third value (its relative rotation axis is a null direction).
#[must_use]
pub fn centre_system_singular_values(rotations: &[DMat3]) -> [f64; 3] {
    let mut r = [[0.0f64; 3]; 3];
    let mut y = [0.0f64; 3];
    for a in 0..rotations.len() {
        for b in a + 1..rotations.len() {
            let diff = rotations[a] - rotations[b];
            for row in 0..3 {
                let line = diff.row(row);
                givens_absorb(&mut r, &mut y, [line.x, line.y, line.z], 0.0);
            }
        }
    }
    let m = Matrix3::new(r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2], r[2][0], r[2][1], r[2][2]);
    let mut values = [0.0; 3];
    for (v, s) in values.iter_mut().zip(m.singular_values().iter()) {
        *v = if s.is_finite() { *s } else { 0.0 };
    }
    values.sort_by(|a, b| b.total_cmp(a));
    values
}

/// A smallest singular value of the triangle at least this far above [`CENTRE_SINGULAR_EPS`]
/// lets [`least_squares_centre`] skip the SVD.
const WELL_CONDITIONED: f64 = 1e3 * CENTRE_SINGULAR_EPS;

/// `R⁻¹ y` when the upper triangle `R` certainly has no singular value below the truncation
/// threshold (then the pseudo-inverse drops nothing and is the inverse): `σ_min(R) = 1/‖R⁻¹‖₂ ≥
/// 1/‖R⁻¹‖_F`, and the test asks 1/‖R⁻¹‖_F to clear the threshold by a factor of 1000. `None`
/// otherwise (the SVD decides).
fn well_conditioned_solve(r: &[[f64; 3]; 3], y: &[f64; 3]) -> Option<DVec3> {
    let (d0, d1, d2) = (r[0][0], r[1][1], r[2][2]);
    if d0 == 0.0 || d1 == 0.0 || d2 == 0.0 {
        return None;
    }
    let (i0, i1, i2) = (1.0 / d0, 1.0 / d1, 1.0 / d2);
    let i01 = -r[0][1] * i0 * i1;
    let i12 = -r[1][2] * i1 * i2;
    let i02 = (r[0][1] * r[1][2] - r[0][2] * d1) * i0 * i1 * i2;
    let frobenius2 = i0 * i0 + i1 * i1 + i2 * i2 + i01 * i01 + i12 * i12 + i02 * i02;
    if !(frobenius2.is_finite() && frobenius2 * WELL_CONDITIONED * WELL_CONDITIONED <= 1.0) {
        return None;
    }
    Some(DVec3::new(i0 * y[0] + i01 * y[1] + i02 * y[2], i1 * y[1] + i12 * y[2], i2 * y[2]))
}

/// The same centre for a set of exactly two joints, in closed form from their unit quaternions
/// `qa`, `qb` and translations: with `R_rel = R_aᵀ R_b` (quaternion `(v, w) = q_a* q_b`, turning by
/// θ about `v/|v|`) the system is `(I − R_rel) r = R_aᵀ (t_b − t_a)`, whose non-zero singular values
/// are both `2 sin(θ/2) = 2|v|`, and whose minimum-norm solution is
/// `½ (d⊥ + w (v × d) / |v|²)` with `d⊥` the part of `d` orthogonal to `v`.
#[must_use]
#[inline]
pub fn two_joint_centre(qa: glam::DQuat, ta: DVec3, qb: glam::DQuat, tb: DVec3) -> DVec3 {
    let rel = qa.conjugate() * qb;
    let v = DVec3::new(rel.x, rel.y, rel.z);
    let vv = v.length_squared();
    let sine2 = 2.0 * vv.sqrt();
    if sine2.is_nan() || sine2 < CENTRE_SINGULAR_EPS {
        return DVec3::ZERO;
    }
    let d = qa.conjugate() * (tb - ta);
    let d_perp = d - (v.dot(d) / vv) * v;
    0.5 * (d_perp + (rel.w / vv) * v.cross(d))
}

/// Folds one equation `row · x = rhs` into the triangular factor `r` (and `y = Qᵀe`) by Givens
/// rotations, as a QR factorisation of the stacked system would.
fn givens_absorb(r: &mut [[f64; 3]; 3], y: &mut [f64; 3], mut row: [f64; 3], mut rhs: f64) {
    for k in 0..3 {
        if row[k] == 0.0 {
            continue;
        }
        // The entries are differences of rotations and of translations: no overflow to guard
        // against, so a plain square root (hypot is several times slower), and one division.
        let inv_h = 1.0 / (r[k][k] * r[k][k] + row[k] * row[k]).sqrt();
        let (c, s) = (r[k][k] * inv_h, row[k] * inv_h);
        for j in k..3 {
            let (top, bottom) = (r[k][j], row[j]);
            r[k][j] = c * top + s * bottom;
            row[j] = c * bottom - s * top;
        }
        let (top, bottom) = (y[k], rhs);
        y[k] = c * top + s * bottom;
        rhs = c * bottom - s * top;
    }
}

/// Solves `A x = b` for a symmetric positive definite `n × n` matrix `A` (row-major) by
/// Cholesky; `None` when `A` is not positive definite or the sizes do not match.
#[must_use]
pub fn solve_spd(a: &[f64], b: &[f64], n: usize) -> Option<Vec<f64>> {
    if a.len() != n * n || b.len() != n {
        return None;
    }
    let m = nalgebra::DMatrix::from_row_slice(n, n, a);
    let x = m.cholesky()?.solve(&nalgebra::DVector::from_column_slice(b));
    x.iter().all(|v| v.is_finite()).then(|| x.iter().copied().collect())
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

    /// Where the normal equations refuse (nearly one rotation axis, equal rotations), the
    /// truncated pseudo-inverse still equals the dense SVD's.
    #[test]
    fn near_singular_systems_match_the_dense_svd() {
        for (i, tilt) in [0.0, 1e-9, 1e-7, 1e-5, 1e-3].into_iter().enumerate() {
            let axis = |e: f64| DVec3::new(e, 0.2 * e, 1.0).normalize();
            let rots = [
                DMat3::IDENTITY,
                DMat3::from_axis_angle(axis(0.0), 0.5),
                DMat3::from_axis_angle(axis(tilt), 1.1),
                DMat3::from_axis_angle(axis(-tilt), 0.2),
            ];
            let ts = [DVec3::ZERO, DVec3::new(0.3, -0.1, 0.5), DVec3::new(-0.2, 0.4, 0.1), DVec3::new(1.0, 0.2, -0.3)];
            let got = least_squares_centre(&rots, &ts);
            let dense = dense_centre(&rots, &ts);
            assert!((got - dense).length() <= 1e-7 * (1.0 + dense.length()), "case {i}: {got} {dense}");
        }
        let r = DMat3::from_rotation_y(0.3);
        assert_eq!(least_squares_centre(&[r; 4], &[DVec3::X, DVec3::Y, DVec3::Z, DVec3::ONE]), DVec3::ZERO);
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
    /// The reference for full-rank sets: the normal equations `Σ DᵀD r = Σ Dᵀe` over every pair
    /// `a < b` (`D = R_a − R_b`, `e = t_b − t_a`), summed pair by pair and inverted.
    pub(super) fn pairwise_normal_solution(rs: &[DMat3], ts: &[DVec3]) -> DVec3 {
        let mut dtd = DMat3::ZERO;
        let mut dte = DVec3::ZERO;
        for a in 0..rs.len() {
            for b in a + 1..rs.len() {
                let d = rs[a] - rs[b];
                dtd += d.transpose() * d;
                dte += d.transpose() * (ts[b] - ts[a]);
            }
        }
        dtd.inverse() * dte
    }

    /// The fixed-size (≤ 4 joints) and dynamic (> 4 joints) paths both give the normal-equation
    /// solution on full-rank systems (two joints are always rank-deficient: their relative axis).
    #[test]
    fn centre_matches_normal_equations_for_every_set_size() {
        for n in 3..=7 {
            let rs: Vec<DMat3> = (0..n)
                .map(|i| {
                    let axis = DVec3::new(1.0 + i as f64, 0.5 * i as f64 - 1.0, 0.3).normalize();
                    DMat3::from_quat(DQuat::from_axis_angle(axis, 0.2 + 0.37 * i as f64))
                })
                .collect();
            let ts: Vec<DVec3> = (0..n).map(|i| DVec3::new(i as f64, (i * i) as f64 * 0.1, -0.5 * i as f64)).collect();
            let expect = pairwise_normal_solution(&rs, &ts);
            let got = least_squares_centre(&rs, &ts);
            assert!((got - expect).length() < 1e-6 * expect.length().max(1.0), "n = {n}: {got} vs {expect}");
        }
    }

    /// A three-joint system from a posed Character_HumanoidRig (two joints 0.2° apart) on which
    /// nalgebra's SVD of the zero-padded stacked matrix mis-factored (reconstruction error 0.06).
    #[test]
    fn centre_of_a_nearly_degenerate_real_set_matches_normal_equations() {
        let rs: Vec<DMat3> = RS_DATA.iter().map(DMat3::from_cols_array).collect();
        let ts: Vec<DVec3> = TS_DATA.iter().map(|t| DVec3::from_array(*t)).collect();
        let expect = pairwise_normal_solution(&rs, &ts);
        let got = least_squares_centre(&rs, &ts);
        assert!((got - expect).length() < 1e-6 * expect.length(), "{got} vs {expect}");
    }

    const RS_DATA: [[f64; 9]; 3] = [
        [
            -0.3468520574433279,
            -0.8598145848165144,
            -0.3747165995577668,
            -0.7052515192711408,
            -0.024289108512277946,
            0.7085409894800918,
            -0.6183154088433176,
            0.5100283511183319,
            -0.5979608149723835,
        ],
        [
            -0.3473969644800275,
            -0.8600364226558641,
            -0.3737013523863224,
            -0.7068480737035083,
            -0.021699224239443926,
            0.7070324917350304,
            -0.6161827243372717,
            0.5097710224921677,
            -0.6003768440367996,
        ],
        [
            0.4286455089186926,
            -0.7215360267440077,
            -0.5437359559513292,
            0.04842919676845764,
            -0.5826136971148536,
            0.8113050553488028,
            -0.9021738416647853,
            -0.3740949639391477,
            -0.21479133448808085,
        ],
    ];
    const TS_DATA: [[f64; 3]; 3] = [
        [0.9853731695519276, 0.23204485114179763, -0.021623210722226727],
        [0.9854208753587417, 0.273988347102021, -0.04957668162984552],
        [2.377628704853442, 1.6874776405390661, -0.7614563358539017],
    ];

    #[test]
    fn singular_values_match_the_dense_svd() {
        for n in 2..=6 {
            let (_, rots, _) = random_parts(7 * n as u64, n);
            let rows = 3 * n * (n - 1) / 2;
            let mut d = nalgebra::DMatrix::<f64>::zeros(rows, 3);
            let mut row = 0;
            for a in 0..n {
                for b in a + 1..n {
                    let diff = rots[a] - rots[b];
                    for r in 0..3 {
                        for c in 0..3 {
                            d[(row + r, c)] = diff.row(r)[c];
                        }
                    }
                    row += 3;
                }
            }
            let mut dense: Vec<f64> = d.singular_values().iter().copied().collect();
            dense.sort_by(|a, b| b.total_cmp(a));
            let fast = centre_system_singular_values(&rots);
            for k in 0..3 {
                assert!((fast[k] - dense[k]).abs() < 1e-9, "n {n}: {fast:?} vs {dense:?}");
            }
            if n == 2 {
                assert!(fast[2] < 1e-9, "two joints leave their relative axis free: {fast:?}");
            }
        }
        assert_eq!(centre_system_singular_values(&[DMat3::IDENTITY; 3]), [0.0; 3]);
    }

    #[test]
    fn centre_is_zero_without_relative_rotation() {
        let c = least_squares_centre(&[DMat3::IDENTITY; 3], &[DVec3::X, DVec3::Y, DVec3::Z]);
        assert_eq!(c, DVec3::ZERO);
    }

    #[test]
    fn solve_spd_solves_and_refuses_indefinite() {
        let x = solve_spd(&[4.0, 1.0, 1.0, 3.0], &[1.0, 2.0], 2).unwrap();
        assert!((4.0 * x[0] + x[1] - 1.0).abs() < 1e-12 && (x[0] + 3.0 * x[1] - 2.0).abs() < 1e-12);
        assert!(solve_spd(&[1.0, 2.0, 2.0, 1.0], &[1.0, 1.0], 2).is_none());
        assert!(solve_spd(&[1.0], &[1.0, 2.0], 2).is_none());
    }
}
