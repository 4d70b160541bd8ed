//! Turning solved heat weights into one vertex's final influences: the weight rules of automatic
//! weights (clamp at 0, drop tiny weights, hold to the influence limit, normalise) merged with the
//! vertex's current influences for locked and unselected joints.
//!
//! Invariant: the result is non-empty, finite, non-negative, sums to 1, has at most
//! `max(limit, locked count)` pairs, and every locked joint keeps its exact current weight.

use crate::model::influences::VertexInfluences;

/// Heat weights below this are dropped (and define the heat support of Assign Automatic).
pub const DROP: f64 = 0.01;

/// One vertex's inputs.
pub struct VertexInputs<'a> {
    /// Current `(joint, weight)` pairs (empty for a new skin).
    pub current: &'a [(u16, f32)],
    /// Solved heat weight of each recomputed joint: `(joint, weight)`.
    pub heat: &'a [(u16, f64)],
    /// Whether a joint is locked.
    pub locked: &'a dyn Fn(u16) -> bool,
    /// Whether a joint is recomputed (every joint for a full bind).
    pub selected: &'a dyn Fn(u16) -> bool,
    /// The joint to fall back on when nothing else is left (the nearest heated one).
    pub fallback: u16,
}

/// The new influences of one vertex under the rules above, with at most `limit` influences
/// (locked joints are never dropped).
#[must_use]
pub fn vertex_weights(inputs: &VertexInputs<'_>, limit: usize) -> VertexInfluences {
    let locked: Vec<(u16, f64)> =
        inputs.current.iter().filter(|p| (inputs.locked)(p.0)).map(|&(j, w)| (j, f64::from(w))).collect();
    let budget = (1.0 - locked.iter().map(|p| p.1).sum::<f64>()).max(0.0);
    let heat: Vec<(u16, f64)> = inputs
        .heat
        .iter()
        .filter(|p| !(inputs.locked)(p.0) && p.1.is_finite())
        .map(|&(j, w)| (j, w.clamp(0.0, 1.0)))
        .filter(|p| p.1 >= DROP)
        .collect();
    let others: Vec<(u16, f64)> = inputs
        .current
        .iter()
        .filter(|p| !(inputs.locked)(p.0) && !(inputs.selected)(p.0))
        .map(|&(j, w)| (j, f64::from(w)))
        .collect();
    let heat_sum: f64 = heat.iter().map(|p| p.1).sum();
    let other_sum: f64 = others.iter().map(|p| p.1).sum();
    let mut unlocked: Vec<(u16, f64)> = Vec::new();
    if other_sum > 0.0 {
        // The heat solution's complement (1 − Σ heat) is the share the other joints keep.
        let heat_scale = if heat_sum > 1.0 { 1.0 / heat_sum } else { 1.0 };
        let rest = (1.0 - heat_sum * heat_scale).max(0.0);
        unlocked.extend(heat.iter().map(|&(j, w)| (j, w * heat_scale)));
        unlocked.extend(others.iter().map(|&(j, w)| (j, w / other_sum * rest)));
    } else {
        unlocked.extend(heat.iter().copied());
    }
    unlocked.retain(|p| p.1 > 0.0);
    // Hold to the limit: keep the largest unlocked weights (ties: lower joint first).
    unlocked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    unlocked.truncate(limit.saturating_sub(locked.len()).max(1));
    let sum: f64 = unlocked.iter().map(|p| p.1).sum();
    let mut pairs: Vec<(u16, f32)> = locked.iter().map(|&(j, w)| (j, w as f32)).collect();
    if budget > 0.0 {
        if sum > 0.0 {
            pairs.extend(unlocked.iter().map(|&(j, w)| (j, (w / sum * budget) as f32)));
        } else if !(inputs.locked)(inputs.fallback) {
            pairs.push((inputs.fallback, budget as f32));
        }
    }
    pairs.retain(|p| p.1 > 0.0 || (inputs.locked)(p.0));
    if pairs.iter().all(|p| p.1 <= 0.0) {
        // Everything locked at zero or nothing left: the nearest heated joint takes the vertex.
        pairs = vec![(inputs.fallback, 1.0)];
    }
    renormalise_f32(&mut pairs, inputs.locked);
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    VertexInfluences { pairs }
}

/// Makes the f32 weights sum to 1 as closely as f32 allows by adjusting the largest unlocked one.
fn renormalise_f32(pairs: &mut [(u16, f32)], locked: &dyn Fn(u16) -> bool) {
    let sum: f64 = pairs.iter().map(|p| f64::from(p.1)).sum();
    if (sum - 1.0).abs() <= 1e-6 {
        return;
    }
    let target = pairs.iter().enumerate().filter(|(_, p)| !locked(p.0)).max_by(|a, b| a.1 .1.total_cmp(&b.1 .1));
    if let Some((k, _)) = target {
        let fixed: f64 = pairs.iter().enumerate().filter(|(i, _)| *i != k).map(|(_, p)| f64::from(p.1)).sum();
        pairs[k].1 = (1.0 - fixed).max(0.0) as f32;
    } else if sum > 0.0 {
        for p in pairs.iter_mut() {
            p.1 = (f64::from(p.1) / sum) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        current: &[(u16, f32)],
        heat: &[(u16, f64)],
        locked: &[u16],
        selected: Option<&[u16]>,
        limit: usize,
    ) -> Vec<(u16, f32)> {
        let locked_fn = |j: u16| locked.contains(&j);
        let selected_fn = |j: u16| selected.is_none_or(|s| s.contains(&j));
        let inputs = VertexInputs { current, heat, locked: &locked_fn, selected: &selected_fn, fallback: 0 };
        vertex_weights(&inputs, limit).pairs
    }

    #[test]
    fn full_bind_drops_limits_and_normalises() {
        let out = run(&[], &[(0, 0.6), (1, 0.3), (2, 0.095), (3, 0.005)], &[], None, 2);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].0, 0);
        assert!((out[0].1 - 2.0 / 3.0).abs() < 1e-6 && (out[1].1 - 1.0 / 3.0).abs() < 1e-6);
        let out = run(&[], &[(0, -0.2), (1, f64::NAN)], &[], None, 4);
        assert_eq!(out, vec![(0, 1.0)], "nothing usable: the fallback joint");
    }

    #[test]
    fn locked_and_unselected_joints_are_kept() {
        // Joint 5 locked at 0.4; joint 2 not selected keeps its share of the complement.
        let out = run(&[(5, 0.4), (2, 0.3), (1, 0.3)], &[(1, 0.5)], &[5], Some(&[1]), 4);
        let w = |j| out.iter().find(|p| p.0 == j).map(|p| p.1).unwrap();
        assert_eq!(w(5), 0.4);
        assert!((w(1) - 0.3).abs() < 1e-6 && (w(2) - 0.3).abs() < 1e-6, "{out:?}");
        let sum: f32 = out.iter().map(|p| p.1).sum();
        assert!((sum - 1.0).abs() < 1e-6);
        let all_locked = run(&[(5, 1.0)], &[(1, 1.0)], &[5], None, 4);
        assert_eq!(all_locked, vec![(5, 1.0)]);
    }
}
