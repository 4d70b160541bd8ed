//! The stretch step of DQS, SBS and continuous SBS (spec "Rigid parts"): `v_s = Σ w_j S_j v` and
//! `n_s = (Σ w_j S_j)⁻¹ n`, per vertex. Rounded exactly as [`super::lanes::stretch`] rounds in
//! eight lanes, so that both paths give bit-identical results.
//!
//! Only the direction of `n_s` matters (every method normalises the rotated normal), so the
//! inverse is replaced by the adjugate: `S` is a convex sum of symmetric positive definite
//! matrices, so `det S > 0` and `adj(S) n = det(S) S⁻¹ n` points the same way, without a
//! division. For a symmetric `S` the adjugate's columns are `s₁ × s₂`, `s₂ × s₀`, `s₀ × s₁`
//! (`s_i` the columns of `S`).

#[cfg(target_arch = "x86_64")]
use glam::Vec3;
use glam::{Mat3, Vec3A};

#[cfg(target_arch = "x86_64")]
use super::arith::Fused;
use super::arith::{blend, cross, Arith};
use super::frame::{SkinFrame, SET_STRETCH, SET_UNIFORM_STRETCH};
#[cfg(target_arch = "x86_64")]
use super::kernel::as_array;
#[cfg(target_arch = "x86_64")]
use super::lanes::{F8, V8};

/// The flags of a stretched set that the fast paths and the lanes evaluate (any other flag
/// leaves them: an empty set, one joint, the LBS fallback, a far centre).
pub(crate) const STRETCHED: u8 = SET_STRETCH | SET_UNIFORM_STRETCH;

/// A set's stretch tables ([`super::SkinFrame::scales`], [`super::SkinFrame::stretches`]).
#[derive(Clone, Copy)]
pub(crate) struct Stretches<'a> {
    /// Per member: `s_j` of a uniform stretch `s_j I`.
    pub scales: &'a [f32],
    /// Per member: `S_j`.
    pub matrices: &'a [Mat3],
}

impl<'a> Stretches<'a> {
    /// The stretch tables of `frame`.
    pub(crate) fn from_frame(frame: &'a SkinFrame) -> Self {
        Self { scales: &frame.scales, matrices: &frame.stretches }
    }

    /// The stretch tables of `frame` if they hold `sets` sets of `K` members.
    pub(crate) fn of<const K: usize>(frame: &'a SkinFrame, sets: usize) -> Option<Self> {
        (frame.stretches.len() >= sets * K && frame.scales.len() >= sets * K).then(|| Self::from_frame(frame))
    }

    /// `(v_s, n_s)` of a vertex of a stretched set whose members start at `base` (`uniform`: the
    /// set is flagged `SET_UNIFORM_STRETCH`, so `v_s = (Σ w_j s_j) v` and `n_s = n`).
    ///
    /// # Safety
    /// `base + K` is within both tables.
    #[inline(always)]
    pub(crate) unsafe fn apply<const K: usize, M: Arith>(
        &self,
        uniform: bool,
        base: usize,
        w: &[f32; K],
        v: Vec3A,
        n: Vec3A,
    ) -> (Vec3A, Vec3A) {
        if uniform {
            return (v * blend::<K, f32>(self.scales, base, w), n);
        }
        let [s0, s1, s2] = self.blend::<K>(base, w);
        let vs = M::madd3(s0, Vec3A::splat(v.x), M::madd3(s1, Vec3A::splat(v.y), s2 * v.z));
        let (a0, a1, a2) = (cross::<M>(s1, s2), cross::<M>(s2, s0), cross::<M>(s0, s1));
        let ns = M::madd3(a0, Vec3A::splat(n.x), M::madd3(a1, Vec3A::splat(n.y), a2 * n.z));
        (vs, ns)
    }

