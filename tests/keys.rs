//! Keys and clips made in the editor's core (`rig::keys`): keys of poses on new and existing
//! clips export as glTF animations that the Khronos validator accepts and three.js loads, and a
//! reopened file samples bit for bit as the edited model did, at keys, between and beyond them.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;
#[path = "common/js_check.rs"]
mod js_check;

use std::path::PathBuf;

use glam::{DQuat, DVec3};
use skinlab::io::{export_model, load_document, load_model, ExportOptions};
use skinlab::model::{Clip, Model};
use skinlab::rig::keys::{delete_keys, key_times, move_keys, posable_nodes, set_keys};
use skinlab::rig::sample::sample_clip;
use skinlab::rig::Pose;

/// A pose turning every joint of the first skin by its own small rotation (seeded by `k`).
fn pose_of(model: &Model, k: usize) -> Pose {
    let mut pose = Pose::rest();
    for (j, &node) in model.skins[0].joints.iter().enumerate() {
        let axis = DVec3::new((j + k) as f64 % 3.0 - 1.0, 1.0, (j * 7 + k) as f64 % 5.0 - 2.0).normalize();
        let rest = model.nodes.nodes[node].rest.to_trs().rotation;
        pose.set_rotation(node, DQuat::from_axis_angle(axis, 0.1 + 0.05 * k as f64) * rest);
    }
    pose
}

/// Every clip's samples at its keys, between them and outside its range, in both models, equal
/// bit for bit.
fn assert_same_playback(a: &Model, b: &Model, what: &str) {
    assert_eq!(a.clips.len(), b.clips.len(), "{what}: clip count");
    for (c, (ca, cb)) in a.clips.iter().zip(&b.clips).enumerate() {
        assert_eq!(ca.name, cb.name, "{what}: clip {c} name");
        let mut times = key_times(ca, None);
        let (start, end) = ca.range();
        times.extend((0..=40).map(|i| start - 0.1 + (end - start + 0.2) * f64::from(i) / 40.0));
        for t in times {
            let (mut pa, mut pb) = (Pose::rest(), Pose::rest());
            sample_clip(ca, t, &mut pa);
            sample_clip(cb, t, &mut pb);
            assert_eq!(pa, pb, "{what}: clip {c} at {t} s");
        }
    }
}

fn export_and_reopen(model: &Model, source: &skinlab::io::SourceDocument, out: &std::path::Path) -> Model {
    export_model(model, source, &ExportOptions::default(), out).unwrap();
    load_model(out).unwrap()
}

#[test]
fn keyed_clips_export_valid_and_play_back_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for file in ["CesiumMan.glb", "Fox.glb", "RiggedSimple.glb"] {
        let src = common::shared_models().join(file);
        let (mut model, source) = load_document(&src).unwrap();
        let nodes = posable_nodes(&model, &Pose::rest());
        // A new clip: the whole pose keyed at three times, then one key moved and one deleted.
        let mut clip = Clip { name: Some("range of motion".into()), channels: vec![], weights: Vec::new() };
        for (k, t) in [0.0, 0.5, 1.25].into_iter().enumerate() {
            set_keys(&mut clip, &model.nodes, &pose_of(&model, k), &nodes, t);
        }
        set_keys(&mut clip, &model.nodes, &pose_of(&model, 3), &nodes[..1], 2.0);
        assert!(move_keys(&mut clip, None, 0.5, 0.75));
        assert!(delete_keys(&mut clip, Some(&nodes[..1]), 2.0));
        assert_eq!(key_times(&clip, None), vec![0.0, 0.75, 1.25]);
        model.clips.push(clip);
        // An existing clip: the selected joint keyed in the middle of its range.
        let (start, end) = model.clips[0].range();
        let pose = pose_of(&model, 5);
        set_keys(&mut model.clips[0], &model.nodes, &pose, &nodes[1..2], 0.5 * (start + end));
        let out = dir.path().join(file.replace(".glb", "-keyed.glb"));
        let reopened = export_and_reopen(&model, &source, &out);
        assert_same_playback(&model, &reopened, file);
        // Exporting the reopened file again changes nothing of its playback.
        let (model2, source2) = load_document(&out).unwrap();
        let again = dir.path().join(file.replace(".glb", "-again.glb"));
        let reopened2 = export_and_reopen(&model2, &source2, &again);
        assert_same_playback(&reopened, &reopened2, file);
        outs.push((out, src));
    }
    let files: Vec<PathBuf> = outs.iter().flat_map(|(e, s)| [e.clone(), s.clone()]).collect();
    let reports = js_check::validate(&files);
    let three = js_check::three_load(&outs.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>());
    for (export, source) in &outs {
        let e = &reports[export];
        assert_eq!(e["errors"], 0, "{}: {}", export.display(), e["messages"]);
        let warnings = |r: &serde_json::Value| -> std::collections::BTreeSet<String> {
            r["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["severity"].as_u64().unwrap() <= 1)
                .map(|m| m["code"].as_str().unwrap().to_owned())
                .collect()
        };
        let new: Vec<String> = warnings(e).difference(&warnings(&reports[source])).cloned().collect();
        assert!(new.is_empty(), "{}: new warnings {new:?}: {}", export.display(), e["messages"]);
        assert_eq!(three[export]["ok"], true, "{}: {}", export.display(), three[export]);
    }
}

