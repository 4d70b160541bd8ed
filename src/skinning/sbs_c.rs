//! Continuous spherical blend skinning (`sbs-c`, skinlab's own; definition and properties in
//! `docs/sbs-c.md`). SBS's centre r_c depends on which joints have non-zero weight, so a weight
//! painted down to zero makes the vertex jump. Here each vertex gets its own centre
//!
//! ```text
//! c(v) = argmin_r Σ_{a<b} w_a w_b |(R_a − R_b) r − (t_b − t_a)|² + λ |r − v_s|²,   λ = 1e-6,
//! ```
//!
//! a rational function of the weights with a denominator of at least λ³, so it is continuous in
//! them, and v' = Q (v_s − c) + Σ w_i D_i c with SBS's QLERP rotation Q. Per set and pose the frame
//! holds each slot pair's normal equations (`SkinFrame::pairs`) and each member's rigid part
//! (`SkinFrame::rigid`, `SkinFrame::rigid_cols`); per vertex this is a weighted sum of pair tables
//! and a 3x3 LDLᵀ solve in f64, then, with d = c − v_s, v' = Σ w_i (R_i v_s + t_i) + (Σ w_i R_i − Q) d
//! in f32 (the formula rearranged, exact in real arithmetic) unless c lies far from the vertex.

use glam::{DQuat, DVec3, DVec4, Vec3, Vec3A};

use super::arith::{blend, inverse_length, recip, unit, Arith, Plain};
use super::cols::blend_cols;
use super::frame::{SkinFrame, SET_EMPTY, SET_LBS_FALLBACK, SET_ONE_JOINT, SET_STRETCH, SET_UNIFORM_STRETCH};
#[cfg(target_arch = "x86_64")]
use super::kernel::Eight;
use super::kernel::{Method, Sets, VertexKernel};
use super::stretch::Stretches;
use super::DeformedPrimitive;
use crate::model::Influences;

/// The Tikhonov weight λ pulling each vertex's centre toward its own rest position (dimensionless:
/// the pair terms are differences of rotations).
pub const TIKHONOV: f64 = 1e-6;

/// The continuous centre of a vertex: `pairs` its set's `K (K − 1) / 2` pair tables (slot pairs
/// `a < b` in order), `len` the set's joints (the slots after them are padding, of weight zero),
/// `w` its weights, `vs` its (stretched) rest position. Solves
/// `(Σ w_a w_b DᵀD + λI) c = Σ w_a w_b Dᵀe + λ vs` (symmetric positive definite).
#[inline(always)]
fn continuous_centre<const K: usize, M: Arith>(pairs: &[[f64; 9]], len: usize, w: &[f32; K], vs: DVec3) -> DVec3 {
    let mut sums = [0.0; 9];
    for a in 0..len.min(K) {
        let wa = f64::from(w[a]);
        let first = pair_index::<K>(a, a + 1);
        for c in a + 1..len.min(K) {
            let ww = wa * f64::from(w[c]);
            let t = &pairs[first + c - a - 1];
            M::madd9(ww, t, &mut sums);
        }
    }
    solve_centre(&sums, vs)
}

/// Index of the slot pair `(a, b)`, `a < b < K`, among a set's pairs in order.
#[inline(always)]
const fn pair_index<const K: usize>(a: usize, b: usize) -> usize {
    a * (2 * K - a - 1) / 2 + (b - a - 1)
}

/// Solves `(M + λI) c = b + λ vs` for the summed pair terms `sums` (M's upper triangle xx, xy, xz,
/// yy, yz, zz, then b) by the adjugate (one division and a short dependency chain; the matrix is
/// at worst of condition ~4·10⁶, which f64 holds to ~10⁻¹⁰); falls back to `vs` if the result is
/// not finite. The kernel's `lanes` repeats these operations in this order.
#[inline(always)]
fn solve_centre(sums: &[f64; 9], vs: DVec3) -> DVec3 {
    let [xx, xy, xz, yy, yz, zz, bx, by, bz] = *sums;
    let (a, b, c, d, e, f) = (xx + TIKHONOV, xy, xz, yy + TIKHONOV, yz, zz + TIKHONOV);
    let r = [bx + vs.x * TIKHONOV, by + vs.y * TIKHONOV, bz + vs.z * TIKHONOV];
    let ca = d * f - e * e;
    let cb = c * e - b * f;
    let cc = b * e - c * d;
    let cd = a * f - c * c;
    let ce = b * c - a * e;
    let cf = a * d - b * b;
    let inv = 1.0 / (a * ca + b * cb + c * cc);
    let centre = DVec3::new(
        (ca * r[0] + cb * r[1] + cc * r[2]) * inv,
        (cb * r[0] + cd * r[1] + ce * r[2]) * inv,
        (cc * r[0] + ce * r[1] + cf * r[2]) * inv,
    );
    if centre.is_finite() {
        centre
    } else {
        vs
    }
}

