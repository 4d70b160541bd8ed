//! One dab of the brush on one primitive: blend the touched vertices' weights, apply the weight
//! rules (normalisation with locks, influence limit), write them back through
//! [`Influences::set_vertex`] (interning new joint sets in the skin's table) and record the
//! change for undo. Then, optionally, the same on the x-mirrored vertices with the mirrored joint.
//!
//! Smooth and Blur targets are computed from the weights before the pass, so the result does not
//! depend on vertex order. After a dab the caller re-skins only the touched vertices:
//! `Deformer::prepare_new_sets` then `Deformer::deform_vertices` (or a full prepare when
//! [`DabOutcome::layout_changed`]).

use super::blend::{accumulate, blend_joint, blend_towards, set_weight, weight_of, BlendMode};
use super::brush::BrushSettings;
use super::footprint::Touch;
use super::normalize::{apply_rules, WeightRules};
use super::stroke::StrokeRecord;
use super::topology::ModelTopology;
use crate::model::influences::VertexInfluences;
use crate::model::{InfluenceError, Influences, JointSetTable, Model};

/// Why a dab or tool could not run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PaintError {
    /// The instance index is out of range.
    #[error("no skinned instance {0}")]
    NoInstance(usize),
    /// The primitive index is out of range.
    #[error("mesh {mesh} has no primitive {prim}")]
    NoPrimitive {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        prim: usize,
    },
    /// The primitive has no influences (see [`ensure_influences`]).
    #[error("primitive {prim} of mesh {mesh} has no skin weights")]
    NoInfluences {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        prim: usize,
    },
    /// The painted joint is not in the skin.
    #[error("joint {joint} is beyond the skin's {joints} joints")]
    JointOutOfRange {
        /// The joint index.
        joint: u16,
        /// Joints in the skin.
        joints: usize,
    },
    /// The topology cache does not match the model.
    #[error("no brush topology for primitive {prim} of mesh {mesh}")]
    NoTopology {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        prim: usize,
    },
    /// Writing a vertex failed.
    #[error(transparent)]
    Influence(#[from] InfluenceError),
}

/// Which primitive a dab paints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DabTarget {
    /// Index into `Model::instances`.
    pub instance: usize,
    /// Primitive index within the instance's mesh.
    pub prim: usize,
}

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
    /// The skin's tables were re-padded to more slots: prepare the deformer again and re-skin
    /// everything drawn with that skin.
    pub layout_changed: bool,
    /// Joint sets appended to the skin's table.
    pub new_sets: usize,
}

/// Gives every primitive drawn by `instance` that has no influences an all-empty set of
/// influences (vertices that are not moved, exactly as without influences), so that it can be
/// painted. Returns whether anything was added.
pub fn ensure_influences(model: &mut Model, instance: usize) -> Result<bool, PaintError> {
    let inst = model.instances.get(instance).cloned().ok_or(PaintError::NoInstance(instance))?;
    let Model { meshes, skins, .. } = model;
    let table = &mut skins.get_mut(inst.skin).ok_or(PaintError::NoInstance(instance))?.sets;
    let mesh = meshes.get_mut(inst.mesh).ok_or(PaintError::NoInstance(instance))?;
    let mut added = false;
    for p in mesh.primitives.iter_mut().filter(|p| p.influences.is_none()) {
        let empty = vec![VertexInfluences::default(); p.positions.len()];
        p.influences = Some(Influences::from_vertices(&empty, table)?);
        added = true;
    }
    Ok(added)
}

/// Makes the instance's skin hold at least `rules.limit()` slots per vertex (re-padding every
/// primitive drawn with it). Returns whether the layout changed.
pub fn ensure_slots(model: &mut Model, skin: usize, rules: &WeightRules) -> bool {
    let limit = rules.limit();
    match model.skins.get(skin) {
        Some(s) if s.sets.slots() < limit => model.grow_skin_slots(skin, limit),
        _ => false,
    }
}

/// Per-vertex amounts (strength × falloff) of the touches, one per vertex (the largest), ascending.
fn amounts(dab: &Dab<'_>, n: usize) -> Vec<(u32, f32)> {
    let mut out: Vec<(u32, f32)> = dab
        .touches
        .iter()
        .filter(|t| (t.vertex as usize) < n)
        .map(|t| (t.vertex, dab.brush.amount(t.distance, dab.radius)))
        .filter(|&(_, a)| a > 0.0)
        .collect();
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    out.dedup_by_key(|e| e.0);
    out
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

/// Everything one pass needs besides the weights.
struct Pass<'a> {
    mode: BlendMode,
    joint: u16,
    value: f32,
    rules: &'a WeightRules,
    adjacency: &'a super::adjacency::Adjacency,
    mesh: usize,
    prim: usize,
}

