//! Sixteen vertices at a time in the lanes of 512-bit registers (AVX-512F), for runs of sixteen
//! consecutive vertices that share one packed set word: the same operations as the eight lanes of
//! [`super::lanes`] ([`F16`] is a [`Lane`], so [`V`], [`Q`] and the blends serve both widths),
//! each rounded alike, so both widths and the per-vertex path give the same bits. The estimates
//! (`1/x`, `1/√x`) are AVX's 12-bit ones taken on each 256-bit half, not AVX-512's 14-bit ones,
//! for that reason.
//!
//! Everything here is only reached from functions compiled with AVX-512F and AVX-512VL (besides
//! AVX2 and FMA) that run only on CPUs that have them ([`available`], checked at run time).

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::{
    __m256, __m512, _mm256_rcp_ps, _mm256_rsqrt_ps, _mm512_add_ps, _mm512_castpd_ps, _mm512_castps256_ps512,
    _mm512_castps512_ps256, _mm512_castps_pd, _mm512_cmp_ps_mask, _mm512_cmpeq_epi32_mask, _mm512_extractf64x4_pd,
    _mm512_fmadd_ps, _mm512_fmsub_ps, _mm512_insertf64x4, _mm512_loadu_ps, _mm512_loadu_si512, _mm512_mask_mov_ps,
    _mm512_maskz_mov_ps, _mm512_mul_ps, _mm512_permutex2var_ps, _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps,
    _mm512_storeu_ps, _mm512_sub_ps, _CMP_GT_OQ,
};

use glam::Vec3;

use super::lanes::{weights, Lane, F8, V};

/// Vertices per sixteen-lane group.
pub(crate) const LANES: usize = 16;

