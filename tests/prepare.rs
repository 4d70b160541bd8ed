//! The per-frame preparation's shortcuts change nothing: joint parts shared between skins with the
//! same joints, parts computed only for the joints some set reads (and, after painting, for the
//! joints a new set reads for the first time) give exactly the deformation of a skin prepared on
//! its own from scratch; and the parts and set tables a deformer keeps across poses (for joints
//! and sets that did not change) give exactly what a preparation from scratch gives.

mod common;

use skinlab::model::influences::VertexInfluences;
use skinlab::model::{Influences, JointSetTable, Model};
use skinlab::rig::Pose;
use skinlab::skinning::{dqs, lbs, sbs, sbs_c, DeformedPrimitive, Deformer, SkinFrame, SkinningMethod};
use skinlab::synthetic::{animate, animate_moving, diversify_sets, SyntheticRig};

/// Deforms primitive `prim` of `instance` with a frame prepared for that skin alone.
fn alone(model: &Model, pose: &Pose, method: SkinningMethod, instance: usize, prim: usize) -> DeformedPrimitive {
    let mut model_from_node = Vec::new();
    skinlab::rig::fk::model_from_node(&model.nodes, pose, &mut model_from_node);
    let inst = &model.instances[instance];
    let mut frame = SkinFrame::default();
    frame.prepare(&model.skins[inst.skin], &model_from_node, method);
    let p = &model.meshes[inst.mesh].primitives[prim];
    let Some(inf) = p.influences.as_ref() else { panic!("instance {instance} primitive {prim} has no influences") };
    let mut out = DeformedPrimitive::default();
    let normals = p.normals.as_deref();
    match method {
        SkinningMethod::Lbs => lbs::lbs(&frame, inf, &p.positions, normals, &mut out),
        SkinningMethod::Dqs => dqs::dqs(&frame, inf, &p.positions, normals, &mut out),
        SkinningMethod::Sbs => sbs::sbs(&frame, inf, &p.positions, normals, &mut out),
        SkinningMethod::SbsC => sbs_c::sbs_c(&frame, inf, &p.positions, normals, &mut out),
    }
    out
}

