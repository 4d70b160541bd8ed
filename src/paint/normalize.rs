//! Weight rules: locked joints, normalisation over the unlocked joints, the per-vertex influence
//! limit and Clean. Every function leaves a vertex's sparse `(joint, weight)` list finite,
//! non-negative and summing to 1 (unless it returns it empty, which callers treat as "keep the old
//! weights"), with distinct joints.
//!
//! Normalisation: locked joints keep their values exactly; the unlocked joints share `1 − L`
//! (L = the locked sum). The *held* joint (the one a dab just painted, when unlocked) keeps its
//! painted value as far as possible and the other unlocked joints are scaled to fill the rest, so
//! painting a joint to 0.3 leaves it at 0.3. When no other unlocked joint has weight left, the held
//! joint takes the rest (so Subtract alone cannot remove a vertex's only free influence; the dab
//! first moves the removed weight to the nearest joint in the hierarchy, see
//! [`super::dab::fallback_joint`]). Without a held
//! joint and with no unlocked weight left, the vertex's previous unlocked weights come back
//! (scaled to `1 − L`): a dab never strands weight. Only when no unlocked weight exists at all are
//! the locked weights scaled to sum 1, the one case where a lock has to give.

use crate::model::influences::MAX_SLOTS;

/// glTF's JOINTS_0 holds four influences per vertex.
pub const DEFAULT_LIMIT: usize = 4;

/// Per-skin weight rules: which joints are locked, the influence limit per vertex and which
/// vertices may change at all (the selection mask).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightRules {
    /// Locked joints, by skin joint index (joints beyond the list are unlocked).
    pub locked: Vec<bool>,
    /// Most influences a vertex may keep (clamped to 1..=16).
    pub limit: usize,
    /// Surface vertices that dabs and tools may change (`None`: all; vertices beyond the list may
    /// not). Weld groups are masked as one (see [`super::selection::Selection::editable_mask`]).
    pub mask: Option<Vec<bool>>,
}

impl Default for WeightRules {
    fn default() -> Self {
        Self { locked: Vec::new(), limit: DEFAULT_LIMIT, mask: None }
    }
}

impl WeightRules {
    /// Whether `joint` is locked.
    #[must_use]
    pub fn is_locked(&self, joint: u16) -> bool {
        self.locked.get(joint as usize).copied().unwrap_or(false)
    }

    /// Locks or unlocks `joint`.
    pub fn set_locked(&mut self, joint: u16, locked: bool) {
        let j = joint as usize;
        if self.locked.len() <= j {
            self.locked.resize(j + 1, false);
        }
        self.locked[j] = locked;
    }

    /// Whether surface vertex `g` may change (the selection mask).
    #[must_use]
    pub fn may_change(&self, g: u32) -> bool {
        self.mask.as_ref().is_none_or(|m| m.get(g as usize).copied().unwrap_or(false))
    }

    /// The influence limit, clamped to 1..=16.
    #[must_use]
    pub fn limit(&self) -> usize {
        self.limit.clamp(1, MAX_SLOTS)
    }
}

fn sanitize(weights: &mut [(u16, f32)]) {
    for p in weights.iter_mut() {
        if !p.1.is_finite() || p.1 < 0.0 {
            p.1 = 0.0;
        }
    }
}

fn drop_zeros(weights: &mut Vec<(u16, f32)>) {
    weights.retain(|p| p.1 > 0.0);
}

/// Normalises one vertex as the module docs describe. `held` is the joint a dab just painted (if
/// any); `old` is the vertex's weights before the dab (the fallback when no unlocked weight is
/// left; pass `&[]` for none). Returns the list empty only when it has no weight at all.
pub fn normalize(weights: &mut Vec<(u16, f32)>, rules: &WeightRules, held: Option<u16>, old: &[(u16, f32)]) {
    sanitize(weights);
    drop_zeros(weights);
    let held = held.filter(|&h| !rules.is_locked(h) && weights.iter().any(|p| p.0 == h));
    let locked_sum: f64 = weights.iter().filter(|p| rules.is_locked(p.0)).map(|p| f64::from(p.1)).sum();
    if locked_sum > 1.0 {
        for p in weights.iter_mut() {
            p.1 = if rules.is_locked(p.0) { (f64::from(p.1) / locked_sum) as f32 } else { 0.0 };
        }
        drop_zeros(weights);
        return;
    }
    let rem = 1.0 - locked_sum;
    let others = |w: &Vec<(u16, f32)>| -> f64 {
        w.iter().filter(|p| !rules.is_locked(p.0) && Some(p.0) != held).map(|p| f64::from(p.1)).sum()
    };
    let other_sum = others(weights);
    if let Some(h) = held {
        let wh = weights.iter().find(|p| p.0 == h).map_or(0.0, |p| f64::from(p.1)).min(rem);
        if other_sum > 0.0 {
            let scale = (rem - wh) / other_sum;
            for p in weights.iter_mut() {
                if p.0 == h {
                    p.1 = wh as f32;
                } else if !rules.is_locked(p.0) {
                    p.1 = (f64::from(p.1) * scale) as f32;
                }
            }
        } else {
            for p in weights.iter_mut().filter(|p| p.0 == h) {
                p.1 = rem as f32;
            }
        }
    } else if other_sum > 0.0 {
        let scale = rem / other_sum;
        for p in weights.iter_mut().filter(|p| !rules.is_locked(p.0)) {
            p.1 = (f64::from(p.1) * scale) as f32;
        }
    } else if rem > 0.0 {
        let old_free: f64 =
            old.iter().filter(|p| !rules.is_locked(p.0) && p.1.is_finite() && p.1 > 0.0).map(|p| f64::from(p.1)).sum();
        if old_free > 0.0 {
            weights.retain(|p| rules.is_locked(p.0));
            let scale = rem / old_free;
            for &(j, w) in old.iter().filter(|p| !rules.is_locked(p.0) && p.1.is_finite() && p.1 > 0.0) {
                weights.push((j, (f64::from(w) * scale) as f32));
            }
        } else if locked_sum > 0.0 {
            for p in weights.iter_mut() {
                p.1 = (f64::from(p.1) / locked_sum) as f32;
            }
        }
    }
    drop_zeros(weights);
}

