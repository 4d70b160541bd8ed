//! Per-vertex skinning influences in a compact, streaming-friendly layout (the table of distinct
//! joint sets they use is in `model::joint_set_table`, re-exported here).
//!
//! Each vertex stores `k` weights (padded with zeros) and one `u32`: the id of its joint set in the
//! skin's [`JointSetTable`] plus, in the top bits, the slot of its pivot influence (the largest
//! weight, first in file order on ties; spec "dqs"/"sbs"). A vertex's slot `m` belongs to member `m`
//! of its set, whose joints are sorted ascending, so the per-vertex pass needs no joint indices.
//! Invariants: weights are finite, non-negative and sum to 1 over a non-empty set; padded slots
//! weigh exactly 0; set 0 is the empty set (a vertex with no influence, which is not moved).

use std::sync::OnceLock;

pub use super::joint_set_table::{JointSetTable, EMPTY_SET, MAX_SLOTS};
use super::lane_order::{WindowOrder, WINDOW};

const PIVOT_SHIFT: u32 = 28;
const SET_MASK: u32 = (1 << PIVOT_SHIFT) - 1;

/// Why a vertex's influences are invalid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InfluenceError {
    /// A weight is negative or not finite.
    #[error("vertex {vertex}: weight {value} in slot {slot} is negative or not finite")]
    BadWeight {
        /// Vertex index.
        vertex: usize,
        /// Slot index (over JOINTS_0, JOINTS_1, ...).
        slot: usize,
        /// The offending value.
        value: f32,
    },
    /// A joint index is beyond the skin's joint list.
    #[error("vertex {vertex}: joint index {joint} in slot {slot} is beyond the skin's {joint_count} joints")]
    JointOutOfRange {
        /// Vertex index.
        vertex: usize,
        /// Slot index.
        slot: usize,
        /// The offending joint index.
        joint: u32,
        /// Number of joints in the skin.
        joint_count: usize,
    },
    /// More influences than the layout can hold.
    #[error("vertex {vertex}: {count} distinct influences (at most {MAX_SLOTS} are supported)")]
    TooMany {
        /// Vertex index.
        vertex: usize,
        /// Number of distinct influences.
        count: usize,
    },
}

/// One vertex's influences in slot order: `(joint, weight)` with the pivot's position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexInfluences {
    /// Distinct joints with their normalised weights, in file slot order.
    pub pairs: Vec<(u16, f32)>,
}

impl VertexInfluences {
    /// Applies the spec's weight rules to one vertex's raw slots: zero weights dropped, negative or
    /// non-finite weights and out-of-range joints rejected, duplicate joints merged at the first
    /// slot, the rest divided by their sum.
    pub fn from_slots(
        vertex: usize,
        joints: &[u32],
        weights: &[f32],
        joint_count: usize,
    ) -> Result<Self, InfluenceError> {
        let mut pairs: Vec<(u16, f64)> = Vec::with_capacity(joints.len());
        for (slot, (&joint, &value)) in joints.iter().zip(weights).enumerate() {
            if !value.is_finite() || value < 0.0 {
                return Err(InfluenceError::BadWeight { vertex, slot, value });
            }
            if value == 0.0 {
                continue;
            }
            if joint as usize >= joint_count {
                return Err(InfluenceError::JointOutOfRange { vertex, slot, joint, joint_count });
            }
            let joint = joint as u16;
            match pairs.iter_mut().find(|(j, _)| *j == joint) {
                Some(pair) => pair.1 += f64::from(value),
                None => pairs.push((joint, f64::from(value))),
            }
        }
        if pairs.len() > MAX_SLOTS {
            return Err(InfluenceError::TooMany { vertex, count: pairs.len() });
        }
        let sum: f64 = pairs.iter().map(|p| p.1).sum();
        Ok(Self { pairs: pairs.into_iter().map(|(j, w)| (j, (w / sum) as f32)).collect() })
    }

    /// Slot of the pivot: the largest weight, the first in order on ties.
    #[must_use]
    pub fn pivot(&self) -> usize {
        pivot_of(&self.pairs)
    }
}

