//! One dab of the brush on the model's surface (every primitive at once, see
//! [`super::model_surface`]): blend the touched weld groups' weights, apply the weight rules
//! (normalisation with locks, influence limit), write them to every copy of each group through
//! [`crate::model::Influences::set_vertex`] (interning new joint sets in the skins' tables) and
//! record the change for undo. Then, optionally, the same on the mirrored vertices with the
//! mirrored joint.
//!
//! Weights are computed once per weld group, on its representative, in surface joints; Smooth and
//! Blur targets are computed from the weights before the pass, so the result does not depend on
//! vertex order. After a dab the caller re-skins only the touched vertices:
//! `Deformer::prepare_new_sets` then `Deformer::deform_vertices` (or a full prepare when
//! [`DabOutcome::layout_changed`]).

use super::blend::{accumulate, blend_joint, blend_towards, set_weight, weight_of, BlendMode};
use super::brush::BrushSettings;
use super::error::PaintError;
use super::footprint::Touch;
use super::model_surface::{ModelSurface, SurfacePart};
use super::normalize::{apply_rules, WeightRules};
use super::target::DabTarget;
use super::topology::ModelTopology;
use super::weld::GroupWriter;
use super::writable::{ensure_all_influences, ensure_surface_slots};
use crate::model::Model;
use crate::model::{StrokeRecord, TouchedPrimitive};

/// One dab: the painted joint, the brush, its radius in model units and the footprint.
#[derive(Clone, Copy, Debug)]
pub struct Dab<'a> {
    /// The painted joint (skin joint index); ignored by Smooth and Blur.
    pub joint: u16,
    /// Brush settings (mode, strength, falloff, value, mirror).
    pub brush: &'a BrushSettings,
    /// Radius in model units (the footprint's radius).
    pub radius: f32,
    /// The touched vertices with their distances from the centre.
    pub touches: &'a [Touch],
}

/// What a dab changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DabOutcome {
    /// Vertices of the target primitive whose weights changed, ascending.
    pub touched: Vec<u32>,
    /// Every primitive whose weights changed (the target's neighbours across borders and welds,
    /// the mirrored side), primitives and vertices ascending.
    pub parts: Vec<TouchedPrimitive>,
    /// Vertices whose only free influence was the subtracted joint: the removed weight went to
    /// the nearest joint in the hierarchy, [`DabOutcome::fallback_joint`].
    pub moved_to_fallback: usize,
    /// The surface joint that took Subtract's weight (see [`DabOutcome::moved_to_fallback`]).
    pub fallback_joint: Option<u16>,
    /// The skin's tables were re-padded to more slots: prepare the deformer again and re-skin
    /// everything drawn with that skin.
    pub layout_changed: bool,
    /// Joint sets appended to the skin's table.
    pub new_sets: usize,
}

/// Per-group amounts (strength × falloff) of the touches, one per weld group (its largest, on
/// the group's representative), ascending.
fn amounts(dab: &Dab<'_>, surface: &ModelSurface) -> Vec<(u32, f32)> {
    let n = surface.len();
    let adj = surface.adjacency();
    // One u64 per touch: the group above, the amount's bits complemented below (positive finite
    // f32s order like their bits), so a plain integer sort puts each group's largest amount first.
    let mut keys: Vec<u64> = dab
        .touches
        .iter()
        .filter(|t| (t.vertex as usize) < n)
        .map(|t| (adj.rep(t.vertex), dab.brush.amount(t.distance, dab.radius)))
        .filter(|&(_, a)| a > 0.0)
        .map(|(g, a)| u64::from(g) << 32 | u64::from(!a.to_bits()))
        .collect();
    keys.sort_unstable();
    keys.dedup_by_key(|k| *k >> 32);
    keys.into_iter().map(|k| ((k >> 32) as u32, f32::from_bits(!(k as u32)))).collect()
}

/// Restores the locked joints of `w` to their values in `old` (Smooth and Blur must not move them).
fn keep_locked(w: &mut Vec<(u16, f32)>, old: &[(u16, f32)], rules: &WeightRules) {
    for p in w.iter_mut().filter(|p| rules.is_locked(p.0)) {
        p.1 = weight_of(old, p.0);
    }
    for &(j, x) in old.iter().filter(|p| rules.is_locked(p.0)) {
        if !w.iter().any(|p| p.0 == j) {
            w.push((j, x));
        }
    }
}

