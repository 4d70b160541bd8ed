//! The alternation (SSDR, Le and Deng 2012): with the helpers' per-sample rigid transforms fixed,
//! each vertex's weights over its source joints and nearby helpers are the simplex-constrained
//! least-squares blend (`weights`); with the weights fixed, each sample's helper transforms are
//! one Gauss–Seidel sweep of weighted Procrustes fits (`rigid`). Both steps can only lower the
//! summed squared distance to the target over the fit's samples (the weight step exactly, the
//! sweep per helper), so the error never rises from one iteration to the next. Vertices are
//! solved in parallel and samples in parallel, each alone, so results do not depend on threads.

use glam::{DAffine3, DMat4, DVec3};
use rayon::prelude::*;

use super::rigid::{bone_matrices, sweep, HelperFrame, SweepInput};
use super::seeds::Seed;
use super::subject::{Evaluated, Subject};
use super::weights::{simplex_weights, MAX_CANDIDATES};
use crate::model::Model;

/// Most helpers one vertex may blend.
pub const MAX_HELPERS_PER_VERTEX: usize = 8;
/// Weights below this are dropped after a weight step (the rest renormalised).
pub const MIN_WEIGHT: f64 = 1e-5;

/// The helpers, their joint slots and the current blend of every vertex.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The helpers, in the order they are added to the model.
    pub helpers: Vec<HelperFrame>,
    /// Per skin, the helpers in joint-slot order (slot = the skin's source joints + position).
    pub helper_slots: Vec<Vec<usize>>,
    /// Per helper, its joint slot in each skin.
    pub slot_of: Vec<Vec<Option<u16>>>,
    /// Per vertex, the joint slots it may blend (source joints first).
    pub candidates: Vec<Vec<u16>>,
    /// Per vertex, its blend: (joint slot, weight), weights positive and summing to 1.
    pub blend: Vec<Vec<(u16, f64)>>,
    /// Most influences a vertex may keep.
    pub limit: usize,
}

impl Fit {
    /// Helpers for `seeds`, every vertex starting from its source weights.
    #[must_use]
    pub fn new(model: &Model, subject: &Subject, seeds: &[Seed], limit: usize) -> Self {
        let skins = model.skins.len();
        let mut helper_slots = vec![Vec::new(); skins];
        let mut slot_of = Vec::with_capacity(seeds.len());
        let mut helpers = Vec::with_capacity(seeds.len());
        for (h, seed) in seeds.iter().enumerate() {
            let parent_ibm: Vec<Option<DMat4>> = model
                .skins
                .iter()
                .map(|s| s.joints.iter().position(|&n| n == seed.parent).map(|j| s.joint_from_bind[j]))
                .collect();
            let seed_skin = subject.skin[seed.vertex];
            // f32-exact, as the file stores the helper's rest translation.
            let centre = parent_ibm[seed_skin]
                .unwrap_or(DMat4::IDENTITY)
                .transform_point3(subject.rest[seed.vertex])
                .as_vec3()
                .as_dvec3();
            let mut slots = vec![None; skins];
            for (s, skin) in model.skins.iter().enumerate() {
                if parent_ibm[s].is_some() {
                    slots[s] = u16::try_from(skin.joints.len() + helper_slots[s].len()).ok();
                    helper_slots[s].push(h);
                }
            }
            slot_of.push(slots);
            helpers.push(HelperFrame { parent: seed.parent, centre, radius: seed.radius, parent_ibm });
        }
        let candidates = (0..subject.len())
            .map(|i| {
                let s = subject.skin[i];
                let joints = &model.skins[s].joints;
                let mut c: Vec<u16> = subject.pairs[i].iter().map(|p| p.0).collect();
                let mut near: Vec<(f64, u16)> = seeds
                    .iter()
                    .enumerate()
                    .filter(|(_, seed)| {
                        subject.pairs[i].iter().any(|p| joints.get(usize::from(p.0)) == Some(&seed.parent))
                    })
                    .filter_map(|(h, seed)| Some((subject.rest[seed.vertex].distance(subject.rest[i]), slot_of[h][s]?)))
                    .collect();
                near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let room = MAX_CANDIDATES.saturating_sub(c.len()).min(MAX_HELPERS_PER_VERTEX);
                c.extend(near.into_iter().take(room).map(|n| n.1));
                c
            })
            .collect();
        Self { helpers, helper_slots, slot_of, candidates, blend: subject.pairs.clone(), limit }
    }

    /// Each helper's users: (vertex, weight) where its weight is positive.
    #[must_use]
    pub fn users(&self, subject: &Subject) -> Vec<Vec<(u32, f64)>> {
        let mut users = vec![Vec::new(); self.helpers.len()];
        for (i, blend) in self.blend.iter().enumerate() {
            let s = subject.skin[i];
            for &(k, w) in blend {
                for &h in self.helper_slots[s].iter().filter(|&&h| self.slot_of[h][s] == Some(k)) {
                    users[h].push((i as u32, w));
                }
            }
        }
        users
    }

