//! A primitive's influences straight from a file's flat slot arrays (glTF's JOINTS_n/WEIGHTS_n:
//! `width` joints and weights per vertex), without a heap allocation per vertex: the weight rules
//! run on every vertex in parallel into flat rows ([`SlotInfluences::from_slots`]), then the rows'
//! joint sets are interned in vertex order ([`SlotInfluences::lay_out`]). The result is bit for bit
//! what [`VertexInfluences::from_slots`] then [`Influences::from_vertices`] give (same weights, set
//! ids, pivots and errors), which the tests below check on random slots.

use rayon::prelude::*;

use super::influences::{InfluenceError, Influences, JointSetTable, VertexInfluences, MAX_SLOTS};

/// Vertices per parallel chunk of the weight rules.
const CHUNK: usize = 16 * 1024;

/// Every vertex's normalised influences, `width` rows wide: joints ascending, weights in the same
/// order, the count and the sorted slot of the pivot (the largest weight, first in file order).
#[derive(Clone, Debug, Default)]
pub struct SlotInfluences {
    width: usize,
    joints: Vec<u16>,
    weights: Vec<f32>,
    counts: Vec<u8>,
    pivots: Vec<u8>,
}

/// One vertex's pairs after the weight rules, in file slot order (duplicates merged at the first
/// slot), with the f64 sums the rules divide by.
struct Row {
    pairs: [(u16, f64); MAX_SLOTS],
    len: usize,
}

impl Row {
    /// The spec's weight rules on one vertex's raw slots (as [`VertexInfluences::from_slots`]).
    fn from_slots(vertex: usize, joints: &[u32], weights: &[f32], joint_count: usize) -> Result<Self, InfluenceError> {
        let mut row = Self { pairs: [(0, 0.0); MAX_SLOTS], len: 0 };
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
            match row.pairs[..row.len].iter_mut().find(|(j, _)| *j == joint) {
                Some(pair) => pair.1 += f64::from(value),
                None if row.len == MAX_SLOTS => {
                    // More distinct joints than a vertex may keep: the per-vertex rules give the
                    // error (a bad weight in a later slot, or the count).
                    let error = VertexInfluences::from_slots(vertex, joints, weights, joint_count).err();
                    return Err(error.unwrap_or(InfluenceError::TooMany { vertex, count: MAX_SLOTS + 1 }));
                }
                None => {
                    row.pairs[row.len] = (joint, f64::from(value));
                    row.len += 1;
                }
            }
        }
        Ok(row)
    }
}

