//! Undo records: a stroke (or a tool run) remembers, per touched vertex, its exact stored state
//! before the first change and after the last one, so undo and redo restore it bit for bit
//! (weights, packed set word, hence identical joint-set lookups). Joint-set tables only grow, so
//! every recorded set id stays valid.

use std::collections::hash_map::Entry;

use super::grid::IntegerMap;
use crate::model::influences::VertexSnapshot;
use crate::model::{Influences, Model};

/// One touched vertex: where it is and its states before and after.
#[derive(Clone, Debug, PartialEq)]
pub struct StrokeEntry {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub prim: usize,
    /// Vertex index within the primitive.
    pub vertex: u32,
    /// State before the stroke.
    pub before: VertexSnapshot,
    /// State after the stroke's last change.
    pub after: VertexSnapshot,
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
    /// The entry of each recorded `(mesh, primitive, vertex)`: a hash map, so that a dab's cost
    /// does not grow with the mesh.
    index: IntegerMap<(usize, usize, u32), u32>,
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

    /// Records that vertex `vertex` of `(mesh, prim)` changed from `before` to `after`; a vertex
    /// already recorded keeps its first `before` and takes the new `after`.
    pub fn record(&mut self, mesh: usize, prim: usize, vertex: u32, before: VertexSnapshot, after: VertexSnapshot) {
        match self.index.entry((mesh, prim, vertex)) {
            Entry::Occupied(e) => self.entries[*e.get() as usize].after = after,
            Entry::Vacant(e) => {
                e.insert(self.entries.len() as u32);
                self.entries.push(StrokeEntry { mesh, prim, vertex, before, after });
            }
        }
    }

    /// Appends another record's changes (e.g. the dabs of one stroke), keeping the first
    /// `before` of each vertex.
    pub fn merge(&mut self, other: &StrokeRecord) {
        for e in &other.entries {
            self.record(e.mesh, e.prim, e.vertex, e.before, e.after);
        }
    }

    /// Restores every recorded vertex to its state before the stroke.
    pub fn undo(&self, model: &mut Model) -> Vec<TouchedPrimitive> {
        for e in self.entries.iter().rev() {
            if let Some(inf) = influences_mut(model, e.mesh, e.prim, e.vertex) {
                inf.restore(e.vertex as usize, &e.before);
            }
        }
        self.touched()
    }

    /// Re-applies the stroke: every recorded vertex gets its state after the stroke.
    pub fn redo(&self, model: &mut Model) -> Vec<TouchedPrimitive> {
        for e in &self.entries {
            if let Some(inf) = influences_mut(model, e.mesh, e.prim, e.vertex) {
                inf.restore(e.vertex as usize, &e.after);
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

fn influences_mut(model: &mut Model, mesh: usize, prim: usize, vertex: u32) -> Option<&mut Influences> {
    let inf = model.meshes.get_mut(mesh)?.primitives.get_mut(prim)?.influences.as_mut()?;
    ((vertex as usize) < inf.len()).then_some(inf)
}
