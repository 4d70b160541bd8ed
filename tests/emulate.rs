//! `export --emulate`: helper joints fitted so that a plain glTF skin, played as LBS by any
//! runtime, follows SBS/DQS. The demo arm twisted 180° collapses under plain LBS and keeps its
//! radius when the emulated file is played by three.js; the fit is deterministic, leaves the rest
//! pose alone and never raises its error; with `--exact` three.js lands every vertex on the
//! target at the keys and near it between keys; every refusal is one stderr line with status 2.
//! (Every shared model's export: tests/emulate_models.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cli_run.rs"]
mod cli_run;
#[path = "common/gltf_edit.rs"]
mod gltf_edit;
#[path = "common/js_check.rs"]
mod js_check;

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use cli_run::{assert_one_error_line, skinlab};
use glam::{DVec3, Vec3};
use serde_json::{json, Value};
use skinlab::analysis::poses::bind_globals;
use skinlab::analysis::sweep::region::Region;
use skinlab::emulate::{emulate, EmulateError, EmulateRequest};
use skinlab::io::load_model;
use skinlab::model::Model;
use skinlab::rig::{fk, sample, Pose};
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

fn run_ok(args: &[&str]) -> String {
    let out = skinlab(args);
    assert!(out.status.success(), "skinlab {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn demo_arm(dir: &Path) -> PathBuf {
    let arm = dir.join("arm.glb");
    run_ok(&["demo", "--out", arm.to_str().unwrap()]);
    arm
}

/// three.js's skinned positions of the first skinned mesh of `file` playing `clip` at `time`
/// (scripts/three_pose.mjs), in the file's vertex order; the loader's warnings.
fn three_pose(file: &Path, clip: &str, time: f64) -> (Vec<Vec3>, Vec<Value>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/three_pose.mjs");
    let out = Command::new("node").arg(&script).arg(file).arg(clip).arg(time.to_string()).output().unwrap();
    assert!(out.status.success(), "three_pose: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let flat = report["meshes"][0]["positions"][0].as_array().unwrap();
    let positions = flat
        .chunks(3)
        .map(|c| Vec3::new(c[0].as_f64().unwrap() as f32, c[1].as_f64().unwrap() as f32, c[2].as_f64().unwrap() as f32))
        .collect();
    (positions, report["warnings"].as_array().unwrap().clone())
}

/// The sweep's collapse (smallest posed/bind slice radius) of the wrist's region of the demo
/// arm, for positions given in the file's vertex order at the pose `clip` plays at `time`.
fn wrist_collapse(model: &Model, file_positions: &[Vec3], clip: usize, time: f64) -> f64 {
    let wrist = model.nodes.find("wrist").unwrap();
    let mut rest = Vec::new();
    Deformer::new().deform_all(model, &Pose::rest(), SkinningMethod::Lbs, &mut rest);
    let bind = bind_globals(model);
    let region = Region::new(model, &bind, wrist, DVec3::X, &rest).unwrap();
    let mut pose = Pose::rest();
    sample::sample_clip(&model.clips[clip], time, &mut pose);
    let mut posed = Vec::new();
    fk::model_from_node(&model.nodes, &pose, &mut posed);
    let order = &model.meshes[0].primitives[0].order;
    let positions = order.from_file(file_positions);
    let out = vec![vec![DeformedPrimitive { positions, normals: Vec::new() }]];
    region.collapse_and_bulge(&out, &bind, &posed).0
}

#[test]
fn a_twisted_arm_keeps_its_radius_in_three_js() {
    let dir = tempfile::tempdir().unwrap();
    let arm = demo_arm(dir.path());
    let plain = dir.path().join("plain.glb");
    let emulated = dir.path().join("emulated.glb");
    let report = dir.path().join("report.json");
    run_ok(&["export", arm.to_str().unwrap(), "--out", plain.to_str().unwrap()]);
    let progress = run_ok(&[
        "export",
        arm.to_str().unwrap(),
        "--out",
        emulated.to_str().unwrap(),
        "--emulate",
        "sbs",
        "--clips",
        "twist",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(progress.lines().all(|l| l.starts_with("emulate: ")), "{progress}");
    let model = load_model(&arm).unwrap();
    let twist = model.find_clip("twist").unwrap();
    let (end_time, _) = (model.clips[twist].range().1, ());
    let (plain_pos, _) = three_pose(&plain, "twist", end_time);
    let (emulated_pos, warnings) = three_pose(&emulated, "twist", end_time);
    assert!(warnings.is_empty(), "{warnings:?}");
    let plain_collapse = wrist_collapse(&model, &plain_pos, twist, end_time);
    let emulated_collapse = wrist_collapse(&model, &emulated_pos, twist, end_time);
    println!("wrist collapse at 180°: plain LBS {plain_collapse:.3}, emulated SBS in three.js {emulated_collapse:.3}");
    assert!(plain_collapse < 0.5, "plain LBS should collapse at 180°: {plain_collapse}");
    assert!(emulated_collapse >= 0.8, "emulated: {emulated_collapse} (plain {plain_collapse})");
    let r: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let clip = &r["clips"][0];
    assert_eq!(clip["name"], "twist");
    let with = clip["with_emulation"]["rms"].as_f64().unwrap();
    let without = clip["without_emulation"]["rms"].as_f64().unwrap();
    assert!(with <= 0.35 * without, "RMS {with} with, {without} without");
    assert!(clip["with_emulation_between_keys"]["rms"].as_f64().unwrap() <= 0.35 * without);
    assert!(r["helpers_added"].as_u64().unwrap() > 0 && r["bytes_added"].as_i64().unwrap() > 0);
    assert!(r["helpers"].as_array().unwrap().iter().all(|n| n.as_str().unwrap().contains(".sbs")));
}

#[test]
fn the_fit_is_deterministic_keeps_the_rest_pose_and_never_worsens() {
    let dir = tempfile::tempdir().unwrap();
    let model = load_model(&demo_arm(dir.path())).unwrap();
    let twist = model.find_clip("twist").unwrap();
    let request = EmulateRequest { method: SkinningMethod::Dqs, helpers_per_joint: 2, clips: vec![twist] };
    let a = emulate(&model, &request, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
    let b = emulate(&model, &request, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
    assert_eq!(a.model.clips, b.model.clips);
    assert_eq!(a.model.nodes, b.model.nodes);
    let inf = |m: &Model| m.meshes[0].primitives[0].influences.as_ref().unwrap().weights().to_vec();
    assert_eq!(inf(&a.model), inf(&b.model));
    assert!(a.fit_rms.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-9)), "{:?}", a.fit_rms);
    assert!(a.helper_nodes.len() <= 2 * 3);
    // The rest pose does not move.
    let (mut before, mut after) = (Vec::new(), Vec::new());
    Deformer::new().deform_all(&model, &Pose::rest(), SkinningMethod::Lbs, &mut before);
    Deformer::new().deform_all(&a.model, &Pose::rest(), SkinningMethod::Lbs, &mut after);
    let worst =
        before[0][0].positions.iter().zip(&after[0][0].positions).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max);
    assert!(worst < 1e-5, "rest pose moved by {worst}");
    // Clips not fitted keep their channels; the fitted one gains two per helper.
    for (c, (src, out)) in model.clips.iter().zip(&a.model.clips).enumerate() {
        let extra = if c == twist { 2 * a.helper_nodes.len() } else { 0 };
        assert_eq!(out.channels.len(), src.channels.len() + extra);
        assert_eq!(out.channels[..src.channels.len()], src.channels[..]);
    }
}

#[test]
fn progress_rises_to_the_end_and_a_break_cancels_the_fit() {
    let dir = tempfile::tempdir().unwrap();
    let model = load_model(&demo_arm(dir.path())).unwrap();
    let request = EmulateRequest { method: SkinningMethod::Sbs, helpers_per_joint: 1, clips: Vec::new() };
    let mut shares = Vec::new();
    emulate(&model, &request, &mut |step| {
        shares.push(step.done);
        std::ops::ControlFlow::Continue(())
    })
    .unwrap();
    assert!(shares.windows(2).all(|w| w[1] >= w[0]), "{shares:?}");
    assert!(shares.len() > 5 && *shares.last().unwrap() >= 0.9, "{shares:?}");
    let mut steps = 0;
    let cancelled = emulate(&model, &request, &mut |_| {
        steps += 1;
        if steps == 3 {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    assert_eq!(cancelled.err(), Some(EmulateError::Cancelled));
    assert_eq!(steps, 3, "the fit went on after the break");
}

#[test]
fn renaming_a_joint_keeps_the_live_rigs_that_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let model = load_model(&demo_arm(dir.path())).unwrap();
    let request = EmulateRequest { method: SkinningMethod::Sbs, helpers_per_joint: 1, clips: Vec::new() };
    let mut e = emulate(&model, &request, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
    let elbow = e.model.nodes.find("elbow").unwrap();
    let mut pose = Pose::default();
    pose.set_rotation(elbow, glam::DQuat::from_rotation_x(1.2) * glam::DQuat::from_rotation_y(0.7));
    let driven = |m: &Model| -> Vec<_> {
        e.helper_nodes.iter().map(|&h| pose.driven(&m.nodes, h).unwrap().to_matrix()).collect()
    };
    let before = driven(&e.model);
    let reads_elbow = |m: &Model| {
        e.helper_nodes
            .iter()
            .any(|&h| m.nodes.nodes[h].driver.as_ref().unwrap().inputs.iter().any(|i| i.node == "forearm"))
    };
    let record = skinlab::rig::skeleton_edit::rename_node(&mut e.model, elbow, "forearm").unwrap();
    assert!(reads_elbow(&e.model), "no driver reads the renamed joint");
    assert_eq!(driven(&e.model), before, "the helpers moved after the rename");
    record.undo(&mut e.model);
    assert!(!reads_elbow(&e.model));
    assert_eq!(driven(&e.model), before);
}

#[test]
fn a_model_without_clips_is_fitted_over_its_range_of_motion() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = load_model(&demo_arm(dir.path())).unwrap();
    model.clips.clear();
    let request = EmulateRequest { method: SkinningMethod::Sbs, helpers_per_joint: 2, clips: Vec::new() };
    let e = emulate(&model, &request, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
    assert_eq!(e.rom_clip.as_deref(), Some("ROM"));
    assert_eq!(e.model.clips.len(), 1);
    assert!(!e.helper_nodes.is_empty());
    let d = &e.clips[0].distances;
    assert!(d.emulated.rms < d.plain.rms, "{d:?}");
}

#[test]
fn exact_lands_on_the_target_at_keys_and_near_it_between_in_three_js() {
    let dir = tempfile::tempdir().unwrap();
    let arm = demo_arm(dir.path());
    let out = dir.path().join("exact.glb");
    let report = dir.path().join("exact.json");
    run_ok(&[
        "export",
        arm.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--emulate",
        "sbs",
        "--clips",
        "bend,twist",
        "--exact",
        "--report",
        report.to_str().unwrap(),
    ]);
    let r: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert!(r["exact"]["bytes_added"].as_i64().unwrap() > 0, "{r}");
    let samples: u64 = r["clips"].as_array().unwrap().iter().map(|c| c["samples"].as_u64().unwrap()).sum();
    assert_eq!(r["exact"]["targets"].as_u64(), Some(samples));
    assert_eq!(js_check::error_codes(&js_check::validate(std::slice::from_ref(&out))[&out]), Vec::<String>::new());
    let model = load_model(&arm).unwrap();
    let mut rest = Vec::new();
    Deformer::new().deform_all(&model, &Pose::rest(), SkinningMethod::Lbs, &mut rest);
    let diagonal = {
        let (lo, hi) =
            rest[0][0].positions.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), p| (a.min(*p), b.max(*p)));
        lo.distance(hi)
    };
    let order = &model.meshes[0].primitives[0].order;
    for (clip, time) in [("twist", 2.0), ("twist", 1.0), ("bend", 0.5)] {
        let (three, warnings) = three_pose(&out, clip, time);
        assert!(warnings.is_empty(), "{warnings:?}");
        let mut pose = Pose::rest();
        sample::sample_clip(&model.clips[model.find_clip(clip).unwrap()], time, &mut pose);
        let mut target = Vec::new();
        Deformer::new().deform_all(&model, &pose, SkinningMethod::Sbs, &mut target);
        let target = order.to_file(&target[0][0].positions);
        let worst = three.iter().zip(&target).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
        assert!(worst <= 1e-5 * diagonal, "{clip} at {time}: {worst} of {diagonal}");
    }
    // Between keys (where the runtime blends two keys' targets): at most 5 % of plain LBS's RMS
    // distance and 10 % of its worst vertex.
    let plain = dir.path().join("plain.glb");
    run_ok(&["export", arm.to_str().unwrap(), "--out", plain.to_str().unwrap()]);
    let twist = model.find_clip("twist").unwrap();
    let keys = skinlab::emulate::samples::sample_times(&model.clips[twist]);
    let mids: Vec<f64> = keys.windows(2).step_by(7).map(|w| 0.5 * (w[0] + w[1])).collect();
    let (mut sq, mut worst) = ([0.0f64; 2], [0.0f32; 2]);
    for &time in &mids {
        let mut pose = Pose::rest();
        sample::sample_clip(&model.clips[twist], time, &mut pose);
        let mut target = Vec::new();
        Deformer::new().deform_all(&model, &pose, SkinningMethod::Sbs, &mut target);
        let target = order.to_file(&target[0][0].positions);
        for (k, file) in [&plain, &out].into_iter().enumerate() {
            let (three, _) = three_pose(file, "twist", time);
            for (a, b) in three.iter().zip(&target) {
                sq[k] += f64::from(a.distance_squared(*b));
                worst[k] = worst[k].max(a.distance(*b));
            }
        }
    }
    println!(
        "between keys: plain LBS RMS² {:.3e} worst {:.3e}; exact RMS² {:.3e} worst {:.3e}",
        sq[0], worst[0], sq[1], worst[1]
    );
    assert!(sq[1].sqrt() <= 0.05 * sq[0].sqrt(), "RMS: exact {} vs plain {}", sq[1].sqrt(), sq[0].sqrt());
    assert!(worst[1] <= 0.1 * worst[0], "worst: exact {} vs plain {}", worst[1], worst[0]);
}

#[test]
fn a_source_with_eight_influences_keeps_joints_1() {
    let dir = tempfile::tempdir().unwrap();
    let source = gltf_edit::GltfDoc::simple_skin_six_influences().write(&dir.path().join("six.gltf"));
    let out = dir.path().join("six.glb");
    let report = dir.path().join("six.json");
    run_ok(&[
        "export",
        source.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--emulate",
        "dqs",
        "--report",
        report.to_str().unwrap(),
    ]);
    let r: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["influence_limit"], 8);
    assert_eq!(js_check::error_codes(&js_check::validate(std::slice::from_ref(&out))[&out]), Vec::<String>::new());
    let model = load_model(&out).unwrap();
    let inf = model.meshes[0].primitives[0].influences.as_ref().unwrap();
    let most = (0..inf.len()).map(|v| inf.count(v, &model.skins[0].sets)).max().unwrap();
    assert!(most > 4 && most <= 8, "{most} influences");
}

/// A glTF with one triangle and no skin, embedded.
fn unskinned(dir: &Path) -> PathBuf {
    let bytes: Vec<u8> =
        [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0].iter().flat_map(|f| f.to_le_bytes()).collect();
    let uri =
        format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bytes));
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "buffers": [{"byteLength": 36, "uri": uri}],
    });
    let path = dir.join("triangle.gltf");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

#[test]
fn refusals_are_one_line_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let arm = demo_arm(dir.path());
    let arm = arm.to_str().unwrap();
    let out = dir.path().join("out.glb");
    let out = out.to_str().unwrap();
    let cases: [(Vec<&str>, &[&str]); 5] = [
        (vec!["--emulate", "wobbly"], &["wobbly"]),
        (vec!["--emulate", "lbs"], &["lbs"]),
        (vec!["--emulate", "sbs", "--helpers", "0"], &["helpers"]),
        (vec!["--emulate", "sbs", "--clips", "twist,nope"], &["nope", "twist"]),
        (vec!["--emulate", "sbs", "--bake"], &["bake"]),
    ];
    for (extra, needles) in cases {
        let mut args = vec!["export", arm, "--out", out];
        args.extend(extra);
        assert_one_error_line(&skinlab(&args), needles);
        assert!(!Path::new(out).exists());
    }
    let triangle = unskinned(dir.path());
    let line = assert_one_error_line(
        &skinlab(["export", triangle.to_str().unwrap(), "--out", out, "--emulate", "dqs"]),
        &["skin"],
    );
    assert!(line.contains("triangle.gltf"), "{line}");
    assert!(!Path::new(out).exists());
}
