//! Whole-model weight tools: Normalize All, Limit Total, Clean and Smooth All. Each works on every
//! primitive drawn with one skin, honours the locks, records its changes for undo and leaves every
//! vertex it changes valid (finite, non-negative, summing to 1, at least one influence).

use super::blend::{accumulate, blend_towards};
use super::dab::{ensure_slots, PaintError};
use super::normalize::{self, apply_rules, WeightRules};
use super::stroke::StrokeRecord;
use super::topology::ModelTopology;
use crate::model::influences::VertexInfluences;
use crate::model::{Influences, JointSetTable, Model};

/// What a tool changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolOutcome {
    /// Vertices whose weights changed.
    pub changed: usize,
    /// The skin's tables were re-padded to more slots (prepare the deformer again).
    pub layout_changed: bool,
}

/// Meshes drawn with `skin`, ascending.
fn skin_meshes(model: &Model, skin: usize) -> Vec<usize> {
    let mut meshes: Vec<usize> = model.instances.iter().filter(|i| i.skin == skin).map(|i| i.mesh).collect();
    meshes.sort_unstable();
    meshes.dedup();
    meshes
}

/// Writes `w` to vertex `v` when it is valid and differs from the stored weights.
fn write(
    inf: &mut Influences,
    table: &mut JointSetTable,
    v: usize,
    old: &VertexInfluences,
    w: Vec<(u16, f32)>,
    at: (usize, usize),
    record: &mut StrokeRecord,
) -> Result<bool, PaintError> {
    if w.is_empty() || w == old.pairs {
        return Ok(false);
    }
    let before = inf.snapshot(v);
    inf.set_vertex(v, &VertexInfluences { pairs: w }, table)?;
    record.record(at.0, at.1, v as u32, before, inf.snapshot(v));
    Ok(true)
}

/// Runs `f(old weights) -> new weights` on every vertex of every primitive drawn with `skin`.
fn per_vertex(
    model: &mut Model,
    skin: usize,
    rules: &WeightRules,
    record: &mut StrokeRecord,
    f: impl Fn(&[(u16, f32)]) -> Vec<(u16, f32)>,
) -> Result<ToolOutcome, PaintError> {
    let layout_changed = ensure_slots(model, skin, rules);
    let meshes = skin_meshes(model, skin);
    let Model { meshes: all, skins, .. } = model;
    let Some(table) = skins.get_mut(skin).map(|s| &mut s.sets) else {
        return Ok(ToolOutcome::default());
    };
    let mut changed = 0;
    for m in meshes {
        let Some(mesh) = all.get_mut(m) else { continue };
        for (pi, p) in mesh.primitives.iter_mut().enumerate() {
            let Some(inf) = p.influences.as_mut() else { continue };
            for v in 0..inf.len() {
                if inf.count(v, table) == 0 {
                    continue;
                }
                let old = inf.vertex_influences(v, table);
                let w = f(&old.pairs);
                changed += usize::from(write(inf, table, v, &old, w, (m, pi), record)?);
            }
        }
    }
    Ok(ToolOutcome { changed, layout_changed })
}

/// Normalize All: every influenced vertex normalised over its unlocked joints (locked weights
/// kept), then held to the influence limit.
pub fn normalize_all(
    model: &mut Model,
    skin: usize,
    rules: &WeightRules,
    record: &mut StrokeRecord,
) -> Result<ToolOutcome, PaintError> {
    per_vertex(model, skin, rules, record, |old| {
        let mut w = old.to_vec();
        apply_rules(&mut w, rules, None, old);
        w
    })
}

/// Limit Total: every vertex with more than `rules.limit()` influences loses its smallest
/// (unlocked first) and is renormalised.
pub fn limit_total(
    model: &mut Model,
    skin: usize,
    rules: &WeightRules,
    record: &mut StrokeRecord,
) -> Result<ToolOutcome, PaintError> {
    per_vertex(model, skin, rules, record, |old| {
        let mut w = old.to_vec();
        normalize::limit(&mut w, rules, None);
        w
    })
}

/// Clean: unlocked weights below `threshold` removed, the rest renormalised (a vertex always keeps
/// at least its largest influence).
pub fn clean(
    model: &mut Model,
    skin: usize,
    rules: &WeightRules,
    threshold: f32,
    record: &mut StrokeRecord,
) -> Result<ToolOutcome, PaintError> {
    per_vertex(model, skin, rules, record, |old| {
        let mut w = old.to_vec();
        normalize::clean(&mut w, rules, threshold);
        normalize::limit(&mut w, rules, None);
        w
    })
}

/// Smooth All: `iterations` rounds in which every influenced vertex moves towards the mean of its
/// (welded) mesh neighbours' weights by `strength` (in [0, 1]); locked joints keep their values;
/// the rules are applied after each round. Vertices without influence neither change nor count.
pub fn smooth_all(
    model: &mut Model,
    skin: usize,
    rules: &WeightRules,
    topology: &ModelTopology,
    strength: f32,
    iterations: usize,
    record: &mut StrokeRecord,
) -> Result<ToolOutcome, PaintError> {
    let layout_changed = ensure_slots(model, skin, rules);
    let strength = if strength.is_finite() { strength.clamp(0.0, 1.0) } else { 0.0 };
    let meshes = skin_meshes(model, skin);
    let Model { meshes: all, skins, .. } = model;
    let Some(table) = skins.get_mut(skin).map(|s| &mut s.sets) else {
        return Ok(ToolOutcome::default());
    };
    let mut changed_vertices = std::collections::HashSet::new();
    for m in meshes {
        let Some(mesh) = all.get_mut(m) else { continue };
        for (pi, p) in mesh.primitives.iter_mut().enumerate() {
            let Some(inf) = p.influences.as_mut() else { continue };
            let Some(topo) = topology.prim(m, pi).filter(|t| t.adjacency.len() == inf.len()) else {
                return Err(PaintError::NoTopology { mesh: m, prim: pi });
            };
            for _ in 0..iterations {
                let olds: Vec<VertexInfluences> = (0..inf.len()).map(|v| inf.vertex_influences(v, table)).collect();
                for (v, old) in olds.iter().enumerate() {
                    if old.pairs.is_empty() {
                        continue;
                    }
                    let mut mean = Vec::new();
                    let mut count = 0usize;
                    for &u in topo.adjacency.neighbours(v as u32) {
                        if let Some(o) = olds.get(u as usize).filter(|o| !o.pairs.is_empty()) {
                            accumulate(&mut mean, &o.pairs, 1.0);
                            count += 1;
                        }
                    }
                    if count == 0 {
                        continue;
                    }
                    let s = 1.0 / count as f32;
                    mean.iter_mut().for_each(|p| p.1 *= s);
                    let mut w = old.pairs.clone();
                    blend_towards(&mut w, &mean, strength);
                    for q in w.iter_mut().filter(|q| rules.is_locked(q.0)) {
                        q.1 = super::blend::weight_of(&old.pairs, q.0);
                    }
                    apply_rules(&mut w, rules, None, &old.pairs);
                    if write(inf, table, v, old, w, (m, pi), record)? {
                        changed_vertices.insert((m, pi, v));
                    }
                }
            }
        }
    }
    Ok(ToolOutcome { changed: changed_vertices.len(), layout_changed })
}
