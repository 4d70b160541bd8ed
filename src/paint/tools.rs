//! Whole-model weight tools: Normalize All, Limit Total, Clean and Smooth All. Each works on the
//! whole surface (every skinned primitive, once per weld group, weights in surface joints; see
//! [`super::model_surface`]), honours the locks, records its changes for undo and leaves every
//! vertex it changes valid (finite, non-negative, summing to 1, at least one influence).

use super::blend::{accumulate, blend_towards};
use super::error::PaintError;
use super::model_surface::ModelSurface;
use super::normalize::{self, apply_rules, WeightRules};
use super::topology::ModelTopology;
use super::weld::write_group;
use super::writable::ensure_surface_slots;
use crate::model::Model;
use crate::model::StrokeRecord;

/// What a tool changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolOutcome {
    /// Vertices whose weights changed.
    pub changed: usize,
    /// The skin's tables were re-padded to more slots (prepare the deformer again).
    pub layout_changed: bool,
}

/// Runs `f(group, old weights) -> new weights` once per weld group in `groups` that the rules'
/// mask lets change (weights in surface joints; an empty result leaves the group alone) and writes
/// the result to every copy. Every result is computed from the weights before the run.
pub fn write_groups(
    model: &mut Model,
    surface: &ModelSurface,
    rules: &WeightRules,
    groups: &[u32],
    record: &mut StrokeRecord,
    mut f: impl FnMut(u32, &[(u16, f32)]) -> Vec<(u16, f32)>,
) -> Result<ToolOutcome, PaintError> {
    let layout_changed = ensure_surface_slots(model, surface, rules);
    let adj = surface.adjacency();
    let mut plan = Vec::new();
    for &g in groups.iter().filter(|&&g| (g as usize) < surface.len() && rules.may_change(g)) {
        let w = f(g, &surface.weights(model, g));
        if !w.is_empty() {
            plan.push((adj.rep(g), w));
        }
    }
    let mut changed = Vec::new();
    for (g, w) in plan {
        write_group(model, surface, g, &w, record, &mut changed)?;
    }
    Ok(ToolOutcome { changed: changed.len(), layout_changed })
}

/// Runs `f(old weights) -> new weights` once per influenced weld group of the surface (weights
/// in surface joints) and writes the result to every copy.
fn per_group(
    model: &mut Model,
    topology: &ModelTopology,
    rules: &WeightRules,
    record: &mut StrokeRecord,
    f: impl Fn(&[(u16, f32)]) -> Vec<(u16, f32)>,
) -> Result<ToolOutcome, PaintError> {
    let surface = &topology.surface;
    let adj = surface.adjacency();
    let reps: Vec<u32> = (0..surface.len() as u32).filter(|&g| adj.rep(g) == g).collect();
    write_groups(model, surface, rules, &reps, record, |_, old| if old.is_empty() { Vec::new() } else { f(old) })
}

/// Normalize All: every influenced vertex normalised over its unlocked joints (locked weights
/// kept), then held to the influence limit.
pub fn normalize_all(
    model: &mut Model,
    topology: &ModelTopology,
    rules: &WeightRules,
    record: &mut StrokeRecord,
) -> Result<ToolOutcome, PaintError> {
    per_group(model, topology, rules, record, |old| {
        let mut w = old.to_vec();
        apply_rules(&mut w, rules, None, old);
        w
    })
}

/// Limit Total: every vertex with more than `rules.limit()` influences loses its smallest
/// (unlocked first) and is renormalised.
pub fn limit_total(
    model: &mut Model,
    topology: &ModelTopology,
    rules: &WeightRules,
    record: &mut StrokeRecord,
) -> Result<ToolOutcome, PaintError> {
    per_group(model, topology, rules, record, |old| {
        let mut w = old.to_vec();
        normalize::limit(&mut w, rules, None);
        w
    })
}

/// Clean: unlocked weights below `threshold` removed, the rest renormalised (a vertex always keeps
/// at least its largest influence).
pub fn clean(
    model: &mut Model,
    topology: &ModelTopology,
    rules: &WeightRules,
    threshold: f32,
    record: &mut StrokeRecord,
) -> Result<ToolOutcome, PaintError> {
    per_group(model, topology, rules, record, |old| {
        let mut w = old.to_vec();
        normalize::clean(&mut w, rules, threshold);
        normalize::limit(&mut w, rules, None);
        w
    })
}

/// Smooth All: `iterations` rounds in which every influenced weld group moves towards the mean of
/// its neighbouring groups' weights (across primitives) by `strength` (in [0, 1]); locked joints
/// keep their values; the rules are applied after each round. Vertices without influence neither
/// change nor count.
pub fn smooth_all(
    model: &mut Model,
    topology: &ModelTopology,
    rules: &WeightRules,
    strength: f32,
    iterations: usize,
    record: &mut StrokeRecord,
) -> Result<ToolOutcome, PaintError> {
    let surface = &topology.surface;
    let layout_changed = ensure_surface_slots(model, &topology.surface, rules);
    let strength = if strength.is_finite() { strength.clamp(0.0, 1.0) } else { 0.0 };
    let adj = surface.adjacency();
    let reps: Vec<u32> = (0..surface.len() as u32).filter(|&g| adj.rep(g) == g).collect();
    let writable: Vec<u32> = reps.iter().copied().filter(|&g| rules.may_change(g)).collect();
    let mut changed = Vec::new();
    let mut olds: Vec<Vec<(u16, f32)>> = vec![Vec::new(); surface.len()];
    for _ in 0..iterations {
        for &g in &reps {
            olds[g as usize] = surface.weights(model, g);
        }
        for &g in &writable {
            let old = &olds[g as usize];
            if old.is_empty() {
                continue;
            }
            let mut mean = Vec::new();
            let mut count = 0usize;
            for &u in adj.neighbours(g) {
                if let Some(o) = olds.get(u as usize).filter(|o| !o.is_empty()) {
                    accumulate(&mut mean, o, 1.0);
                    count += 1;
                }
            }
            if count == 0 {
                continue;
            }
            let s = 1.0 / count as f32;
            mean.iter_mut().for_each(|p| p.1 *= s);
            let mut w = old.clone();
            blend_towards(&mut w, &mean, strength);
            for q in w.iter_mut().filter(|q| rules.is_locked(q.0)) {
                q.1 = super::blend::weight_of(old, q.0);
            }
            apply_rules(&mut w, rules, None, old);
            write_group(model, surface, g, &w, record, &mut changed)?;
        }
    }
    changed.sort_unstable();
    changed.dedup();
    Ok(ToolOutcome { changed: changed.len(), layout_changed })
}