/// The slot of the pivot of `pairs`: the largest weight, the first in order on ties (0 when empty).
fn pivot_of(pairs: &[(u16, f32)]) -> usize {
    let mut best = 0;
    for (i, p) in pairs.iter().enumerate() {
        if p.1 > pairs[best].1 {
            best = i;
        }
    }
    best
}

/// The exact stored state of one vertex (see [`Influences::snapshot`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexSnapshot {
    word: u32,
    weights: [f32; MAX_SLOTS],
}

impl VertexSnapshot {
    /// The packed set word (set id and pivot slot).
    #[must_use]
    pub fn word(&self) -> u32 {
        self.word
    }

    /// The stored weights, padded with zeros to [`MAX_SLOTS`].
    #[must_use]
    pub fn weights(&self) -> &[f32; MAX_SLOTS] {
        &self.weights
    }

    /// The weights up to the last one that is not `+0.0` (the rest are padding, or stored zeros
    /// that [`VertexSnapshot::from_parts`] gives back bit for bit).
    #[must_use]
    pub fn significant_weights(&self) -> &[f32] {
        let len = self.weights.iter().rposition(|w| w.to_bits() != 0).map_or(0, |i| i + 1);
        &self.weights[..len]
    }

    /// The snapshot of set word `word` and `weights` (at most [`MAX_SLOTS`]; zeros after them).
    #[must_use]
    pub fn from_parts(word: u32, weights: &[f32]) -> Self {
        let mut padded = [0.0; MAX_SLOTS];
        let n = weights.len().min(MAX_SLOTS);
        padded[..n].copy_from_slice(&weights[..n]);
        Self { word, weights: padded }
    }
}

/// Influences of every vertex of one primitive (see the module docs for the layout).
#[derive(Clone, Debug)]
pub struct Influences {
    slots: usize,
    weights: Vec<f32>,
    sets: Vec<u32>,
    /// The eight-lane order of each window of vertices (`model::lane_order`), built on first
    /// use and dropped when a vertex of the window changes its set word.
    lanes: Vec<OnceLock<WindowOrder>>,
}

impl PartialEq for Influences {
    fn eq(&self, other: &Self) -> bool {
        self.slots == other.slots && self.weights == other.weights && self.sets == other.sets
    }
}

/// Empty lane orders for `n` vertices.
fn lane_windows(n: usize) -> Vec<OnceLock<WindowOrder>> {
    (0..n.div_ceil(WINDOW)).map(|_| OnceLock::new()).collect()
}

impl Influences {
    /// Lays out validated per-vertex influences, interning their joint sets in `table`.
    /// Every vertex must have at most `table.slots()` influences.
    pub fn from_vertices(vertices: &[VertexInfluences], table: &mut JointSetTable) -> Result<Self, InfluenceError> {
        let slots = table.slots();
        let mut out = Self {
            slots,
            weights: vec![0.0; vertices.len() * slots],
            sets: vec![EMPTY_SET; vertices.len()],
            lanes: lane_windows(vertices.len()),
        };
        for (v, inf) in vertices.iter().enumerate() {
            out.set_vertex(v, inf, table)?;
        }
        Ok(out)
    }

    /// Influences from a finished layout: `slots` weights per vertex and one packed set word each
    /// (see [`Influences::pack`]), whose sets are in the table the caller interned them in.
    pub(crate) fn from_layout(slots: usize, weights: Vec<f32>, sets: Vec<u32>) -> Self {
        let lanes = lane_windows(sets.len());
        Self { slots, weights, sets, lanes }
    }

    /// The packed set word of set `id` with its pivot in sorted slot `pivot_slot`.
    #[inline]
    #[must_use]
    pub fn pack(id: u32, pivot_slot: usize) -> u32 {
        id | ((pivot_slot as u32) << PIVOT_SHIFT)
    }