    /// The columns of `Σ w_j S_j`: products paired, then summed as a balanced tree (as `blend`).
    ///
    /// # Safety
    /// `base + K <= matrices.len()`.
    #[inline(always)]
    unsafe fn blend<const K: usize>(&self, base: usize, w: &[f32; K]) -> [Vec3A; 3] {
        debug_assert!(base + K <= self.matrices.len());
        let t = self.matrices.as_ptr().add(base);
        let mut out = [Vec3A::ZERO; 3];
        for (j, col) in out.iter_mut().enumerate() {
            let mut acc = [Vec3A::ZERO; K];
            for (m, a) in acc.iter_mut().enumerate() {
                *a = Vec3A::from((*t.add(m)).col(j)) * w[m];
            }
            *col = super::arith::pairwise(&mut acc);
        }
        out
    }
}

/// The lanes of a mixed group of eight vertices ([`super::kernel::VertexKernel::mixed`]):
/// which go to the per-vertex formula, and the stretch of the others.
#[cfg(target_arch = "x86_64")]
#[derive(Default)]
pub(crate) struct MixedLanes {
    /// Bit `l`: lane `l` is deformed by the per-vertex formula (an empty set, one joint, the LBS
    /// fallback, a far centre).
    pub alone: u32,
    /// Bit `l`: lane `l`'s set is stretched.
    stretched: u32,
    /// Bit `l`: lane `l`'s stretch is uniform.
    uniform: u32,
    /// Each stretched lane's set.
    sets: [usize; 8],
}

#[cfg(target_arch = "x86_64")]
impl MixedLanes {
    /// Records lane `l` of set `set` with flags `flags`; returns whether the lanes deform it
    /// (skipping the blends of the others costs less than their mispredicted branches).
    #[inline(always)]
    pub(crate) fn take(&mut self, l: usize, set: usize, flags: u8) -> bool {
        if flags & !STRETCHED != 0 {
            self.alone |= 1 << l;
            return false;
        }
        if flags != 0 {
            self.stretched |= 1 << l;
            self.uniform |= u32::from(flags & SET_UNIFORM_STRETCH != 0) << l;
            self.sets[l] = set;
        }
        true
    }
}

#[cfg(target_arch = "x86_64")]
impl Stretches<'_> {
    /// `(v_s, n_s)` of a mixed group of eight (`p`, and `n` with `NORMALS`, eight each; zero
    /// normals without): the rest data where no lane is stretched, else each stretched lane by
    /// [`Stretches::apply`] with fused multiply-adds, as the per-vertex formula.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA; the stretched lanes' sets are within both tables.
    #[inline(always)]
    pub(crate) unsafe fn mixed<const K: usize, const NORMALS: bool>(
        &self,
        lanes: &MixedLanes,
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
    ) -> (V8, V8) {
        if lanes.stretched == 0 {
            return (V8::load(p), if NORMALS { V8::load(n) } else { V8::zero() });
        }
        if lanes.stretched == lanes.uniform {
            // Every stretched lane is uniform: `v_s = (Σ w_j s_j) v` and `n_s = n` (as `apply`),
            // the scales blended lane by lane and the positions scaled in the lanes (the others
            // by 1, which keeps every bit). No closure: it would be compiled without AVX.
            let mut scale = [1.0f32; 8];
            for (l, s) in scale.iter_mut().enumerate() {
                if lanes.uniform & (1 << l) != 0 {
                    *s = blend::<K, f32>(self.scales, lanes.sets[l] * K, as_array(&w[l * K..(l + 1) * K]));
                }
            }
            return (V8::load(p).scale(F8::load(&scale)), if NORMALS { V8::load(n) } else { V8::zero() });
        }
        let (mut vs, mut ns) = ([Vec3A::ZERO; 8], [Vec3A::ZERO; 8]);
        for l in 0..8 {
            let v = Vec3A::from(p[l]);
            let nl = if NORMALS { Vec3A::from(n[l]) } else { Vec3A::ZERO };
            (vs[l], ns[l]) = if lanes.stretched & (1 << l) != 0 {
                let uniform = lanes.uniform & (1 << l) != 0;
                self.apply::<K, Fused>(uniform, lanes.sets[l] * K, as_array(&w[l * K..(l + 1) * K]), v, nl)
            } else {
                (v, nl)
            };
        }
        (V8::from_lanes(&vs), V8::from_lanes(&ns))
    }
}