/// The surface joint nearest to `joint` in the hierarchy: its closest ancestor that is a joint,
/// else its closest descendant (breadth first), else `None`.
#[must_use]
pub fn fallback_joint(model: &Model, surface: &ModelSurface, joint: u16) -> Option<u16> {
    let nodes = surface.joint_nodes();
    let node = *nodes.get(joint as usize)?;
    let as_joint = |n: usize| nodes.iter().position(|&m| m == n).map(|k| k as u16);
    let mut up = model.nodes.nodes.get(node)?.parent;
    while let Some(p) = up {
        if let Some(j) = as_joint(p) {
            return Some(j);
        }
        up = model.nodes.nodes.get(p)?.parent;
    }
    let mut queue: std::collections::VecDeque<usize> = model.nodes.nodes.get(node)?.children.iter().copied().collect();
    while let Some(c) = queue.pop_front() {
        if let Some(j) = as_joint(c) {
            return Some(j);
        }
        if let Some(n) = model.nodes.nodes.get(c) {
            queue.extend(n.children.iter().copied());
        }
    }
    None
}

/// Everything one pass needs besides the weights.
struct Pass<'a> {
    mode: BlendMode,
    joint: u16,
    /// Where Subtract moves weight from a vertex whose only free influence is `joint`.
    fallback: Option<u16>,
    value: f32,
    rules: &'a WeightRules,
    surface: &'a ModelSurface,
}

/// What the passes of one dab changed.
#[derive(Default)]
struct Changes {
    copies: Vec<(usize, u32)>,
    moved: usize,
}

fn smooth_target(model: &Model, surface: &ModelSurface, g: u32, old: &[(u16, f32)]) -> Vec<(u16, f32)> {
    let mut mean = Vec::new();
    let mut count = 0usize;
    for &u in surface.adjacency().neighbours(g) {
        let w = surface.weights(model, u);
        if !w.is_empty() {
            accumulate(&mut mean, &w, 1.0);
            count += 1;
        }
    }
    if count == 0 {
        return old.to_vec();
    }
    let s = 1.0 / count as f32;
    mean.iter_mut().for_each(|p| p.1 *= s);
    mean
}

fn run_pass(
    pass: &Pass<'_>,
    amounts: &[(u32, f32)],
    model: &mut Model,
    record: &mut StrokeRecord,
    changes: &mut Changes,
) -> Result<(), PaintError> {
    let (rules, surface) = (pass.rules, pass.surface);
    if pass.mode.paints_joint() && rules.is_locked(pass.joint) {
        return Ok(());
    }
    // Every group's weights before the pass, in one array.
    let mut old_pairs = Vec::with_capacity(amounts.len() * 4);
    let mut old_ends = Vec::with_capacity(amounts.len());
    for (i, &(g, _)) in amounts.iter().enumerate() {
        // The groups' weights are scattered over the 1M-vertex arrays (a run per ring of a limb).
        if let Some(&(ahead, _)) = amounts.get(i + crate::prefetch::AHEAD) {
            surface.prefetch_weights(model, ahead);
        }
        surface.append_weights(model, g, &mut old_pairs);
        old_ends.push(old_pairs.len());
    }
    let olds: Vec<&[(u16, f32)]> = old_ends
        .iter()
        .scan(0, |start, &end| {
            let s = std::mem::replace(start, end);
            Some(&old_pairs[s..end])
        })
        .collect();
    let targets: Vec<Vec<(u16, f32)>> = match pass.mode {
        BlendMode::Smooth => {
            amounts.iter().zip(&olds).map(|(&(g, _), old)| smooth_target(model, surface, g, old)).collect()
        }
        BlendMode::Blur => {
            let mut mean = Vec::new();
            let mut total = 0.0f32;
            for (&(_, a), old) in amounts.iter().zip(&olds) {
                if !old.is_empty() {
                    accumulate(&mut mean, old, a);
                    total += a;
                }
            }
            if total > 0.0 {
                mean.iter_mut().for_each(|p| p.1 /= total);
            }
            vec![mean]
        }
        _ => Vec::new(),
    };
    let fallback = pass.fallback.filter(|&f| !rules.is_locked(f) && f != pass.joint);
    let mut w = Vec::new();
    let mut writer = GroupWriter::default();
    for (i, (&(g, a), &old)) in amounts.iter().zip(&olds).enumerate() {
        if !rules.may_change(g) {
            continue;
        }
        w.clear();
        w.extend_from_slice(old);
        let held = if pass.mode.paints_joint() {
            let c = weight_of(&w, pass.joint);
            let painted = blend_joint(pass.mode, c, a, pass.value);
            set_weight(&mut w, pass.joint, painted);
            let free_others: f32 = old.iter().filter(|p| p.0 != pass.joint && !rules.is_locked(p.0)).map(|p| p.1).sum();
            if let (BlendMode::Subtract, Some(f), true) = (pass.mode, fallback, painted < c && free_others == 0.0) {
                set_weight(&mut w, f, weight_of(old, f) + (c - painted));
                changes.moved += 1;
            }
            Some(pass.joint)
        } else {
            let target = if pass.mode == BlendMode::Smooth { &targets[i] } else { &targets[0] };
            if target.is_empty() {
                continue;
            }
            blend_towards(&mut w, target, a);
            keep_locked(&mut w, old, rules);
            None
        };
        apply_rules(&mut w, rules, held, old);
        writer.write(model, surface, g, &w, Some(old), record, &mut changes.copies)?;
    }
    Ok(())
}

