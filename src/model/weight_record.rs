//! Undo records: a stroke (or a tool run) remembers, per touched vertex, its exact stored state
//! before the first change and after the last one, so undo and redo restore it bit for bit
//! (weights, packed set word, hence identical joint-set lookups). Joint-set tables only grow, so
//! every recorded set id stays valid.

use std::collections::hash_map::Entry;

use super::influences::VertexSnapshot;
use super::{Influences, Model};
use crate::maths::point_grid::IntegerMap;

/// One touched vertex: where it is and its states before and after ([`StrokeRecord::before`],
/// [`StrokeRecord::after`]).
#[derive(Clone, Debug)]
pub struct StrokeEntry {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub prim: usize,
    /// Vertex index within the primitive.
    pub vertex: u32,
    /// State before the stroke.
    before: Pooled,
    /// State after the stroke's last change.
    after: Pooled,
}

/// A recorded vertex state: its packed set word and `len` weights from `at` in the record's
/// weight pool (only the significant weights: 16 bytes for a 4-slot skin, where a full
/// [`VertexSnapshot`] holds 64; a 1M-vertex tool run's record takes half the memory it did).
#[derive(Clone, Copy, Debug)]
struct Pooled {
    word: u32,
    at: u32,
    len: u8,
}

/// Vertices of one primitive that an undo, redo or stroke changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TouchedPrimitive {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub prim: usize,
    /// Vertex indices, ascending.
    pub vertices: Vec<u32>,
}

impl TouchedPrimitive {
    /// Groups sorted `(mesh, primitive, vertex)` keys by primitive, keeping their order.
    #[must_use]
    pub fn group_sorted(keys: impl IntoIterator<Item = (usize, usize, u32)>) -> Vec<Self> {
        let mut out: Vec<Self> = Vec::new();
        for (mesh, prim, v) in keys {
            match out.last_mut() {
                Some(t) if t.mesh == mesh && t.prim == prim => t.vertices.push(v),
                _ => out.push(Self { mesh, prim, vertices: vec![v] }),
            }
        }
        out
    }
}

/// The undo record of one stroke or tool run.
#[derive(Clone, Debug, Default)]
pub struct StrokeRecord {
    label: String,
    entries: Vec<StrokeEntry>,
    /// The entry of each recorded vertex, keyed by its primitive's place in `prims` and its
    /// vertex index: a hash map, so that a dab's cost does not grow with the mesh, of 12-byte
    /// slots (a large dab's map stays in cache).
    index: IntegerMap<(u32, u32), u32>,
    /// The recorded `(mesh, primitive)` pairs, in order of first change.
    prims: Vec<(usize, usize)>,
    /// The recorded states' weights ([`Pooled`]).
    weights: Vec<f32>,
}

impl StrokeRecord {
    /// An empty record named `label` (shown in the history, e.g. "Paint Add" or "Clean").
    #[must_use]
    pub fn new(label: impl Into<String>) -> Self {
        Self { label: label.into(), ..Self::default() }
    }

    /// The record's name.
    #[must_use]
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Whether nothing was changed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of vertices changed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The entries, in order of first change.
    #[must_use]
    pub fn entries(&self) -> &[StrokeEntry] {
        &self.entries
    }

    /// Makes room for `vertices` more recorded vertices (with up to `slots` weights in each
    /// state), so that a dab of known size grows the record once rather than step by step.
    pub fn reserve(&mut self, vertices: usize, slots: usize) {
        self.entries.reserve(vertices);
        self.index.reserve(vertices);
        self.weights.reserve(vertices * 2 * slots);
    }

    /// The key of vertex `vertex` of `(mesh, prim)` in `index`.
    fn key(&mut self, mesh: usize, prim: usize, vertex: u32) -> (u32, u32) {
        let k = match self.prims.iter().rposition(|&p| p == (mesh, prim)) {
            Some(k) => k,
            None => {
                self.prims.push((mesh, prim));
                self.prims.len() - 1
            }
        };
        (k as u32, vertex)
    }

    /// Records that vertex `vertex` of `(mesh, prim)` changed from `before` to `after`; a vertex
    /// already recorded keeps its first `before` and takes the new `after`.
    pub fn record(&mut self, mesh: usize, prim: usize, vertex: u32, before: VertexSnapshot, after: VertexSnapshot) {
        let key = self.key(mesh, prim, vertex);
        match self.index.entry(key) {
            Entry::Occupied(e) => {
                let i = *e.get() as usize;
                let old = self.entries[i].after;
                let new = after.significant_weights();
                // The new state reuses the old one's room when it fits (it does unless the
                // skin's slots grew in between).
                let after = if new.len() <= usize::from(old.len) {
                    let at = old.at as usize;
                    self.weights[at..at + new.len()].copy_from_slice(new);
                    Pooled { word: after.word(), at: old.at, len: new.len() as u8 }
                } else {
                    pool(&mut self.weights, &after)
                };
                self.entries[i].after = after;
            }
            Entry::Vacant(e) => {
                e.insert(self.entries.len() as u32);
                let before = pool(&mut self.weights, &before);
                let after = pool(&mut self.weights, &after);
                self.entries.push(StrokeEntry { mesh, prim, vertex, before, after });
            }
        }
    }