    /// Replaces the influences of vertex `v` (already validated and normalised).
    pub fn set_vertex(
        &mut self,
        v: usize,
        inf: &VertexInfluences,
        table: &mut JointSetTable,
    ) -> Result<(), InfluenceError> {
        self.set_vertex_pairs(v, &inf.pairs, table)
    }

    /// [`Influences::set_vertex`] from `(joint, weight)` pairs in slot order (the pivot is the
    /// largest weight, the first on ties), without allocating.
    pub fn set_vertex_pairs(
        &mut self,
        v: usize,
        pairs: &[(u16, f32)],
        table: &mut JointSetTable,
    ) -> Result<(), InfluenceError> {
        let n = pairs.len();
        if n > self.slots {
            return Err(InfluenceError::TooMany { vertex: v, count: n });
        }
        let pivot = pivot_of(pairs);
        let mut order = [0usize; MAX_SLOTS];
        for (i, o) in order.iter_mut().enumerate().take(n) {
            *o = i;
        }
        let order = &mut order[..n];
        order.sort_by_key(|&i| pairs[i].0);
        let mut sorted = [0u16; MAX_SLOTS];
        for (s, &i) in sorted.iter_mut().zip(order.iter()) {
            *s = pairs[i].0;
        }
        let id = table.intern(&sorted[..n]).ok_or(InfluenceError::TooMany { vertex: v, count: n })?;
        let pivot_slot = if n == 0 { 0 } else { order.iter().position(|&i| i == pivot).unwrap_or(0) };
        let row = &mut self.weights[v * self.slots..(v + 1) * self.slots];
        row.fill(0.0);
        for (slot, &i) in order.iter().enumerate() {
            row[slot] = pairs[i].1;
        }
        let word = Self::pack(id, pivot_slot);
        if self.sets[v] != word {
            self.sets[v] = word;
            self.lane_changed(v);
        }
        Ok(())
    }

    /// Re-pads every vertex to `slots` weight slots (zeros appended), keeping set ids and pivots;
    /// `slots` must be the new [`JointSetTable::slots`] of the table these influences use. Does
    /// nothing when the influences already have that many.
    pub fn grow_slots(&mut self, slots: usize) {
        if slots <= self.slots {
            return;
        }
        let mut weights = Vec::with_capacity(self.sets.len() * slots);
        for row in self.weights.chunks_exact(self.slots) {
            weights.extend_from_slice(row);
            weights.extend(std::iter::repeat_n(0.0, slots - self.slots));
        }
        self.weights = weights;
        self.slots = slots;
    }

    /// The exact stored state of vertex `v` (weights and packed set word), for undo.
    #[must_use]
    pub fn snapshot(&self, v: usize) -> VertexSnapshot {
        let mut weights = [0.0; MAX_SLOTS];
        weights[..self.slots].copy_from_slice(&self.weights[v * self.slots..(v + 1) * self.slots]);
        VertexSnapshot { word: self.sets[v], weights }
    }

    /// Restores vertex `v` to a [`Influences::snapshot`] taken from these influences (possibly
    /// before [`Influences::grow_slots`]), bit for bit. The snapshot's set id must still be in the
    /// table, which holds because tables never drop sets.
    pub fn restore(&mut self, v: usize, snapshot: &VertexSnapshot) {
        self.weights[v * self.slots..(v + 1) * self.slots].copy_from_slice(&snapshot.weights[..self.slots]);
        if self.sets[v] != snapshot.word {
            self.sets[v] = snapshot.word;
            self.lane_changed(v);
        }
    }

    /// Drops the lane order of vertex `v`'s window (its set word changed).
    fn lane_changed(&mut self, v: usize) {
        if let Some(window) = self.lanes.get_mut(v / WINDOW) {
            window.take();
        }
    }

    /// The eight-lane order of window `w` (vertices `w · WINDOW ..`), built on first use after
    /// a change; `None` beyond the last window.
    #[must_use]
    pub fn lane_window(&self, w: usize) -> Option<&WindowOrder> {
        let start = w.checked_mul(WINDOW)?;
        let words = self.sets.get(start..(start + WINDOW).min(self.sets.len()))?;
        Some(self.lanes.get(w)?.get_or_init(|| WindowOrder::new(words)))
    }