/// A vertex's centre may lie this many skin extents from the vertex for the f32 path; beyond,
/// the `|c − v_s|`-sized terms would lose digits in f32 and the vertex is evaluated in f64.
const NEAR_CENTRE_EXTENTS: f64 = 2.0;

/// The kernel over one prepared frame.
#[derive(Clone, Copy)]
pub(crate) struct SbsC<'a> {
    frame: &'a SkinFrame,
    sets: Sets<'a>,
    /// Squared distance `|c − v_s|²` up to which the f32 path is used.
    near_sq: f64,
}

impl<'a> Method<'a> for SbsC<'a> {
    fn prepare<const K: usize>(sets: Sets<'a>, frame: &'a SkinFrame) -> Option<Self> {
        let (n, f) = (sets.len(), frame);
        let fits = f.quats.len() >= n * K * K
            && Stretches::of::<K>(f, n).is_some()
            && f.rigid.len() >= n * K
            && f.rigid_cols.len() >= n * K
            && f.set_lens.len() >= n
            && f.pairs.len() >= n * (K * (K - 1) / 2);
        let near = NEAR_CENTRE_EXTENTS * frame.skin_extent();
        fits.then_some(Self { frame, sets, near_sq: near * near })
    }
}

impl<const K: usize> VertexKernel<K> for SbsC<'_> {
    /// `v' = Q (v_s − c) + Σ w_i D_i c` rewritten with `d = c − v_s` as
    /// `Σ w_i (R_i v_s + t_i) + (Σ w_i R_i − Q) d`: the centre in f64, the rest in f32 (an LBS blend
    /// of the rigid parts plus a correction that is small where `d` is).
    #[inline(always)]
    fn vertex<M: Arith>(&self, word: u32, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        let f = self.frame;
        let (set, pivot) = self.sets.locate::<K>(word);
        // SAFETY: `set` comes from `locate`, over tables `Sets::of` checked.
        let flags = unsafe { self.sets.flags(set) };
        if flags != 0 {
            if lbs_set(flags) {
                // One joint (the vertex's centre is v_s itself: v' = C v) or the LBS fallback:
                // LBS's columns, at LBS's cost.
                // SAFETY: as above.
                return unsafe { self.sets.lbs::<K>(set, w, p, n) };
            }
            return self.exact_vertex::<K>(flags, set, pivot, w, p, n);
        }
        let pairs_per_set = K * (K - 1) / 2;
        let vs = Vec3::from(p).as_dvec3();
        let len = usize::from(f.set_lens[set]);
        let d = continuous_centre::<K, M>(&f.pairs[set * pairs_per_set..(set + 1) * pairs_per_set], len, w, vs) - vs;
        let far = d.length_squared();
        if far.is_nan() || far > self.near_sq {
            return self.exact_vertex::<K>(flags, set, pivot, w, p, n);
        }
        let d = Vec3A::from(d.as_vec3());
        // SAFETY: `set <= last` and `pivot < K`; `prepare` checked that the tables hold every set
        // (K members each, K² quaternions each).
        unsafe {
            // Blends and products with separate multiplies and adds (as LBS), rotations as SBS.
            let b = blend_cols::<K, Plain>(&f.rigid_cols, set, w);
            let s = blend::<K, _>(&f.quats, (set * K + pivot) * K, w);
            let inv_n = inverse_length(n);
            let u = Vec3A::new(s.x, s.y, s.z);
            let k = 2.0 * recip(s.length_squared());
            let (qd, qn) = M::rotate_pair(u, s.w, k, d, n);
            let lbs = b[0] * p.x + (b[1] * p.y + (b[2] * p.z + b[3]));
            let bd = b[0] * d.x + (b[1] * d.y + b[2] * d.z);
            (lbs + (bd - qd), qn * inv_n)
        }
    }

    /// The per-vertex path's operations in the same order, the centre in two registers of four f64
    /// lanes, the rest in eight f32 lanes, so that both paths give bit-identical results. Declines
    /// (returns `false`) where a lane's centre is not finite or lies far from its vertex.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    unsafe fn lanes<const NORMALS: bool>(
        &self,
        word: u32,
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) -> bool {
        use std::arch::x86_64::{
            __m256d, _mm256_add_pd, _mm256_cmp_pd, _mm256_div_pd, _mm256_fmadd_pd, _mm256_movemask_pd, _mm256_mul_pd,
            _mm256_set1_pd, _mm256_setzero_pd, _mm256_sub_pd, _CMP_LE_OQ,
        };

        use super::lanes::{blend_cols as blend_cols8, weights, F8, Q8, V8};
        let f = self.frame;
        let (set, pivot) = self.sets.locate::<K>(word);
        let flags = self.sets.flags(set);
        if flags != 0 {
            if lbs_set(flags) {
                // As the per-vertex path: LBS's eight-lane path.
                self.sets.lbs_lanes::<K, NORMALS>(set, w, Eight { p, n, op, on });
                return true;
            }
            return false;
        }
        let pairs_per_set = K * (K - 1) / 2;
        let pairs = &f.pairs[set * pairs_per_set..(set + 1) * pairs_per_set];
        let wk = weights::<K>(w);
        let (v, nv) = (V8::load(p), if NORMALS { V8::load(n) } else { V8::zero() });
        // The centre offset d = c − v_s in f64, four lanes at a time, as `continuous_centre`.
        let (add, sub, mul) = (_mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd);
        let mut d8 = [[_mm256_setzero_pd(); 2]; 3];
        let wd: [[__m256d; 2]; K] = std::array::from_fn(|m| wk[m].to_f64());
        let mut sums = [[_mm256_setzero_pd(); 9]; 2];
        let len = usize::from(f.set_lens[set]).min(K);
        for a in 0..len {
            let first = pair_index::<K>(a, a + 1);
            for c in a + 1..len {
                let ww = [mul(wd[a][0], wd[c][0]), mul(wd[a][1], wd[c][1])];
                for (i, &t) in pairs[first + c - a - 1].iter().enumerate() {
                    let t = _mm256_set1_pd(t);
                    sums[0][i] = _mm256_fmadd_pd(ww[0], t, sums[0][i]);
                    sums[1][i] = _mm256_fmadd_pd(ww[1], t, sums[1][i]);
                }
            }
        }
        let (vx, vy, vz) = (v.x.to_f64(), v.y.to_f64(), v.z.to_f64());
        for half in 0..2 {
            let sums = &sums[half];
            let vs = [vx[half], vy[half], vz[half]];
            let lambda = _mm256_set1_pd(TIKHONOV);
            let (a, b, c) = (add(sums[0], lambda), sums[1], sums[2]);
            let (d, e, f) = (add(sums[3], lambda), sums[4], add(sums[5], lambda));
            let r = [0, 1, 2].map(|i| add(sums[6 + i], mul(vs[i], lambda)));
            let ca = sub(mul(d, f), mul(e, e));
            let cb = sub(mul(c, e), mul(b, f));
            let cc = sub(mul(b, e), mul(c, d));
            let cd = sub(mul(a, f), mul(c, c));
            let ce = sub(mul(b, c), mul(a, e));
            let cf = sub(mul(a, d), mul(b, b));
            let inv = _mm256_div_pd(_mm256_set1_pd(1.0), add(add(mul(a, ca), mul(b, cb)), mul(c, cc)));
            let row = |p: __m256d, q: __m256d, s: __m256d| mul(add(add(mul(p, r[0]), mul(q, r[1])), mul(s, r[2])), inv);
            let (x, y, z) = (row(ca, cb, cc), row(cb, cd, ce), row(cc, ce, cf));
            let d = [sub(x, vs[0]), sub(y, vs[1]), sub(z, vs[2])];
            let len2 = add(add(mul(d[0], d[0]), mul(d[1], d[1])), mul(d[2], d[2]));
            // Not finite (NaN compares false) or far: the per-vertex path handles the group.
            if _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(len2, _mm256_set1_pd(self.near_sq))) != 0b1111 {
                return false;
            }
            for i in 0..3 {
                d8[i][half] = d[i];
            }
        }
        let d = V8 {
            x: F8::from_f64(d8[0][0], d8[0][1]),
            y: F8::from_f64(d8[1][0], d8[1][1]),
            z: F8::from_f64(d8[2][0], d8[2][1]),
        };
        // Blended rigid columns, rounded as `blend_cols::<K, Plain>` rounds.
        let m = blend_cols8::<K, _>(&f.rigid_cols[set * K..set * K + K], &wk);
        let row = (set * K + pivot) * K;
        let s = Q8::blend::<K>(&f.quats[row..row + K], &wk);
        let k = s.rotation_scale();
        let qd = s.rotate(k, d);
        let lbs = m[0].scale(v.x).add(m[1].scale(v.y).add(m[2].scale(v.z).add(m[3])));
        let bd = m[0].scale(d.x).add(m[1].scale(d.y).add(m[2].scale(d.z)));
        lbs.add(bd.sub(qd)).store(op);
        if NORMALS {
            s.rotate_normal(k, nv).store(on);
        }
        true
    }
}