fn run_pass(
    pass: &Pass<'_>,
    amounts: &[(u32, f32)],
    inf: &mut Influences,
    table: &mut JointSetTable,
    record: &mut StrokeRecord,
    touched: &mut Vec<u32>,
) -> Result<(), PaintError> {
    let rules = pass.rules;
    if pass.mode.paints_joint() && rules.is_locked(pass.joint) {
        return Ok(());
    }
    let olds: Vec<VertexInfluences> = amounts.iter().map(|&(v, _)| inf.vertex_influences(v as usize, table)).collect();
    let mut targets: Vec<Vec<(u16, f32)>> = Vec::new();
    match pass.mode {
        BlendMode::Smooth => {
            targets.reserve(amounts.len());
            for (&(v, _), old) in amounts.iter().zip(&olds) {
                let nbrs = pass.adjacency.neighbours(v);
                let mut mean = Vec::new();
                let mut count = 0usize;
                for &u in nbrs.iter().filter(|&&u| (u as usize) < inf.len()) {
                    let mut any = false;
                    for (j, w) in inf.vertex(u as usize, table) {
                        accumulate(&mut mean, &[(j, w)], 1.0);
                        any = true;
                    }
                    count += usize::from(any);
                }
                if count == 0 {
                    mean.clone_from(&old.pairs);
                } else {
                    let s = 1.0 / count as f32;
                    mean.iter_mut().for_each(|p| p.1 *= s);
                }
                targets.push(mean);
            }
        }
        BlendMode::Blur => {
            let mut mean = Vec::new();
            let mut total = 0.0f32;
            for (&(_, a), old) in amounts.iter().zip(&olds) {
                if !old.pairs.is_empty() {
                    accumulate(&mut mean, &old.pairs, a);
                    total += a;
                }
            }
            if total > 0.0 {
                mean.iter_mut().for_each(|p| p.1 /= total);
            }
            targets.push(mean);
        }
        _ => {}
    }
    let mut next = VertexInfluences::default();
    for (i, (&(v, a), old)) in amounts.iter().zip(&olds).enumerate() {
        let w = &mut next.pairs;
        w.clear();
        w.extend_from_slice(&old.pairs);
        let held = if pass.mode.paints_joint() {
            let c = weight_of(w, pass.joint);
            set_weight(w, pass.joint, blend_joint(pass.mode, c, a, pass.value));
            Some(pass.joint)
        } else {
            let target = if pass.mode == BlendMode::Smooth { &targets[i] } else { &targets[0] };
            if target.is_empty() {
                continue;
            }
            blend_towards(w, target, a);
            keep_locked(w, &old.pairs, rules);
            None
        };
        apply_rules(w, rules, held, &old.pairs);
        if w.is_empty() || *w == old.pairs {
            continue;
        }
        let before = inf.snapshot(v as usize);
        inf.set_vertex(v as usize, &next, table)?;
        record.record(pass.mesh, pass.prim, v, before, inf.snapshot(v as usize));
        touched.push(v);
    }
    Ok(())
}

/// Applies one dab to primitive `target.prim` of instance `target.instance` (see the module
/// docs), recording every change in `record`. With `brush.mirror_x`, the mirrored vertices get the
/// same amounts on the mirrored joint (by name; the same joint when it has no mirror).
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
    let joints = model.skins.get(inst.skin).map_or(0, |s| s.joints.len());
    if dab.brush.mode.paints_joint() && dab.joint as usize >= joints {
        return Err(PaintError::JointOutOfRange { joint: dab.joint, joints });
    }
    let topo = topology.prim(mesh, prim).ok_or(PaintError::NoTopology { mesh, prim })?;
    let layout_changed = ensure_slots(model, inst.skin, rules);
    let Model { meshes, skins, .. } = model;
    let p =
        meshes.get_mut(mesh).and_then(|m| m.primitives.get_mut(prim)).ok_or(PaintError::NoPrimitive { mesh, prim })?;
    let inf = p.influences.as_mut().ok_or(PaintError::NoInfluences { mesh, prim })?;
    let table = &mut skins.get_mut(inst.skin).ok_or(PaintError::NoInstance(target.instance))?.sets;
    if topo.adjacency.len() != inf.len() {
        return Err(PaintError::NoTopology { mesh, prim });
    }
    let sets_before = table.len();
    let amounts = amounts(dab, inf.len());
    let mut touched = Vec::new();
    let mut pass = Pass {
        mode: dab.brush.mode,
        joint: dab.joint,
        value: dab.brush.value,
        rules,
        adjacency: &topo.adjacency,
        mesh,
        prim,
    };
    run_pass(&pass, &amounts, inf, table, record, &mut touched)?;
    if dab.brush.mirror_x {
        pass.joint = topology.mirror_joint(inst.skin, dab.joint);
        // A vertex on the mirror plane painted with a joint that is its own mirror (or by a mode
        // that paints every joint) was already done by the first pass.
        let same = !dab.brush.mode.paints_joint() || pass.joint == dab.joint;
        let mut mirrored: Vec<(u32, f32)> = amounts
            .iter()
            .filter_map(|&(v, a)| topo.mirror.get(v).filter(|&m| !(same && m == v)).map(|m| (m, a)))
            .collect();
        mirrored.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        mirrored.dedup_by_key(|e| e.0);
        run_pass(&pass, &mirrored, inf, table, record, &mut touched)?;
    }
    touched.sort_unstable();
    touched.dedup();
    Ok(DabOutcome { touched, layout_changed, new_sets: table.len() - sets_before })
}
