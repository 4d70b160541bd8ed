//! Per-vertex weight measures: the L1 distance between two weightings, influence precision and
//! recall (an influence counts when its normalised weight exceeds [`INFLUENCE_THRESHOLD`]), the
//! influence histogram and the vertices left without weight.

use serde::Serialize;

use super::matching::{MeshWeights, VertexWeights};

/// A normalised weight above this counts as an influence for precision and recall.
pub const INFLUENCE_THRESHOLD: f32 = 0.05;

/// The L1 distance of two vertices' weight vectors, each normalised to sum 1 first: 0 (same) to 2
/// (disjoint); 2 when only one of them has any weight, 0 when neither has.
#[must_use]
pub fn vertex_l1(a: &[(u16, f32)], b: &[(u16, f32)]) -> f64 {
    let sum = |v: &[(u16, f32)]| v.iter().map(|p| f64::from(p.1)).sum::<f64>();
    let (sa, sb) = (sum(a), sum(b));
    match (sa > 0.0, sb > 0.0) {
        (false, false) => return 0.0,
        (true, false) | (false, true) => return 2.0,
        (true, true) => {}
    }
    let mut total = 0.0;
    for &(j, w) in a {
        let other = b.iter().filter(|p| p.0 == j).map(|p| f64::from(p.1)).sum::<f64>();
        total += (f64::from(w) / sa - other / sb).abs();
    }
    for &(j, w) in b {
        if !a.iter().any(|p| p.0 == j) {
            total += f64::from(w) / sb;
        }
    }
    total
}

/// The joints of a vertex whose normalised weight exceeds [`INFLUENCE_THRESHOLD`], ascending.
#[must_use]
pub fn influences_above_threshold(v: &[(u16, f32)]) -> Vec<u16> {
    let sum: f32 = v.iter().map(|p| p.1).sum();
    let mut out: Vec<u16> = v.iter().filter(|p| sum > 0.0 && p.1 / sum > INFLUENCE_THRESHOLD).map(|p| p.0).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// How far a compared weighting is from a reference, per vertex.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WeightAgreement {
    /// Vertices compared.
    pub vertices: usize,
    /// Mean of [`vertex_l1`] over the vertices (0 … 2).
    pub l1_mean: f64,
    /// Largest [`vertex_l1`].
    pub l1_max: f64,
    /// Influences (vertex, joint above the threshold) of the reference.
    pub reference_influences: usize,
    /// Influences of the compared weighting.
    pub compared_influences: usize,
    /// Influences present in both.
    pub shared_influences: usize,
    /// Shared / compared (1 when both have none, 0 when only the reference has some).
    pub precision: f64,
    /// Shared / reference (1 when both have none, 0 when only the compared has some).
    pub recall: f64,
}

/// A share `part / whole` that is 1 when both counts are 0 and 0 when only `whole` is 0.
fn share(part: usize, whole: usize, other: usize) -> f64 {
    match (whole, other) {
        (0, 0) => 1.0,
        (0, _) => 0.0,
        _ => part as f64 / whole as f64,
    }
}

/// Compares two weightings of the same meshes (joints indexing the same skins).
#[must_use]
pub fn agreement(reference: &[MeshWeights], compared: &[MeshWeights]) -> WeightAgreement {
    let mut out = WeightAgreement::default();
    let mut l1_sum = 0.0;
    let pairs = reference.iter().zip(compared).flat_map(|(a, b)| a.primitives.iter().zip(&b.primitives));
    for (pa, pb) in pairs {
        for (va, vb) in pa.iter().zip(pb) {
            let l1 = vertex_l1(va, vb);
            l1_sum += l1;
            out.l1_max = out.l1_max.max(l1);
            out.vertices += 1;
            let (ia, ib) = (influences_above_threshold(va), influences_above_threshold(vb));
            out.reference_influences += ia.len();
            out.compared_influences += ib.len();
            out.shared_influences += ia.iter().filter(|j| ib.contains(j)).count();
        }
    }
    out.l1_mean = if out.vertices == 0 { 0.0 } else { l1_sum / out.vertices as f64 };
    out.precision = share(out.shared_influences, out.compared_influences, out.reference_influences);
    out.recall = share(out.shared_influences, out.reference_influences, out.compared_influences);
    out
}

/// Every vertex of a weighting, in mesh, primitive and vertex order.
pub fn vertices(weights: &[MeshWeights]) -> impl Iterator<Item = &VertexWeights> {
    weights.iter().flat_map(|m| m.primitives.iter().flatten())
}

/// Vertices without any weight (they do not move).
#[must_use]
pub fn unweighted(weights: &[MeshWeights]) -> usize {
    vertices(weights).filter(|v| v.iter().all(|p| p.1 <= 0.0)).count()
}

/// `histogram[k]`: vertices with exactly `k` influences of positive weight (trailing zeros cut).
#[must_use]
pub fn influence_histogram(weights: &[MeshWeights]) -> Vec<usize> {
    let mut h = vec![0usize; 1];
    for v in vertices(weights) {
        let k = v.iter().filter(|p| p.1 > 0.0).count();
        if h.len() <= k {
            h.resize(k + 1, 0);
        }
        h[k] += 1;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l1_by_hand() {
        assert_eq!(vertex_l1(&[(0, 1.0)], &[(0, 1.0)]), 0.0);
        assert!((vertex_l1(&[(0, 0.5), (1, 0.5)], &[(0, 1.0)]) - 1.0).abs() < 1e-9);
        assert!((vertex_l1(&[(0, 1.0)], &[(1, 1.0)]) - 2.0).abs() < 1e-9);
        assert_eq!(vertex_l1(&[], &[(1, 1.0)]), 2.0);
        assert_eq!(vertex_l1(&[], &[]), 0.0);
        // Unnormalised input is normalised first.
        assert!((vertex_l1(&[(0, 2.0), (1, 2.0)], &[(0, 0.5), (1, 0.5)])).abs() < 1e-9);
    }

    #[test]
    fn threshold_is_strict_and_on_normalised_weights() {
        assert_eq!(influences_above_threshold(&[(3, 0.95), (1, 0.05)]), vec![3]);
        assert_eq!(influences_above_threshold(&[(3, 0.9), (1, 0.1)]), vec![1, 3]);
    }
}