    /// Vertex `v` as [`VertexInfluences`]: joints ascending except that the pivot comes first, so
    /// that [`Influences::set_vertex`] with the result reproduces the stored state exactly.
    #[must_use]
    pub fn vertex_influences(&self, v: usize, table: &JointSetTable) -> VertexInfluences {
        let mut pairs = [(0, 0.0); MAX_SLOTS];
        let n = self.listed_pairs(v, table, &mut pairs);
        VertexInfluences { pairs: pairs[..n].to_vec() }
    }

    /// Vertex `v`'s pairs in [`Influences::vertex_influences`]' order (the pivot first, the others
    /// ascending) written to the front of `out`, without allocating; returns how many.
    pub fn listed_pairs(&self, v: usize, table: &JointSetTable, out: &mut [(u16, f32); MAX_SLOTS]) -> usize {
        let (_, pivot) = Self::unpack(self.sets[v]);
        let mut n = 0;
        for (slot, pair) in out.iter_mut().zip(self.vertex(v, table)) {
            *slot = pair;
            n += 1;
        }
        if pivot < n {
            out[..=pivot].rotate_right(1);
        }
        n
    }

    /// The influences of the listed vertices only, in list order (same slot count and set ids),
    /// e.g. to re-skin just those vertices. Indices out of range are skipped.
    #[must_use]
    pub fn gather(&self, vertices: &[u32]) -> Self {
        let k = self.slots;
        let mut out = Self {
            slots: k,
            weights: Vec::with_capacity(vertices.len() * k),
            sets: Vec::with_capacity(vertices.len()),
            lanes: Vec::new(),
        };
        for &v in vertices {
            let v = v as usize;
            if v < self.sets.len() {
                out.weights.extend_from_slice(&self.weights[v * k..(v + 1) * k]);
                out.sets.push(self.sets[v]);
            }
        }
        out.lanes = lane_windows(out.sets.len());
        out
    }

    /// Number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// Whether there are no vertices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// Weight slots per vertex.
    #[must_use]
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// All weights, `slots()` per vertex.
    #[must_use]
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// All packed set words (set id and pivot slot), one per vertex.
    #[must_use]
    pub fn packed_sets(&self) -> &[u32] {
        &self.sets
    }

    /// The joint set id of vertex `v`.
    #[must_use]
    pub fn set_of(&self, v: usize) -> u32 {
        self.sets[v] & SET_MASK
    }

    /// Splits a packed set word into (set id, pivot slot).
    #[inline]
    #[must_use]
    pub fn unpack(word: u32) -> (u32, usize) {
        (word & SET_MASK, (word >> PIVOT_SHIFT) as usize)
    }

    /// The `(joint, weight)` pairs of vertex `v`, joints ascending.
    pub fn vertex<'a>(&'a self, v: usize, table: &'a JointSetTable) -> impl Iterator<Item = (u16, f32)> + 'a {
        let id = self.set_of(v);
        let w = &self.weights[v * self.slots..(v + 1) * self.slots];
        table.joints(id).iter().copied().zip(w.iter().copied())
    }

    /// Asks the processor to bring vertex `v`'s set word and weights into cache ahead of
    /// [`Influences::vertex`] (a hint: no effect on results).
    #[inline]
    pub fn prefetch(&self, v: usize) {
        crate::prefetch::prefetch(&self.sets, v);
        crate::prefetch::prefetch(&self.weights, v * self.slots);
    }

