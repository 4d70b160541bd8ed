//! Eight vertices at a time in the lanes of 256-bit registers (AVX2 + FMA), for runs of
//! consecutive vertices that share one packed set word (the common case: neighbouring vertices of
//! a mesh share their joints and pivot). The member tables of the shared set are the same for all
//! eight, so each table entry is one broadcast, and the blends, rotations and normalisations are
//! done once for eight vertices instead of once per vertex.
//!
//! The vectors ([`V`]), quaternions ([`Q`]) and blends are generic over their float lanes
//! ([`Lane`]): [`F8`] here, sixteen lanes in `lanes16` for runs of sixteen on AVX-512 CPUs.
//!
//! Everything here is only reached from AVX2+FMA functions that run only on CPUs that have both
//! (checked at run time): the per-vertex pass's variant, the pick's side pass (`paint::pick`)
//! and the difference overlay's distances (`render::overlays`).

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::{
    __m128, __m256, __m256d, _mm256_add_ps, _mm256_and_ps, _mm256_blendv_ps, _mm256_castps256_ps128,
    _mm256_castsi256_ps, _mm256_cmp_ps, _mm256_cmpeq_epi32, _mm256_cvtpd_ps, _mm256_cvtps_pd, _mm256_extractf128_ps,
    _mm256_fmadd_ps, _mm256_fmsub_ps, _mm256_loadu2_m128, _mm256_loadu_ps, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_movemask_ps, _mm256_mul_ps, _mm256_rcp_ps, _mm256_rsqrt_ps, _mm256_set1_epi32, _mm256_set1_ps,
    _mm256_set_m128, _mm256_set_ps, _mm256_setzero_ps, _mm256_shuffle_ps, _mm256_sqrt_ps, _mm256_storeu2_m128,
    _mm256_storeu_ps, _mm256_sub_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps, _mm_loadu_ps, _CMP_GT_OQ, _CMP_LT_OQ,
};

use glam::{Mat3, Vec3, Vec3A, Vec4};

/// Whether this CPU has what everything here is compiled for (AVX2 and FMA): the callers'
/// run-time check before their AVX2 variants.
pub(crate) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// Vertices per lane group (`vertex_pass` groups vertices by the same count).
const LANES: usize = 8;

/// Eight `f32` lanes.
#[derive(Clone, Copy)]
pub(crate) struct F8(__m256);

/// A choice of lanes (all bits set in a chosen lane, none in the others), for [`F8::select`].
#[derive(Clone, Copy)]
pub(crate) struct Mask8(__m256);

#[allow(unused_unsafe)]
impl Mask8 {
    /// The lanes `l` where `ids[l] == id`.
    #[inline(always)]
    pub(crate) fn equal(ids: &[u32; 8], id: u32) -> Self {
        // SAFETY: AVX2, as for the whole module; `ids` holds eight contiguous u32s (unaligned load).
        Self(unsafe {
            let v = _mm256_loadu_si256(ids.as_ptr().cast());
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(v, _mm256_set1_epi32(id as i32)))
        })
    }
}

/// Whether the eight words `words` are all the same.
#[inline(always)]
pub(crate) fn all_equal(words: &[u32; LANES]) -> bool {
    // SAFETY: AVX2, as for the whole module; `words` holds eight contiguous u32s (unaligned load).
    unsafe {
        let v = _mm256_loadu_si256(words.as_ptr().cast());
        let first = _mm256_set1_epi32(words[0] as i32);
        _mm256_movemask_epi8(_mm256_cmpeq_epi32(v, first)) == -1
    }
}

