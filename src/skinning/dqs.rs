//! Dual quaternion skinning (Kavan et al. 2008; spec "dqs") of the rigid parts: blend the
//! members' unit dual quaternions linearly with the pivot sign rule (pre-signed per set and pivot
//! in [`SkinFrame`]), normalise, apply to v_s and the rotation to n_s.

use glam::{Vec3, Vec3A, Vec4};

use super::arith::{blend, cross, inverse_length, recip, Arith, Plain};
use super::frame::{SkinFrame, SET_EMPTY, SET_UNIFORM_STRETCH};
use super::lbs::{apply_cols, blend_cols};
use super::stretch::{Stretches, STRETCHED};
use super::vertex_pass::{self, VertexKernel};
use super::DeformedPrimitive;
use crate::model::Influences;

/// The DQS kernel over one prepared frame (its tables as slices, so that they stay in registers).
#[derive(Clone, Copy)]
struct Dqs<'a> {
    flags: &'a [u8],
    cols: &'a [[Vec3A; 4]],
    quats: &'a [Vec4],
    duals: &'a [Vec4],
    stretches: Stretches<'a>,
    /// The largest valid set id.
    last: u32,
}

/// Applies the normalised blend of `real + ε dual` to `vs` and its rotation to `ns`. With
/// `L = |real|`, the normalised dual quaternion `(real + ε dual) / L` rotates by the sqrt-free
/// `Q_real / L²` and translates by `2 dual real* / L²`, so only `2 / L²` is needed (no square
/// root, and the scale factor is off the critical path); the rotated normal is normalised by
/// `1 / |ns|`, which a rotation keeps.
#[inline(always)]
fn apply<M: Arith>(real: Vec4, dual: Vec4, vs: Vec3A, ns: Vec3A) -> (Vec3A, Vec3A) {
    let inv_n = inverse_length(ns);
    let k = 2.0 * recip(real.length_squared());
    let u0 = Vec3A::new(real.x, real.y, real.z);
    let ue = Vec3A::new(dual.x, dual.y, dual.z);
    let translation = k * (M::madd3(Vec3A::splat(real.w), ue, cross::<M>(u0, ue)) - dual.w * u0);
    let (p, n) = M::rotate_pair(u0, real.w, k, vs, ns);
    (p + translation, n * inv_n)
}

/// DQS and SBS primitives with normals take the mixed groups of eight in the AVX2+FMA pass once
/// the frame deforms this many skinned vertices, else the lane-order windows (as LBS, from far
/// fewer vertices). Below it the frame stays in the first caches, where the windows' lanes
/// sharing one set's tables cost less than blending each vertex's tables alone and transposing
/// them; above it the windows' scattered accesses cost more (2 threads, pass medians, windows
/// against mixed groups: as-is Stegosaurus, 4,590 vertices, SBS 0.022 against 0.028 ms; Knight,
/// 3,716, DQS 0.013–0.014 against 0.015; densified CesiumMan at 7k and 12k about equal, at 25k
/// 0.065–0.068 against 0.056–0.057 ms).
pub const MIXED_FROM: usize = 8 * 1024;