    /// Number of influences of vertex `v`.
    #[must_use]
    pub fn count(&self, v: usize, table: &JointSetTable) -> usize {
        table.joints(self.set_of(v)).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_merged_dropped_and_normalised() {
        let inf = VertexInfluences::from_slots(0, &[3, 1, 3, 7], &[0.25, 0.5, 0.25, 0.0], 4).unwrap();
        assert_eq!(inf.pairs, vec![(3, 0.5), (1, 0.5)]);
        assert_eq!(inf.pivot(), 0, "first on ties");
        let inf = VertexInfluences::from_slots(0, &[0, 1], &[1.0, 3.0], 2).unwrap();
        assert_eq!(inf.pairs, vec![(0, 0.25), (1, 0.75)]);
    }

    #[test]
    fn bad_slots_are_rejected() {
        assert!(matches!(
            VertexInfluences::from_slots(5, &[0, 1], &[0.5, -0.5], 2),
            Err(InfluenceError::BadWeight { vertex: 5, slot: 1, .. })
        ));
        assert!(matches!(
            VertexInfluences::from_slots(0, &[0, 9], &[0.5, f32::NAN], 2),
            Err(InfluenceError::BadWeight { .. })
        ));
        assert!(matches!(
            VertexInfluences::from_slots(0, &[0, 9], &[0.5, 0.5], 2),
            Err(InfluenceError::JointOutOfRange { joint: 9, .. })
        ));
    }

    #[test]
    fn growing_slots_keeps_ids_weights_and_pivots() {
        let mut table = JointSetTable::new(1);
        let verts = [VertexInfluences { pairs: vec![(4, 1.0)] }, VertexInfluences { pairs: vec![(2, 1.0)] }];
        let mut inf = Influences::from_vertices(&verts, &mut table).unwrap();
        let before: Vec<Vec<(u16, f32)>> = (0..2).map(|v| inf.vertex(v, &table).collect()).collect();
        let snap = inf.snapshot(1);
        table.grow_slots(3);
        inf.grow_slots(table.slots());
        assert_eq!(table.slots(), 4);
        assert_eq!(inf.slots(), 4);
        assert_eq!(table.padded(1), &[4, 4, 4, 4]);
        for (v, b) in before.iter().enumerate() {
            assert_eq!(&inf.vertex(v, &table).collect::<Vec<_>>(), b);
        }
        assert_eq!(&inf.weights()[4..8], &[1.0, 0.0, 0.0, 0.0]);
        // Tied weights in file order (7, 3): the pivot is joint 7, which sorts second.
        let tied = VertexInfluences { pairs: vec![(7, 0.5), (3, 0.5)] };
        inf.set_vertex(0, &tied, &mut table).unwrap();
        let word = inf.packed_sets()[0];
        assert_eq!(Influences::unpack(word).1, 1);
        let round = inf.vertex_influences(0, &table);
        inf.set_vertex(0, &round, &mut table).unwrap();
        assert_eq!(inf.packed_sets()[0], word, "vertex_influences round-trips the pivot");
        inf.restore(1, &snap);
        assert_eq!(inf.vertex(1, &table).collect::<Vec<_>>(), before[1]);
        let sub = inf.gather(&[1, 0, 9]);
        assert_eq!(sub.len(), 2);
        assert_eq!(sub.packed_sets(), &[inf.packed_sets()[1], inf.packed_sets()[0]]);
        table.grow_slots(2);
        assert_eq!(table.slots(), 4, "never shrinks");
    }

    #[test]
    fn layout_sorts_members_and_keeps_pivot() {
        let mut table = JointSetTable::new(4);
        let inf = VertexInfluences { pairs: vec![(5, 0.2), (2, 0.7), (9, 0.1)] };
        let layout = Influences::from_vertices(&[inf.clone(), VertexInfluences::default()], &mut table).unwrap();
        let (id, pivot) = Influences::unpack(layout.packed_sets()[0]);
        assert_eq!(table.joints(id), &[2, 5, 9]);
        assert_eq!(pivot, 0, "joint 2 has the largest weight and sorts first");
        assert_eq!(&layout.weights()[..4], &[0.7, 0.2, 0.1, 0.0]);
        assert_eq!(layout.set_of(1), EMPTY_SET);
        assert_eq!(layout.vertex(0, &table).collect::<Vec<_>>(), vec![(2, 0.7), (5, 0.2), (9, 0.1)]);
        assert_eq!(table.len(), 2);
    }
}
