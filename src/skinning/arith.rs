//! The arithmetic the per-vertex kernels are written in, once for every instruction set:
//! multiply-adds plain or fused ([`Arith`]), weighted sums of table entries rounded the same way on
//! every path ([`blend`], [`pairwise`]), sqrt-free quaternion rotations, and normalisation by a
//! refined reciprocal square root instead of a division.

use glam::{Vec3A, Vec4};

/// Multiply-add, plain or fused: the kernels are written once over it and compiled for both.
pub(crate) trait Arith: Copy {
    /// Whether the pass takes vertices eight at a time
    /// ([`super::kernel::VertexKernel::lanes`] and `mixed`).
    const LANES: bool = false;
    /// `a * b + c`.
    fn madd3(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A;
    /// `a * b - c`.
    fn msub3(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A;
    /// `acc[i] = a * b[i] + acc[i]` for nine f64 entries (one rounding per entry where fused).
    fn madd9(a: f64, b: &[f64; 9], acc: &mut [f64; 9]);
    /// [`rotate`] applied to two vectors by the same quaternion.
    #[inline(always)]
    fn rotate_pair(u: Vec3A, w: f32, two_over_len2: f32, x: Vec3A, y: Vec3A) -> (Vec3A, Vec3A) {
        (rotate::<Self>(u, w, two_over_len2, x), rotate::<Self>(u, w, two_over_len2, y))
    }
}

/// Separate multiplies and adds (any x86_64, and other targets).
#[derive(Clone, Copy)]
pub(crate) struct Plain;

impl Arith for Plain {
    #[inline(always)]
    fn madd3(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A {
        a * b + c
    }
    #[inline(always)]
    fn msub3(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A {
        a * b - c
    }
    #[inline(always)]
    fn madd9(a: f64, b: &[f64; 9], acc: &mut [f64; 9]) {
        for (s, t) in acc.iter_mut().zip(b) {
            *s += a * t;
        }
    }
}

/// Fused multiply-add instructions. Used only inside `vertex_pass::stream_avx2` and the kernels' AVX2
/// paths, which run only on CPUs that have FMA.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Fused;

#[cfg(target_arch = "x86_64")]
impl Arith for Fused {
    const LANES: bool = true;
    #[inline(always)]
    fn madd3(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A {
        use std::arch::x86_64::_mm_fmadd_ps;
        // SAFETY: only reached from `stream_avx2`, called after detecting FMA.
        unsafe { _mm_fmadd_ps(a.into(), b.into(), c.into()).into() }
    }
    #[inline(always)]
    fn msub3(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A {
        use std::arch::x86_64::_mm_fmsub_ps;
        // SAFETY: as above.
        unsafe { _mm_fmsub_ps(a.into(), b.into(), c.into()).into() }
    }
    #[inline(always)]
    fn madd9(a: f64, b: &[f64; 9], acc: &mut [f64; 9]) {
        use std::arch::x86_64::{
            _mm256_fmadd_pd, _mm256_loadu_pd, _mm256_set1_pd, _mm256_storeu_pd, _mm_cvtsd_f64, _mm_fmadd_sd, _mm_set_sd,
        };
        // SAFETY: as above; the loads and stores stay within the nine entries.
        unsafe {
            let k = _mm256_set1_pd(a);
            for i in [0, 4] {
                let r = _mm256_fmadd_pd(k, _mm256_loadu_pd(b.as_ptr().add(i)), _mm256_loadu_pd(acc.as_ptr().add(i)));
                _mm256_storeu_pd(acc.as_mut_ptr().add(i), r);
            }
            acc[8] = _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b[8]), _mm_set_sd(acc[8])));
        }
    }
    /// Both rotations at once in the two halves of 256-bit registers.
    #[inline(always)]
    fn rotate_pair(u: Vec3A, w: f32, two_over_len2: f32, x: Vec3A, y: Vec3A) -> (Vec3A, Vec3A) {
        use std::arch::x86_64::{
            __m256, _mm256_castps256_ps128, _mm256_extractf128_ps, _mm256_fmadd_ps, _mm256_fmsub_ps, _mm256_mul_ps,
            _mm256_permute_ps, _mm256_set1_ps, _mm256_set_m128,
        };
        // (x, y, z, w) -> (z, x, y, w) in each half.
        const ZXY: i32 = 0b11_01_00_10;
        // SAFETY: only reached from `stream_avx2`, called after detecting AVX2 and FMA.
        unsafe {
            let cross = |a: __m256, b: __m256| {
                let c = _mm256_fmsub_ps(_mm256_permute_ps::<ZXY>(a), b, _mm256_mul_ps(a, _mm256_permute_ps::<ZXY>(b)));
                _mm256_permute_ps::<ZXY>(c)
            };
            let uu = _mm256_set_m128(u.into(), u.into());
            let xy = _mm256_set_m128(y.into(), x.into());
            let a = cross(uu, xy);
            let r =
                _mm256_fmadd_ps(_mm256_set1_ps(two_over_len2), _mm256_fmadd_ps(_mm256_set1_ps(w), a, cross(uu, a)), xy);
            (_mm256_castps256_ps128(r).into(), _mm256_extractf128_ps::<1>(r).into())
        }
    }
}

/// The 16-byte SIMD vectors the per-set tables hold (quaternions, points).
pub(crate) trait Lane:
    Copy + std::ops::Mul<f32, Output = Self> + std::ops::Mul<Output = Self> + std::ops::Add<Output = Self>
{
    /// All lanes zero.
    const ZERO: Self;
    /// All lanes `v`.
    fn splat(v: f32) -> Self;
}

impl Lane for Vec4 {
    const ZERO: Self = Vec4::ZERO;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Vec4::splat(v)
    }
}

impl Lane for f32 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
}

impl Lane for Vec3A {
    const ZERO: Self = Vec3A::ZERO;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Vec3A::splat(v)
    }
}

