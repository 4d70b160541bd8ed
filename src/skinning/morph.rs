//! Morph targets applied as the per-vertex pass streams the rest surface (glTF: morph, then skin).
//! [`MorphDeltas`] holds a primitive's targets by model index, prepared once: a displacement per
//! vertex where a target moves at least a third of them, else sparse entries with their offsets per
//! [`BLOCK`] vertices. [`Morph`] adds the weighted displacements of a few dozen vertices to their
//! rest positions (and normals) in a scratch the kernel reads right after, still in the first-level
//! cache: a frame writes no morphed copy of the surface and reads none back, and the pass keeps
//! streaming from memory while it computes (a lane-order window of 2048 morphed at once left the
//! loads of each window waiting on their own, +35 % at 1M vertices for a one-vertex target). Every path (the pass, a held surface, a partial
//! re-skin) adds the same terms in the same order, `p + w₀·d₀ + w₁·d₁ + …` over the targets whose
//! weight is not zero, so they agree bit for bit.

use glam::Vec3;

use crate::model::lane_order::WINDOW;
use crate::model::{MorphTarget, VertexOrder};

/// Vertices per block: the sparse entries' offsets are kept per block, and the pass morphs a block
/// (eight lane groups) at a time where it walks the surface in its order, a lane-order window
/// ([`WINDOW`], a whole number of blocks) where it walks windows.
pub(crate) const BLOCK: usize = 64;

const _: () = assert!(WINDOW.is_multiple_of(BLOCK));

/// One target of a primitive, by model index.
#[derive(Clone, Debug)]
enum Deltas {
    /// A displacement per vertex (normals empty when the target moves none).
    Dense { positions: Vec<Vec3>, normals: Vec<Vec3> },
    /// The moved vertices (sorted), their displacements (normals empty when the target moves none)
    /// and, per block of [`BLOCK`] vertices, where its entries start (one more than the blocks).
    Sparse { vertices: Vec<u32>, positions: Vec<Vec3>, normals: Vec<Vec3>, starts: Vec<u32> },
}

impl Deltas {
    fn moves_normals(&self) -> bool {
        match self {
            Self::Dense { normals, .. } | Self::Sparse { normals, .. } => !normals.is_empty(),
        }
    }

    /// Writes `rest + w ·` this target's displacements (`NORMALS`: of the normals, else of the
    /// positions) of vertices `start..start + out.len()` (`start` a multiple of [`BLOCK`]) into
    /// `out` (`rest` as long as `out`).
    #[inline(always)]
    fn set<const NORMALS: bool>(&self, w: f32, start: usize, rest: &[Vec3], out: &mut [Vec3]) {
        match self {
            Self::Dense { positions, normals } => {
                let d = if NORMALS { normals } else { positions };
                match d.get(start..start + out.len()) {
                    Some(d) => {
                        for ((o, &r), &d) in flat_mut(out).iter_mut().zip(flat(rest)).zip(flat(d)) {
                            *o = r + w * d;
                        }
                    }
                    None => out.copy_from_slice(rest),
                }
            }
            Self::Sparse { .. } => {
                out.copy_from_slice(rest);
                self.add::<NORMALS>(w, start, out);
            }
        }
    }

    /// Adds `w` times this target's displacements of vertices `start..start + out.len()` to `out`
    /// (as [`Deltas::set`]).
    #[inline(always)]
    fn add<const NORMALS: bool>(&self, w: f32, start: usize, out: &mut [Vec3]) {
        match self {
            Self::Dense { positions, normals } => {
                let d = if NORMALS { normals } else { positions };
                if let Some(d) = d.get(start..start + out.len()) {
                    for (o, &d) in flat_mut(out).iter_mut().zip(flat(d)) {
                        *o += w * d;
                    }
                }
            }
            Self::Sparse { vertices, positions, normals, starts } => {
                let d = if NORMALS { normals } else { positions };
                let (e0, e1) = entries(starts, start, out.len());
                let (Some(vs), Some(ds)) = (vertices.get(e0..e1), d.get(e0..e1)) else { return };
                for (&v, &d) in vs.iter().zip(ds) {
                    if let Some(o) = (v as usize).checked_sub(start).and_then(|k| out.get_mut(k)) {
                        *o += w * d;
                    }
                }
            }
        }
    }