// SAFETY (every `unsafe` block below): these intrinsics need AVX (and FMA for the fused ones);
// this module is used only from the AVX2+FMA variant of the pass, after run-time detection.
#[allow(unused_unsafe)]
impl F8 {
    /// The register.
    #[inline(always)]
    pub(crate) fn raw(self) -> __m256 {
        self.0
    }
    #[inline(always)]
    pub(crate) fn splat(v: f32) -> Self {
        Self(unsafe { _mm256_set1_ps(v) })
    }
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        Self(unsafe { _mm256_setzero_ps() })
    }
    /// `o` in the lanes of `mask`, `self` in the others.
    #[inline(always)]
    pub(crate) fn select(self, mask: Mask8, o: Self) -> Self {
        Self(unsafe { _mm256_blendv_ps(self.0, o.0, mask.0) })
    }
    /// Lane `l` from `v[l]`.
    #[inline(always)]
    pub(crate) fn load(v: &[f32; 8]) -> Self {
        Self(unsafe { _mm256_loadu_ps(v.as_ptr()) })
    }
    #[inline(always)]
    pub(crate) fn add(self, o: Self) -> Self {
        Self(unsafe { _mm256_add_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub(crate) fn sub(self, o: Self) -> Self {
        Self(unsafe { _mm256_sub_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub(crate) fn mul(self, o: Self) -> Self {
        Self(unsafe { _mm256_mul_ps(self.0, o.0) })
    }
    /// `self * b + c`.
    #[inline(always)]
    pub(crate) fn madd(self, b: Self, c: Self) -> Self {
        Self(unsafe { _mm256_fmadd_ps(self.0, b.0, c.0) })
    }
    /// `self * b - c`.
    #[inline(always)]
    pub(crate) fn msub(self, b: Self, c: Self) -> Self {
        Self(unsafe { _mm256_fmsub_ps(self.0, b.0, c.0) })
    }
    /// `1 / self` (estimate and one Newton step, as the scalar `recip`).
    #[inline(always)]
    pub(crate) fn recip(self) -> Self {
        let y = Self(unsafe { _mm256_rcp_ps(self.0) });
        y.mul(F8::splat(2.0).sub(self.mul(y)))
    }
    /// `1 / sqrt(self)` for positive lanes, 0 for the others (estimate and one Newton step).
    #[inline(always)]
    pub(crate) fn rsqrt_or_zero(self) -> Self {
        let y = Self(unsafe { _mm256_rsqrt_ps(self.0) });
        let r = y.mul(F8::splat(1.5).sub(F8::splat(0.5).mul(self).mul(y).mul(y)));
        let positive = unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, _mm256_setzero_ps()) };
        Self(unsafe { _mm256_and_ps(r.0, positive) })
    }
    /// The square root of each lane (IEEE, as `f32::sqrt`; the difference overlay's distances).
    #[cfg(feature = "gui")]
    #[inline(always)]
    pub(crate) fn sqrt(self) -> Self {
        Self(unsafe { _mm256_sqrt_ps(self.0) })
    }
    /// The eight lanes in order (the difference overlay's distances).
    #[cfg(feature = "gui")]
    #[inline(always)]
    pub(crate) fn to_array(self) -> [f32; 8] {
        let mut out = [0f32; 8];
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) };
        out
    }
    /// Bit `l` set where lane `l` of `self` is below (`LT`) or above (`GT`) zero and `self²`
    /// exceeds `margin` (false for NaN lanes).
    #[inline(always)]
    pub(crate) fn clear_signs(self, margin: Self) -> (u8, u8) {
        unsafe {
            let clear = _mm256_cmp_ps::<_CMP_GT_OQ>(self.mul(self).0, margin.0);
            let below = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(self.0, _mm256_setzero_ps()), clear);
            let above = _mm256_and_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(self.0, _mm256_setzero_ps()), clear);
            (_mm256_movemask_ps(below) as u8, _mm256_movemask_ps(above) as u8)
        }
    }
    /// The eight lanes widened to f64, as two registers of four (lanes 0–3, then 4–7).
    #[inline(always)]
    pub(crate) fn to_f64(self) -> [__m256d; 2] {
        unsafe {
            [_mm256_cvtps_pd(_mm256_castps256_ps128(self.0)), _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(self.0))]
        }
    }
    /// Eight lanes rounded from two f64 registers of four (lanes 0–3, then 4–7).
    #[inline(always)]
    pub(crate) fn from_f64(lo: __m256d, hi: __m256d) -> Self {
        Self(unsafe { _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)) })
    }
}

