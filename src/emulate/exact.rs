//! `--exact`: what the helpers leave, as one morph target per exported sample. At sample `t` a
//! vertex's runtime position is `Σ w_k C_k (v + Δ)` (glTF adds morph deltas before skinning), so
//! the delta that lands it on the target `y` is `Δ = (Σ w_k A_k)⁻¹ (y − Σ w_k C_k v)`, `A_k` the
//! linear part of `C_k`. With the weight animation 1 at its time and 0 at its neighbours, every
//! exported key is exact up to f32; between keys the runtime blends two neighbouring deltas
//! linearly. Where the blended matrix is singular (a collapsed vertex) the delta is 0.

use glam::{DMat3, Vec3};
use rayon::prelude::*;

use super::subject::{clip_pose, evaluate, Subject};
use super::Emulation;
use crate::io::gltf_export::{KeyMorphClip, KeyMorphs, MeshKeyMorphs};
use crate::skinning::{Deformer, SkinningMethod};

/// The per-key targets of `emulation` for `method` (every fitted clip, every sample).
#[must_use]
pub fn key_morphs(emulation: &Emulation, method: SkinningMethod) -> KeyMorphs {
    let source = &emulation.source;
    let emulated = &emulation.model;
    let subject = Subject::new(source);
    let at: Vec<(usize, f64)> =
        emulation.fitted.iter().flat_map(|(c, times)| times.iter().map(move |&t| (*c, t))).collect();
    let deltas: Vec<Vec<Vec3>> = at
        .par_iter()
        .map_init(
            || (Deformer::new(), Deformer::new(), Vec::new()),
            |(d_source, d_emulated, out), &(c, t)| {
                d_source.deform_all(source, &clip_pose(source, c, t), method, out);
                let target = subject.gather(out);
                // What the runtime plays: LBS of the emulated model, and its joint matrices.
                let pose = clip_pose(emulated, c, t);
                let runtime = evaluate(emulated, &subject, &pose, SkinningMethod::Lbs, d_emulated, out);
                subject
                    .refs
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let inst = &emulated.instances[r.instance];
                        let skin = &emulated.skins[inst.skin];
                        let Some(inf) = emulated.meshes[inst.mesh].primitives[r.primitive].influences.as_ref() else {
                            return Vec3::ZERO;
                        };
                        let mut a = DMat3::ZERO;
                        for (j, w) in inf.vertex(r.vertex, &skin.sets) {
                            if let Some(m) = runtime.joints[inst.skin].get(usize::from(j)) {
                                a += DMat3::from_mat4(*m) * f64::from(w);
                            }
                        }
                        let residual = (target[i] - runtime.targets[i]).as_dvec3();
                        let det = a.determinant();
                        let scale = a.x_axis.length() * a.y_axis.length() * a.z_axis.length();
                        if det.abs() > 1e-9 * scale && det.is_finite() {
                            (a.inverse() * residual).as_vec3()
                        } else {
                            Vec3::ZERO
                        }
                    })
                    .collect()
            },
        )
        .collect();
    let mut meshes: Vec<MeshKeyMorphs> = Vec::new();
    let mut slot_of_instance = vec![None; emulated.instances.len()];
    for (i, r) in subject.refs.iter().enumerate() {
        let slot = *slot_of_instance[r.instance].get_or_insert_with(|| {
            let inst = &emulated.instances[r.instance];
            let prims = &emulated.meshes[inst.mesh].primitives;
            meshes.push(MeshKeyMorphs {
                node: inst.node,
                mesh: inst.mesh,
                targets: prims.iter().map(|p| vec![vec![Vec3::ZERO; p.positions.len()]; at.len()]).collect(),
            });
            meshes.len() - 1
        });
        for (k, d) in deltas.iter().enumerate() {
            meshes[slot].targets[r.primitive][k][r.vertex] = d[i];
        }
    }
    let mut clips = Vec::new();
    let mut first_target = 0;
    for (c, times) in &emulation.fitted {
        clips.push(KeyMorphClip { clip: *c, times: times.clone(), first_target });
        first_target += times.len();
    }
    KeyMorphs { meshes, clips, count: at.len() }
}