    /// Whether the target moves a vertex of `start..start + len` (`start` a multiple of [`BLOCK`]).
    fn touches(&self, start: usize, len: usize) -> bool {
        match self {
            Self::Dense { .. } => true,
            Self::Sparse { starts, .. } => {
                let (e0, e1) = entries(starts, start, len);
                e0 < e1
            }
        }
    }

    /// Vertex `v`'s displacement (`NORMALS`: of its normal), zero where the target leaves it.
    fn at<const NORMALS: bool>(&self, v: usize) -> Vec3 {
        match self {
            Self::Dense { positions, normals } => {
                (if NORMALS { normals } else { positions }).get(v).copied().unwrap_or(Vec3::ZERO)
            }
            Self::Sparse { vertices, positions, normals, .. } => {
                let d = if NORMALS { normals } else { positions };
                vertices.binary_search(&(v as u32)).ok().and_then(|k| d.get(k)).copied().unwrap_or(Vec3::ZERO)
            }
        }
    }
}

/// The range of a sparse target's entries (with offsets `starts` per block) of vertices `start..start
/// + len` (`start` a multiple of [`BLOCK`]).
fn entries(starts: &[u32], start: usize, len: usize) -> (usize, usize) {
    let last = starts.len().saturating_sub(1);
    let at = |b: usize| starts.get(b.min(last)).map_or(0, |&e| e as usize);
    (at(start / BLOCK), at((start + len).div_ceil(BLOCK)))
}

/// Asks for every 64-byte cache line of `items[start..start + len]` (nothing beyond the end).
#[inline]
fn prefetch_lines(items: &[Vec3], start: usize, len: usize) {
    use crate::prefetch::prefetch;
    // Five vertices (60 bytes) apart, so that no line is skipped, then the last one.
    let end = (start + len).min(items.len());
    for v in (start..end).step_by(64 / std::mem::size_of::<Vec3>()) {
        prefetch(items, v);
    }
    if end > start {
        prefetch(items, end - 1);
    }
}

/// The floats of `v`.
fn flat(v: &[Vec3]) -> &[f32] {
    // SAFETY: `Vec3` is `#[repr(C)]` of three `f32`s with no padding.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<f32>(), v.len() * 3) }
}

/// The floats of `v`, mutable.
fn flat_mut(v: &mut [Vec3]) -> &mut [f32] {
    // SAFETY: as in `flat`; the borrow of `v` is moved into the result.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<f32>(), v.len() * 3) }
}

/// A primitive's morph targets by model index, prepared for the pass; kept by the deformer and
/// prepared again only for another primitive or other targets.
#[derive(Clone, Debug, Default)]
pub struct MorphDeltas {
    targets: Vec<Deltas>,
    /// Address and length of the rest positions and of the targets they were prepared from.
    source: (usize, usize, usize, usize),
}

impl MorphDeltas {
    /// Prepares `targets` of a primitive with rest positions `rest` and vertex order `order` (nothing
    /// to do when they are the ones of the last call).
    pub fn prepare(&mut self, rest: &[Vec3], order: &VertexOrder, targets: &[MorphTarget]) {
        let source = (rest.as_ptr() as usize, rest.len(), targets.as_ptr() as usize, targets.len());
        if self.source == source {
            return;
        }
        let n = rest.len();
        self.targets = targets.iter().map(|t| by_model_index(n, order, t)).collect();
        self.source = source;
    }

    /// Whether the prepared targets are `targets` of the primitive with rest positions `rest`.
    #[must_use]
    pub fn prepared_for(&self, rest: &[Vec3], targets: &[MorphTarget]) -> bool {
        self.source == (rest.as_ptr() as usize, rest.len(), targets.as_ptr() as usize, targets.len())
    }
}