/// What the vector and quaternion lanes ([`V`], [`Q`]) need of their float lanes: eight
/// ([`F8`], 256-bit registers) or sixteen (`lanes16::F16`, 512-bit), each operation rounded alike
/// in every lane whatever the width.
pub(crate) trait Lane: Copy {
    /// The same value in every lane.
    fn splat(v: f32) -> Self;
    /// All lanes zero.
    fn zero() -> Self;
    /// `self + o`.
    fn add(self, o: Self) -> Self;
    /// `self - o`.
    fn sub(self, o: Self) -> Self;
    /// `self * o`.
    fn mul(self, o: Self) -> Self;
    /// `self * b + c`, fused.
    fn madd(self, b: Self, c: Self) -> Self;
    /// `self * b - c`, fused.
    fn msub(self, b: Self, c: Self) -> Self;
    /// `1 / self` (estimate and one Newton step, as the scalar `recip`).
    fn recip(self) -> Self;
    /// `1 / sqrt(self)` for positive lanes, 0 for the others (estimate and one Newton step).
    fn rsqrt_or_zero(self) -> Self;
    /// The first vectors of `src`, one per lane (`src` holds at least one per lane).
    fn load3(src: &[Vec3]) -> V<Self>;
    /// Writes `v`'s vectors into the first of `dst`, one per lane.
    fn store3(v: V<Self>, dst: &mut [Vec3]);
}

impl Lane for F8 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        F8::splat(v)
    }
    #[inline(always)]
    fn zero() -> Self {
        F8::zero()
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        F8::add(self, o)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        F8::sub(self, o)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        F8::mul(self, o)
    }
    #[inline(always)]
    fn madd(self, b: Self, c: Self) -> Self {
        F8::madd(self, b, c)
    }
    #[inline(always)]
    fn msub(self, b: Self, c: Self) -> Self {
        F8::msub(self, b, c)
    }
    #[inline(always)]
    fn recip(self) -> Self {
        F8::recip(self)
    }
    #[inline(always)]
    fn rsqrt_or_zero(self) -> Self {
        F8::rsqrt_or_zero(self)
    }
    /// The first eight vectors of `src` (which holds at least eight): three 256-bit loads of the
    /// 24 packed floats, de-interleaved with five shuffles (no per-float inserts).
    #[allow(unused_unsafe)]
    #[inline(always)]
    fn load3(src: &[Vec3]) -> V8 {
        let s: &[Vec3; LANES] = src[..LANES].try_into().unwrap_or_else(|_| unreachable!());
        // SAFETY: `s` holds 24 contiguous floats (`Vec3` is three `f32`, no padding); the loads
        // are unaligned.
        unsafe {
            let f = s.as_ptr().cast::<f32>();
            // x0 y0 z0 x1 | x4 y4 z4 x5,  y1 z1 x2 y2 | y5 z5 x6 y6,  z2 x3 y3 z3 | z6 x7 y7 z7
            let m03 = _mm256_loadu2_m128(f.add(12), f);
            let m14 = _mm256_loadu2_m128(f.add(16), f.add(4));
            let m25 = _mm256_loadu2_m128(f.add(20), f.add(8));
            let xy = _mm256_shuffle_ps::<0b10_01_11_10>(m14, m25); // x2 y2 x3 y3
            let yz = _mm256_shuffle_ps::<0b01_00_10_01>(m03, m14); // y0 z0 y1 z1
            V8 {
                x: F8(_mm256_shuffle_ps::<0b10_00_11_00>(m03, xy)),
                y: F8(_mm256_shuffle_ps::<0b11_01_10_00>(yz, xy)),
                z: F8(_mm256_shuffle_ps::<0b11_00_11_01>(yz, m25)),
            }
        }
    }
    /// Writes the eight vectors into the first eight of `dst`: six shuffles back to the packed
    /// layout, three 256-bit stores.
    #[allow(unused_unsafe)]
    #[inline(always)]
    fn store3(v: V8, dst: &mut [Vec3]) {
        let d: &mut [Vec3; LANES] = (&mut dst[..LANES]).try_into().unwrap_or_else(|_| unreachable!());
        // SAFETY: `d` holds 24 contiguous floats; the stores are unaligned.
        unsafe {
            let (x, y, z) = (v.x.0, v.y.0, v.z.0);
            let rxy = _mm256_shuffle_ps::<0b10_00_10_00>(x, y); // x0 x2 y0 y2
            let ryz = _mm256_shuffle_ps::<0b11_01_11_01>(y, z); // y1 y3 z1 z3
            let rzx = _mm256_shuffle_ps::<0b11_01_10_00>(z, x); // z0 z2 x1 x3
            let r03 = _mm256_shuffle_ps::<0b10_00_10_00>(rxy, rzx); // x0 y0 z0 x1
            let r14 = _mm256_shuffle_ps::<0b11_01_10_00>(ryz, rxy); // y1 z1 x2 y2
            let r25 = _mm256_shuffle_ps::<0b11_01_11_01>(rzx, ryz); // z2 x3 y3 z3
            let f = d.as_mut_ptr().cast::<f32>();
            _mm256_storeu2_m128(f.add(12), f, r03);
            _mm256_storeu2_m128(f.add(16), f.add(4), r14);
            _mm256_storeu2_m128(f.add(20), f.add(8), r25);
        }
    }
}

