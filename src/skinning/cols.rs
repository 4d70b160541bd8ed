//! LBS's blended columns: `Σ w_i C_i` of a set's members, applied to a vertex and its normal, per
//! vertex and in eight lanes. LBS is exactly this; DQS, SBS and continuous SBS deform sets of one
//! joint and the LBS fallback with it.

#[cfg(target_arch = "x86_64")]
use glam::Vec3;
use glam::Vec3A;

use super::arith::{unit, Arith};

/// Blends the columns of C_j of set `set`'s members (from [`super::SkinFrame::cols`]) with the
/// weights.
///
/// # Safety
/// `(set + 1) * K <= cols.len()`.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // const-size loops over columns, unrolled
pub(crate) unsafe fn blend_cols<const K: usize, M: Arith>(cols: &[[Vec3A; 4]], set: usize, w: &[f32; K]) -> [Vec3A; 4] {
    debug_assert!((set + 1) * K <= cols.len());
    let c = cols.as_ptr().add(set * K);
    if K == 1 {
        let col = &*c;
        return [col[0] * w[0], col[1] * w[0], col[2] * w[0], col[3] * w[0]];
    }
    let mut acc = [[Vec3A::ZERO; 4]; K];
    for m in 0..K / 2 {
        let (c0, c1) = (&*c.add(2 * m), &*c.add(2 * m + 1));
        let (w0, w1) = (w[2 * m], Vec3A::splat(w[2 * m + 1]));
        for j in 0..4 {
            acc[m][j] = M::madd3(c1[j], w1, c0[j] * w0);
        }
    }
    let mut width = K / 2;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            for j in 0..4 {
                acc[i][j] += acc[i + width][j];
            }
        }
    }
    acc[0]
}

/// LBS of one vertex given its blended columns.
#[inline(always)]
pub(crate) fn apply_cols<M: Arith>(m: &[Vec3A; 4], v: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
    let p =
        M::madd3(m[0], Vec3A::splat(v.x), M::madd3(m[1], Vec3A::splat(v.y), M::madd3(m[2], Vec3A::splat(v.z), m[3])));
    let q = M::madd3(m[0], Vec3A::splat(n.x), M::madd3(m[1], Vec3A::splat(n.y), m[2] * n.z));
    (p, unit(q))
}

/// [`apply_cols`] in lanes (eight or sixteen), rounded alike: the blended columns `m` applied to
/// the positions `p` into `op` and, with `NORMALS`, to the normals `n`, normalised, into `on`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn apply_lanes<F: super::lanes::Lane, const NORMALS: bool>(
    m: &[super::lanes::V<F>; 4],
    p: &[Vec3],
    n: &[Vec3],
    op: &mut [Vec3],
    on: &mut [Vec3],
) {
    use super::lanes::V;
    // As `apply_cols`: m0 x + (m1 y + (m2 z + m3)), m0 x + (m1 y + m2 z).
    let v = V::<F>::load(p);
    m[0].scale(v.x).add(m[1].scale(v.y).add(m[2].scale(v.z).add(m[3]))).store(op);
    if NORMALS {
        let nv = V::<F>::load(n);
        m[0].scale(nv.x).add(m[1].scale(nv.y).add(m[2].scale(nv.z))).unit().store(on);
    }
}

/// LBS of eight vertices sharing one set (its `K` members' columns `cols`) in the lanes of
/// 256-bit registers, rounded exactly as [`blend_cols`] and [`apply_cols`] round.
///
/// # Safety
/// The CPU must have AVX2 and FMA; `cols` holds `K` entries, `w` `8 K`, the others eight.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma")]
pub(crate) unsafe fn lanes_cols<const K: usize, const NORMALS: bool>(
    cols: &[[Vec3A; 4]],
    w: &[f32],
    p: &[Vec3],
    n: &[Vec3],
    op: &mut [Vec3],
    on: &mut [Vec3],
) {
    use super::lanes::{blend_cols, weights};
    apply_lanes::<_, NORMALS>(&blend_cols::<K, _>(cols, &weights::<K>(w)), p, n, op, on);
}
