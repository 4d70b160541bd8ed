//! `export --emulate` on every shared model: the export passes the Khronos validator, three.js
//! loads it without a warning, and it reopens in skinlab with the helpers, their keys and their
//! drivers (node extras) bit for bit. And live rigs: a reopened export posed by hand (no helper
//! keys) moves its helpers by their drivers, which brings LBS toward SBS.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cli_run.rs"]
mod cli_run;
#[path = "common/js_check.rs"]
mod js_check;

use std::path::PathBuf;

use cli_run::skinlab;
use glam::DQuat;
use serde_json::json;
use skinlab::emulate::{emulate, EmulateRequest};
use skinlab::io::load_model;
use skinlab::model::{Clip, Model};
use skinlab::rig::{fk, Pose};
use skinlab::skinning::{Deformer, SkinningMethod};

fn shared_models() -> Vec<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models"));
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
        .collect();
    out.sort();
    assert!(out.len() >= 9, "{out:?}");
    out
}

fn run_ok(args: &[&str]) {
    let out = skinlab(args);
    assert!(out.status.success(), "skinlab {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The channels of `clip` that drive `node`.
fn channels_of(clip: &Clip, node: usize) -> Vec<skinlab::model::Channel> {
    clip.channels.iter().filter(|c| c.node == node).cloned().collect()
}

#[test]
fn every_shared_model_exports_validly_and_reopens_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    let mut fitted = Vec::new();
    for source in shared_models() {
        let model = load_model(&source).unwrap();
        // One helper per joint over the first clip (a range-of-motion clip when there is none)
        // keeps the suite quick; every part of the file is still written.
        let clips: Vec<usize> = if model.clips.is_empty() { Vec::new() } else { vec![0] };
        let out = dir.path().join(format!("{}.glb", source.file_stem().unwrap().to_str().unwrap()));
        let mut args = vec!["export", source.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend(["--emulate", "sbs", "--helpers", "1"]);
        let key = model.clip_keys().first().cloned();
        if let Some(k) = &key {
            args.extend(["--clips", k.as_str()]);
        }
        run_ok(&args);
        let request = EmulateRequest { method: SkinningMethod::Sbs, helpers_per_joint: 1, clips };
        fitted.push((source.clone(), emulate(&model, &request, &mut |_| std::ops::ControlFlow::Continue(())).unwrap()));
        outputs.push(out);
    }
    let reports = js_check::validate(&outputs);
    let three = js_check::three_load(&outputs);
    for (out, (source, e)) in outputs.iter().zip(&fitted) {
        let name = source.display();
        assert_eq!(js_check::error_codes(&reports[out]), Vec::<String>::new(), "{name}: {}", reports[out]);
        assert_eq!(three[out]["ok"], true, "{name}: {}", three[out]);
        assert_eq!(three[out]["warnings"], json!([]), "{name}: {}", three[out]);
        let back = load_model(out).unwrap();
        assert_eq!(back.nodes.len(), e.model.nodes.len(), "{name}");
        assert_eq!(back.clips.len(), e.model.clips.len(), "{name}");
        for &h in &e.helper_nodes {
            let helper = &e.model.nodes.nodes[h];
            let r = back.nodes.find(helper.name.as_deref().unwrap()).unwrap();
            let again = &back.nodes.nodes[r];
            assert_eq!(again.rest, helper.rest, "{name}: {:?}", helper.name);
            assert!(helper.driver.is_some(), "{name}: {:?} has no driver", helper.name);
            assert_eq!(again.driver, helper.driver, "{name}: {:?}: driver", helper.name);
            assert_eq!(again.parent.map(|p| back.nodes.key(p)), helper.parent.map(|p| e.model.nodes.key(p)));
            for (a, b) in e.model.clips.iter().zip(&back.clips) {
                assert_eq!(channels_of(a, h), channels_of(b, r), "{name}: {:?}: keys", helper.name);
            }
        }
        // The source joints keep their keys.
        for (src, again) in e.source.clips.iter().zip(&back.clips) {
            for ch in &src.channels {
                assert!(again.channels.contains(ch), "{name}: a source channel of node {} changed", ch.node);
            }
        }
    }
    // Every model with a difference between LBS and SBS got helpers.
    let with_helpers = fitted.iter().filter(|(_, e)| !e.helper_nodes.is_empty()).count();
    assert!(with_helpers >= 7, "{with_helpers} models got helpers");
}

/// `method`'s positions of every skinned primitive of `m` at `pose`, in the file's vertex order
/// (the import orders vertices by joint set, which the emulation changes).
fn deform_in_file_order(m: &Model, pose: &Pose, method: SkinningMethod) -> Vec<glam::Vec3> {
    let mut out = Vec::new();
    Deformer::new().deform_all(m, pose, method, &mut out);
    let mut flat = Vec::new();
    for (inst, prims) in m.instances.iter().zip(&out) {
        for (prim, d) in m.meshes[inst.mesh].primitives.iter().zip(prims) {
            flat.extend(prim.order.to_file(&d.positions));
        }
    }
    flat
}

/// The RMS distance between two lists of positions.
fn rms_distance(a: &[glam::Vec3], b: &[glam::Vec3]) -> f64 {
    assert_eq!(a.len(), b.len());
    let sq: f64 = a.iter().zip(b).map(|(p, q)| f64::from(p.distance_squared(*q))).sum();
    (sq / a.len() as f64).sqrt()
}

#[test]
fn a_reopened_export_posed_by_hand_drives_its_helpers() {
    let dir = tempfile::tempdir().unwrap();
    let arm = dir.path().join("arm.glb");
    run_ok(&["demo", "--out", arm.to_str().unwrap()]);
    let out = dir.path().join("emulated.glb");
    run_ok(&["export", arm.to_str().unwrap(), "--out", out.to_str().unwrap(), "--emulate", "sbs", "--clips", "twist"]);
    let source = load_model(&arm).unwrap();
    let back: Model = load_model(&out).unwrap();
    let helpers: Vec<usize> = (0..back.nodes.len()).filter(|&n| back.nodes.nodes[n].driver.is_some()).collect();
    assert!(!helpers.is_empty());
    // Half the clip's twist, set by hand on the source joints only (no helper is keyed).
    let twist = source.find_clip("twist").unwrap();
    let mut pose = Pose::rest();
    skinlab::rig::sample::sample_clip(&source.clips[twist], 0.5 * source.clips[twist].range().1, &mut pose);
    let mut by_hand = Pose::rest();
    for (&n, o) in &pose.overrides {
        if let Some(q) = o.rotation {
            by_hand.set_rotation(n, q);
        }
    }
    assert!(helpers.iter().all(|h| !by_hand.overrides.contains_key(h)));
    // Each helper's local transform is its driver's map of its inputs' rotations.
    let mut globals = Vec::new();
    fk::model_from_node(&back.nodes, &by_hand, &mut globals);
    let mut moved = 0;
    for &h in &helpers {
        let node = &back.nodes.nodes[h];
        let driver = node.driver.as_ref().unwrap();
        let rotations: Vec<DQuat> = driver
            .inputs
            .iter()
            .map(|i| by_hand.local_trs(&back.nodes, back.nodes.find(&i.node).unwrap()).rotation)
            .collect();
        let (translation, rotation) = driver.local(&rotations);
        let expected = glam::DMat4::from_rotation_translation(rotation, translation);
        let parent = node.parent.unwrap();
        let local = globals[parent].inverse() * globals[h];
        assert!(local.abs_diff_eq(expected, 1e-9), "{:?}", node.name);
        if !expected.abs_diff_eq(node.rest.to_matrix(), 1e-6) {
            moved += 1;
        }
    }
    assert!(moved > 0, "no helper moved");
    // Under LBS the driven file is closer to SBS of the source than plain LBS is.
    let deform = |m: &Model, method| deform_in_file_order(m, &by_hand, method);
    let target = deform(&source, SkinningMethod::Sbs);
    let plain = rms_distance(&deform(&source, SkinningMethod::Lbs), &target);
    let live = rms_distance(&deform(&back, SkinningMethod::Lbs), &target);
    println!("posed by hand: LBS {plain:.5}, driven helpers {live:.5} from SBS (RMS)");
    assert!(live < 0.5 * plain, "driven {live} vs plain {plain}");
    // Without its drivers the same file at the same pose is farther.
    let mut undriven = back.clone();
    for n in &mut undriven.nodes.nodes {
        n.driver = None;
    }
    assert!(rms_distance(&deform(&undriven, SkinningMethod::Lbs), &target) > live);
}
