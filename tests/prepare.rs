//! The per-frame preparation's shortcuts change nothing: joint parts shared between skins with the
//! same joints, parts computed only for the joints some set reads (and, after painting, for the
//! joints a new set reads for the first time) give exactly the deformation of a skin prepared on
//! its own from scratch.

mod common;

use skinlab::model::influences::VertexInfluences;
use skinlab::model::{Influences, JointSetTable, Model};
use skinlab::rig::Pose;
use skinlab::skinning::{dqs, lbs, sbs, sbs_c, DeformedPrimitive, Deformer, SkinFrame, SkinningMethod};
use skinlab::synthetic::{animate, SyntheticRig};

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
