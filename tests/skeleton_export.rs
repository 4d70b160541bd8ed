//! A skeleton built or edited with `rig::skeleton_edit` exports Khronos-valid and re-imports
//! identical: an OBJ (written here) gets a skin, a root and child joints, and is bound with
//! automatic weights; the demo arm loses a
//! joint and gains one. Bind positions, hierarchy, names, weights, tails and rolls survive.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::DVec3;
use serde_json::Value;
use skinlab::io::{export_model, load_document, Container, ExportOptions};
use skinlab::model::Model;
use skinlab::rig::skeleton_edit::{add_joint, bind_position, create_skin, delete_joint, orient_joint};

/// A square tube along +x (quads, negative indices, two groups) with normals on the sides.
fn tube_obj() -> String {
    let mut s = String::from("# tube\no tube\n");
    let rings = 5;
    for r in 0..rings {
        let x = r as f32;
        for (y, z) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
            s += &format!("v {x} {y} {z}\n");
        }
    }
    s += "vt 0 0\n";
    for r in 0..rings - 1 {
        if r == 2 {
            s += "g far\n";
        }
        for k in 0..4 {
            let a = r * 4 + k + 1;
            let b = r * 4 + (k + 1) % 4 + 1;
            let (c, d) = (b + 4, a + 4);
            s += &format!("f {a}/1 {b}/1 {c}/1 {d}/1\n");
        }
    }
    s += "f -1 -2 -3 -4\nf 1 4 3 2\n";
    s
}

fn validate(file: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/validate-gltf.mjs");
    let out = Command::new("node").arg(&script).arg(file).output().expect("node runs the glTF-Validator");
    assert!(out.status.success(), "the validator ran: {}", String::from_utf8_lossy(&out.stderr));
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    reports[0].clone()
}

fn export(model: &Model, source: &skinlab::io::SourceDocument, out: &Path) {
    let options = ExportOptions { container: Container::for_path(out, false).unwrap(), ..ExportOptions::default() };
    export_model(model, source, &options, out).unwrap();
    let report = validate(out);
    assert_eq!(report["errors"], 0, "{}: {}", out.display(), report["messages"]);
}

/// Nodes (names, parents, tails, rolls), bind positions and every vertex's weights agree.
fn assert_same_rig(a: &Model, b: &Model) {
    assert_eq!(a.nodes.len(), b.nodes.len());
    for (i, (x, y)) in a.nodes.nodes.iter().zip(&b.nodes.nodes).enumerate() {
        assert_eq!(x.name, y.name, "node {i}");
        assert_eq!(x.parent, y.parent, "node {i}");
        assert_eq!(x.children, y.children, "node {i}");
        assert_eq!(x.skin, y.skin, "node {i}");
        match (x.bone_tail, y.bone_tail) {
            (Some(p), Some(q)) => assert!((p - q).length() < 1e-6, "node {i} tail"),
            (p, q) => assert_eq!(p, q, "node {i} tail"),
        }
        match (x.bone_roll, y.bone_roll) {
            (Some(p), Some(q)) => assert!((p - q).abs() < 1e-9, "node {i} roll"),
            (p, q) => assert_eq!(p, q, "node {i} roll"),
        }
        if let (Some(p), Some(q)) = (bind_position(a, i), bind_position(b, i)) {
            assert!((p - q).length() < 1e-5, "node {i}: bind position {p} vs {q}");
        }
    }
    assert_eq!(a.instances, b.instances);
    assert_eq!(a.skins.len(), b.skins.len());
    for (s, (x, y)) in a.skins.iter().zip(&b.skins).enumerate() {
        assert_eq!(x.joints, y.joints, "skin {s}");
        for (p, q) in x.joint_from_bind.iter().zip(&y.joint_from_bind) {
            assert!(p.abs_diff_eq(*q, 1e-5), "skin {s}: {p} vs {q}");
        }
    }
    for inst in &a.instances {
        for (p, q) in a.meshes[inst.mesh].primitives.iter().zip(&b.meshes[inst.mesh].primitives) {
            // Compared in the file's order (a loaded model orders its vertices by joint set).
            assert_eq!(p.order.to_file(&p.positions), q.order.to_file(&q.positions));
            let (ia, ib) = (p.influences.as_ref().unwrap(), q.influences.as_ref().unwrap());
            let (ta, tb) = (&a.skins[inst.skin].sets, &b.skins[inst.skin].sets);
            for v in 0..ia.len() {
                let mut x: Vec<(u16, f32)> = ia.vertex(p.order.model_index(v), ta).collect();
                let mut y: Vec<(u16, f32)> = ib.vertex(q.order.model_index(v), tb).collect();
                x.sort_by_key(|p| p.0);
                y.sort_by_key(|p| p.0);
                assert_eq!(x.len(), y.len(), "vertex {v}");
                for (p, q) in x.iter().zip(&y) {
                    assert_eq!(p.0, q.0, "vertex {v}");
                    assert!((p.1 - q.1).abs() < 1e-6, "vertex {v}: {p:?} vs {q:?}");
                }
            }
        }
    }
}

