//! The shared body of the methods that deform a set's stretch first and then blend its rigid
//! parts (DQS and SBS): the set-flag dispatch (rigid, stretched, one joint or the LBS fallback
//! through LBS's columns, and the method's own other sets), the eight lanes of a shared set and
//! the mixed groups of eight. Each method gives only its rigid blend and how it deforms
//! ([`Rigid`]); [`Split`] is its kernel for the pass.

#[cfg(target_arch = "x86_64")]
use glam::Vec3;
use glam::Vec3A;

use super::arith::Arith;
use super::frame::SET_UNIFORM_STRETCH;
#[cfg(target_arch = "x86_64")]
use super::kernel::{as_array, mixed_alone, Eight};
use super::kernel::{Sets, VertexKernel};
#[cfg(target_arch = "x86_64")]
use super::lanes::{Lane, F8, V8};
use super::stretch::{Stretches, STRETCHED};
use super::SkinFrame;

/// DQS and SBS primitives with normals take the mixed groups of eight in the AVX2+FMA pass once
/// the frame deforms this many skinned vertices, else the lane-order windows (as LBS, from far
/// fewer vertices). Below it the frame stays in the first caches, where the windows' lanes
/// sharing one set's tables cost less than blending each vertex's tables alone and transposing
/// them; above it the windows' scattered accesses cost more (2 threads, pass medians, windows
/// against mixed groups: as-is Stegosaurus, 4,590 vertices, SBS 0.022 against 0.028 ms; Knight,
/// 3,716, DQS 0.013–0.014 against 0.015; densified CesiumMan at 7k and 12k about equal, at 25k
/// 0.065–0.068 against 0.056–0.057 ms).
pub const MIXED_FROM: usize = 8 * 1024;

/// A method's rigid part over `K` slots: the blend of a set's tables (quaternions, translations,
/// centres) by a vertex's weights and its application to the stretched vertex `v_s` and normal
/// `n_s`, per vertex and in eight lanes, rounded alike on every path.
pub(crate) trait Rigid<const K: usize>: Sync + Copy {
    /// The blended tables of eight or sixteen vertices of one set (lanes `F`).
    #[cfg(target_arch = "x86_64")]
    type Lanes<F: Lane>;
    /// The blended tables of a mixed group of eight, lane by lane (zero where a lane is not
    /// blended).
    #[cfg(target_arch = "x86_64")]
    type Mixed: Default;

    /// Whether a set whose flags hold more than a stretch is deformed by LBS's columns (one joint,
    /// the LBS fallback); the others go to [`Rigid::other`] one vertex at a time.
    fn lbs_set(flags: u8) -> bool;

    /// A vertex of a set that is neither rigid, stretched nor deformed by LBS's columns (an empty
    /// set; SBS's far centres).
    ///
    /// # Safety
    /// `set` and `pivot` come from [`Sets::locate`] over tables the kernel's `prepare` checked.
    #[allow(clippy::too_many_arguments)]
    unsafe fn other(&self, flags: u8, set: usize, pivot: usize, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A);

    /// The blend of set `set` (pivot slot `pivot`) applied to the stretched vertex `vs` and normal
    /// `ns`.
    ///
    /// # Safety
    /// As [`Rigid::other`].
    unsafe fn rigid<M: Arith>(&self, set: usize, pivot: usize, w: &[f32; K], vs: Vec3A, ns: Vec3A) -> (Vec3A, Vec3A);

    /// The blend of eight or sixteen vertices of set `set` (pivot slot `pivot`) with the weights
    /// `wk`.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA (and AVX-512F and VL for sixteen lanes); `set` and `pivot`
    /// as [`Rigid::other`].
    #[cfg(target_arch = "x86_64")]
    unsafe fn blend_lanes<F: Lane>(&self, set: usize, pivot: usize, wk: &[F; K]) -> Self::Lanes<F>;

    /// [`Rigid::finish`] of eight or sixteen unstretched vertices of set `set`, or of uniformly
    /// stretched ones given their blended scale `Σ w_j s_j`, loading them from `g` only once the
    /// blend's other terms are formed: fewer registers live at once (no spills), the same
    /// operations and so the same bits (a uniform stretch leaves the normal's direction alone).
    ///
    /// # Safety
    /// As [`Rigid::blend_lanes`].
    #[cfg(target_arch = "x86_64")]
    unsafe fn finish_loading<F: Lane, const NORMALS: bool>(
        &self,
        set: usize,
        b: Self::Lanes<F>,
        scale: Option<F>,
        g: &mut Eight<'_>,
    );

    /// The blend `b` of eight vertices of set `set` applied to their stretched positions `v` into
    /// `g.op` (and, with `NORMALS`, to `nv` into `g.on`), rounded as [`Rigid::rigid`].
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    unsafe fn finish<const NORMALS: bool>(&self, set: usize, b: Self::Lanes<F8>, v: V8, nv: V8, g: &mut Eight<'_>);

    /// Blends lane `l` of a mixed group (set `set`, pivot slot `pivot`, weights `w`) into `m`.
    ///
    /// # Safety
    /// As [`Rigid::other`]; `l < 8`.
    #[cfg(target_arch = "x86_64")]
    unsafe fn blend_lane(&self, m: &mut Self::Mixed, l: usize, set: usize, pivot: usize, w: &[f32; K]);

    /// [`Rigid::finish`] of a mixed group's blends `m`.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    unsafe fn finish_mixed<const NORMALS: bool>(m: &Self::Mixed, v: V8, nv: V8, g: &mut Eight<'_>);
}

/// The kernel of a method that deforms a set's stretch first, then its rigid part `R`.
#[derive(Clone, Copy)]
pub(crate) struct Split<'a, R> {
    sets: Sets<'a>,
    stretches: Stretches<'a>,
    rigid: R,
}

