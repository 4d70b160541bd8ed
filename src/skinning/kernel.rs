//! What a skinning method implements for the shared per-vertex pass (`vertex_pass`): its kernel
//! over a prepared frame ([`Method::prepare`]: the frame's tables it reads, checked once per
//! primitive) and its per-vertex formula over `K` weight slots ([`VertexKernel`]), with optional
//! eight-lane paths. Also what every kernel reads of the frame ([`Sets`]: the set flags, LBS's
//! columns and the set ids' range).

use glam::{Vec3, Vec3A};

#[cfg(target_arch = "x86_64")]
use super::arith::Fused;
use super::arith::{Arith, Plain};
use super::cols::{apply_cols, blend_cols};
use super::SkinFrame;

/// Eight vertices of a group: their rest positions `p` and normals `n`, and where their deformed
/// ones go (`op`, `on`); eight entries each (fewer only in the last few of a mixed walk; the normals
/// empty where the group has none).
#[cfg(target_arch = "x86_64")]
pub(crate) struct Eight<'a> {
    /// Rest positions.
    pub p: &'a [Vec3],
    /// Rest normals.
    pub n: &'a [Vec3],
    /// Deformed positions.
    pub op: &'a mut [Vec3],
    /// Deformed normals.
    pub on: &'a mut [Vec3],
}

/// The per-set tables every method reads, checked against the slot count: the set flags
/// ([`SkinFrame::flags`]), LBS's columns ([`SkinFrame::cols`]: one-joint sets and the LBS fallback
/// in every method) and the largest valid set id.
#[derive(Clone, Copy)]
pub(crate) struct Sets<'a> {
    flags: &'a [u8],
    cols: &'a [[Vec3A; 4]],
    last: u32,
}

impl<'a> Sets<'a> {
    /// The sets of `frame` if it was prepared for `K` slots and holds every set's `K` columns.
    pub(crate) fn of<const K: usize>(frame: &'a SkinFrame) -> Option<Self> {
        let sets = frame.flags.len();
        (sets > 0 && frame.slots == K && frame.cols.len() >= sets * K).then(|| Self {
            flags: &frame.flags,
            cols: &frame.cols,
            last: sets as u32 - 1,
        })
    }

    /// How many sets there are.
    pub(crate) fn len(&self) -> usize {
        self.last as usize + 1
    }

    /// The set (clamped to the last set, so a stale word cannot read past the tables) and the
    /// pivot slot (below `K`) of a packed set word.
    #[inline(always)]
    pub(crate) fn locate<const K: usize>(&self, word: u32) -> (usize, usize) {
        let (set, pivot) = crate::model::Influences::unpack(word);
        (set.min(self.last) as usize, pivot & (K - 1))
    }

    /// The flags of `set`.
    ///
    /// # Safety
    /// `set` comes from [`Sets::locate`].
    #[inline(always)]
    pub(crate) unsafe fn flags(&self, set: usize) -> u8 {
        *self.flags.get_unchecked(set)
    }

    /// LBS of one vertex of `set` (separate multiplies and adds even where FMA exists: the blend is
    /// all multiply-adds, and fused ones would queue on the two FMA pipes while the adders idle;
    /// llvm-mca, znver3: 15.5 against 21.5 cycles per vertex at K = 4).
    ///
    /// # Safety
    /// `set` comes from [`Sets::locate`] with this `K`.
    #[inline(always)]
    pub(crate) unsafe fn lbs<const K: usize>(&self, set: usize, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        apply_cols::<Plain>(&self.blended_cols::<K>(set, w), p, n)
    }

    /// The columns of `set`'s members blended by `w`, as [`Sets::lbs`] blends them.
    ///
    /// # Safety
    /// As [`Sets::lbs`].
    #[inline(always)]
    pub(crate) unsafe fn blended_cols<const K: usize>(&self, set: usize, w: &[f32; K]) -> [Vec3A; 4] {
        blend_cols::<K, Plain>(self.cols, set, w)
    }

    /// The columns of `set`'s members blended by eight vertices' weights `wk` (one register per
    /// slot), each lane rounded as [`Sets::blended_cols`] rounds.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA; `set` comes from [`Sets::locate`] with this `K`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) unsafe fn blended_cols8<const K: usize>(
        &self,
        set: usize,
        wk: &[super::lanes::F8; K],
    ) -> [super::lanes::V8; 4] {
        super::lanes::blend_cols::<K, _>(self.cols.get_unchecked(set * K..set * K + K), wk)
    }

    /// LBS of eight vertices of `set` in lanes, rounded as [`Sets::lbs`].
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA; `w` holds `8 K` weights.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) unsafe fn lbs_lanes<const K: usize, const NORMALS: bool>(&self, set: usize, w: &[f32], g: Eight<'_>) {
        super::cols::lanes_cols::<K, NORMALS>(&self.cols[set * K..set * K + K], w, g.p, g.n, g.op, g.on);
    }

    /// LBS of sixteen vertices of `set` in 512-bit lanes, rounded as [`Sets::lbs`].
    ///
    /// # Safety
    /// The CPU must have AVX-512F and AVX-512VL besides AVX2 and FMA; `w` holds `16 K` weights,
    /// the slices of `g` sixteen entries (the normals none without `NORMALS`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) unsafe fn lbs_lanes16<const K: usize, const NORMALS: bool>(&self, set: usize, w: &[f32], g: Eight<'_>) {
        use super::lanes16::weights16;
        let cols = super::lanes::blend_cols::<K, _>(&self.cols[set * K..set * K + K], &weights16::<K>(w));
        super::cols::apply_lanes::<_, NORMALS>(&cols, g.p, g.n, g.op, g.on);
    }
}