    /// The state of entry `e` (of this record) before the stroke.
    #[must_use]
    pub fn before(&self, e: &StrokeEntry) -> VertexSnapshot {
        self.snapshot(e.before)
    }

    /// The state of entry `e` (of this record) after the stroke.
    #[must_use]
    pub fn after(&self, e: &StrokeEntry) -> VertexSnapshot {
        self.snapshot(e.after)
    }

    fn snapshot(&self, s: Pooled) -> VertexSnapshot {
        let at = s.at as usize;
        VertexSnapshot::from_parts(s.word, self.weights.get(at..at + usize::from(s.len)).unwrap_or(&[]))
    }

    /// Appends another record's changes (e.g. the dabs of one stroke), keeping the first
    /// `before` of each vertex.
    pub fn merge(&mut self, other: &StrokeRecord) {
        for e in &other.entries {
            self.record(e.mesh, e.prim, e.vertex, other.before(e), other.after(e));
        }
    }

    /// Restores every recorded vertex to its state before the stroke.
    pub fn undo(&self, model: &mut Model) -> Vec<TouchedPrimitive> {
        for e in self.entries.iter().rev() {
            if let Some(inf) = influences_mut(model, e.mesh, e.prim, e.vertex) {
                inf.restore(e.vertex as usize, &self.before(e));
            }
        }
        self.touched()
    }

    /// Re-applies the stroke: every recorded vertex gets its state after the stroke.
    pub fn redo(&self, model: &mut Model) -> Vec<TouchedPrimitive> {
        for e in &self.entries {
            if let Some(inf) = influences_mut(model, e.mesh, e.prim, e.vertex) {
                inf.restore(e.vertex as usize, &self.after(e));
            }
        }
        self.touched()
    }

    /// The recorded vertices grouped by primitive (primitives and vertices ascending), e.g. to
    /// re-skin them or to mark them as edited.
    #[must_use]
    pub fn touched(&self) -> Vec<TouchedPrimitive> {
        let mut keys: Vec<(usize, usize, u32)> = self.entries.iter().map(|e| (e.mesh, e.prim, e.vertex)).collect();
        keys.sort_unstable();
        TouchedPrimitive::group_sorted(keys)
    }
}

/// Appends `s`'s significant weights to `weights`; where they are.
fn pool(weights: &mut Vec<f32>, s: &VertexSnapshot) -> Pooled {
    let w = s.significant_weights();
    let at = weights.len() as u32;
    weights.extend_from_slice(w);
    Pooled { word: s.word(), at, len: w.len() as u8 }
}

fn influences_mut(model: &mut Model, mesh: usize, prim: usize, vertex: u32) -> Option<&mut Influences> {
    let inf = model.meshes.get_mut(mesh)?.primitives.get_mut(prim)?.influences.as_mut()?;
    ((vertex as usize) < inf.len()).then_some(inf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(word: u32, weights: &[f32]) -> VertexSnapshot {
        VertexSnapshot::from_parts(word, weights)
    }

    fn bits(s: &VertexSnapshot) -> (u32, Vec<u32>) {
        (s.word(), s.weights().iter().map(|w| w.to_bits()).collect())
    }

    #[test]
    fn pooled_states_come_back_bit_for_bit() {
        let mut r = StrokeRecord::new("test");
        let a = snap(7, &[0.5, -0.0, 0.5, 0.0]);
        let b = snap(9, &[1.0]);
        let c = snap(11, &[0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0, 1e-30]);
        let d = snap(3, &[0.0, 0.0]);
        r.record(0, 1, 5, a, b);
        r.record(2, 0, 5, b, a);
        // The same vertex again: the first `before` stays, the `after` follows (growing past its
        // room, then shrinking back into it).
        r.record(0, 1, 5, d, c);
        r.record(0, 1, 5, c, d);
        r.record(0, 1, 5, d, c);
        assert_eq!(r.len(), 2);
        let e = &r.entries()[0];
        assert_eq!((e.mesh, e.prim, e.vertex), (0, 1, 5));
        assert_eq!(bits(&r.before(e)), bits(&a));
        assert_eq!(bits(&r.after(e)), bits(&c));
        let e = &r.entries()[1];
        assert_eq!((bits(&r.before(e)), bits(&r.after(e))), (bits(&b), bits(&a)));
        // Merging keeps the first `before` of each vertex and takes the other's `after`.
        let mut first = StrokeRecord::new("first");
        first.record(0, 1, 5, d, b);
        first.record(4, 0, 0, d, d);
        first.merge(&r);
        assert_eq!(first.len(), 3);
        let e = &first.entries()[0];
        assert_eq!((bits(&first.before(e)), bits(&first.after(e))), (bits(&d), bits(&c)));
        let e = &first.entries()[2];
        assert_eq!((bits(&first.before(e)), bits(&first.after(e))), (bits(&b), bits(&a)));
    }
}