/// `target`'s displacements by model index (vertices beyond the primitive's `n` dropped): dense
/// where it moves at least a third of the vertices, else sparse.
fn by_model_index(n: usize, order: &VertexOrder, target: &MorphTarget) -> Deltas {
    let with_normals = !target.normals.is_empty();
    let mut entries: Vec<(u32, Vec3, Vec3)> = target
        .vertices
        .iter()
        .zip(&target.positions)
        .enumerate()
        .map(|(k, (&f, &d))| (order.model_index(f as usize), d, target.normals.get(k).copied().unwrap_or(Vec3::ZERO)))
        .filter(|e| e.0 < n)
        .map(|(v, d, dn)| (v as u32, d, dn))
        .collect();
    if entries.len() * 3 >= n {
        let mut positions = vec![Vec3::ZERO; n];
        let mut normals = if with_normals { vec![Vec3::ZERO; n] } else { Vec::new() };
        for &(v, d, dn) in &entries {
            positions[v as usize] = d;
            if let Some(o) = normals.get_mut(v as usize) {
                *o = dn;
            }
        }
        return Deltas::Dense { positions, normals };
    }
    entries.sort_unstable_by_key(|e| e.0);
    entries.dedup_by_key(|e| e.0);
    let vertices: Vec<u32> = entries.iter().map(|e| e.0).collect();
    let starts =
        (0..=n.div_ceil(BLOCK)).map(|b| vertices.partition_point(|&v| (v as usize) < b * BLOCK) as u32).collect();
    Deltas::Sparse {
        positions: entries.iter().map(|e| e.1).collect(),
        normals: if with_normals { entries.iter().map(|e| e.2).collect() } else { Vec::new() },
        vertices,
        starts,
    }
}

/// The morph of one frame: a primitive's prepared targets and their weights (at least one not
/// zero).
#[derive(Clone, Copy, Debug)]
pub struct Morph<'a> {
    deltas: &'a MorphDeltas,
    weights: &'a [f32],
}

impl<'a> Morph<'a> {
    /// The morph of `deltas` by `weights`, or `None` where every weight is zero.
    #[must_use]
    pub fn new(deltas: &'a MorphDeltas, weights: &'a [f32]) -> Option<Self> {
        weights.iter().zip(&deltas.targets).any(|(&w, _)| w != 0.0).then_some(Self { deltas, weights })
    }

    /// The targets with a weight that is not zero, in order.
    fn active(&self) -> impl Iterator<Item = (&'a Deltas, f32)> {
        self.deltas.targets.iter().zip(self.weights.iter().copied()).filter(|&(_, w)| w != 0.0)
    }

    /// Whether an active target moves normals.
    #[must_use]
    pub fn moves_normals(&self) -> bool {
        self.active().any(|(t, _)| t.moves_normals())
    }

    /// Whether an active target moves a vertex of `start..start + len` (`start` a multiple of
    /// [`BLOCK`]).
    #[inline]
    pub(crate) fn touches(&self, start: usize, len: usize) -> bool {
        self.active().any(|(t, _)| t.touches(start, len))
    }

    /// Writes the morphed rest positions (`NORMALS`: normals) of vertices `start..start +
    /// out.len()` (`start` a multiple of [`BLOCK`]) into `out`, from their rest values `rest` (as
    /// long as `out`), and returns `true`; or returns `false`, having written nothing, where no
    /// active target moves any of them.
    #[inline(always)]
    pub(crate) fn block<const NORMALS: bool>(&self, start: usize, rest: &[Vec3], out: &mut [Vec3]) -> bool {
        let len = out.len();
        let mut active = self.active().filter(|(t, _)| t.touches(start, len));
        match active.next() {
            Some((t, w)) => t.set::<NORMALS>(w, start, rest, out),
            None => return false,
        }
        for (t, w) in active {
            t.add::<NORMALS>(w, start, out);
        }
        true
    }

    /// Asks for the cache lines of vertices `start..start + len`'s rest positions (`rest` holds
    /// those of vertices `first..`) and their active dense targets' position displacements: one
    /// hint a line (a hint; nothing beyond the ends).
    #[inline]
    pub(crate) fn prefetch(&self, rest: &[Vec3], first: usize, start: usize, len: usize) {
        if let Some(at) = start.checked_sub(first) {
            prefetch_lines(rest, at, len);
        }
        for (t, _) in self.active() {
            if let Deltas::Dense { positions, .. } = t {
                prefetch_lines(positions, start, len);
            }
        }
    }