/// 3-vectors in lanes, one component per register.
#[derive(Clone, Copy)]
pub(crate) struct V<F> {
    pub x: F,
    pub y: F,
    pub z: F,
}

/// Eight 3-vectors.
pub(crate) type V8 = V<F8>;

#[allow(unused_unsafe)]
impl V8 {
    /// `o` in the lanes of `mask`, `self` in the others.
    #[inline(always)]
    pub(crate) fn select(self, mask: Mask8, o: Self) -> Self {
        Self { x: self.x.select(mask, o.x), y: self.y.select(mask, o.y), z: self.z.select(mask, o.z) }
    }
    /// Eight vectors, one per lane (lane `l` from `v[l]`; the fourth component is ignored).
    #[inline(always)]
    pub(crate) fn from_lanes(v: &[Vec3A; LANES]) -> Self {
        let [x, y, z, _] = transpose(v.map(Into::into));
        Self { x, y, z }
    }
}

impl<F: Lane> V<F> {
    /// The first vectors of `src`, one per lane ([`Lane::load3`]).
    #[inline(always)]
    pub(crate) fn load(src: &[Vec3]) -> Self {
        F::load3(src)
    }
    /// Writes the vectors into the first of `dst`, one per lane ([`Lane::store3`]).
    #[inline(always)]
    pub(crate) fn store(self, dst: &mut [Vec3]) {
        F::store3(self, dst)
    }
    /// All lanes zero.
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        Self { x: F::zero(), y: F::zero(), z: F::zero() }
    }
    /// The same vector in every lane.
    #[inline(always)]
    pub(crate) fn splat(v: Vec3A) -> Self {
        Self { x: F::splat(v.x), y: F::splat(v.y), z: F::splat(v.z) }
    }
    #[inline(always)]
    pub(crate) fn add(self, o: Self) -> Self {
        Self { x: self.x.add(o.x), y: self.y.add(o.y), z: self.z.add(o.z) }
    }
    #[inline(always)]
    pub(crate) fn sub(self, o: Self) -> Self {
        Self { x: self.x.sub(o.x), y: self.y.sub(o.y), z: self.z.sub(o.z) }
    }
    #[inline(always)]
    pub(crate) fn scale(self, s: F) -> Self {
        Self { x: self.x.mul(s), y: self.y.mul(s), z: self.z.mul(s) }
    }
    /// `self` scaled by `s` where there is one, else `self`.
    #[inline(always)]
    pub(crate) fn scale_by(self, s: Option<F>) -> Self {
        match s {
            Some(s) => self.scale(s),
            None => self,
        }
    }
    /// `self * s + c`.
    #[inline(always)]
    pub(crate) fn madd(self, s: F, c: Self) -> Self {
        Self { x: self.x.madd(s, c.x), y: self.y.madd(s, c.y), z: self.z.madd(s, c.z) }
    }
    /// `(x² + y²) + z²`, in the scalar path's order (glam's `Vec3A::length_squared`).
    #[inline(always)]
    pub(crate) fn length_squared(self) -> F {
        self.x.mul(self.x).add(self.y.mul(self.y)).add(self.z.mul(self.z))
    }
    #[inline(always)]
    pub(crate) fn cross(self, b: Self) -> Self {
        Self {
            x: self.y.msub(b.z, self.z.mul(b.y)),
            y: self.z.msub(b.x, self.x.mul(b.z)),
            z: self.x.msub(b.y, self.y.mul(b.x)),
        }
    }
    /// Normalised, zero for zero vectors.
    #[inline(always)]
    pub(crate) fn unit(self) -> Self {
        self.scale(self.length_squared().rsqrt_or_zero())
    }
}

