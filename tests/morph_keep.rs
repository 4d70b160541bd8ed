//! Morph targets survive the paths that copy a model: `model::densify` gives every new vertex the
//! mean of its ends' displacements (so a morphed, densified surface has no crack and equals what
//! `export_densified` writes), and the recovery file keeps the pose's morph weights and the
//! clips' weights channels, restored in a new editor bit for bit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/morph_strip.rs"]
mod morph_strip;

use glam::Vec3;
use skinlab::app::command::{Command, KeyCommand};
use skinlab::app::state::EditorState;
use skinlab::io::gltf_export::export_densified;
use skinlab::io::recovery::RecoveryFile;
use skinlab::io::{load_document, load_model, ExportOptions};
use skinlab::model::{densify, Model};
use skinlab::rig::Pose;
use skinlab::skinning::{Deformer, SkinningMethod};

/// Every target at full weight on the strip's node, the joints at rest.
fn morphed_rest(model: &Model) -> Vec<Vec3> {
    let mut pose = Pose::rest();
    pose.morph_weights.insert(model.instances[0].node, vec![1.0, 1.0]);
    let mut out = Vec::new();
    Deformer::new().deform_all(model, &pose, SkinningMethod::Lbs, &mut out);
    let prim = &model.meshes[model.instances[0].mesh].primitives[0];
    prim.order.to_file(&out[0][0].positions)
}

#[test]
fn densify_moves_new_vertices_with_the_targets_as_the_written_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("strip.gltf");
    std::fs::write(&path, morph_strip::morphed_gltf()).unwrap();
    let (model, source) = load_document(&path).unwrap();
    let dense = densify(&model, 300).unwrap();
    let r = dense.refinements[0][0].as_ref().unwrap();
    assert!(r.midpoints.len() >= 280, "{}", r.midpoints.len());
    // At rest the joints do not move: each new vertex lies at the mean of its ends, morphed.
    let moved = morphed_rest(&dense.model);
    let prim = &dense.model.meshes[0].primitives[0];
    for (k, &[a, b]) in r.midpoints.iter().enumerate() {
        let (fa, fb) = (prim.order.file_index(a as usize), prim.order.file_index(b as usize));
        let mean = (moved[fa] + moved[fb]) * 0.5;
        let v = r.original_vertices + k;
        assert!(moved[v].distance(mean) < 1e-5, "new vertex {v}: {} vs {mean}", moved[v]);
    }
    // The dense target moves nearly every new vertex too (not those midway between +z and -z at
    // the base, where both its components cancel).
    let listed = dense.model.meshes[0].morphs.primitives[0][1].vertices.len();
    assert!(listed > prim.positions.len() * 9 / 10, "{listed} of {}", prim.positions.len());
    // The written file holds the same targets.
    let out = dir.path().join("dense.glb");
    export_densified(&dense, &source, &ExportOptions::default(), &out).unwrap();
    let written = morphed_rest(&load_model(&out).unwrap());
    assert_eq!(written.len(), moved.len());
    for (v, (a, b)) in written.iter().zip(&moved).enumerate() {
        assert!(a.distance(*b) < 1e-5, "vertex {v}: file {a} vs model {b}");
    }
}

fn strip_editor(path: &std::path::Path) -> EditorState {
    let (model, source) = load_document(path).unwrap();
    let mut s = EditorState::with_document(model, source, "strip.gltf");
    s.files.model_path = Some(path.to_path_buf());
    s
}

#[test]
fn morph_weights_and_their_keys_survive_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("strip.gltf");
    std::fs::write(&path, morph_strip::morphed_gltf()).unwrap();
    let mut s = strip_editor(&path);
    let node = s.doc.model.instances[0].node;
    // Weights keyed on a new clip at 0 s, then changed without a key: the pose holds 0.1 + 0.2.
    s.apply(Command::SetMorphWeight { node, target: 1, weight: 0.75, gesture: None });
    s.apply(Command::Key(KeyCommand::SetMorph { node }));
    s.apply(Command::SetMorphWeight { node, target: 0, weight: 0.1 + 0.2, gesture: None });
    let clips = s.doc.model.clips.clone();
    assert_eq!(clips.last().unwrap().weights.len(), 1);
    let text = s.recovery_file(4242).to_json();
    let file = RecoveryFile::parse(&text).unwrap();
    assert!(file.unknown_sections().is_empty(), "{:?}", file.unknown_sections());
    let mut restored = strip_editor(&path);
    restored.restore(&file).unwrap();
    assert_eq!(restored.doc.pose.morph_weights, s.doc.pose.morph_weights);
    assert_eq!(restored.morph_weights(node), vec![0.1 + 0.2, 0.75]);
    assert_eq!(restored.doc.model.clips, clips);
    // The restored editor deforms as the one that crashed.
    s.refresh();
    assert_eq!(restored.frame.deformed, s.frame.deformed);
}