/// Applies one dab to the model's surface (see the module docs): `dab.joint` is a surface joint
/// and `dab.touches` hold surface vertices (a footprint over [`ModelSurface::triangles`]);
/// `rules` lock surface joints. Every change is recorded in `record`; `target` (the primitive
/// under the brush) names the vertices reported in [`DabOutcome::touched`]. With
/// `brush.mirror_x`, the mirrored vertices get the same amounts on the mirrored joint.
pub fn apply_surface_dab(
    model: &mut Model,
    target: DabTarget,
    dab: &Dab<'_>,
    rules: &WeightRules,
    topology: &ModelTopology,
    record: &mut StrokeRecord,
) -> Result<DabOutcome, PaintError> {
    let surface = &topology.surface;
    let joints = surface.joint_nodes().len();
    if dab.brush.mode.paints_joint() && dab.joint as usize >= joints {
        return Err(PaintError::JointOutOfRange { joint: dab.joint, joints });
    }
    let mut layout_changed = ensure_all_influences(model, surface)?;
    layout_changed |= ensure_surface_slots(model, surface, rules);
    let sets_before: usize = model.skins.iter().map(|s| s.sets.len()).sum();
    let amounts = amounts(dab, surface);
    // Most groups are one vertex holding the limit's weights, or fewer.
    let mirrored = if dab.brush.mirror_x { 2 } else { 1 };
    record.reserve(amounts.len() * mirrored, rules.limit());
    let mut changes = Changes { copies: Vec::with_capacity(amounts.len() * mirrored), moved: 0 };
    let mut pass = Pass {
        mode: dab.brush.mode,
        joint: dab.joint,
        fallback: fallback_joint(model, surface, dab.joint),
        value: dab.brush.value,
        rules,
        surface,
    };
    run_pass(&pass, &amounts, model, record, &mut changes)?;
    let (moved_first, first_fallback) = (changes.moved, pass.fallback);
    if dab.brush.mirror_x {
        pass.joint = topology.mirror_joint(dab.joint);
        pass.fallback = fallback_joint(model, surface, pass.joint);
        // A vertex on the mirror plane painted with a joint that is its own mirror (or by a mode
        // that paints every joint) was already done by the first pass.
        let same = !dab.brush.mode.paints_joint() || pass.joint == dab.joint;
        let adj = surface.adjacency();
        let mut mirrored: Vec<(u32, f32)> = amounts
            .iter()
            .filter_map(|&(g, a)| {
                topology.mirror_vertex(g).map(|m| (adj.rep(m), a)).filter(|&(m, _)| !(same && m == g))
            })
            .collect();
        mirrored.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        mirrored.dedup_by_key(|e| e.0);
        run_pass(&pass, &mirrored, model, record, &mut changes)?;
    }
    let sets_after: usize = model.skins.iter().map(|s| s.sets.len()).sum();
    let parts = group_touched(surface, &changes.copies);
    let inst = model.instances.get(target.instance);
    let touched = parts
        .iter()
        .find(|t| inst.is_some_and(|i| i.mesh == t.mesh) && t.prim == target.prim)
        .map(|t| t.vertices.clone())
        .unwrap_or_default();
    Ok(DabOutcome {
        touched,
        parts,
        moved_to_fallback: changes.moved,
        fallback_joint: if moved_first > 0 {
            first_fallback
        } else if changes.moved > 0 {
            pass.fallback
        } else {
            None
        },
        layout_changed,
        new_sets: sets_after - sets_before,
    })
}