/// `Σ w[m] · table[m]` over `K` table entries starting at `base`: products paired with separate
/// multiplies and adds (so every path rounds alike), then summed as a balanced tree (a short
/// dependency chain).
///
/// # Safety
/// `base + K <= table.len()`.
#[inline(always)]
pub(crate) unsafe fn blend<const K: usize, T: Lane>(table: &[T], base: usize, w: &[f32; K]) -> T {
    debug_assert!(base + K <= table.len());
    let t = table.as_ptr().add(base);
    if K == 1 {
        return *t * w[0];
    }
    let mut acc = [T::ZERO; K];
    for m in 0..K / 2 {
        acc[m] = *t.add(2 * m + 1) * T::splat(w[2 * m + 1]) + *t.add(2 * m) * w[2 * m];
    }
    tree_sum(&mut acc, K / 2)
}

/// Sums `K` (a power of two) products as [`blend`] does: `p[2m+1] + p[2m]`, then a balanced tree.
#[inline(always)]
pub(crate) fn pairwise<T: Copy + std::ops::Add<Output = T>, const K: usize>(p: &mut [T; K]) -> T {
    if K == 1 {
        return p[0];
    }
    for m in 0..K / 2 {
        p[m] = p[2 * m + 1] + p[2 * m];
    }
    tree_sum(p, K / 2)
}

/// Sums the first `len` (a power of two) values pairwise: `log2 len` additions deep.
#[inline(always)]
pub(crate) fn tree_sum<T: Copy + std::ops::Add<Output = T>, const K: usize>(acc: &mut [T; K], len: usize) -> T {
    let mut width = len;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            acc[i] = acc[i] + acc[i + width];
        }
    }
    acc[0]
}

/// Rotates `x` by the quaternion `(u, w)` of any non-zero length, divided by its squared length
/// given as `two_over_len2 = 2 / |q|²`: `x + (2/|q|²) (w (u × x) + u × (u × x))`, which is the SBS
/// paper's sqrt-free matrix `Q` applied to `x` and divided by `q · q` (for a unit quaternion, the
/// rotation itself with `two_over_len2 = 2`).
#[inline(always)]
pub(crate) fn rotate<M: Arith>(u: Vec3A, w: f32, two_over_len2: f32, x: Vec3A) -> Vec3A {
    let a = cross::<M>(u, x);
    M::madd3(Vec3A::splat(two_over_len2), M::madd3(Vec3A::splat(w), a, cross::<M>(u, a)), x)
}

/// `a × b` with one fused multiply-subtract.
#[inline(always)]
pub(crate) fn cross<M: Arith>(a: Vec3A, b: Vec3A) -> Vec3A {
    use glam::Vec3Swizzles;
    M::msub3(a.zxy(), b, a * b.zxy()).zxy()
}

/// Normalises, or returns zero for a zero vector, without a division or a square root (see
/// [`rsqrt`]).
#[inline(always)]
pub(crate) fn unit(v: Vec3A) -> Vec3A {
    let len2 = v.length_squared();
    if len2 > 0.0 {
        v * rsqrt(len2)
    } else {
        Vec3A::ZERO
    }
}

/// `1 / |v|` for a vector whose length a rotation keeps, or 0 for a zero vector: normalising
/// `R v` as `R v · (1 / |v|)` takes the square root off the rotation's dependency chain.
#[inline(always)]
pub(crate) fn inverse_length(v: Vec3A) -> f32 {
    let len2 = v.length_squared();
    if len2 > 0.0 {
        rsqrt(len2)
    } else {
        0.0
    }
}

/// `1 / sqrt(x)` for `x > 0` to about 2e-7 relative error: the hardware estimate refined by one
/// Newton step. The divider and square-root unit is the bottleneck of the per-vertex pass
/// otherwise (two to four divisions or roots per vertex).
#[inline(always)]
pub(crate) fn rsqrt(x: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cvtss_f32, _mm_rsqrt_ss, _mm_set_ss};
        // SAFETY: SSE is part of the x86_64 baseline.
        #[allow(unused_unsafe)]
        let y = unsafe { _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x))) };
        y * (1.5 - 0.5 * x * y * y)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        1.0 / x.sqrt()
    }
}

/// `1 / x` for finite non-zero `x` to about 1e-7 relative error: the hardware estimate refined
/// by one Newton step.
#[inline(always)]
pub(crate) fn recip(x: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cvtss_f32, _mm_rcp_ss, _mm_set_ss};
        // SAFETY: SSE is part of the x86_64 baseline.
        #[allow(unused_unsafe)]
        let y = unsafe { _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x))) };
        y * (2.0 - x * y)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        1.0 / x
    }
}