/// Quaternions `(u, w)` in lanes.
#[derive(Clone, Copy)]
pub(crate) struct Q<F> {
    pub u: V<F>,
    pub w: F,
}

/// Eight quaternions.
pub(crate) type Q8 = Q<F8>;

impl Q8 {
    /// Eight quaternions, one per lane (lane `l` from `q[l]`).
    #[inline(always)]
    pub(crate) fn from_lanes(q: &[Vec4; LANES]) -> Self {
        let [x, y, z, w] = transpose(q.map(Into::into));
        Q8 { u: V8 { x, y, z }, w }
    }
}

impl<F: Lane> Q<F> {
    /// `Σ w_m · table[m]` over the `K` table entries (the same for every lane) with per-lane
    /// weights, rounded exactly as the per-vertex path rounds (products, then pairwise sums), so
    /// that both paths give bit-identical results.
    #[inline(always)]
    pub(crate) fn blend<const K: usize>(table: &[Vec4], weights: &[F; K]) -> Self {
        // One component at a time (no closure: one would be compiled without the callers'
        // target features).
        let mut out = [F::zero(); 4];
        for (c, o) in out.iter_mut().enumerate() {
            let mut acc = [F::zero(); K];
            for (a, (t, &wm)) in acc.iter_mut().zip(table[..K].iter().zip(weights)) {
                *a = wm.mul(F::splat(t[c]));
            }
            *o = pairwise(&mut acc);
        }
        let [x, y, z, w] = out;
        Q { u: V { x, y, z }, w }
    }
    /// `(x² + z²) + (y² + w²)`, in the scalar path's order (glam's `Vec4::length_squared`).
    #[inline(always)]
    pub(crate) fn length_squared(self) -> F {
        let (x, y, z, w) = (self.u.x, self.u.y, self.u.z, self.w);
        x.mul(x).add(z.mul(z)).add(y.mul(y).add(w.mul(w)))
    }
    /// `x + k (w (u × x) + u × (u × x))`: see `arith::rotate`.
    #[inline(always)]
    pub(crate) fn rotate(self, k: F, x: V<F>) -> V<F> {
        let a = self.u.cross(x);
        a.madd(self.w, self.u.cross(a)).madd(k, x)
    }
    /// `k = 2 / |q|²`, the scale [`Q::rotate`] takes for a blended (not unit) quaternion.
    #[inline(always)]
    pub(crate) fn rotation_scale(self) -> F {
        let k = self.length_squared().recip();
        k.add(k)
    }
    /// `normalise(q n)` as every method's lanes write normals: `n` rotated, scaled by `1 / |n|`
    /// (the sqrt-free rotation scales lengths by `|q|²·k/2 = 1`).
    #[inline(always)]
    pub(crate) fn rotate_normal(self, k: F, n: V<F>) -> V<F> {
        self.rotate(k, n).scale(n.length_squared().rsqrt_or_zero())
    }
}