/// Enforces the influence limit: while the vertex has more than `rules.limit()` influences, drops
/// the smallest (unlocked joints other than `held` first, then any other than `held`), then
/// renormalises (the dropped weight goes to the remaining unlocked joints).
pub fn limit(weights: &mut Vec<(u16, f32)>, rules: &WeightRules, held: Option<u16>) {
    let max = rules.limit();
    if weights.len() <= max {
        return;
    }
    while weights.len() > max {
        let pick = |free_only: bool| -> Option<usize> {
            let mut best: Option<usize> = None;
            for (i, p) in weights.iter().enumerate() {
                if Some(p.0) == held || (free_only && rules.is_locked(p.0)) {
                    continue;
                }
                if best.is_none_or(|b| p.1 <= weights[b].1) {
                    best = Some(i);
                }
            }
            best
        };
        let victim = pick(true).or_else(|| pick(false)).unwrap_or(weights.len() - 1);
        weights.remove(victim);
    }
    normalize(weights, rules, held, &[]);
}

/// Clean: removes unlocked weights below `threshold` and renormalises. When every unlocked weight
/// is below it and the locked joints leave room, the largest unlocked weight is kept, so a vertex
/// never loses its last influence.
pub fn clean(weights: &mut Vec<(u16, f32)>, rules: &WeightRules, threshold: f32) {
    sanitize(weights);
    drop_zeros(weights);
    let keep_largest = {
        let mut best: Option<(u16, f32)> = None;
        for &p in weights.iter().filter(|p| !rules.is_locked(p.0)) {
            if best.is_none_or(|b| p.1 > b.1) {
                best = Some(p);
            }
        }
        best
    };
    let locked_sum: f32 = weights.iter().filter(|p| rules.is_locked(p.0)).map(|p| p.1).sum();
    weights.retain(|p| rules.is_locked(p.0) || p.1 >= threshold);
    let free_left = weights.iter().any(|p| !rules.is_locked(p.0));
    if !free_left && locked_sum < 1.0 {
        if let Some(p) = keep_largest {
            weights.push(p);
        }
    }
    normalize(weights, rules, None, &[]);
}

/// Normalisation followed by the influence limit: what every dab applies to each touched vertex.
pub fn apply_rules(weights: &mut Vec<(u16, f32)>, rules: &WeightRules, held: Option<u16>, old: &[(u16, f32)]) {
    normalize(weights, rules, held, old);
    limit(weights, rules, held);
}

