//! Linear blend skinning (spec "lbs"): v' = Σ w_i C_i v, n' = normalise((Σ w_i A_i) n).
//! Per vertex: blend the members' columns of C_i with the weights, apply to v and n
//! ([`super::cols`]).

use glam::{Vec3, Vec3A};

use super::arith::Arith;
#[cfg(target_arch = "x86_64")]
use super::cols::apply_lanes;
use super::frame::{SkinFrame, SET_EMPTY};
#[cfg(target_arch = "x86_64")]
use super::kernel::Eight;
use super::kernel::{Method, Sets, VertexKernel};
use super::DeformedPrimitive;
use crate::model::Influences;

/// Primitives with normals take the mixed groups of eight in the AVX2+FMA pass once the frame
/// deforms this many skinned vertices (every instance; or the primitive alone has them), else the
/// lane-order windows. The windows' shared-set lanes cost less
/// while the primitive stays in cache (densified CesiumMan, 2 threads: 0.133 against 0.165 ms at
/// 60k vertices, 0.35 against 0.38 at 150k) and far more once it streams from memory (1.6 against
/// 0.98 ms at 400k, 5.6 against 2.9 at 1M). Without normals LBS goes one vertex at a time: a
/// blend and three multiply-adds, cheaper than the transposes into lanes (1M-vertex Fox: 1.65
/// against 2.26 ms).
pub const MIXED_FROM: usize = 256 * 1024;

/// The LBS kernel over one prepared frame: the set tables every method reads are all it needs.
#[derive(Clone, Copy)]
pub(crate) struct Lbs<'a> {
    sets: Sets<'a>,
}

impl<'a> Method<'a> for Lbs<'a> {
    fn prepare<const K: usize>(sets: Sets<'a>, _: &'a SkinFrame) -> Option<Self> {
        Some(Self { sets })
    }
}

impl<const K: usize> VertexKernel<K> for Lbs<'_> {
    const MIXED_FROM: usize = MIXED_FROM;
    // In joint-set order nearly every group of eight is a run: 1M-vertex Fox (no normals), LBS
    // 1.72–1.86 → 1.16–1.20 ms on 2 threads against one vertex at a time.
    const MIXED_WITHOUT_NORMALS: bool = true;

    #[inline(always)]
    fn vertex<M: Arith>(&self, word: u32, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        let (set, _) = self.sets.locate::<K>(word);
        // SAFETY: `set` comes from `locate`, over tables `Sets::of` checked.
        unsafe {
            if self.sets.flags(set) & SET_EMPTY != 0 {
                return (p, n);
            }
            self.sets.lbs::<K>(set, w, p, n)
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
        let g = Eight { p, n, op, on };
        let (set, _) = self.sets.locate::<K>(word);
        if self.sets.flags(set) & SET_EMPTY != 0 {
            return false;
        }
        self.sets.lbs_lanes::<K, NORMALS>(set, w, g);
        true
    }

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
        let (set, _) = self.sets.locate::<K>(word);
        if self.sets.flags(set) & SET_EMPTY != 0 {
            return false;
        }
        self.sets.lbs_lanes16::<K, NORMALS>(set, w, Eight { p, n, op, on });
        true
    }

    /// The blended columns of the eight vertices, then applied in eight lanes. A group of few
    /// sets (where a run of one set meets the next) blends each set's columns in the lanes with
    /// every lane's weights and keeps each lane's own set's; a group of more sets blends each
    /// vertex's columns on its own and moves them into the lanes. Both round every lane as
    /// [`Sets::blended_cols`] does.
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
        let g = Eight { p, n, op, on };
        use super::kernel::{as_array, mixed_alone};
        use super::lanes::{weights, Mask8, V8};
        let mut sets = [0u32; 8];
        let mut alone = 0u32;
        for (l, &word) in words[..8].iter().enumerate() {
            let (set, _) = self.sets.locate::<K>(word);
            sets[l] = set as u32;
            alone |= u32::from(self.sets.flags(set) & SET_EMPTY != 0) << l;
        }
        let mut distinct = [0u32; LANE_SETS];
        let mut count = 0;
        for &set in &sets {
            if !distinct[..count.min(LANE_SETS)].contains(&set) {
                if count < LANE_SETS {
                    distinct[count] = set;
                }
                count += 1;
            }
        }
        let cols = if count <= LANE_SETS {
            let wk = weights::<K>(w);
            let mut cols = self.sets.blended_cols8::<K>(distinct[0] as usize, &wk);
            for &set in &distinct[1..count] {
                let mask = Mask8::equal(&sets, set);
                let theirs = self.sets.blended_cols8::<K>(set as usize, &wk);
                for (c, t) in cols.iter_mut().zip(theirs) {
                    *c = c.select(mask, t);
                }
            }
            cols
        } else {
            let mut cols = [[Vec3A::ZERO; 8]; 4];
            for (l, &set) in sets.iter().enumerate() {
                let m = self.sets.blended_cols::<K>(set as usize, as_array::<K>(&w[l * K..(l + 1) * K]));
                for (c, mj) in cols.iter_mut().zip(m) {
                    c[l] = mj;
                }
            }
            cols.map(|c| V8::from_lanes(&c))
        };
        apply_lanes::<_, NORMALS>(&cols, g.p, g.n, g.op, g.on);
        mixed_alone::<K, Self, NORMALS>(self, alone, words, w, g);
    }
}

/// A mixed group of up to this many distinct sets blends each set's columns in the lanes
/// ([`VertexKernel::mixed`]): a set's blend there costs about what two vertices' blends and
/// their moves into the lanes cost.
#[cfg(target_arch = "x86_64")]
const LANE_SETS: usize = 2;

/// Deforms one primitive by LBS into `out` (its rest shape if `frame` was not prepared for the
/// primitive's skin).
pub fn lbs(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    super::vertex_pass::deform::<Lbs>(frame, inf, super::Rest { positions, normals, morph: None }, out);
}