/// Whether this CPU has what everything here is compiled for (AVX-512F and AVX-512VL, with AVX2
/// and FMA): the pass's run-time check before its sixteen-lane variant.
pub(crate) fn available() -> bool {
    super::lanes::available()
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// Sixteen `f32` lanes.
#[derive(Clone, Copy)]
pub(crate) struct F16(__m512);

/// Sixteen 3-vectors.
pub(crate) type V16 = V<F16>;

/// Whether the sixteen words `words` are all the same.
#[inline(always)]
pub(crate) fn all_equal(words: &[u32; LANES]) -> bool {
    // SAFETY: AVX-512F, as for the whole module; `words` holds sixteen contiguous u32s.
    unsafe {
        let v = _mm512_loadu_si512(words.as_ptr().cast());
        _mm512_cmpeq_epi32_mask(v, _mm512_set1_epi32(words[0] as i32)) == 0xffff
    }
}

// SAFETY (every `unsafe` block below): these intrinsics need AVX-512F (AVX for the estimates);
// this module is used only from the AVX-512 variant of the pass, after run-time detection.
#[allow(unused_unsafe)]
impl F16 {
    /// Lanes 0–7 from `lo`, 8–15 from `hi`.
    #[inline(always)]
    fn from_halves(lo: __m256, hi: __m256) -> Self {
        Self(unsafe {
            let lo = _mm512_castps_pd(_mm512_castps256_ps512(lo));
            let hi = std::arch::x86_64::_mm256_castps_pd(hi);
            _mm512_castpd_ps(_mm512_insertf64x4::<1>(lo, hi))
        })
    }
    /// Lanes 0–7 and 8–15.
    #[inline(always)]
    fn halves(self) -> (__m256, __m256) {
        unsafe {
            let hi = _mm512_extractf64x4_pd::<1>(_mm512_castps_pd(self.0));
            (_mm512_castps512_ps256(self.0), std::arch::x86_64::_mm256_castpd_ps(hi))
        }
    }
}

#[allow(unused_unsafe)]
impl Lane for F16 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Self(unsafe { _mm512_set1_ps(v) })
    }
    #[inline(always)]
    fn zero() -> Self {
        Self(unsafe { _mm512_setzero_ps() })
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(unsafe { _mm512_add_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(unsafe { _mm512_sub_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(unsafe { _mm512_mul_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn madd(self, b: Self, c: Self) -> Self {
        Self(unsafe { _mm512_fmadd_ps(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn msub(self, b: Self, c: Self) -> Self {
        Self(unsafe { _mm512_fmsub_ps(self.0, b.0, c.0) })
    }
    /// As [`F8::recip`], with AVX's estimate on each half.
    #[inline(always)]
    fn recip(self) -> Self {
        let (lo, hi) = self.halves();
        let y = unsafe { Self::from_halves(_mm256_rcp_ps(lo), _mm256_rcp_ps(hi)) };
        y.mul(Self::splat(2.0).sub(self.mul(y)))
    }
    /// As [`F8::rsqrt_or_zero`], with AVX's estimate on each half.
    #[inline(always)]
    fn rsqrt_or_zero(self) -> Self {
        let (lo, hi) = self.halves();
        let y = unsafe { Self::from_halves(_mm256_rsqrt_ps(lo), _mm256_rsqrt_ps(hi)) };
        let r = y.mul(Self::splat(1.5).sub(Self::splat(0.5).mul(self).mul(y).mul(y)));
        Self(unsafe { _mm512_maskz_mov_ps(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(self.0, _mm512_setzero_ps()), r.0) })
    }
    /// Three 512-bit loads of the 48 packed floats, each component gathered from them by two
    /// two-source permutes.
    #[inline(always)]
    fn load3(src: &[Vec3]) -> V16 {
        let s: &[Vec3; LANES] = src[..LANES].try_into().unwrap_or_else(|_| unreachable!());
        // SAFETY: `s` holds 48 contiguous floats (`Vec3` is three `f32`, no padding); the loads
        // are unaligned; the index tables hold sixteen `i32` each.
        unsafe {
            let f = s.as_ptr().cast::<f32>();
            let (a, b, c) = (_mm512_loadu_ps(f), _mm512_loadu_ps(f.add(16)), _mm512_loadu_ps(f.add(32)));
            // (A loop, not a closure: one would be compiled without the caller's AVX-512.)
            let mut out = [F16::zero(); 3];
            for (o, (first, second)) in out.iter_mut().zip(LOAD_AB.iter().zip(&LOAD_C)) {
                let first = _mm512_loadu_si512(first.as_ptr().cast());
                let second = _mm512_loadu_si512(second.as_ptr().cast());
                *o = F16(_mm512_permutex2var_ps(_mm512_permutex2var_ps(a, first, b), second, c));
            }
            let [x, y, z] = out;
            V { x, y, z }
        }
    }
    /// Six two-source permutes back to the packed layout, three 512-bit stores.
    #[inline(always)]
    fn store3(v: V16, dst: &mut [Vec3]) {
        let d: &mut [Vec3; LANES] = (&mut dst[..LANES]).try_into().unwrap_or_else(|_| unreachable!());
        // SAFETY: `d` holds 48 contiguous floats; the stores are unaligned; the index tables hold
        // sixteen `i32` each.
        unsafe {
            let f = d.as_mut_ptr().cast::<f32>();
            for (r, (xy, z)) in STORE_XY.iter().zip(&STORE_Z).enumerate() {
                let xy = _mm512_permutex2var_ps(v.x.0, _mm512_loadu_si512(xy.as_ptr().cast()), v.y.0);
                let out = _mm512_permutex2var_ps(xy, _mm512_loadu_si512(z.as_ptr().cast()), v.z.0);
                _mm512_storeu_ps(f.add(16 * r), out);
            }
        }
    }
}

/// Where component `k` of vertex `i` (float `3 i + k` of the 48) lies in the first two registers
/// `a`, `b` (indices 0–31; any lane for the floats of the third).
const LOAD_AB: [[i32; LANES]; 3] = table(Table::LoadAb);
/// The second permute: lanes already gathered from `a`, `b` stay (index `i`), the others come
/// from the third register `c` (16 + their float's offset in it).
const LOAD_C: [[i32; LANES]; 3] = table(Table::LoadC);
/// For output register `r` (floats `16 r …`): float `j` from `x` (its vertex) or `y` (16 + its
/// vertex); any lane for a `z` float.
const STORE_XY: [[i32; LANES]; 3] = table(Table::StoreXy);
/// The second permute of each output register: `z` floats from `z` (16 + their vertex), the
/// others kept (index `j`).
const STORE_Z: [[i32; LANES]; 3] = table(Table::StoreZ);
/// For slot `k` of four: lane `i` of sixteen vertices' weights, from two registers of eight
/// vertices' (`4 (i mod 8) + k`, 0–31), the same for the first eight and the last.
const WEIGHT_SLOT: [[i32; LANES]; 4] = table(Table::WeightSlot);

/// Which permute index table [`table`] builds.
#[derive(Clone, Copy)]
enum Table {
    LoadAb,
    LoadC,
    StoreXy,
    StoreZ,
    WeightSlot,
}

/// The permute indices of `kind`, row by row (component, output register or slot), lane by lane.
const fn table<const ROWS: usize>(kind: Table) -> [[i32; LANES]; ROWS] {
    let mut t = [[0; LANES]; ROWS];
    let mut row = 0;
    while row < ROWS {
        let mut lane = 0;
        while lane < LANES {
            let (load, store) = (3 * lane + row, 16 * row + lane);
            t[row][lane] = match kind {
                Table::LoadAb if load < 32 => load as i32,
                Table::LoadAb => 0,
                Table::LoadC if load < 32 => lane as i32,
                Table::LoadC => (16 + load - 32) as i32,
                Table::StoreXy => match store % 3 {
                    0 => (store / 3) as i32,
                    1 => (16 + store / 3) as i32,
                    _ => 0,
                },
                Table::StoreZ if store % 3 == 2 => (16 + store / 3) as i32,
                Table::StoreZ => lane as i32,
                Table::WeightSlot => (4 * (lane % 8) + row) as i32,
            };
            lane += 1;
        }
        row += 1;
    }
    t
}

/// The weights of sixteen vertices (`K` per vertex, at least `16 K` values), one register per
/// slot: for four slots, four 512-bit loads and per slot two two-source permutes and a blend;
/// otherwise each half as [`weights`] transposes eight.
#[inline(always)]
pub(crate) fn weights16<const K: usize>(w: &[f32]) -> [F16; K] {
    let w = &w[..LANES * K];
    let mut out = [F16::zero(); K];
    if K == 4 {
        // SAFETY: AVX-512F, as for the whole module; `w` holds 64 floats; the index tables hold
        // sixteen `i32` each.
        unsafe {
            // (No closure: one would be compiled without the caller's AVX-512.)
            let f = w.as_ptr();
            let r = [
                _mm512_loadu_ps(f),
                _mm512_loadu_ps(f.add(16)),
                _mm512_loadu_ps(f.add(32)),
                _mm512_loadu_ps(f.add(48)),
            ];
            for (k, o) in out.iter_mut().enumerate() {
                let idx = _mm512_loadu_si512(WEIGHT_SLOT[k].as_ptr().cast());
                let lo = _mm512_permutex2var_ps(r[0], idx, r[1]);
                let hi = _mm512_permutex2var_ps(r[2], idx, r[3]);
                *o = F16(_mm512_mask_mov_ps(lo, 0xff00, hi));
            }
        }
        return out;
    }
    let lo: [F8; K] = weights::<K>(&w[..8 * K]);
    let hi: [F8; K] = weights::<K>(&w[8 * K..]);
    for (o, (l, h)) in out.iter_mut().zip(lo.iter().zip(&hi)) {
        *o = F16::from_halves(l.raw(), h.raw());
    }
    out
}