/// `Σ w_m · table[m]` over `K` 3-vector entries (the same for every lane), rounded as the
/// per-vertex path rounds.
#[inline(always)]
pub(crate) fn blend3<const K: usize, F: Lane>(table: &[Vec3A], weights: &[F; K]) -> V<F> {
    let mut out = [F::zero(); 3];
    for (c, o) in out.iter_mut().enumerate() {
        let mut acc = [F::zero(); K];
        for (a, (t, &wm)) in acc.iter_mut().zip(table[..K].iter().zip(weights)) {
            *a = wm.mul(F::splat(t[c]));
        }
        *o = pairwise(&mut acc);
    }
    let [x, y, z] = out;
    V { x, y, z }
}

/// `Σ w_m · table[m]` over `K` scalars (the same for every lane), rounded as the per-vertex
/// path's `blend::<K, f32>` rounds.
#[inline(always)]
pub(crate) fn blend1<const K: usize, F: Lane>(table: &[f32], weights: &[F; K]) -> F {
    let mut acc = [F::zero(); K];
    for (a, (&t, &wm)) in acc.iter_mut().zip(table[..K].iter().zip(weights)) {
        *a = wm.mul(F::splat(t));
    }
    pairwise(&mut acc)
}

/// `(v_s, n_s)` of eight vertices of a set stretched by matrices (not flagged
/// `SET_UNIFORM_STRETCH`), rounded exactly as `stretch::Stretches::apply` rounds:
/// `S = Σ w_j S_j` per lane, `v_s = S v` and `n_s = adj(S) n` (see `stretch`). `matrices` holds
/// the set's `K` members. (A uniformly stretched set is `v_s = (Σ w_j s_j) v` by [`blend1`] and
/// [`V::scale_by`], `n_s = n`.)
#[inline(always)]
pub(crate) fn stretch<const K: usize, F: Lane>(matrices: &[Mat3], weights: &[F; K], v: V<F>, n: V<F>) -> (V<F>, V<F>) {
    let zero = V { x: F::zero(), y: F::zero(), z: F::zero() };
    let mut s = [zero; 3];
    for (j, sj) in s.iter_mut().enumerate() {
        let mut acc = [[F::zero(); K]; 3];
        for (slot, (m, &ws)) in matrices[..K].iter().zip(weights).enumerate() {
            let c = m.col(j);
            acc[0][slot] = ws.mul(F::splat(c.x));
            acc[1][slot] = ws.mul(F::splat(c.y));
            acc[2][slot] = ws.mul(F::splat(c.z));
        }
        let [ax, ay, az] = &mut acc;
        *sj = V { x: pairwise(ax), y: pairwise(ay), z: pairwise(az) };
    }
    let [s0, s1, s2] = s;
    let vs = s0.madd(v.x, s1.madd(v.y, s2.scale(v.z)));
    let (a0, a1, a2) = (s1.cross(s2), s2.cross(s0), s0.cross(s1));
    let ns = a0.madd(n.x, a1.madd(n.y, a2.scale(n.z)));
    (vs, ns)
}

