//! Which vertices painting has changed since the last save: the editor marks its document dirty
//! from this and File ▸ Save can report or write just the painted primitives. The weights
//! themselves always live in the model's `Influences`, so saving the model saves them.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::StrokeRecord;

/// Edited vertices per `(mesh, primitive)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditedVertices {
    prims: BTreeMap<(usize, usize), BTreeSet<u32>>,
}

impl EditedVertices {
    /// Nothing edited.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks every vertex a stroke, tool, undo or redo changed.
    pub fn note(&mut self, record: &StrokeRecord) {
        for e in record.entries() {
            self.prims.entry((e.mesh, e.prim)).or_default().insert(e.vertex);
        }
    }

    /// Whether anything was edited since the last [`EditedVertices::clear`].
    #[must_use]
    pub fn is_dirty(&self) -> bool {
        !self.prims.is_empty()
    }

    /// Forgets every edit (after a successful save or a load).
    pub fn clear(&mut self) {
        self.prims.clear();
    }

    /// The edited primitives as `(mesh, primitive)`, ascending.
    pub fn primitives(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.prims.keys().copied()
    }

    /// The edited vertices of one primitive, ascending.
    pub fn vertices(&self, mesh: usize, prim: usize) -> impl Iterator<Item = u32> + '_ {
        self.prims.get(&(mesh, prim)).into_iter().flat_map(|s| s.iter().copied())
    }

    /// Number of edited vertices over every primitive.
    #[must_use]
    pub fn len(&self) -> usize {
        self.prims.values().map(BTreeSet::len).sum()
    }

    /// Whether no vertex is edited.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.prims.is_empty()
    }
}
