//! The pass adds morph targets as it reads the rest surface (block by block, or window by window),
//! holds a morphed surface once the weights stay, and re-skins chosen vertices after a dab: every
//! way gives, bit for bit, what skinning a model whose rest surface was morphed beforehand gives,
//! for dense and sparse targets, with and without normal displacements, under every method, on a
//! rig large enough for the mixed walk (DQS, SBS) and with the window walk (LBS).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use glam::Vec3;
use skinlab::model::{MeshMorphs, Model, MorphTarget};
use skinlab::rig::Pose;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
use skinlab::synthetic::{animate, SyntheticRig};

const VERTICES: usize = 40_000;

/// The synthetic rig with a dense target (every vertex, positions only) and a sparse one (every
/// seventh vertex from 3000 on, positions and normals).
fn morphed_rig() -> Model {
    let mut model = SyntheticRig { vertices: VERTICES, joints: 24, influences: 4 }.build().unwrap();
    let d = |v: usize| Vec3::new((v as f32 * 0.01).sin(), 0.02, (v as f32 * 0.003).cos()) * 0.05;
    let dense = MorphTarget::from_dense(&(0..VERTICES).map(d).collect::<Vec<_>>(), &[]);
    let sparse_d: Vec<Vec3> = (0..VERTICES)
        .map(|v| if v >= 3000 && v % 7 == 0 { Vec3::new(d(v).z, d(v).x, -d(v).y) } else { Vec3::ZERO })
        .collect();
    let sparse = MorphTarget::from_dense(&sparse_d, &sparse_d);
    let mesh = &mut model.meshes[0];
    mesh.morphs =
        MeshMorphs { names: vec![None, None], default_weights: vec![0.0, 0.0], primitives: vec![vec![dense, sparse]] };
    model
}

/// `model` without targets, its rest surface morphed by `weights` as glTF defines (each target's
/// terms added in order, skipping zero weights and vertices a target leaves).
fn premorphed(model: &Model, weights: &[f32]) -> Model {
    let mut out = model.clone();
    let targets = std::mem::take(&mut out.meshes[0].morphs).primitives.remove(0);
    let p = &mut out.meshes[0].primitives[0];
    let normals = p.normals.as_mut().unwrap();
    for (t, &w) in targets.iter().zip(weights).filter(|(_, &w)| w != 0.0) {
        for (k, &v) in t.vertices.iter().enumerate() {
            p.positions[v as usize] += w * t.positions[k];
            if let Some(&dn) = t.normals.get(k) {
                normals[v as usize] += w * dn;
            }
        }
    }
    out
}

fn deform(deformer: &mut Deformer, model: &Model, pose: &Pose, method: SkinningMethod) -> DeformedPrimitive {
    let mut out = Vec::new();
    deformer.deform_all(model, pose, method, &mut out);
    out.remove(0).remove(0)
}

#[test]
fn streamed_held_and_partial_morphs_equal_a_premorphed_rest_surface_bit_for_bit() {
    let model = morphed_rig();
    let node = model.instances[0].node;
    for method in SkinningMethod::MENU {
        let mut kept = Deformer::new();
        for (k, weights) in [[0.7, 0.0], [0.7, 0.0], [0.7, 0.0], [0.0, -0.4], [0.3, 1.2], [0.0, 0.0]].iter().enumerate()
        {
            let mut pose = Pose::rest();
            animate(&model, 3, &mut pose);
            pose.morph_weights.insert(node, weights.to_vec());
            let want = deform(&mut Deformer::new(), &premorphed(&model, weights), &pose, method);
            // Pose 0 streams the morph, 1 holds it, 2 reads the held surface, then new weights.
            let got = deform(&mut kept, &model, &pose, method);
            assert_eq!(got, want, "{method} pose {k} {weights:?}");
            assert_eq!(deform(&mut Deformer::new(), &model, &pose, method), want, "{method} pose {k}: fresh");
            // A partial re-skin of a few vertices over a stale buffer restores them exactly.
            let mut partial = got.clone();
            let chosen = [0u32, 1, 2999, 3003, 7000, (VERTICES - 1) as u32];
            for &v in &chosen {
                partial.positions[v as usize] = Vec3::splat(9.0);
            }
            assert!(kept.deform_vertices(&model, &model.instances[0], 0, &chosen, &mut partial));
            assert_eq!(partial, want, "{method} pose {k}: partial re-skin");
        }
        // The targets matter (the test can fail).
        let mut pose = Pose::rest();
        animate(&model, 3, &mut pose);
        pose.morph_weights.insert(node, vec![0.3, 1.2]);
        let plain = deform(&mut Deformer::new(), &premorphed(&model, &[0.0, 0.0]), &pose, method);
        assert_ne!(deform(&mut Deformer::new(), &model, &pose, method), plain, "{method}");
    }
}
