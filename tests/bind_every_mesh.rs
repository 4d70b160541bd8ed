//! Every mesh binds: a character imported as several OBJ objects gets one skin for all of them
//! (create-skin on several meshes, or Bind taking the unskinned meshes into the single skin),
//! every vertex of every object is weighted, undo restores the model bit for bit, loose parts far
//! from the bones can follow one joint rigidly, and `skinlab rig` does the same from the shell.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/capsules.rs"]
mod capsules;
#[path = "common/cli_run.rs"]
mod cli_run;

use capsules::{obj_text, Capsule};
use glam::DVec3;
use skinlab::app::bind_job::bind_all_skins;
use skinlab::io::obj_import::parse_obj;
use skinlab::model::edit_record::ModelEdit;
use skinlab::model::Model;
use skinlab::rig::skeleton_edit::{add_joint, create_skin};

/// An arm in three objects (upper arm, forearm, hand) and a small loose "ring" floating far from
/// the bones.
fn three_objects_and_a_ring() -> Model {
    let c = |a: [f64; 3], b: [f64; 3], radius: f64, object: usize| Capsule {
        a: DVec3::from(a),
        b: DVec3::from(b),
        radius,
        object,
    };
    let capsules = [
        c([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.06, 0),
        c([1.0, 0.0, 0.0], [2.0, 0.0, 0.0], 0.05, 1),
        c([2.0, 0.0, 0.0], [2.4, 0.0, 0.0], 0.08, 2),
        c([1.5, 0.6, 0.0], [1.55, 0.6, 0.0], 0.03, 3),
    ];
    parse_obj(obj_text(&capsules, &["upper_obj", "fore_obj", "hand_obj", "ring_obj"], 12).as_bytes(), Some("arm"))
        .unwrap()
}

fn rig_arm(model: &mut Model, meshes: &[usize]) {
    let root = create_skin(model, meshes, DVec3::ZERO, "upperarm").unwrap().created()[0];
    let elbow = add_joint(model, root, DVec3::new(1.0, 0.0, 0.0), "forearm").unwrap().created()[0];
    add_joint(model, elbow, DVec3::new(2.0, 0.0, 0.0), "hand").unwrap();
}

/// Every vertex of every mesh has influences summing to 1; returns, per mesh, the vertices and
/// the distinct joints used.
fn weighted(model: &Model) -> Vec<(usize, std::collections::BTreeSet<u16>)> {
    assert_eq!(model.instances.len(), model.meshes.len(), "every mesh is skinned");
    assert!(model.rigid_instances.is_empty());
    model
        .meshes
        .iter()
        .map(|mesh| {
            let mut joints = std::collections::BTreeSet::new();
            let mut count = 0;
            for prim in &mesh.primitives {
                let inf = prim.influences.as_ref().expect("weights");
                for v in 0..prim.positions.len() {
                    let pairs: Vec<(u16, f32)> = inf.vertex(v, &model.skins[0].sets).collect();
                    let sum: f32 = pairs.iter().map(|p| p.1).sum();
                    assert!((sum - 1.0).abs() < 1e-4, "vertex {v}: {pairs:?}");
                    joints.extend(pairs.iter().filter(|p| p.1 > 0.0).map(|p| p.0));
                    count += 1;
                }
            }
            (count, joints)
        })
        .collect()
}

#[test]
fn bind_takes_every_object_into_the_skin_and_undo_restores_bit_for_bit() {
    let mut model = three_objects_and_a_ring();
    assert_eq!(model.rigid_instances.len(), 4);
    // The root placed on one object, as a first Ctrl+click in the editor does.
    rig_arm(&mut model, &[0]);
    assert_eq!(model.instances.len(), 1);
    let before = model.clone();
    let done = bind_all_skins(&mut model, None, &[], 4, false, &mut |_| {}).unwrap();
    let total: usize = model.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum();
    assert!(done.starts_with(&format!("4 meshes, {total} vertices bound (3 meshes joined the skin)")), "{done}");
    let per_mesh = weighted(&model);
    // The forearm object is weighted mostly to the forearm joint, the hand to the hand.
    assert!(per_mesh[1].1.contains(&1) && per_mesh[2].1.contains(&2), "{per_mesh:?}");
    let edit = ModelEdit::between("Bind", &before, &model);
    let after = format!("{model:?}");
    edit.undo(&mut model);
    assert_eq!(format!("{model:?}"), format!("{before:?}"), "undo restores every bit");
    edit.redo(&mut model);
    assert_eq!(format!("{model:?}"), after);
}

#[test]
fn loose_parts_far_from_the_bones_can_follow_one_joint() {
    let mut model = three_objects_and_a_ring();
    rig_arm(&mut model, &[0, 1, 2, 3]);
    assert_eq!(model.instances.len(), 4, "create-skin takes several meshes");
    let mut heat = model.clone();
    bind_all_skins(&mut heat, None, &[], 4, false, &mut |_| {}).unwrap();
    let done = bind_all_skins(&mut model, None, &[], 4, true, &mut |_| {}).unwrap();
    assert!(done.contains("vertices of loose parts rigid"), "{done}");
    let ring = &model.meshes[3].primitives[0];
    let inf = ring.influences.as_ref().unwrap();
    for v in 0..ring.positions.len() {
        let pairs: Vec<(u16, f32)> = inf.vertex(v, &model.skins[0].sets).filter(|p| p.1 > 0.0).collect();
        // Over the forearm's middle: the forearm alone.
        assert_eq!(pairs, vec![(1, 1.0)]);
    }
    // The large objects are weighted by heat either way.
    assert_eq!(weighted(&model)[..3], weighted(&heat)[..3]);
}

#[test]
fn rig_create_skin_takes_several_meshes_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("arm.obj");
    let c = |a: [f64; 3], b: [f64; 3], object: usize| Capsule { a: a.into(), b: b.into(), radius: 0.1, object };
    std::fs::write(
        &obj,
        obj_text(&[c([0.0; 3], [1.0, 0.0, 0.0], 0), c([1.0, 0.0, 0.0], [2.0, 0.0, 0.0], 1)], &["a", "b"], 8),
    )
    .unwrap();
    let out = dir.path().join("arm.glb");
    for meshes in ["a,b", "*"] {
        let run = cli_run::skinlab([
            "rig",
            obj.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--edit",
            &format!("create-skin {meshes} root 0,0,0"),
            "--edit",
            "add tip root 1,0,0",
            "--edit",
            "orient root",
            "--edit",
            "roll root 30",
            "--edit",
            "bind",
        ]);
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert!(text.contains("Bind: 2 meshes"), "{text}");
    }
    let run = cli_run::skinlab([
        "rig",
        obj.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--edit",
        "create-skin a,a root 0,0,0",
    ]);
    cli_run::assert_one_error_line(&run, &["named twice"]);
}