#[test]
fn unchanged_clips_keep_their_source_and_empty_clips_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::shared_models().join("Fox.glb");
    let (mut model, source) = load_document(&src).unwrap();
    let before: serde_json::Value = {
        let out = dir.path().join("plain.gltf");
        export_model(
            &model,
            &source,
            &ExportOptions { container: skinlab::io::Container::GltfEmbedded, ..ExportOptions::default() },
            &out,
        )
        .unwrap();
        serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap()
    };
    let nodes = posable_nodes(&model, &Pose::rest());
    let pose = pose_of(&model, 1);
    set_keys(&mut model.clips[1], &model.nodes, &pose, &nodes, 0.3);
    let out = dir.path().join("edited.gltf");
    export_model(
        &model,
        &source,
        &ExportOptions { container: skinlab::io::Container::GltfEmbedded, ..ExportOptions::default() },
        &out,
    )
    .unwrap();
    let after: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(before["animations"][0], after["animations"][0], "an unchanged clip keeps its animation object");
    assert_ne!(before["animations"][1], after["animations"][1]);
    assert_eq!(after["animations"][1]["name"], before["animations"][1]["name"]);
    // A clip without keys is not written (glTF animations need a channel).
    model.clips.push(Clip { name: Some("empty".into()), channels: vec![], weights: Vec::new() });
    let out = dir.path().join("x.glb");
    export_model(&model, &source, &ExportOptions::default(), &out).unwrap();
    let reopened = load_model(&out).unwrap();
    assert_eq!(reopened.clips.len(), model.clips.len() - 1);
    assert!(reopened.clips.iter().all(|c| c.name.as_deref() != Some("empty")));
}

/// The angle between two rotations given as `[x, y, z, w]`, degrees.
fn degrees_between(a: &[f64], b: &[f64]) -> f64 {
    let q = |v: &[f64]| DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize();
    q(a).angle_between(q(b)).to_degrees()
}

#[test]
fn per_key_interpolation_survives_export_and_three_js_samples_it_alike() {
    use skinlab::model::{ChannelPath, Interpolation};
    use skinlab::rig::key_interpolation::{set_interpolation, STEP_JUMP_SECS};
    use skinlab::rig::sample::sample_channel;
    let dir = tempfile::tempdir().unwrap();
    let (mut model, source) = load_document(&common::shared_models().join("CesiumMan.glb")).unwrap();
    let node =
        |name: &str| (0..model.nodes.len()).find(|&n| model.nodes.nodes[n].name.as_deref() == Some(name)).unwrap();
    let (stepped, smooth, mixed) = (node("leg_joint_R_2"), node("leg_joint_L_2"), node("torso_joint_3"));
    let clip = &mut model.clips[0];
    clip.name = Some("walk".into());
    assert!(set_interpolation(clip, Some(&[stepped]), None, Interpolation::Step));
    assert!(set_interpolation(clip, Some(&[smooth]), None, Interpolation::CubicSpline));
    let rotation = |clip: &Clip, n: usize| {
        clip.channels.iter().find(|c| c.node == n && c.path == ChannelPath::Rotation).unwrap().clone()
    };
    let times = rotation(clip, mixed).times;
    assert!(set_interpolation(clip, Some(&[mixed]), Some(times[3]), Interpolation::Step));
    assert!(set_interpolation(clip, Some(&[mixed]), Some(times[7]), Interpolation::CubicSpline));
    let edited = rotation(clip, mixed);
    assert_eq!(edited.key_interpolation[3], Interpolation::Step);
    assert_eq!(edited.key_interpolation[7], Interpolation::CubicSpline);
    assert_eq!(edited.key_interpolation[0], Interpolation::Linear);

    let out = dir.path().join("interpolation.glb");
    let reopened = export_and_reopen(&model, &source, &out);
    let (a, b) = (&model.clips[0], &reopened.clips[0]);
    for n in [stepped, smooth] {
        let (x, y) = (rotation(a, n), rotation(b, n));
        assert_eq!((x.interpolation, &x.times, &x.values), (y.interpolation, &y.times, &y.values), "node {n}");
    }
    assert_eq!(rotation(b, smooth).values.len(), 3 * 4 * rotation(b, smooth).times.len(), "tangents written");
    let written = rotation(b, mixed);
    assert_eq!(written.interpolation, Interpolation::CubicSpline);
    let (start, end) = a.range();
    let sample_times: Vec<f64> = (0..=200)
        .map(|i| start + (end - start) * f64::from(i) / 200.0)
        .filter(|t| (t - times[4]).abs() > 1.1 * STEP_JUMP_SECS)
        .collect();
    for &t in &sample_times {
        let (e, w) = (sample_channel(&edited, t), sample_channel(&written, t));
        assert!(degrees_between(&e, &w) < 2e-3, "mixed channel at {t}: {e:?} vs {w:?}");
    }
    // three.js samples the written file as skinlab does.
    let three = js_check::three_samples(std::slice::from_ref(&out), &sample_times);
    let report = &three[&out];
    assert_eq!(report["ok"], true, "{report}");
    for n in [stepped, smooth, mixed] {
        let name = model.nodes.nodes[n].name.clone().unwrap();
        let track = &report["samples"][format!("walk/{name}.quaternion")];
        let ours = rotation(b, n);
        for (i, &t) in sample_times.iter().enumerate() {
            let theirs: Vec<f64> = track[i].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            let d = degrees_between(&theirs, &sample_channel(&ours, t));
            assert!(d < 1e-3, "{name} at {t}: three.js {theirs:?}, skinlab {:?}", sample_channel(&ours, t));
        }
    }
    let report = &js_check::validate(std::slice::from_ref(&out))[&out];
    assert_eq!(report["errors"], 0, "{}", report["messages"]);
}