    /// Writes every vertex's morphed rest positions (`NORMALS`: normals) into `out` (as long as
    /// `rest`), block by block over rayon's threads.
    pub(crate) fn surface<const NORMALS: bool>(&self, rest: &[Vec3], out: &mut [Vec3]) {
        use rayon::prelude::*;
        const TASK: usize = 256 * BLOCK;
        out.par_chunks_mut(TASK).zip(rest.par_chunks(TASK)).enumerate().for_each(|(b, (o, r))| {
            if !self.block::<NORMALS>(b * TASK, r, o) {
                o.copy_from_slice(r);
            }
        });
    }

    /// Vertex `v`'s morphed rest position and normal from its rest ones, as [`Morph::block`]
    /// writes them.
    #[must_use]
    pub(crate) fn vertex(&self, v: usize, p: Vec3, n: Vec3) -> (Vec3, Vec3) {
        let (mut p, mut n) = (p, n);
        for (t, w) in self.active() {
            p += w * t.at::<false>(v);
            if t.moves_normals() {
                n += w * t.at::<true>(v);
            }
        }
        (p, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_targets_add_the_same_terms_on_every_path() {
        let n = 12 * BLOCK + 5;
        let rest: Vec<Vec3> = (0..n).map(|v| Vec3::new(v as f32, 1.0, -(v as f32))).collect();
        let normals: Vec<Vec3> = (0..n).map(|v| Vec3::new(0.0, 1.0, v as f32 * 1e-3)).collect();
        let displacement = |v: usize| Vec3::new(0.1, (v as f32).sin(), 0.3);
        // Every vertex (dense) and every tenth one (sparse, with normals).
        let dense = MorphTarget::from_dense(&(0..n).map(displacement).collect::<Vec<_>>(), &[]);
        let sparse_d: Vec<Vec3> = (0..n).map(|v| if v % 10 == 0 { displacement(v) } else { Vec3::ZERO }).collect();
        let sparse = MorphTarget::from_dense(&sparse_d, &sparse_d);
        let targets = [dense, sparse];
        let mut deltas = MorphDeltas::default();
        deltas.prepare(&rest, &VertexOrder::default(), &targets);
        assert!(matches!(deltas.targets[0], Deltas::Dense { .. }));
        assert!(matches!(deltas.targets[1], Deltas::Sparse { .. }));
        assert!(Morph::new(&deltas, &[0.0, 0.0]).is_none());
        let weights = [0.5, -0.25];
        let morph = Morph::new(&deltas, &weights).unwrap();
        assert!(morph.moves_normals());
        let (mut p, mut q) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
        morph.surface::<false>(&rest, &mut p);
        morph.surface::<true>(&normals, &mut q);
        for v in 0..n {
            let want = rest[v] + 0.5 * displacement(v) + if v % 10 == 0 { -0.25 * displacement(v) } else { Vec3::ZERO };
            assert_eq!(p[v], want, "vertex {v}");
            assert_eq!(morph.vertex(v, rest[v], normals[v]), (p[v], q[v]), "vertex {v}");
        }
        assert_eq!(q[10], normals[10] - 0.25 * displacement(10));
        assert_eq!(q[11], normals[11]);
        // One target alone: only its terms.
        let morph = Morph::new(&deltas, &[0.0, 1.0]).unwrap();
        let mut one = vec![Vec3::ZERO; BLOCK];
        assert!(morph.block::<false>(10 * BLOCK, &rest[10 * BLOCK..11 * BLOCK], &mut one));
        assert_eq!(one[0], rest[10 * BLOCK] + displacement(10 * BLOCK), "a multiple of ten");
        assert_eq!(one[1], rest[10 * BLOCK + 1]);
        // A block the sparse target leaves alone is not written.
        let lone = MorphTarget::from_dense(&[Vec3::X], &[]);
        let mut deltas = MorphDeltas::default();
        deltas.prepare(&rest, &VertexOrder::default(), std::slice::from_ref(&lone));
        let morph = Morph::new(&deltas, &[1.0]).unwrap();
        assert!(!morph.block::<false>(BLOCK, &rest[BLOCK..2 * BLOCK], &mut one));
        assert!(morph.block::<false>(0, &rest[..BLOCK], &mut one));
        assert_eq!(one[0], rest[0] + Vec3::X);
    }
}
