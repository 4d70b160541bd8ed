//! The `weight` motion of a sweep: for joint J, every vertex that J influences together with
//! another joint gets weight ε on J (the other weights keep their proportions and share 1 − ε),
//! for ε from 1e-1 down to 1e-6 over the steps (evenly in log10); the jump at ε is the largest
//! distance between that vertex deformed with weight ε and with J removed, as a share of the
//! bind-pose bounding-box diagonal. A continuous method's jump shrinks with ε; SBS's does not where
//! removing J changes a set of three or more joints (its centre of rotation jumps). The pose is the
//! first seeded random pose of `analysis::poses` (every joint 0–45° about a random axis), so that
//! the members' rotations differ.

use super::{JointSweep, MethodCurve, Motion, WeightStep};
use crate::analysis::deformation::{bind_diagonal, deform_held};
use crate::analysis::poses::{bind_placements, random_poses, MAX_RANDOM_ANGLE_RAD, RANDOM_POSE_SEED};
use crate::model::influences::VertexInfluences;
use crate::model::Model;
use crate::skinning::{Deformer, SkinningMethod};

/// ε of step `k` of `steps`: 10^(−1 − 5k/(steps − 1)).
#[must_use]
pub fn step_weight(k: usize, steps: usize) -> f64 {
    10f64.powf(-1.0 - 5.0 * k as f64 / (steps.max(2) - 1) as f64)
}

/// `model` with joint node `node`'s weight set to `epsilon` on every vertex where it shares the
/// vertex with another joint (0 removes it); also returns those vertices as (instance, primitive,
/// vertex).
fn reweighted(model: &Model, node: usize, epsilon: f32) -> (Model, Vec<(usize, usize, usize)>) {
    let mut out = model.clone();
    let mut touched = Vec::new();
    for (i, inst) in model.instances.iter().enumerate() {
        if model.instances[..i].iter().any(|e| e.mesh == inst.mesh) {
            continue;
        }
        let Some(joint) = model.skins[inst.skin].joints.iter().position(|&n| n == node) else { continue };
        let joint = joint as u16;
        for (pi, prim) in model.meshes[inst.mesh].primitives.iter().enumerate() {
            let Some(inf) = &prim.influences else { continue };
            for v in 0..inf.len() {
                let pairs: Vec<(u16, f32)> = inf.vertex(v, &model.skins[inst.skin].sets).collect();
                let on_joint = pairs.iter().any(|&(j, w)| j == joint && w > 0.0);
                let others: f32 = pairs.iter().filter(|p| p.0 != joint).map(|p| p.1).sum();
                if !on_joint || others <= 0.0 {
                    continue;
                }
                let mut new = Vec::with_capacity(pairs.len());
                for &(j, w) in &pairs {
                    if j == joint {
                        if epsilon > 0.0 {
                            new.push((j, epsilon));
                        }
                    } else {
                        new.push((j, w / others * (1.0 - epsilon)));
                    }
                }
                let skin = &mut out.skins[inst.skin];
                if let Some(target) = out.meshes[inst.mesh].primitives[pi].influences.as_mut() {
                    if target.set_vertex(v, &VertexInfluences { pairs: new }, &mut skin.sets).is_ok() {
                        touched.push((i, pi, v));
                    }
                }
            }
        }
    }
    (out, touched)
}

/// The `weight` sweep of joint node `node` for `methods`; `None` when it shares no vertex with
/// another joint.
#[must_use]
pub fn sweep_weight(model: &Model, node: usize, methods: &[SkinningMethod], steps: usize) -> Option<JointSweep> {
    let (without, touched) = reweighted(model, node, 0.0);
    if touched.is_empty() {
        return None;
    }
    let pose = random_poses(model, 1, RANDOM_POSE_SEED, MAX_RANDOM_ANGLE_RAD).pop()?;
    let placements = bind_placements(model);
    let diagonal = bind_diagonal(model).max(f64::MIN_POSITIVE);
    let mut deformer = Deformer::new();
    let (mut base, mut out) = (Vec::new(), Vec::new());
    let with: Vec<Model> = (0..steps).map(|k| reweighted(model, node, step_weight(k, steps) as f32).0).collect();
    let mut curves = Vec::new();
    for &method in methods {
        deform_held(&mut deformer, &without, &pose, method, &placements, &mut base);
        let mut weight_steps = Vec::with_capacity(steps);
        for (k, m) in with.iter().enumerate() {
            deform_held(&mut deformer, m, &pose, method, &placements, &mut out);
            let jump = touched
                .iter()
                .filter_map(|&(i, p, v)| {
                    let a = out.get(i)?.get(p)?.positions.get(v)?;
                    let b = base.get(i)?.get(p)?.positions.get(v)?;
                    Some(f64::from(a.distance(*b)))
                })
                .fold(0.0, f64::max);
            weight_steps.push(WeightStep { weight: step_weight(k, steps), jump: jump / diagonal });
        }
        curves.push(MethodCurve { method, steps: Vec::new(), weight_steps });
    }
    Some(JointSweep {
        joint: model.nodes.key(node),
        node,
        motion: Motion::Weight,
        axis: [0.0; 3],
        influenced_vertices: touched.len(),
        rest_radius: 0.0,
        curves,
    })
}
