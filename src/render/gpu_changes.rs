//! What changed in the CPU buffers since they were last uploaded, so that only that goes to the
//! GPU: nothing, everything (a new pose or method: every position and normal), or some vertices
//! of some primitives (a brush dab re-skins and recolours only the vertices it touched). Vertex
//! lists become byte ranges of the vertex buffers, neighbouring ranges merged when the gap
//! between them is small (one `glBufferSubData` per range; a short gap costs less to send again
//! than another call).

use std::ops::Range;

use crate::model::TouchedPrimitive;

/// Vertices closer than this (in vertices) to the previous range join it instead of starting a
/// new one.
pub const MERGE_GAP: u32 = 16;

/// What changed in one kind of buffer (positions and normals of a panel, or the colours).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Changed {
    /// Nothing since the last upload.
    #[default]
    Nothing,
    /// Every vertex of every primitive.
    All,
    /// Only these vertices (per mesh primitive; every instance of the mesh).
    Vertices(Vec<TouchedPrimitive>),
}

impl Changed {
    /// Adds `other`'s changes to these.
    pub fn merge(&mut self, other: Self) {
        match (std::mem::take(self), other) {
            (Self::All, _) | (_, Self::All) => *self = Self::All,
            (Self::Nothing, o) => *self = o,
            (s, Self::Nothing) => *self = s,
            (Self::Vertices(mut a), Self::Vertices(b)) => {
                for t in b {
                    match a.iter_mut().find(|x| x.mesh == t.mesh && x.prim == t.prim) {
                        Some(x) => {
                            x.vertices.extend_from_slice(&t.vertices);
                            x.vertices.sort_unstable();
                            x.vertices.dedup();
                        }
                        None => a.push(t),
                    }
                }
                *self = Self::Vertices(a);
            }
        }
    }

    /// Adds the vertices of `parts` (ascending vertex lists) to these changes.
    pub fn add_vertices(&mut self, parts: &[TouchedPrimitive]) {
        if !parts.is_empty() {
            self.merge(Self::Vertices(parts.to_vec()));
        }
    }

    /// Whether anything changed.
    #[must_use]
    pub fn any(&self) -> bool {
        *self != Self::Nothing
    }

    /// The vertex ranges of primitive `prim` of mesh `mesh` (with `vertices` vertices) to
    /// upload: empty when nothing of it changed, the whole primitive for [`Changed::All`].
    #[must_use]
    pub fn ranges(&self, mesh: usize, prim: usize, vertices: u32) -> Vec<Range<u32>> {
        match self {
            Self::Nothing => Vec::new(),
            Self::All => std::iter::once(0..vertices).collect(),
            Self::Vertices(parts) => parts
                .iter()
                .filter(|t| t.mesh == mesh && t.prim == prim)
                .flat_map(|t| coalesce(&t.vertices, MERGE_GAP))
                .map(|r| r.start.min(vertices)..r.end.min(vertices))
                .filter(|r| !r.is_empty())
                .collect(),
        }
    }
}

/// Everything the viewport's GPU buffers are behind on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuChanges {
    /// Positions and normals of the left and right panel.
    pub deformed: [Changed; 2],
    /// The vertex colours (weights, differences).
    pub colours: Changed,
}

impl GpuChanges {
    /// Every buffer changed.
    #[must_use]
    pub fn all() -> Self {
        Self { deformed: [Changed::All, Changed::All], colours: Changed::All }
    }

    /// Adds `other`'s changes to these.
    pub fn merge(&mut self, other: Self) {
        let [l, r] = other.deformed;
        self.deformed[0].merge(l);
        self.deformed[1].merge(r);
        self.colours.merge(other.colours);
    }

    /// Whether anything changed.
    #[must_use]
    pub fn any(&self) -> bool {
        self.deformed.iter().any(Changed::any) || self.colours.any()
    }
}

/// Ascending vertex indices as half-open ranges, a range continuing over gaps of fewer than
/// `max_gap` vertices.
#[must_use]
pub fn coalesce(vertices: &[u32], max_gap: u32) -> Vec<Range<u32>> {
    let mut out: Vec<Range<u32>> = Vec::new();
    for &v in vertices {
        match out.last_mut() {
            Some(r) if v >= r.start && v < r.end.saturating_add(max_gap) => r.end = r.end.max(v + 1),
            _ => out.push(v..v + 1),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalesce_merges_short_gaps_only() {
        assert_eq!(coalesce(&[], 4), Vec::<Range<u32>>::new());
        assert_eq!(coalesce(&[3, 4, 5, 8, 20, 21], 4), vec![3..9, 20..22]);
        assert_eq!(coalesce(&[3, 4, 5, 8], 1), vec![3..6, 8..9]);
        assert_eq!(coalesce(&[7], 0), vec![7..8]);
    }

    #[test]
    fn changes_merge() {
        let t = |mesh, vertices: Vec<u32>| TouchedPrimitive { mesh, prim: 0, vertices };
        let mut c = Changed::Nothing;
        c.add_vertices(&[t(0, vec![1, 2])]);
        c.add_vertices(&[t(0, vec![2, 40]), t(1, vec![5])]);
        assert_eq!(c, Changed::Vertices(vec![t(0, vec![1, 2, 40]), t(1, vec![5])]));
        assert_eq!(c.ranges(0, 0, 100), vec![1..3, 40..41]);
        assert_eq!(c.ranges(0, 0, 30), vec![1..3]);
        assert_eq!(c.ranges(2, 0, 100), Vec::<Range<u32>>::new());
        c.merge(Changed::All);
        assert_eq!(c.ranges(2, 0, 100), vec![0..100]);
        let mut g = GpuChanges::default();
        assert!(!g.any());
        g.merge(GpuChanges::all());
        assert!(g.any());
    }
}