    /// The skin matrices of one sample with helper transforms `xs`.
    #[must_use]
    pub fn bones(&self, frame: &Evaluated, xs: &[DAffine3]) -> Vec<Vec<DMat4>> {
        bone_matrices(&frame.joints, &self.helpers, &self.helper_slots, &frame.globals, xs)
    }

    /// The weight step over every vertex; returns the summed squared error after it.
    pub fn weights_step(&mut self, subject: &Subject, frames: &[Evaluated], xs: &[Vec<DAffine3>]) -> f64 {
        let bones: Vec<Vec<Vec<DMat4>>> = frames.iter().zip(xs).map(|(f, x)| self.bones(f, x)).collect();
        let limit = self.limit;
        let solved: Vec<(Vec<(u16, f64)>, f64)> = (0..subject.len())
            .into_par_iter()
            .map(|i| {
                let cands = &self.candidates[i];
                let m = cands.len();
                let s = subject.skin[i];
                let v = subject.rest[i];
                let mut gram = vec![0.0; m * m];
                let mut rhs = vec![0.0; m];
                let mut yy = 0.0;
                let mut a = [DVec3::ZERO; MAX_CANDIDATES];
                for (f, b) in frames.iter().zip(&bones) {
                    let y = f.targets[i].as_dvec3();
                    for (slot, &k) in a.iter_mut().zip(cands) {
                        *slot = b[s].get(usize::from(k)).map_or(v, |mat| mat.transform_point3(v));
                    }
                    for r in 0..m {
                        for c in r..m {
                            gram[r * m + c] += a[r].dot(a[c]);
                        }
                        rhs[r] += a[r].dot(y);
                    }
                    yy += y.length_squared();
                }
                for r in 0..m {
                    for c in 0..r {
                        gram[r * m + c] = gram[c * m + r];
                    }
                }
                let current: Vec<f64> =
                    cands.iter().map(|k| self.blend[i].iter().find(|p| p.0 == *k).map_or(0.0, |p| p.1)).collect();
                let w = if m <= 1 {
                    current.clone()
                } else {
                    let mut g = gram.clone();
                    let trace = (0..m).map(|k| gram[k * m + k]).sum::<f64>() / m as f64;
                    for k in 0..m {
                        g[k * m + k] += 1e-12 * trace;
                    }
                    simplex_weights(&g, &rhs, m, limit)
                };
                let err = |w: &[f64]| {
                    let mut e = yy;
                    for r in 0..m {
                        e -= 2.0 * w[r] * rhs[r];
                        for c in 0..m {
                            e += w[r] * w[c] * gram[r * m + c];
                        }
                    }
                    e.max(0.0)
                };
                // Never worse than the current blend (round-off in a near-singular solve).
                let (w, e) =
                    if err(&w) <= err(&current) { (w.clone(), err(&w)) } else { (current.clone(), err(&current)) };
                let mut pairs: Vec<(u16, f64)> =
                    cands.iter().zip(&w).filter(|(_, &x)| x >= MIN_WEIGHT).map(|(&k, &x)| (k, x)).collect();
                let sum: f64 = pairs.iter().map(|p| p.1).sum();
                if sum > 0.0 {
                    for p in &mut pairs {
                        p.1 /= sum;
                    }
                } else {
                    pairs.clone_from(&self.blend[i]);
                }
                (pairs, e)
            })
            .collect();
        let mut total = 0.0;
        for (i, (pairs, e)) in solved.into_iter().enumerate() {
            self.blend[i] = pairs;
            total += e;
        }
        total
    }

    /// `sweeps` Gauss–Seidel sweeps of the helpers' transforms at one sample, from `xs`.
    #[must_use]
    pub fn transforms_at(
        &self,
        subject: &Subject,
        users: &[Vec<(u32, f64)>],
        frame: &Evaluated,
        mut xs: Vec<DAffine3>,
        sweeps: usize,
    ) -> Vec<DAffine3> {
        let mut bones = self.bones(frame, &xs);
        let input = SweepInput {
            helpers: &self.helpers,
            skin: &subject.skin,
            rest: &subject.rest,
            blend: &self.blend,
            users,
            globals: &frame.globals,
            targets: &frame.targets,
        };
        for _ in 0..sweeps {
            sweep(&input, &self.slot_of, &mut xs, &mut bones);
        }
        xs
    }

    /// The transform step at every sample (one sweep each, in parallel).
    pub fn transforms_step(&self, subject: &Subject, frames: &[Evaluated], xs: &mut [Vec<DAffine3>]) {
        let users = self.users(subject);
        let new: Vec<Vec<DAffine3>> = frames
            .par_iter()
            .zip(xs.par_iter())
            .map(|(f, x)| self.transforms_at(subject, &users, f, x.clone(), 1))
            .collect();
        for (slot, x) in xs.iter_mut().zip(new) {
            *slot = x;
        }
    }
}