/// Whether a weight list satisfies the influence invariants: non-empty, distinct joints, every
/// weight finite and positive, sum within `1e-4` of 1.
#[must_use]
pub fn is_valid(weights: &[(u16, f32)]) -> bool {
    if weights.is_empty() {
        return false;
    }
    for (i, p) in weights.iter().enumerate() {
        if !(p.1.is_finite() && p.1 > 0.0) || weights[..i].iter().any(|q| q.0 == p.0) {
            return false;
        }
    }
    let sum: f64 = weights.iter().map(|p| f64::from(p.1)).sum();
    (sum - 1.0).abs() < 1e-4
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[(u16, f32)], b: &[(u16, f32)]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0 && (x.1 - y.1).abs() < 1e-6)
    }

    fn locked(js: &[u16]) -> WeightRules {
        let mut r = WeightRules::default();
        for &j in js {
            r.set_locked(j, true);
        }
        r
    }

    #[test]
    fn plain_normalisation() {
        let mut w = vec![(0, 1.0), (1, 3.0), (2, 0.0), (3, f32::NAN), (4, -1.0)];
        normalize(&mut w, &WeightRules::default(), None, &[]);
        assert!(close(&w, &[(0, 0.25), (1, 0.75)]), "{w:?}");
    }

    #[test]
    fn held_joint_keeps_its_painted_value() {
        let mut w = vec![(0, 0.5), (1, 0.5), (2, 0.3)];
        normalize(&mut w, &WeightRules::default(), Some(2), &[]);
        assert!(close(&w, &[(0, 0.35), (1, 0.35), (2, 0.3)]), "{w:?}");
        // Only joint: takes everything.
        let mut w = vec![(2, 0.0)];
        normalize(&mut w, &WeightRules::default(), Some(2), &[(2, 1.0)]);
        assert!(close(&w, &[(2, 1.0)]), "{w:?}");
    }

    #[test]
    fn locked_joints_keep_their_values() {
        let rules = locked(&[0]);
        let mut w = vec![(0, 0.4), (1, 0.1), (2, 0.1)];
        normalize(&mut w, &rules, None, &[]);
        assert!(close(&w, &[(0, 0.4), (1, 0.3), (2, 0.3)]), "{w:?}");
        assert_eq!(w[0].1, 0.4, "bit for bit");
        // Held joint painted to 0.5 next to a 0.4 lock: the other free joint gets 0.1.
        let mut w = vec![(0, 0.4), (1, 0.5), (2, 0.3)];
        normalize(&mut w, &rules, Some(1), &[]);
        assert!(close(&w, &[(0, 0.4), (1, 0.5), (2, 0.1)]), "{w:?}");
        // Held joint painted beyond the room the lock leaves.
        let mut w = vec![(0, 0.4), (1, 0.9), (2, 0.3)];
        normalize(&mut w, &rules, Some(1), &[]);
        assert!(close(&w, &[(0, 0.4), (1, 0.6)]), "{w:?}");
        // No free weight left and no held joint: the old free weights come back.
        let mut w = vec![(0, 0.4)];
        normalize(&mut w, &rules, None, &[(0, 0.4), (5, 0.3), (6, 0.3)]);
        assert!(close(&w, &[(0, 0.4), (5, 0.3), (6, 0.3)]), "{w:?}");
        // Nothing free ever: the lock gives.
        let mut w = vec![(0, 0.4)];
        normalize(&mut w, &rules, None, &[]);
        assert!(close(&w, &[(0, 1.0)]), "{w:?}");
        // Locked sum above 1 (bad data) is scaled down.
        let rules = locked(&[0, 1]);
        let mut w = vec![(0, 1.0), (1, 1.0), (2, 0.5)];
        normalize(&mut w, &rules, None, &[]);
        assert!(close(&w, &[(0, 0.5), (1, 0.5)]), "{w:?}");
    }

    #[test]
    fn influence_limit_drops_the_smallest() {
        let rules = WeightRules { limit: 2, ..WeightRules::default() };
        let mut w = vec![(0, 0.1), (1, 0.5), (2, 0.3), (3, 0.1)];
        limit(&mut w, &rules, None);
        assert!(close(&w, &[(1, 0.625), (2, 0.375)]), "{w:?}");
        // The held joint survives even when smallest; locked joints go last.
        let mut rules = WeightRules { limit: 2, ..WeightRules::default() };
        rules.set_locked(0, true);
        let mut w = vec![(0, 0.05), (1, 0.6), (2, 0.3), (3, 0.05)];
        limit(&mut w, &rules, Some(3));
        assert!(close(&w, &[(0, 0.05), (3, 0.95)]), "{w:?}");
        let mut w = vec![(0, 0.5), (1, 0.5)];
        limit(&mut w, &rules, None);
        assert_eq!(w, vec![(0, 0.5), (1, 0.5)], "within the limit: untouched");
    }

    #[test]
    fn clean_removes_small_weights_but_never_the_last() {
        let rules = WeightRules::default();
        let mut w = vec![(0, 0.02), (1, 0.9), (2, 0.08)];
        clean(&mut w, &rules, 0.05);
        assert!(close(&w, &[(1, 0.9 / 0.98), (2, 0.08 / 0.98)]), "{w:?}");
        let mut w = vec![(0, 0.02), (1, 0.03)];
        clean(&mut w, &rules, 0.5);
        assert!(close(&w, &[(1, 1.0)]), "{w:?}");
        let rules = locked(&[0]);
        let mut w = vec![(0, 0.01), (1, 0.99)];
        clean(&mut w, &rules, 0.05);
        assert!(close(&w, &[(0, 0.01), (1, 0.99)]), "locked weights are never cleaned: {w:?}");
    }

    #[test]
    fn validity() {
        assert!(is_valid(&[(0, 0.5), (1, 0.5)]));
        assert!(!is_valid(&[]));
        assert!(!is_valid(&[(0, 0.5), (0, 0.5)]));
        assert!(!is_valid(&[(0, 0.5)]));
        assert!(!is_valid(&[(0, f32::NAN)]));
    }
}