/// Whether a set with flags takes LBS's columns: one joint (the vertex's centre is v_s itself) or
/// the LBS fallback, unless empty.
#[inline(always)]
fn lbs_set(flags: u8) -> bool {
    flags & (SET_ONE_JOINT | SET_LBS_FALLBACK) != 0 && flags & SET_EMPTY == 0
}

impl SbsC<'_> {
    /// The definition evaluated in f64 as written (empty sets keep their rest shape; sets with a
    /// degenerate joint fall back to LBS; stretched sets blend their stretches first): for the sets the
    /// f32 path does not take, and for vertices whose centre lies far from them.
    #[inline(never)]
    fn exact_vertex<const K: usize>(
        &self,
        flags: u8,
        set: usize,
        pivot: usize,
        w: &[f32; K],
        p: Vec3A,
        n: Vec3A,
    ) -> (Vec3A, Vec3A) {
        let f = self.frame;
        if flags & SET_EMPTY != 0 {
            return (p, n);
        }
        if flags & SET_LBS_FALLBACK != 0 {
            // SAFETY: `set` comes from `locate`, over tables `Sets::of` checked.
            return unsafe { self.sets.lbs::<K>(set, w, p, n) };
        }
        let (vs, ns) = if flags & SET_STRETCH != 0 {
            // SAFETY: `prepare` checked that both tables hold every set's K members.
            unsafe { Stretches::from_frame(f).apply::<K, Plain>(flags & SET_UNIFORM_STRETCH != 0, set * K, w, p, n) }
        } else {
            (p, n)
        };
        let vs = Vec3::from(vs).as_dvec3();
        let pairs_per_set = K * (K - 1) / 2;
        let len = usize::from(f.set_lens[set]);
        let centre =
            continuous_centre::<K, Plain>(&f.pairs[set * pairs_per_set..(set + 1) * pairs_per_set], len, w, vs);
        let row = (set * K + pivot) * K;
        let mut s = DVec4::ZERO;
        let mut shift = DVec3::ZERO;
        for (m, &weight) in w.iter().enumerate() {
            let wm = f64::from(weight);
            s += wm * f.quats[row + m].as_dvec4();
            let (r, t) = f.rigid[set * K + m];
            shift += wm * (r * centre + t);
        }
        let q = DQuat::from_vec4(s).normalize();
        let pos = q * (vs - centre) + shift;
        let normal = q * Vec3::from(ns).as_dvec3();
        (Vec3A::from(pos.as_vec3()), unit(Vec3A::from(normal.as_vec3())))
    }
}

/// Deforms one primitive by continuous SBS into `out`; `frame` must be prepared for
/// [`super::SkinningMethod::SbsC`] (otherwise the primitive keeps its rest shape).
pub fn sbs_c(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    super::vertex_pass::deform::<SbsC>(frame, inf, super::Rest { positions, normals, morph: None }, out);
}
