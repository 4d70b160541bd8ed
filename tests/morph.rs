//! Morph targets as glTF defines them: morph the rest surface, then skin it. A skinned, morphed
//! strip built in the test (two targets, default weights, a clip animating a joint and the
//! weights) deforms as the f64 reference applied to the morphed rest surface under LBS, DQS and
//! SBS; `skinlab deform` writes the same; after an export with edited weight keys the Khronos
//! validator finds no error and three.js draws what skinlab deforms.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;
#[path = "common/js_check.rs"]
mod js_check;
#[path = "common/morph_strip.rs"]
mod morph_strip;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::reference;
use glam::{DVec3, Vec3};
use morph_strip::{morphed_gltf, targets, RINGS};
use serde_json::Value;
use skinlab::io::{export_model, load_document, load_model, ExportOptions};
use skinlab::model::Model;
use skinlab::rig::{sample, Pose};
use skinlab::skinning::{Deformer, SkinningMethod};

fn write_model(dir: &Path) -> PathBuf {
    let path = dir.join("strip.gltf");
    std::fs::write(&path, morphed_gltf()).unwrap();
    path
}

/// The pose "Bend" gives at `time`.
fn bend(model: &Model, time: f64) -> Pose {
    let mut pose = Pose::rest();
    sample::sample_clip(&model.clips[model.find_clip("Bend").unwrap()], time, &mut pose);
    pose
}

/// The glTF definition in f64: each vertex moved by its weighted targets, then skinned by the
/// reference. Positions in the model's order.
fn morph_then_skin(model: &Model, pose: &Pose, method: SkinningMethod) -> Vec<DVec3> {
    let mesh = &model.meshes[0];
    let weights = pose.morph_weights.get(&model.instances[0].node).unwrap_or(&mesh.morphs.default_weights).clone();
    let mut morphed = model.clone();
    let p = &mut morphed.meshes[0].primitives[0];
    let file_positions = p.order.to_file(&p.positions);
    let [(t0, _), (t1, _)] = targets(&file_positions);
    let moved: Vec<Vec3> = file_positions
        .iter()
        .enumerate()
        .map(|(f, &r)| {
            (r.as_dvec3() + f64::from(weights[0]) * t0[f].as_dvec3() + f64::from(weights[1]) * t1[f].as_dvec3())
                .as_vec3()
        })
        .collect();
    p.positions = p.order.from_file(&moved);
    morphed.meshes[0].morphs = Default::default();
    reference::deform(&morphed, pose, method)[0][0].0.clone()
}

fn skinlab_deform(model: &Model, pose: &Pose, method: SkinningMethod) -> Vec<Vec3> {
    let mut out = Vec::new();
    Deformer::new().deform_all(model, pose, method, &mut out);
    out[0][0].positions.clone()
}

fn max_distance(a: &[Vec3], b: &[DVec3]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x.as_dvec3().distance(*y)).fold(0.0, f64::max)
}

#[test]
fn targets_default_weights_and_clip_channels_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let model = load_model(&write_model(dir.path())).unwrap();
    let morphs = &model.meshes[0].morphs;
    assert_eq!(morphs.len(), 2);
    assert_eq!(morphs.default_weights, vec![0.25, 0.0]);
    assert_eq!(morphs.label(0), "Lean");
    assert_eq!(morphs.primitives[0][0].vertices, vec![16, 17, 18, 19], "only the top ring is moved");
    assert_eq!(morphs.primitives[0][1].vertices.len(), 4 * RINGS, "the dense target moves every vertex");
    let clip = &model.clips[model.find_clip("Bend").unwrap()];
    assert_eq!(clip.weights.len(), 1);
    assert_eq!(bend(&model, 0.5).morph_weights[&0], vec![0.5, 0.25]);
}

