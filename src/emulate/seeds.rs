//! Where helpers start: per deforming joint, the vertices it owns (its largest weight) are ranked
//! by their squared distance between LBS and the target summed over the fit's samples; up to `n`
//! seeds are taken greedily, each the vertex of largest error scaled down near earlier seeds
//! (`min(1, d/ρ)²`, `ρ` the RMS spread of the joint's vertices), while that score is at least
//! [`SEED_SHARE`] of the first's and the vertex's RMS error over the samples is at least
//! [`MIN_ERROR`] of the diagonal. A helper's first transform at each sample is the rigid fit of
//! its seed's neighbourhood (Gaussian weights of radius ρ/2) to the target.

use glam::{DAffine3, DMat4, DVec3};

use super::rigid::{blend_position, HelperFrame, RigidFit};
use super::subject::{Evaluated, Subject};
use crate::model::Model;

/// Smallest score of a later seed, as a share of the joint's first.
pub const SEED_SHARE: f64 = 0.05;
/// Smallest RMS error (over the samples, share of the diagonal) that earns a vertex a helper.
pub const MIN_ERROR: f64 = 1e-4;

/// A helper to add: its parent, where it starts and the vertices around it.
#[derive(Clone, Debug)]
pub struct Seed {
    /// The parent joint's node.
    pub parent: usize,
    /// Number of the helper among its parent's (1, 2, ...).
    pub number: usize,
    /// The seed vertex (subject index).
    pub vertex: usize,
    /// The neighbourhood's radius (bind units).
    pub radius: f64,
}

/// Whether a global is a rotation times a uniform scale (to 1e-3): helpers are fitted in their
/// parent's frame, which must not shear the fit's metric.
fn similarity(m: &DMat4) -> bool {
    let c = [m.x_axis.truncate(), m.y_axis.truncate(), m.z_axis.truncate()];
    let s = c[0].length();
    s > 0.0
        && s.is_finite()
        && c.iter().all(|a| (a.length() - s).abs() <= 1e-3 * s)
        && c[0].dot(c[1]).abs() <= 1e-3 * s * s
        && c[1].dot(c[2]).abs() <= 1e-3 * s * s
        && c[0].dot(c[2]).abs() <= 1e-3 * s * s
}

/// The squared LBS error of every vertex summed over `frames`.
#[must_use]
pub fn lbs_errors(subject: &Subject, frames: &[Evaluated]) -> Vec<f64> {
    (0..subject.len())
        .map(|i| {
            frames
                .iter()
                .map(|f| {
                    let p = blend_position(&f.joints[subject.skin[i]], &subject.pairs[i], subject.rest[i]);
                    p.distance_squared(f.targets[i].as_dvec3())
                })
                .sum()
        })
        .collect()
}

/// The seeds of every deforming joint (ascending node, then number).
#[must_use]
pub fn place(
    model: &Model,
    subject: &Subject,
    frames: &[Evaluated],
    errors: &[f64],
    per_joint: usize,
    diagonal: f64,
) -> Vec<Seed> {
    let mut owned: Vec<Vec<usize>> = vec![Vec::new(); model.nodes.len()];
    for (i, pairs) in subject.pairs.iter().enumerate() {
        let Some(&(j, _)) = pairs.iter().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0))) else { continue };
        if let Some(&node) = model.skins[subject.skin[i]].joints.get(usize::from(j)) {
            if let Some(list) = owned.get_mut(node) {
                list.push(i);
            }
        }
    }
    let floor = (MIN_ERROR * diagonal).powi(2) * frames.len() as f64;
    let mut seeds = Vec::new();
    for (node, vertices) in owned.iter().enumerate() {
        if vertices.is_empty() || !frames.iter().all(|f| f.globals.get(node).is_some_and(similarity)) {
            continue;
        }
        let centroid = vertices.iter().map(|&i| subject.rest[i]).sum::<DVec3>() / vertices.len() as f64;
        let spread = (vertices.iter().map(|&i| subject.rest[i].distance_squared(centroid)).sum::<f64>()
            / vertices.len() as f64)
            .sqrt()
            .max(1e-9);
        let mut chosen: Vec<usize> = Vec::new();
        let mut first_score = 0.0;
        while chosen.len() < per_joint {
            let score = |i: usize| {
                let near =
                    chosen.iter().map(|&c| subject.rest[c].distance(subject.rest[i])).fold(f64::INFINITY, f64::min);
                errors[i] * (near / spread).min(1.0).powi(2)
            };
            let Some(best) = vertices
                .iter()
                .copied()
                .filter(|&i| errors[i] >= floor)
                .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
            else {
                break;
            };
            let s = score(best);
            if chosen.is_empty() {
                first_score = s;
            } else if s < SEED_SHARE * first_score || s <= 0.0 {
                break;
            }
            chosen.push(best);
            seeds.push(Seed { parent: node, number: chosen.len(), vertex: best, radius: spread });
        }
    }
    seeds
}

/// The helper's first transform at one sample: its seed's neighbourhood fitted rigidly to the
/// target, in the parent's frame.
#[must_use]
pub fn initial_transform(
    seed: &Seed,
    helper: &HelperFrame,
    subject: &Subject,
    neighbours: &[(u32, f64)],
    frame: &Evaluated,
) -> DAffine3 {
    let g_inv = frame.globals.get(seed.parent).copied().unwrap_or(DMat4::IDENTITY).inverse();
    let mut fit = RigidFit::default();
    for &(i, c) in neighbours {
        let i = i as usize;
        let Some(ibm) = helper.parent_ibm.get(subject.skin[i]).copied().flatten() else { continue };
        fit.add(ibm.transform_point3(subject.rest[i]), g_inv.transform_point3(frame.targets[i].as_dvec3()), c);
    }
    fit.solve(DAffine3::IDENTITY, super::rigid::PRIOR_POINTS * helper.radius * helper.radius)
}

/// The seed's neighbourhood: vertices of the parent's skin(s) with weight on the parent within
/// the radius, with Gaussian weights.
#[must_use]
pub fn neighbourhood(model: &Model, subject: &Subject, seed: &Seed) -> Vec<(u32, f64)> {
    let centre = subject.rest[seed.vertex];
    let sigma = 0.5 * seed.radius;
    (0..subject.len())
        .filter_map(|i| {
            let skin = &model.skins[subject.skin[i]];
            let on_parent =
                subject.pairs[i].iter().any(|&(j, _)| skin.joints.get(usize::from(j)) == Some(&seed.parent));
            let d = subject.rest[i].distance(centre);
            (on_parent && d <= seed.radius).then(|| (i as u32, (-(d / sigma).powi(2)).exp()))
        })
        .collect()
}