/// A method's kernel as the pass builds it, once per primitive, for every slot count the
/// influences can have (1, 2, 4, 8, 16: [`crate::model::JointSetTable`] rounds slot counts up to a
/// power of two).
pub(crate) trait Method<'a>:
    VertexKernel<1> + VertexKernel<2> + VertexKernel<4> + VertexKernel<8> + VertexKernel<16>
{
    /// The kernel over `frame` for `K` slots given its checked [`Sets`], or `None` where a table
    /// the method reads does not hold every set (the frame was not prepared for this method: the
    /// primitive then keeps its rest shape).
    fn prepare<const K: usize>(sets: Sets<'a>, frame: &'a SkinFrame) -> Option<Self>;
}

/// One method's per-vertex formula over `K` weight slots.
pub(crate) trait VertexKernel<const K: usize>: Sync + Copy {
    /// Deforms one vertex: `word` is its packed set word, `w` its weights, `p` and `n` its rest
    /// position and normal (zero when the primitive has none; the result is then dropped).
    fn vertex<M: Arith>(&self, word: u32, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A);

    /// Deforms eight consecutive vertices that share the packed set word `word` in the lanes of
    /// 256-bit registers (`w`: their `8 K` weights; `p`, `n`, `op`, `on` as in [`Eight`]; without
    /// `NORMALS`, the group's normals are neither read nor written and no normal is computed). The
    /// slices come one by one rather than as an [`Eight`] by value: continuous SBS's lanes, a
    /// call of their own, took 1.5 % more instructions so.
    /// Returns `false`, having written nothing, where the set needs the per-vertex path.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn lanes<const NORMALS: bool>(
        &self,
        word: u32,
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) -> bool;

    /// [`VertexKernel::lanes`] of sixteen consecutive vertices sharing `word` in the lanes of
    /// 512-bit registers, rounded alike (by default: `false`, leaving them to two groups of
    /// eight). Returns `false`, having written nothing, where the set needs another path.
    ///
    /// # Safety
    /// The CPU must have AVX-512F and AVX-512VL besides AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn lanes16<const NORMALS: bool>(
        &self,
        _word: u32,
        _w: &[f32],
        _p: &[Vec3],
        _n: &[Vec3],
        _op: &mut [Vec3],
        _on: &mut [Vec3],
    ) -> bool {
        false
    }

    /// Primitives with normals go through [`VertexKernel::mixed`] in the AVX2+FMA pass once the
    /// frame deforms at least this many skinned vertices: every run of eight consecutive vertices,
    /// in the file's order, instead of the lane-order windows (vertices grouped by set word within
    /// each window); `usize::MAX`: never. The windows' scattered gathers and stores cost far more
    /// once a primitive streams from memory (software prefetch of the next window did not change
    /// that), while in cache they can cost less than the mixed groups' transposes.
    const MIXED_FROM: usize = usize::MAX;
    /// Whether primitives without normals go through [`VertexKernel::mixed`] (otherwise one by
    /// one).
    const MIXED_WITHOUT_NORMALS: bool = false;

    /// Deforms eight consecutive vertices whatever their set words (`words`: eight; `w`: their
    /// `8 K` weights; the slices as in [`VertexKernel::lanes`], the normals read and written only
    /// with `NORMALS`), rounded exactly
    /// as [`VertexKernel::vertex`] with fused multiply-adds: each vertex's table blends one by one,
    /// then the rest of the formula in the lanes of 256-bit registers (by default, every vertex by
    /// [`VertexKernel::vertex`]).
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
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
        mixed_alone::<K, Self, NORMALS>(self, 0xff, words, w, Eight { p, n, op, on });
    }
}

/// The vertices of a mixed group of (up to) eight ([`VertexKernel::mixed`]) that the group's
/// lanes leave to the per-vertex formula (bit `l` set: lane `l`), deformed one by one over what
/// the lanes wrote; also the last few vertices of the mixed walk.
///
/// # Safety
/// As [`VertexKernel::mixed`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn mixed_alone<const K: usize, F: VertexKernel<K>, const NORMALS: bool>(
    kernel: &F,
    mut alone: u32,
    words: &[u32],
    w: &[f32],
    g: Eight<'_>,
) {
    while alone != 0 {
        let l = alone.trailing_zeros() as usize;
        alone &= alone - 1;
        let nl = if NORMALS { g.n[l].into() } else { Vec3A::ZERO };
        let (a, b) = kernel.vertex::<Fused>(words[l], as_array(&w[l * K..(l + 1) * K]), g.p[l].into(), nl);
        g.op[l] = a.into();
        if NORMALS {
            g.on[l] = b.into();
        }
    }
}

/// A `chunks_exact(K)` item as an array reference.
#[inline(always)]
pub(crate) fn as_array<const K: usize>(w: &[f32]) -> &[f32; K] {
    debug_assert_eq!(w.len(), K);
    // SAFETY: callers pass chunks of `chunks_exact(K)`, which hold exactly K elements.
    unsafe { &*w.as_ptr().cast::<[f32; K]>() }
}