impl<const K: usize> VertexKernel<K> for Dqs<'_> {
    #[inline(always)]
    fn vertex<M: Arith>(&self, word: u32, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        let (set, pivot) = vertex_pass::locate::<K>(word, self.last);
        // SAFETY: `set <= last` and `pivot < K`; `pass` verified the table sizes.
        unsafe {
            let flags = *self.flags.get_unchecked(set);
            let (vs, ns) = if flags == 0 {
                (p, n)
            } else if flags & !STRETCHED == 0 {
                self.stretches.apply::<K, M>(flags & SET_UNIFORM_STRETCH != 0, set * K, w, p, n)
            } else if flags & SET_EMPTY != 0 {
                return (p, n);
            } else {
                // One joint, or the LBS fallback: LBS's columns (LBS's cost).
                return apply_cols::<Plain>(&blend_cols::<K, Plain>(self.cols, set, w), p, n);
            };
            // Blends with separate multiplies and adds (see `lbs`), rotations with FMA.
            let row = (set * K + pivot) * K;
            apply::<M>(blend::<K, _>(self.quats, row, w), blend::<K, _>(self.duals, row, w), vs, ns)
        }
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn lanes<const NORMALS: bool>(&self, word: u32, w: &[f32], g: vertex_pass::Eight<'_>) -> bool {
        self.lanes_impl::<K, NORMALS>(word, w, g.p, g.n, g.op, g.on)
    }

    /// See [`MIXED_FROM`].
    const MIXED_FROM: usize = MIXED_FROM;
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

impl Dqs<'_> {
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
        use super::lanes::{stretch, weights, Q8, V8};
        let (set, pivot) = vertex_pass::locate::<K>(word, self.last);
        let flags = self.flags[set];
        if flags & !STRETCHED != 0 {
            if flags & SET_EMPTY != 0 {
                return false;
            }
            // One joint, or the LBS fallback: LBS's eight-lane path.
            super::lbs::lanes_cols::<K, NORMALS>(&self.cols[set * K..set * K + K], w, p, n, op, on);
            return true;
        }
        if flags & SET_UNIFORM_STRETCH != 0 {
            self.uniform_lanes::<K, NORMALS>(set, pivot, w, p, n, op, on);
            return true;
        }
        let wk = weights::<K>(w);
        let row = (set * K + pivot) * K;
        let real = Q8::blend::<K>(&self.quats[row..row + K], &wk);
        let dual = Q8::blend::<K>(&self.duals[row..row + K], &wk);
        if flags == 0 {
            // Unstretched: the positions and normals are loaded only once the translation is
            // formed (fewer registers live at once: no spills).
            finish_loading::<NORMALS>(real, dual, None, p, n, op, on);
            return true;
        }
        let members = set * K..set * K + K;
        let (v, nv) = (V8::load(p), if NORMALS { V8::load(n) } else { V8::zero() });
        let (v, nv) = stretch::<K>(&self.stretches.matrices[members], &wk, v, nv);
        finish::<NORMALS>(real, dual, v, nv, op, on);
        true
    }

    /// Eight vertices of a uniformly stretched set (`set`, pivot slot `pivot`): as the
    /// unstretched ones, each position scaled by its blended scale `Σ w_j s_j` as it is loaded.
    /// A function of its own, so that the unstretched path's registers stay as they were (merged
    /// into one body, the two spilled more).
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn uniform_lanes<const K: usize, const NORMALS: bool>(
        &self,
        set: usize,
        pivot: usize,
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) {
        use super::lanes::{blend1, weights, Q8};
        let wk = weights::<K>(w);
        let row = (set * K + pivot) * K;
        let real = Q8::blend::<K>(&self.quats[row..row + K], &wk);
        let dual = Q8::blend::<K>(&self.duals[row..row + K], &wk);
        let scale = blend1::<K>(&self.stretches.scales[set * K..set * K + K], &wk);
        finish_loading::<NORMALS>(real, dual, Some(scale), p, n, op, on);
    }

    /// See [`VertexKernel::mixed`].
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
        use super::lanes::Q8;
        use super::stretch::MixedLanes;
        use super::vertex_pass::{as_array, mixed_alone};
        let (mut real, mut dual) = ([Vec4::ZERO; 8], [Vec4::ZERO; 8]);
        let mut lanes = MixedLanes::default();
        for (l, &word) in words[..8].iter().enumerate() {
            let (set, pivot) = vertex_pass::locate::<K>(word, self.last);
            // SAFETY: `set <= last` and `pivot < K`; `pass` verified the table sizes.
            let flags = *self.flags.get_unchecked(set);
            if !lanes.take(l, set, flags) {
                continue;
            }
            let wl = as_array::<K>(&w[l * K..(l + 1) * K]);
            let row = (set * K + pivot) * K;
            real[l] = blend::<K, _>(self.quats, row, wl);
            dual[l] = blend::<K, _>(self.duals, row, wl);
        }
        let (v, nv) = self.stretches.mixed::<K, NORMALS>(&lanes, w, p, n);
        finish::<NORMALS>(Q8::from_lanes(&real), Q8::from_lanes(&dual), v, nv, op, on);
        mixed_alone::<K, Self, NORMALS>(self, lanes.alone, words, w, p, n, op, on);
    }
}

/// The translation of the blended dual quaternion `real + ε dual` (with `k = 2 / |real|²`):
/// `k (w_r u_d − w_d u_r + u_r × u_d)`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn translation(real: super::lanes::Q8, dual: super::lanes::Q8, k: super::lanes::F8) -> super::lanes::V8 {
    dual.u.madd(real.w, real.u.cross(dual.u)).sub(real.u.scale(dual.w)).scale(k)
}

/// [`finish`] of eight unstretched vertices, or of eight uniformly stretched ones given their
/// blended scale `Σ w_j s_j`, loading them from `p` (and, with `NORMALS`, `n`) after the
/// translation is formed: fewer registers live at once (no spills), the same operations and so the
/// same bits (a uniform stretch leaves the normal's direction alone).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn finish_loading<const NORMALS: bool>(
    real: super::lanes::Q8,
    dual: super::lanes::Q8,
    scale: Option<super::lanes::F8>,
    p: &[Vec3],
    n: &[Vec3],
    op: &mut [Vec3],
    on: &mut [Vec3],
) {
    use super::lanes::V8;
    let k = real.rotation_scale();
    let translation = translation(real, dual, k);
    real.rotate(k, V8::load(p).scale_by(scale)).add(translation).store(op);
    if NORMALS {
        real.rotate_normal(k, V8::load(n)).store(on);
    }
}

/// The normalised blend `real + ε dual` of eight vertices applied to `v` (and its rotation to
/// `nv` with `NORMALS`), stored into `op` (and `on`): `apply` in eight lanes, rounded alike.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn finish<const NORMALS: bool>(
    real: super::lanes::Q8,
    dual: super::lanes::Q8,
    v: super::lanes::V8,
    nv: super::lanes::V8,
    op: &mut [Vec3],
    on: &mut [Vec3],
) {
    let k = real.rotation_scale();
    let translation = translation(real, dual, k);
    real.rotate(k, v).add(translation).store(op);
    if NORMALS {
        real.rotate_normal(k, nv).store(on);
    }
}

fn pass<const K: usize>(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    let sets = frame.flags.len();
    let ok = sets > 0
        && frame.slots == K
        && frame.cols.len() >= sets * K
        && frame.quats.len() >= sets * K * K
        && frame.duals.len() >= sets * K * K
        && frame.stretches.len() >= sets * K
        && frame.scales.len() >= sets * K;
    if !ok {
        super::rest_copy(positions, normals, out);
        return;
    }
    let kernel = Dqs {
        flags: &frame.flags,
        cols: &frame.cols,
        quats: &frame.quats,
        duals: &frame.duals,
        stretches: Stretches { scales: &frame.scales, matrices: &frame.stretches },
        last: sets as u32 - 1,
    };
    vertex_pass::run::<K, _>(&kernel, inf, positions, normals, out, frame);
}

/// Deforms one primitive by DQS into `out`; `frame` must be prepared for DQS (otherwise the
/// primitive keeps its rest shape).
pub fn dqs(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    super::dispatch_slots!(inf.slots(), pass, frame, inf, positions, normals, out);
}