impl<'a, R> Split<'a, R> {
    /// The kernel over `frame` for `K` slots with the rigid part `rigid`, if the frame's stretch
    /// tables hold every set.
    pub(crate) fn new<const K: usize>(sets: Sets<'a>, frame: &'a SkinFrame, rigid: Option<R>) -> Option<Self> {
        let stretches = Stretches::of::<K>(frame, sets.len())?;
        Some(Self { sets, stretches, rigid: rigid? })
    }
}

impl<const K: usize, R: Rigid<K>> VertexKernel<K> for Split<'_, R> {
    #[inline(always)]
    fn vertex<M: Arith>(&self, word: u32, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        let (set, pivot) = self.sets.locate::<K>(word);
        // SAFETY: `set <= last` and `pivot < K`; `prepare` verified the table sizes.
        unsafe {
            let flags = self.sets.flags(set);
            let (vs, ns) = if flags == 0 {
                (p, n)
            } else if flags & !STRETCHED == 0 {
                self.stretches.apply::<K, M>(flags & SET_UNIFORM_STRETCH != 0, set * K, w, p, n)
            } else if R::lbs_set(flags) {
                // One joint, or the LBS fallback: LBS's columns (LBS's cost).
                return self.sets.lbs::<K>(set, w, p, n);
            } else {
                return self.rigid.other(flags, set, pivot, w, p, n);
            };
            // Blends with separate multiplies and adds (see `Sets::lbs`), rotations with FMA.
            self.rigid.rigid::<M>(set, pivot, w, vs, ns)
        }
    }

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
        let mut g = Eight { p, n, op, on };
        use super::lanes::{stretch, weights};
        let (set, pivot) = self.sets.locate::<K>(word);
        let flags = self.sets.flags(set);
        if flags & !STRETCHED != 0 {
            if !R::lbs_set(flags) {
                // Empty sets and far centres: the per-vertex path.
                return false;
            }
            // One joint, or the LBS fallback: LBS's eight-lane path.
            self.sets.lbs_lanes::<K, NORMALS>(set, w, g);
            return true;
        }
        if flags & SET_UNIFORM_STRETCH != 0 {
            self.uniform_lanes::<K, NORMALS>(set, pivot, w, g);
            return true;
        }
        let wk = weights::<K>(w);
        let b = self.rigid.blend_lanes(set, pivot, &wk);
        if flags == 0 {
            // Unstretched: the positions and normals are loaded only once the blend's other terms
            // are formed (fewer registers live at once: no spills).
            self.rigid.finish_loading::<_, NORMALS>(set, b, None, &mut g);
            return true;
        }
        let members = set * K..set * K + K;
        let (v, nv) = (V8::load(g.p), if NORMALS { V8::load(g.n) } else { V8::zero() });
        let (v, nv) = stretch::<K, _>(&self.stretches.matrices[members], &wk, v, nv);
        self.rigid.finish::<NORMALS>(set, b, v, nv, &mut g);
        true
    }

    /// Unstretched sets and those deformed by LBS's columns; the others go to two groups of eight.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma,avx512f,avx512vl")]
    unsafe fn lanes16<const NORMALS: bool>(
        &self,
        word: u32,
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) -> bool {
        let mut g = Eight { p, n, op, on };
        let (set, pivot) = self.sets.locate::<K>(word);
        let flags = self.sets.flags(set);
        if flags == 0 {
            let b = self.rigid.blend_lanes(set, pivot, &super::lanes16::weights16::<K>(w));
            self.rigid.finish_loading::<_, NORMALS>(set, b, None, &mut g);
            return true;
        }
        if flags & !STRETCHED != 0 && R::lbs_set(flags) {
            self.sets.lbs_lanes16::<K, NORMALS>(set, w, g);
            return true;
        }
        false
    }

    /// See [`MIXED_FROM`].
    const MIXED_FROM: usize = MIXED_FROM;
    const MIXED_WITHOUT_NORMALS: bool = true;

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn mixed<const NORMALS: bool>(
        &self,
        words: &[u32],
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) {
        let mut g = Eight { p, n, op, on };
        use super::stretch::MixedLanes;
        let mut blends = R::Mixed::default();
        let mut lanes = MixedLanes::default();
        for (l, &word) in words[..8].iter().enumerate() {
            let (set, pivot) = self.sets.locate::<K>(word);
            if !lanes.take(l, set, self.sets.flags(set)) {
                continue;
            }
            self.rigid.blend_lane(&mut blends, l, set, pivot, as_array::<K>(&w[l * K..(l + 1) * K]));
        }
        let (v, nv) = self.stretches.mixed::<K, NORMALS>(&lanes, w, g.p, g.n);
        R::finish_mixed::<NORMALS>(&blends, v, nv, &mut g);
        mixed_alone::<K, Self, NORMALS>(self, lanes.alone, words, w, g);
    }
}

impl<R> Split<'_, R> {
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
    unsafe fn uniform_lanes<const K: usize, const NORMALS: bool>(
        &self,
        set: usize,
        pivot: usize,
        w: &[f32],
        mut g: Eight<'_>,
    ) where
        R: Rigid<K>,
    {
        use super::lanes::{blend1, weights};
        let wk = weights::<K>(w);
        let b = self.rigid.blend_lanes(set, pivot, &wk);
        let scale = blend1::<K, _>(&self.stretches.scales[set * K..set * K + K], &wk);
        self.rigid.finish_loading::<_, NORMALS>(set, b, Some(scale), &mut g);
    }
}