#[test]
fn an_obj_gets_a_skeleton_that_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("tube.obj");
    std::fs::write(&obj, tube_obj()).unwrap();
    let (mut model, source) = load_document(&obj).unwrap();
    assert!(model.skins.is_empty() && model.instances.is_empty());
    assert_eq!(model.meshes[0].primitives.len(), 2, "two groups, two primitives");
    let root = create_skin(&mut model, &[0], DVec3::new(0.0, 0.0, 0.0), "root").unwrap().created()[0];
    let child = add_joint(&mut model, root, DVec3::new(2.0, 0.0, 0.0), "forearm").unwrap().created()[0];
    add_joint(&mut model, child, DVec3::new(4.0, 0.0, 0.0), "hand").unwrap();
    orient_joint(&mut model, root).unwrap();
    orient_joint(&mut model, child).unwrap();
    // Automatic weights (bone heat) replace the all-on-the-root weights of the new skin.
    let bound = skinlab::bind::bind_skin(&model, 0, &skinlab::bind::BindOptions::default(), &mut |_| {}).unwrap();
    bound.apply(&mut model).unwrap();
    let far = model.meshes[0].primitives[1].influences.as_ref().unwrap();
    assert!(
        (0..far.len()).any(|v| far.vertex(v, &model.skins[0].sets).any(|(j, w)| j == 1 && w > 0.5)),
        "the far group (x from 2 to 4) is weighted mostly to the forearm"
    );
    let out = dir.path().join("tube.glb");
    export(&model, &source, &out);
    let (back, _) = load_document(&out).unwrap();
    assert_same_rig(&model, &back);
    assert!(back.nodes.nodes[root].bone_tail.is_some() && back.nodes.nodes[root].bone_roll.is_some());
    // And again from the exported file: a second round trip is stable.
    let (again_model, again_source) = load_document(&out).unwrap();
    let out2 = dir.path().join("again.gltf");
    export(&again_model, &again_source, &out2);
    let (again, _) = load_document(&out2).unwrap();
    assert_same_rig(&back, &again);
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo_arm.glb")
}

#[test]
fn an_edited_skeleton_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let (mut model, source) = load_document(&demo()).unwrap();
    let skin = &model.skins[0];
    // Delete a joint with weights and a child, then add a joint under the last one.
    let victim = skin.joints[1];
    let names_before = model.nodes.nodes.iter().filter(|n| n.name.is_some()).count();
    delete_joint(&mut model, victim).unwrap();
    let last = *model.skins[0].joints.last().unwrap();
    let tip = bind_position(&model, last).unwrap() + DVec3::new(0.0, 0.1, 0.0);
    add_joint(&mut model, last, tip, "tip").unwrap();
    assert_eq!(model.nodes.nodes.iter().filter(|n| n.name.is_some()).count(), names_before);
    let out = dir.path().join("edited.glb");
    export(&model, &source, &out);
    let (back, _) = load_document(&out).unwrap();
    assert_same_rig(&model, &back);
    // glTF animations need a channel: a clip that only moved the deleted joint is not written.
    let kept: Vec<_> = model.clips.iter().filter(|c| !c.channels.is_empty()).collect();
    assert!(kept.len() < model.clips.len(), "the demo has a clip of the deleted joint alone");
    assert_eq!(back.clips.len(), kept.len(), "the other animations are kept");
    for (a, b) in kept.into_iter().zip(&back.clips) {
        assert_eq!(a.channels.len(), b.channels.len(), "channels of the deleted joint dropped, others renumbered");
        for (x, y) in a.channels.iter().zip(&b.channels) {
            assert_eq!(x.node, y.node);
        }
    }
}