/// The four columns `Σ w_m · cols[m]` of `K` members (the same for every lane) with per-lane
/// weights, one register per entry, rounded as `lbs::blend_cols::<K, Plain>` rounds. Written
/// without closures so that everything inlines into the AVX2 callers (a closure here would be
/// compiled without their target features and call each intrinsic).
#[inline(always)]
pub(crate) fn blend_cols<const K: usize, F: Lane>(cols: &[[Vec3A; 4]], weights: &[F; K]) -> [V<F>; 4] {
    let zero = V { x: F::zero(), y: F::zero(), z: F::zero() };
    let mut m = [zero; 4];
    for (j, mj) in m.iter_mut().enumerate() {
        let mut acc = [[F::zero(); K]; 3];
        for (slot, (c, &ws)) in cols[..K].iter().zip(weights).enumerate() {
            acc[0][slot] = ws.mul(F::splat(c[j].x));
            acc[1][slot] = ws.mul(F::splat(c[j].y));
            acc[2][slot] = ws.mul(F::splat(c[j].z));
        }
        let [ax, ay, az] = &mut acc;
        *mj = V { x: pairwise(ax), y: pairwise(ay), z: pairwise(az) };
    }
    m
}

/// Sums products as `arith::pairwise` does: `p[2m+1] + p[2m]`, then a balanced tree.
#[inline(always)]
pub(crate) fn pairwise<const K: usize, F: Lane>(p: &mut [F; K]) -> F {
    if K == 1 {
        return p[0];
    }
    for m in 0..K / 2 {
        p[m] = p[2 * m + 1].add(p[2 * m]);
    }
    let mut width = K / 2;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            p[i] = p[i].add(p[i + width]);
        }
    }
    p[0]
}

/// The weights of eight vertices (`K` per vertex, at least `8 K` values), one register per slot.
#[inline(always)]
#[allow(unused_unsafe)]
pub(crate) fn weights<const K: usize>(w: &[f32]) -> [F8; K] {
    let w = &w[..LANES * K];
    let mut out = [F8::zero(); K];
    if K.is_multiple_of(4) {
        // Four slots at a time: eight 128-bit loads and a transpose instead of 32 inserts.
        for b in 0..K / 4 {
            // SAFETY: AVX; lane `l`'s four slots `4b..4b+4` lie within `w`.
            let rows: [__m128; LANES] = std::array::from_fn(|l| unsafe { _mm_loadu_ps(w.as_ptr().add(l * K + 4 * b)) });
            out[4 * b..4 * b + 4].copy_from_slice(&transpose(rows));
        }
        return out;
    }
    for (m, o) in out.iter_mut().enumerate() {
        // SAFETY: AVX, as for the whole module.
        *o = F8(unsafe {
            _mm256_set_ps(
                w[7 * K + m],
                w[6 * K + m],
                w[5 * K + m],
                w[4 * K + m],
                w[3 * K + m],
                w[2 * K + m],
                w[K + m],
                w[m],
            )
        });
    }
    out
}

/// Eight 4-vectors (`v[l]` for lane `l`) as four registers, one per component: each pair of
/// vectors `l`, `l + 4` shares a register, then a 4×4 transpose in each 128-bit half.
#[inline(always)]
#[allow(unused_unsafe)]
fn transpose(v: [__m128; LANES]) -> [F8; 4] {
    // SAFETY: AVX, as for the whole module.
    unsafe {
        // (No closure: one would be compiled without the caller's AVX.)
        let (t0, t1) = (_mm256_set_m128(v[4], v[0]), _mm256_set_m128(v[5], v[1]));
        let (t2, t3) = (_mm256_set_m128(v[6], v[2]), _mm256_set_m128(v[7], v[3]));
        let (u0, u1) = (_mm256_unpacklo_ps(t0, t1), _mm256_unpackhi_ps(t0, t1)); // x0 x1 y0 y1, z0 z1 w0 w1
        let (u2, u3) = (_mm256_unpacklo_ps(t2, t3), _mm256_unpackhi_ps(t2, t3)); // x2 x3 y2 y3, z2 z3 w2 w3
        [
            F8(_mm256_shuffle_ps::<0b01_00_01_00>(u0, u2)),
            F8(_mm256_shuffle_ps::<0b11_10_11_10>(u0, u2)),
            F8(_mm256_shuffle_ps::<0b01_00_01_00>(u1, u3)),
            F8(_mm256_shuffle_ps::<0b11_10_11_10>(u1, u3)),
        ]
    }
}