impl SlotInfluences {
    /// Applies the weight rules to every vertex of `joints`/`weights` (`width` slots per vertex,
    /// equal lengths): zero weights dropped, negative or non-finite weights and joints ≥
    /// `joint_count` rejected (the first bad vertex is reported), duplicate joints merged, the rest
    /// divided by their sum.
    pub fn from_slots(
        width: usize,
        joints: &[u32],
        weights: &[f32],
        joint_count: usize,
    ) -> Result<Self, InfluenceError> {
        let width = width.max(1);
        let n = joints.len().min(weights.len()) / width;
        let row_width = width.min(MAX_SLOTS);
        let mut out = Self {
            width: row_width,
            joints: vec![0; n * row_width],
            weights: vec![0.0; n * row_width],
            counts: vec![0; n],
            pivots: vec![0; n],
        };
        let chunk_rows = CHUNK * row_width;
        let checked = out
            .joints
            .par_chunks_mut(chunk_rows)
            .zip(out.weights.par_chunks_mut(chunk_rows))
            .zip(out.counts.par_chunks_mut(CHUNK).zip(out.pivots.par_chunks_mut(CHUNK)))
            .enumerate()
            .try_for_each(|(c, ((js, ws), (counts, pivots)))| {
                for (i, (count, pivot)) in counts.iter_mut().zip(pivots.iter_mut()).enumerate() {
                    let v = c * CHUNK + i;
                    let slots = v * width..(v + 1) * width;
                    let row = Row::from_slots(v, &joints[slots.clone()], &weights[slots], joint_count)?;
                    let pairs = &row.pairs[..row.len];
                    let sum: f64 = pairs.iter().map(|p| p.1).sum();
                    let mut normalised = [0f32; MAX_SLOTS];
                    let mut best = 0;
                    for (k, p) in pairs.iter().enumerate() {
                        normalised[k] = (p.1 / sum) as f32;
                        if normalised[k] > normalised[best] {
                            best = k;
                        }
                    }
                    let mut order = [0usize; MAX_SLOTS];
                    for (k, o) in order.iter_mut().enumerate().take(row.len) {
                        *o = k;
                    }
                    order[..row.len].sort_unstable_by_key(|&k| pairs[k].0);
                    let dst = i * row_width..(i + 1) * row_width;
                    let (jrow, wrow) = (&mut js[dst.clone()], &mut ws[dst]);
                    for (slot, &k) in order[..row.len].iter().enumerate() {
                        jrow[slot] = pairs[k].0;
                        wrow[slot] = normalised[k];
                        if k == best {
                            *pivot = slot as u8;
                        }
                    }
                    *count = row.len as u8;
                }
                Ok::<(), InfluenceError>(())
            });
        if checked.is_err() {
            // Chunks fail in any order: report the first bad vertex, as a sequential pass would.
            for v in 0..n {
                let slots = v * width..(v + 1) * width;
                Row::from_slots(v, &joints[slots.clone()], &weights[slots], joint_count)?;
            }
        }
        checked.map(|()| out)
    }

    /// The most influences any vertex has (0 without vertices).
    #[must_use]
    pub fn max_count(&self) -> usize {
        self.counts.iter().copied().max().map_or(0, usize::from)
    }

