//! Linear blend skinning (spec "lbs"): v' = Σ w_i C_i v, n' = normalise((Σ w_i A_i) n).
//! Per vertex: blend the members' columns of C_i with the weights, apply to v and n.

use glam::{Vec3, Vec3A};

use super::arith::{unit, Arith, Plain};
use super::frame::{SkinFrame, SET_EMPTY};
use super::vertex_pass::{self, VertexKernel};
use super::DeformedPrimitive;
use crate::model::Influences;

/// Blends the columns of C_j of set `set`'s members (from [`SkinFrame::cols`]) with the weights.
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

/// Primitives with normals take the mixed groups of eight in the AVX2+FMA pass once the frame
/// deforms this many skinned vertices (every instance; or the primitive alone has them), else the
/// lane-order windows. The windows' shared-set lanes cost less
/// while the primitive stays in cache (densified CesiumMan, 2 threads: 0.133 against 0.165 ms at
/// 60k vertices, 0.35 against 0.38 at 150k) and far more once it streams from memory (1.6 against
/// 0.98 ms at 400k, 5.6 against 2.9 at 1M). Without normals LBS goes one vertex at a time: a
/// blend and three multiply-adds, cheaper than the transposes into lanes (1M-vertex Fox: 1.65
/// against 2.26 ms).
pub const MIXED_FROM: usize = 256 * 1024;

/// The LBS kernel over one prepared frame (its tables as slices, so that they stay in registers).
#[derive(Clone, Copy)]
struct Lbs<'a> {
    flags: &'a [u8],
    cols: &'a [[Vec3A; 4]],
    /// The largest valid set id.
    last: u32,
}

impl<const K: usize> VertexKernel<K> for Lbs<'_> {
    #[inline(always)]
    fn vertex<M: Arith>(&self, word: u32, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        let (set, _) = vertex_pass::locate::<K>(word, self.last);
        // Separate multiplies and adds even where FMA exists: the blend is all multiply-adds, and
        // fused ones would queue on the two FMA pipes while the adders idle (llvm-mca, znver3:
        // 15.5 against 21.5 cycles per vertex at K = 4).
        // SAFETY: `set <= last`, and `pass` verified the tables hold `last + 1` sets.
        unsafe {
            if *self.flags.get_unchecked(set) & SET_EMPTY != 0 {
                return (p, n);
            }
            apply_cols::<Plain>(&blend_cols::<K, Plain>(self.cols, set, w), p, n)
        }
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn lanes<const NORMALS: bool>(&self, word: u32, w: &[f32], g: vertex_pass::Eight<'_>) -> bool {
        self.lanes_impl::<K, NORMALS>(word, w, g.p, g.n, g.op, g.on)
    }

    const MIXED_FROM: usize = MIXED_FROM;
    // In joint-set order nearly every group of eight is a run: 1M-vertex Fox (no normals), LBS
    // 1.72–1.86 → 1.16–1.20 ms on 2 threads against one vertex at a time.
    const MIXED_WITHOUT_NORMALS: bool = true;

    #[cfg(target_arch = "x86_64")]
    unsafe fn mixed<const NORMALS: bool>(
        &self,
        words: &[u32],
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) {
        self.mixed_impl::<K, NORMALS>(words, w, p, n, op, on);
    }
}

impl Lbs<'_> {
    /// See [`VertexKernel::lanes`].
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    unsafe fn lanes_impl<const K: usize, const NORMALS: bool>(
        &self,
        word: u32,
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) -> bool {
        let (set, _) = vertex_pass::locate::<K>(word, self.last);
        if self.flags[set] & SET_EMPTY != 0 {
            return false;
        }
        lanes_cols::<K, NORMALS>(&self.cols[set * K..set * K + K], w, p, n, op, on);
        true
    }

    /// See [`VertexKernel::mixed`]: each vertex's columns blended on its own, then applied in
    /// eight lanes.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn mixed_impl<const K: usize, const NORMALS: bool>(
        &self,
        words: &[u32],
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) {
        use super::lanes::V8;
        use super::vertex_pass::{as_array, mixed_alone};
        let mut cols = [[Vec3A::ZERO; 8]; 4];
        let mut alone = 0u32;
        for (l, &word) in words[..8].iter().enumerate() {
            let (set, _) = vertex_pass::locate::<K>(word, self.last);
            // SAFETY: `set <= last`, and `pass` verified the tables hold `last + 1` sets.
            alone |= u32::from(*self.flags.get_unchecked(set) & SET_EMPTY != 0) << l;
            let m = blend_cols::<K, Plain>(self.cols, set, as_array::<K>(&w[l * K..(l + 1) * K]));
            for (c, mj) in cols.iter_mut().zip(m) {
                c[l] = mj;
            }
        }
        apply8::<NORMALS>(&cols.map(|c| V8::from_lanes(&c)), p, n, op, on);
        mixed_alone::<K, Self, NORMALS>(self, alone, words, w, p, n, op, on);
    }
}

/// [`apply_cols`] in eight lanes, rounded alike: the blended columns `m` applied to the eight
/// positions `p` into `op` and, with `NORMALS`, to the normals `n`, normalised, into `on`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn apply8<const NORMALS: bool>(m: &[super::lanes::V8; 4], p: &[Vec3], n: &[Vec3], op: &mut [Vec3], on: &mut [Vec3]) {
    use super::lanes::V8;
    // As `apply_cols`: m0 x + (m1 y + (m2 z + m3)), m0 x + (m1 y + m2 z).
    let v = V8::load(p);
    m[0].scale(v.x).add(m[1].scale(v.y).add(m[2].scale(v.z).add(m[3]))).store(op);
    if NORMALS {
        let nv = V8::load(n);
        m[0].scale(nv.x).add(m[1].scale(nv.y).add(m[2].scale(nv.z))).unit().store(on);
    }
}

/// LBS of eight vertices sharing one set (its `K` members' columns `cols`) in the lanes of
/// 256-bit registers, rounded exactly as [`blend_cols`] and [`apply_cols`] round (also DQS's and
/// SBS's path for one-joint sets and the LBS fallback).
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
    apply8::<NORMALS>(&blend_cols::<K>(cols, &weights::<K>(w)), p, n, op, on);
}

fn pass<const K: usize>(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    let sets = frame.flags.len();
    if sets == 0 || frame.slots != K || frame.cols.len() < sets * K {
        super::rest_copy(positions, normals, out);
        return;
    }
    let kernel = Lbs { flags: &frame.flags, cols: &frame.cols, last: sets as u32 - 1 };
    vertex_pass::run::<K, _>(&kernel, inf, positions, normals, out, frame);
}

/// Deforms one primitive by LBS into `out` (its rest shape if `frame` was not prepared for the
/// primitive's skin).
pub fn lbs(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    super::dispatch_slots!(inf.slots(), pass, frame, inf, positions, normals, out);
}