#[test]
fn skins_sharing_a_skeleton_deform_as_if_alone() {
    // Four skins on one skeleton (Character_HumanoidRig) and two (Enemy_Flying_Gun).
    for file in ["Character_HumanoidRig.glb", "Enemy_Flying_Gun.glb"] {
        let model = skinlab::io::load_model(&common::shared_models().join(file)).unwrap();
        let mut pose = Pose::rest();
        animate(&model, 11, &mut pose);
        for method in SkinningMethod::MENU {
            let mut deformer = Deformer::new();
            deformer.prepare(&model, &pose, method);
            let used: usize = (0..model.skins.len()).map(|s| deformer.skin_frame(s).joint_kinds().used).sum();
            assert!(
                deformer.stats.joint_parts <= used,
                "{file} {method}: parts computed at most once per joint in use"
            );
            if file.starts_with("Character") && method != SkinningMethod::Lbs {
                assert!(deformer.stats.joint_parts < used, "{file} {method}: the four skins share their parts");
            }
            for (i, inst) in model.instances.iter().enumerate() {
                for prim in 0..model.meshes[inst.mesh].primitives.len() {
                    if model.meshes[inst.mesh].primitives[prim].influences.is_none() {
                        continue;
                    }
                    let mut shared = DeformedPrimitive::default();
                    deformer.deform_primitive(&model, inst, prim, &mut shared);
                    assert_eq!(
                        shared,
                        alone(&model, &pose, method, i, prim),
                        "{file} {method} instance {i} prim {prim}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_painted_set_on_joints_no_set_read_gets_their_parts() {
    let mut base = SyntheticRig { vertices: 256, joints: 6, influences: 2 }.build().unwrap();
    // Every vertex on joint 0 alone: no set reads joints 1 to 5.
    let n = base.meshes[0].primitives[0].positions.len();
    let mut table = JointSetTable::new(2);
    let one = VertexInfluences { pairs: vec![(0, 1.0)] };
    base.meshes[0].primitives[0].influences = Some(Influences::from_vertices(&vec![one; n], &mut table).unwrap());
    base.skins[0].sets = table;
    let mut pose = Pose::rest();
    animate(&base, 7, &mut pose);
    let painted: Vec<u32> = (0..40).collect();
    for method in SkinningMethod::MENU {
        let mut model = base.clone();
        let mut deformer = Deformer::new();
        deformer.prepare(&model, &pose, method);
        assert_eq!(deformer.skin_frame(0).joint_kinds().used, 1, "{method}: only joint 0 is read");
        let inst = model.instances[0].clone();
        let mut out = DeformedPrimitive::default();
        deformer.deform_primitive(&model, &inst, 0, &mut out);
        let before = out.clone();
        // A dab: the first 40 vertices now follow joints 3 and 5.
        let two = VertexInfluences { pairs: vec![(3, 0.7), (5, 0.3)] };
        let prim = &mut model.meshes[0].primitives[0];
        let inf = prim.influences.as_mut().unwrap();
        for &v in &painted {
            inf.set_vertex(v as usize, &two, &mut model.skins[0].sets).unwrap();
        }
        assert_eq!(deformer.prepare_new_sets(&model), 1, "{method}");
        assert!(deformer.deform_vertices(&model, &inst, 0, &painted, &mut out), "{method}");
        assert_ne!(out.positions[..40], before.positions[..40], "{method}: the painted vertices moved");
        let mut fresh = Deformer::new();
        fresh.prepare(&model, &pose, method);
        let mut full = DeformedPrimitive::default();
        fresh.deform_primitive(&model, &inst, 0, &mut full);
        assert_eq!(out, full, "{method}: re-skin after the dab equals a fresh preparation");
    }
}

/// `deform_all` with a deformer kept across frames against one that prepares from scratch.
fn assert_kept_equals_fresh(
    what: &str,
    model: &Model,
    kept: &mut Deformer,
    pose: &Pose,
    method: SkinningMethod,
) -> skinlab::skinning::FrameStats {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    kept.deform_all(model, pose, method, &mut a);
    let mut fresh = Deformer::new();
    fresh.disable_reuse(true);
    fresh.deform_all(model, pose, method, &mut b);
    assert_eq!(fresh.stats.sets_computed, fresh.stats.sets, "{what}: from scratch computes every set");
    assert!(a == b, "{what}: kept parts and tables must give the fresh result bit for bit");
    kept.stats
}

#[test]
fn kept_parts_and_sets_give_the_fresh_result_bit_for_bit() {
    let mut synthetic = SyntheticRig { vertices: 6000, joints: 40, influences: 4 }.build().unwrap();
    diversify_sets(&mut synthetic, 300).unwrap();
    let mut models = vec![("synthetic".to_string(), synthetic)];
    for file in ["Fox.glb", "Character_HumanoidRig.glb", "Stegosaurus.glb"] {
        if let Some(m) = common::shared_model(file) {
            models.push((file.to_string(), m));
        }
    }
    for (name, model) in &models {
        for method in SkinningMethod::MENU {
            let mut kept = Deformer::new();
            let mut pose = Pose::rest();
            let mut reused = false;
            // All joints, then a few joints moving, then a pose that does not change at all.
            for (frame, moving) in [(0, usize::MAX), (1, usize::MAX), (2, 2), (3, 2), (4, 1), (4, 1), (5, usize::MAX)] {
                animate_moving(model, frame, moving, &mut pose);
                let what = format!("{name} {method} frame {frame} moving {moving}");
                let stats = assert_kept_equals_fresh(&what, model, &mut kept, &pose, method);
                reused |= stats.sets_computed < stats.sets;
                if frame == 4 && moving == 1 && kept.stats.sets_computed == 0 {
                    assert_eq!(kept.stats.joint_parts, 0, "{what}: nothing moved, nothing computed");
                }
            }
            assert!(reused, "{name} {method}: moving a few joints keeps some sets");
            // The same deformer on another method, then back.
            let other = if method == SkinningMethod::Lbs { SkinningMethod::Sbs } else { SkinningMethod::Lbs };
            assert_kept_equals_fresh(&format!("{name} {method} → {other}"), model, &mut kept, &pose, other);
            animate_moving(model, 6, 3, &mut pose);
            assert_kept_equals_fresh(&format!("{name} {other} → {method}"), model, &mut kept, &pose, method);
        }
    }
}

/// Painting appends a set (prepared in the same pose), then the next pose keeps or recomputes it
/// like any other set.
#[test]
fn a_set_painted_between_poses_is_kept_correctly() {
    let base = SyntheticRig { vertices: 3000, joints: 12, influences: 4 }.build().unwrap();
    for method in SkinningMethod::MENU {
        let mut model = base.clone();
        let mut kept = Deformer::new();
        let mut pose = Pose::rest();
        animate_moving(&model, 1, usize::MAX, &mut pose);
        let mut out = Vec::new();
        kept.deform_all(&model, &pose, method, &mut out);
        let dab = VertexInfluences { pairs: vec![(2, 0.5), (7, 0.3), (11, 0.2)] };
        let painted: Vec<u32> = (100..140).collect();
        let inf = model.meshes[0].primitives[0].influences.as_mut().unwrap();
        for &v in &painted {
            inf.set_vertex(v as usize, &dab, &mut model.skins[0].sets).unwrap();
        }
        assert!(kept.prepare_new_sets(&model) >= 1, "{method}");
        for (frame, moving) in [(2, 1), (3, 4), (3, 4), (4, usize::MAX)] {
            animate_moving(&model, frame, moving, &mut pose);
            assert_kept_equals_fresh(
                &format!("{method} frame {frame} after the dab"),
                &model,
                &mut kept,
                &pose,
                method,
            );
        }
    }
}

/// DQS and SBS split a joint matrix through its inverse bind matrix's split where the joint's node
/// is a scaled rotation (Fox's skeleton has unit scales): editing an inverse bind matrix between
/// two frames of one pose recomputes that split, as a fresh preparation would.
#[test]
fn an_edited_inverse_bind_matrix_is_split_again() {
    let Some(mut model) = common::shared_model("Fox.glb") else { return };
    let mut pose = Pose::rest();
    animate_moving(&model, 3, usize::MAX, &mut pose);
    for method in [SkinningMethod::Dqs, SkinningMethod::Sbs, SkinningMethod::SbsC] {
        let mut kept = Deformer::new();
        // The same pose three times: the joints stand still long enough for the deformer to
        // keep their inverse bind matrices too (the edit below must not go unseen).
        for _ in 0..3 {
            assert_kept_equals_fresh(&format!("Fox {method}"), &model, &mut kept, &pose, method);
        }
        assert_eq!(kept.stats.joint_parts, 0, "Fox {method}: a pose repeated computes no part");
        let kinds = kept.skin_frame(0).joint_kinds();
        assert_eq!(kinds.through_bind, kinds.used, "Fox {method}: every joint split through its bind pose");
        let ibm = &mut model.skins[0].joint_from_bind[5];
        *ibm = glam::DMat4::from_scale(glam::DVec3::new(1.0, 1.5, 1.0)) * *ibm;
        let stats = assert_kept_equals_fresh(&format!("Fox {method}, edited"), &model, &mut kept, &pose, method);
        assert!(stats.joint_parts >= 1, "Fox {method}: the edited joint's part is computed again");
    }
}

/// A pose that moves one joint finds that joint's sets through the index of sets per joint the
/// frame keeps for its table: each joint moved alone in turn, before and after a dab appends a
/// set, and after deleting a joint rewrites the table, gives exactly the fresh result.
#[test]
fn each_joint_moved_alone_recomputes_exactly_its_sets() {
    let base = SyntheticRig { vertices: 3000, joints: 12, influences: 4 }.build().unwrap();
    for method in SkinningMethod::MENU {
        let mut model = base.clone();
        let mut kept = Deformer::new();
        let mut angle = 0.0;
        let mut each_joint_alone = |model: &Model, kept: &mut Deformer, when: &str| {
            let mut pose = Pose::rest();
            let mut kept_some = false;
            for (j, &node) in model.skins[0].joints.iter().enumerate() {
                angle += 0.05;
                let rest = model.nodes.nodes[node].rest.to_trs().rotation;
                let turn = glam::DQuat::from_axis_angle(glam::DVec3::new(0.3, 1.0, -0.2).normalize(), angle);
                pose.set_rotation(node, rest * turn);
                let what = format!("{method} {when}, joint {j} moved alone");
                let stats = assert_kept_equals_fresh(&what, model, kept, &pose, method);
                kept_some |= stats.sets_computed < stats.sets;
            }
            assert!(kept_some, "{method} {when}: a joint moved alone keeps some sets");
        };
        each_joint_alone(&model, &mut kept, "at first");
        let dab = VertexInfluences { pairs: vec![(2, 0.5), (7, 0.3), (11, 0.2)] };
        let inf = model.meshes[0].primitives[0].influences.as_mut().unwrap();
        for v in 100..140 {
            inf.set_vertex(v, &dab, &mut model.skins[0].sets).unwrap();
        }
        assert!(kept.prepare_new_sets(&model) >= 1, "{method}");
        each_joint_alone(&model, &mut kept, "after a dab added a set");
        let node = model.skins[0].joints[3];
        skinlab::rig::skeleton_edit::delete_joint(&mut model, node).unwrap();
        each_joint_alone(&model, &mut kept, "after joint 3 was deleted");
    }
}