    /// Number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether there are no vertices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Lays the rows out as [`Influences`], interning their joint sets in `table` in vertex
    /// order (so set ids are those [`Influences::from_vertices`] gives). Every vertex must have at
    /// most `table.slots()` influences.
    pub fn lay_out(&self, table: &mut JointSetTable) -> Result<Influences, InfluenceError> {
        let k = table.slots();
        let n = self.len();
        let mut weights = vec![0f32; n * k];
        let mut words = vec![0u32; n];
        let mut last: Option<(&[u16], u32)> = None;
        for (v, (word, wrow)) in words.iter_mut().zip(weights.chunks_exact_mut(k)).enumerate() {
            let count = usize::from(self.counts[v]);
            let row = v * self.width..v * self.width + count;
            let joints = &self.joints[row.clone()];
            // Neighbouring vertices mostly share a set: skip the hash lookup when it repeats.
            let id = match last {
                Some((prev, id)) if prev == joints => id,
                _ => {
                    let id = table.intern(joints).ok_or(InfluenceError::TooMany { vertex: v, count })?;
                    last = Some((joints, id));
                    id
                }
            };
            wrow[..count].copy_from_slice(&self.weights[row]);
            *word = Influences::pack(id, usize::from(self.pivots[v]));
        }
        Ok(Influences::from_layout(k, weights, words))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The per-vertex path: [`VertexInfluences::from_slots`] then [`Influences::from_vertices`].
    fn per_vertex(
        width: usize,
        joints: &[u32],
        weights: &[f32],
        joint_count: usize,
    ) -> Result<(Influences, JointSetTable), InfluenceError> {
        let vertices = joints
            .chunks_exact(width)
            .zip(weights.chunks_exact(width))
            .enumerate()
            .map(|(v, (j, w))| VertexInfluences::from_slots(v, j, w, joint_count))
            .collect::<Result<Vec<_>, _>>()?;
        let k = vertices.iter().map(|v| v.pairs.len()).max().unwrap_or(1);
        let mut table = JointSetTable::new(k);
        Ok((Influences::from_vertices(&vertices, &mut table)?, table))
    }

    fn flat(
        width: usize,
        joints: &[u32],
        weights: &[f32],
        joint_count: usize,
    ) -> Result<(Influences, JointSetTable), InfluenceError> {
        let rows = SlotInfluences::from_slots(width, joints, weights, joint_count)?;
        let mut table = JointSetTable::new(rows.max_count().max(1));
        Ok((rows.lay_out(&mut table)?, table))
    }

    fn assert_same(width: usize, joints: &[u32], weights: &[f32], joint_count: usize) {
        match (per_vertex(width, joints, weights, joint_count), flat(width, joints, weights, joint_count)) {
            (Ok((a, ta)), Ok((b, tb))) => {
                assert_eq!(a, b, "weights and packed words");
                assert_eq!(ta.len(), tb.len());
                assert_eq!(ta.slots(), tb.slots());
                assert_eq!(ta.all_padded(), tb.all_padded(), "set ids in the same order");
            }
            // Compared as messages: a NaN weight is not equal to itself.
            (a, b) => assert_eq!(a.err().map(|e| e.to_string()), b.err().map(|e| e.to_string())),
        }
    }

    /// Weights as files have them: zeros, repeats, ties, now and then a bad one.
    fn weight() -> impl Strategy<Value = f32> {
        prop_oneof![
            6 => Just(0.0f32),
            3 => Just(0.25f32),
            10 => 0.0f32..1.0,
            1 => Just(-0.5f32),
            1 => Just(f32::NAN),
        ]
    }

    proptest! {
        #[test]
        fn flat_rows_equal_the_per_vertex_rules(
            sets in 1usize..=3,
            vertices in proptest::collection::vec((proptest::collection::vec(0u32..7, 12), proptest::collection::vec(weight(), 12)), 0..40),
        ) {
            let width = sets * 4;
            let joints: Vec<u32> = vertices.iter().flat_map(|(j, _)| j[..width].to_vec()).collect();
            let weights: Vec<f32> = vertices.iter().flat_map(|(_, w)| w[..width].to_vec()).collect();
            // 7 joint values for 6 joints: some vertices name a joint out of range.
            assert_same(width, &joints, &weights, 6);
            // Without the bad weights, most cases lay out.
            let clean: Vec<f32> = weights.iter().map(|&w| if w.is_finite() && w >= 0.0 { w } else { 0.5 }).collect();
            assert_same(width, &joints, &clean, 7);
        }
    }

    #[test]
    fn more_than_sixteen_distinct_joints_give_the_same_error() {
        let joints: Vec<u32> = (0..20).collect();
        let mut weights = vec![0.05f32; 20];
        assert_same(20, &joints, &weights, 20);
        assert!(matches!(flat(20, &joints, &weights, 20), Err(InfluenceError::TooMany { count: 20, .. })));
        weights[19] = -1.0;
        assert!(matches!(flat(20, &joints, &weights, 20), Err(InfluenceError::BadWeight { slot: 19, .. })));
        // Sixteen distinct joints with duplicates fit.
        let joints: Vec<u32> = (0..20).map(|j| j % 16).collect();
        assert_same(20, &joints, &[0.05; 20], 16);
    }

    #[test]
    fn the_first_bad_vertex_is_reported_across_parallel_chunks() {
        let n = 3 * CHUNK + 5;
        let joints: Vec<u32> = (0..n * 4).map(|i| (i % 5) as u32).collect();
        let mut weights = vec![0.25f32; n * 4];
        assert_same(4, &joints, &weights, 5);
        weights[(2 * CHUNK + 7) * 4 + 1] = f32::NAN;
        weights[(CHUNK + 3) * 4 + 2] = -1.0;
        assert!(matches!(
            flat(4, &joints, &weights, 5),
            Err(InfluenceError::BadWeight { vertex, slot: 2, .. }) if vertex == CHUNK + 3
        ));
    }
}