/// `(part, vertex)` changes grouped by primitive, ascending.
#[must_use]
pub fn group_touched(surface: &ModelSurface, copies: &[(usize, u32)]) -> Vec<TouchedPrimitive> {
    touched_by_primitive(surface.parts(), copies)
}

fn touched_by_primitive(parts: &[SurfacePart], copies: &[(usize, u32)]) -> Vec<TouchedPrimitive> {
    // Each part's rank in (mesh, primitive) order above the vertex: one integer sort orders the
    // copies as the (mesh, primitive, vertex) triples would (parts are distinct primitives).
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_unstable_by_key(|&k| (parts[k].mesh, parts[k].prim));
    let mut rank = vec![0u64; parts.len()];
    for (r, &k) in order.iter().enumerate() {
        rank[k] = r as u64;
    }
    let mut keys: Vec<u64> = copies.iter().filter_map(|&(k, v)| rank.get(k).map(|&r| r << 32 | u64::from(v))).collect();
    keys.sort_unstable();
    keys.dedup();
    TouchedPrimitive::group_sorted(keys.into_iter().map(|key| {
        let p = parts[order[(key >> 32) as usize]];
        (p.mesh, p.prim, key as u32)
    }))
}

/// Applies one dab given in one primitive's terms: `dab.joint` is a joint of the instance's skin,
/// `dab.touches` are vertices of primitive `target.prim`, `rules` lock the skin's joints. The dab
/// still paints the whole surface (every weld copy of the touched vertices, across primitives).
pub fn apply_dab(
    model: &mut Model,
    target: DabTarget,
    dab: &Dab<'_>,
    rules: &WeightRules,
    topology: &ModelTopology,
    record: &mut StrokeRecord,
) -> Result<DabOutcome, PaintError> {
    let inst = model.instances.get(target.instance).cloned().ok_or(PaintError::NoInstance(target.instance))?;
    let (mesh, prim) = (inst.mesh, target.prim);
    let surface = &topology.surface;
    let part = surface.part_of(mesh, prim).ok_or(PaintError::NoTopology { mesh, prim })?;
    let part = surface.parts()[part];
    let joints = model.skins.get(inst.skin).map_or(0, |s| s.joints.len());
    let joint = match surface.surface_joint(inst.skin, dab.joint) {
        Some(j) => j,
        None if dab.brush.mode.paints_joint() => {
            return Err(PaintError::JointOutOfRange { joint: dab.joint, joints });
        }
        None => 0,
    };
    let touches: Vec<Touch> = dab
        .touches
        .iter()
        .filter(|t| t.vertex < part.vertices)
        .map(|t| Touch { vertex: part.first_vertex + t.vertex, distance: t.distance })
        .collect();
    let global = Dab { joint, touches: &touches, ..*dab };
    apply_surface_dab(model, target, &global, &surface.rules_from_skin(inst.skin, rules), topology, record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touched_copies_come_out_by_mesh_primitive_and_vertex() {
        // Parts in order of first instance (mesh 1 drawn first), not of mesh.
        let part = |mesh, prim, first_vertex| SurfacePart {
            instance: 0,
            mesh,
            prim,
            skin: 0,
            first_vertex,
            vertices: 10,
            first_triangle: 0,
        };
        let parts = [part(1, 0, 0), part(1, 1, 10), part(0, 0, 20)];
        let copies = [(1, 4), (0, 7), (2, 9), (0, 2), (1, 4), (2, 0), (7, 1), (0, 7)];
        let got = touched_by_primitive(&parts, &copies);
        let want = |mesh, prim, vertices: &[u32]| TouchedPrimitive { mesh, prim, vertices: vertices.to_vec() };
        assert_eq!(got, vec![want(0, 0, &[0, 9]), want(1, 0, &[2, 7]), want(1, 1, &[4])]);
    }
}