#[test]
fn morph_then_skin_equals_the_reference_under_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let model = load_model(&write_model(dir.path())).unwrap();
    let unmorphed = {
        let mut m = model.clone();
        m.meshes[0].morphs = Default::default();
        m
    };
    for method in SkinningMethod::ALL {
        // The rest pose with the mesh's default weights, then the clip at three times.
        let poses = [Pose::rest(), bend(&model, 0.0), bend(&model, 0.4), bend(&model, 1.0)];
        // One deformer across poses, as the editor keeps it: each pose equals a fresh one.
        let mut kept = Deformer::new();
        for (k, pose) in poses.iter().enumerate() {
            let got = skinlab_deform(&model, pose, method);
            let want = morph_then_skin(&model, pose, method);
            let d = max_distance(&got, &want);
            assert!(d <= 1e-6, "{method} pose {k}: {d}");
            let mut out = Vec::new();
            kept.deform_all(&model, pose, method, &mut out);
            assert_eq!(out[0][0].positions, got, "{method} pose {k}: the kept deformer differs");
            // The targets matter where a weight is not zero (the test can fail).
            let plain = reference::deform(&unmorphed, pose, method)[0][0].0.clone();
            if k != 1 {
                assert!(max_distance(&got, &plain) > 0.05, "{method} pose {k}: no morph visible");
            } else {
                assert!(max_distance(&got, &plain) <= 1e-6, "{method}: weights [0, 0] morph nothing");
            }
        }
    }
}

fn read_obj(path: &Path) -> Vec<Vec3> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            Vec3::new(v[0], v[1], v[2])
        })
        .collect()
}

#[test]
fn the_command_line_deforms_the_morphed_surface() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_model(dir.path());
    let model = load_model(&file).unwrap();
    for method in SkinningMethod::ALL {
        let out = dir.path().join(format!("{method}.obj"));
        let run = cli_run::skinlab([
            "deform",
            file.to_str().unwrap(),
            "--animation",
            "Bend",
            "--time",
            "0.7",
            "--method",
            method.name(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let want = morph_then_skin(&model, &bend(&model, 0.7), method);
        let order = &model.meshes[0].primitives[0].order;
        let got = order.from_file(&read_obj(&out));
        let d = max_distance(&got, &want);
        assert!(d <= 1e-5, "{method}: {d}");
    }
}

/// three.js's positions (scripts/three_pose.mjs) of the first skinned mesh of `file` playing
/// `clip` at `time`, in the file's vertex order.
fn three_pose(file: &Path, clip: &str, time: f64) -> Vec<Vec3> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/three_pose.mjs");
    let out = Command::new("node").arg(&script).arg(file).arg(clip).arg(time.to_string()).output().unwrap();
    assert!(out.status.success(), "three_pose: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["warnings"].as_array().unwrap().len(), 0, "{}", report["warnings"]);
    report["meshes"][0]["positions"][0]
        .as_array()
        .unwrap()
        .chunks(3)
        .map(|c| Vec3::new(c[0].as_f64().unwrap() as f32, c[1].as_f64().unwrap() as f32, c[2].as_f64().unwrap() as f32))
        .collect()
}

#[test]
fn an_export_with_edited_weight_keys_plays_the_same_in_three_js() {
    let dir = tempfile::tempdir().unwrap();
    let (mut model, source) = load_document(&write_model(dir.path())).unwrap();
    // Edit the weight keys: a third key at 2 s, the second key's values changed.
    let bend_clip = model.find_clip("Bend").unwrap();
    let channel = &mut model.clips[bend_clip].weights[0];
    channel.times.push(2.0);
    channel.values = vec![0.0, 0.0, 0.75, 0.5, 0.25, 1.0];
    let out = dir.path().join("edited.glb");
    export_model(&model, &source, &ExportOptions::default(), &out).unwrap();
    let report = &js_check::validate(std::slice::from_ref(&out))[&out];
    assert!(js_check::error_codes(report).is_empty(), "{report}");
    let reopened = load_model(&out).unwrap();
    assert_eq!(reopened.meshes[0].morphs, model.meshes[0].morphs, "targets kept");
    assert_eq!(reopened.clips[bend_clip].weights, model.clips[bend_clip].weights, "edited keys kept");
    for time in [0.0, 0.5, 1.0, 1.5] {
        let three = three_pose(&out, "Bend", time);
        let order = &model.meshes[0].primitives[0].order;
        let ours = order.to_file(&skinlab_deform(&model, &bend(&model, time), SkinningMethod::Lbs));
        let d = ours.iter().zip(&three).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
        assert!(d <= 1e-5, "t = {time}: three.js differs by {d}");
        if time == 1.5 {
            let unmorphed = {
                let mut m = model.clone();
                m.meshes[0].morphs = Default::default();
                order.to_file(&skinlab_deform(&m, &bend(&m, time), SkinningMethod::Lbs))
            };
            let moved = unmorphed.iter().zip(&three).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
            assert!(moved > 0.05, "three.js applied no morph ({moved})");
        }
    }
}
