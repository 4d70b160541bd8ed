//! Skeleton edits (`rig::skeleton_edit`): every edit keeps the rest pose equal to the bind pose,
//! undoes and redoes bit for bit, and does what a rigger expects (weights to the parent on delete,
//! mirrored names and positions on symmetrize, the mesh in place on orient).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::rigs::{build, cylinder_mesh, joint, MeshSpec};
use glam::{DMat3, DVec3, Vec3};
use skinlab::model::{Model, Node, NodeTransform, NodeTree, Trs};
use skinlab::rig::skeleton_edit::{
    add_joint, bind_position, create_skin, delete_joint, move_joint, orient_joint, rename_node, reparent, symmetrize,
    SkeletonEditError, SkeletonRecord,
};
use skinlab::rig::Pose;
use skinlab::skinning::{Deformer, SkinningMethod};

/// A symmetric body: spine at the origin, chest above it, a left arm chain (shoulder.L, elbow.L,
/// hand.L along +x) and a right shoulder stub; a mesh of two arm cylinders (left and right) and
/// a torso column, weighted by nearest joint along the arm.
fn body() -> Model {
    let mut mesh = MeshSpec::default();
    let mut add = |part: MeshSpec, offset: Vec3, flip: bool| {
        let base = mesh.positions.len() as u32;
        for p in &part.positions {
            let p = if flip { Vec3::new(-p.x, p.y, p.z) } else { *p };
            mesh.positions.push(p + offset);
        }
        for n in &part.normals {
            mesh.normals.push(if flip { Vec3::new(-n.x, n.y, n.z) } else { *n });
        }
        for t in &part.triangles {
            let t = t.map(|i| i + base);
            mesh.triangles.push(if flip { [t[0], t[2], t[1]] } else { t });
        }
    };
    add(cylinder_mesh(2.0, 0.2, 9, 8), Vec3::new(0.3, 1.0, 0.0), false);
    add(cylinder_mesh(2.0, 0.2, 9, 8), Vec3::new(-0.3, 1.0, 0.0), true);
    mesh.weights = mesh
        .positions
        .iter()
        .map(|p| {
            let x = p.x.abs();
            if x < 0.3 {
                vec![(1, 1.0)]
            } else if p.x > 0.0 {
                let t = ((x - 0.3) / 2.0).clamp(0.0, 1.0);
                if t < 0.5 {
                    vec![(2, 1.0 - 2.0 * t), (3, 2.0 * t)]
                } else {
                    vec![(3, 2.0 - 2.0 * t), (4, 2.0 * t - 1.0)]
                }
            } else {
                vec![(5, 0.7), (1, 0.3)]
            }
        })
        .collect();
    build(
        &[
            joint("spine", None, DVec3::ZERO),
            joint("chest", Some(0), DVec3::new(0.0, 1.0, 0.0)),
            joint("shoulder.L", Some(1), DVec3::new(0.3, 0.0, 0.0)),
            joint("elbow.L", Some(2), DVec3::new(1.0, 0.0, 0.0)),
            joint("hand.L", Some(3), DVec3::new(1.0, 0.0, 0.0)),
            joint("shoulder_stub.R", Some(1), DVec3::new(-0.3, 0.0, 0.0)),
        ],
        &mesh,
    )
}

fn node_of(model: &Model, name: &str) -> usize {
    model.nodes.find(name).unwrap()
}

/// Everything a skeleton edit may change, as exact text (floats by bits).
fn state(model: &Model) -> String {
    let bits = |m: &glam::DMat4| m.to_cols_array().map(f64::to_bits);
    let mut s = format!("{:?}\n{:?}\n{:?}\n", model.nodes, model.instances, model.rigid_instances);
    for skin in &model.skins {
        s += &format!(
            "{:?} {:?} {:?}\n",
            skin.name,
            skin.joints,
            skin.joint_from_bind.iter().map(bits).collect::<Vec<_>>()
        );
        for id in 0..skin.sets.len() as u32 {
            s += &format!("{:?};", skin.sets.padded(id));
        }
        s += "\n";
    }
    for mesh in &model.meshes {
        for p in &mesh.primitives {
            match &p.influences {
                Some(inf) => {
                    s += &format!(
                        "{:?} {:?}\n",
                        inf.packed_sets(),
                        inf.weights().iter().map(|w| w.to_bits()).collect::<Vec<_>>()
                    );
                }
                None => s += "none\n",
            }
        }
    }
    s + &format!("{:?}", model.clips)
}

/// Every skinned instance's primitives deformed with LBS in the rest pose.
fn rest_mesh(model: &Model) -> Vec<Vec<Vec<Vec3>>> {
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(model, &Pose::rest(), SkinningMethod::Lbs, &mut out);
    out.into_iter().map(|prims| prims.into_iter().map(|d| d.positions).collect()).collect()
}

/// The largest distance between the rest pose deformed with LBS and the stored (bind-space)
/// mesh, as a share of the mesh's bounding-box diagonal.
fn rest_error(model: &Model) -> f32 {
    let mut worst = 0.0f32;
    for (inst, prims) in model.instances.iter().zip(rest_mesh(model)) {
        for (p, d) in model.meshes[inst.mesh].primitives.iter().zip(prims) {
            let diag = common::bbox_diagonal(p.positions.iter().copied());
            for (a, b) in p.positions.iter().zip(&d) {
                worst = worst.max((*a - *b).length() / diag);
            }
        }
    }
    worst
}

/// Runs `edit`; checks that the rest pose draws the mesh where it was drawn before (and, when the
/// rest pose was the bind pose, that it still is, to 1e-6 of the diagonal); then undo (state
/// before, bit for bit) and redo (state after, bit for bit).
fn check_edit(model: &mut Model, what: &str, edit: impl FnOnce(&mut Model) -> SkeletonRecord) -> SkeletonRecord {
    let before = state(model);
    let was_skinned = !model.instances.is_empty();
    let rest_was_bind = was_skinned && rest_error(model) < 1e-6;
    let drawn = rest_mesh(model);
    let record = edit(model);
    if rest_was_bind {
        assert!(rest_error(model) < 1e-6, "{what}: rest pose = bind pose ({})", rest_error(model));
    }
    if was_skinned {
        for (a, b) in drawn.iter().flatten().zip(rest_mesh(model).iter().flatten()) {
            let diag = common::bbox_diagonal(a.iter().copied());
            for (p, q) in a.iter().zip(b) {
                assert!((*p - *q).length() <= 1e-6 * diag, "{what}: the rest pose moved a vertex {p} -> {q}");
            }
        }
    }
    let after = state(model);
    assert_ne!(before, after, "{what} changed something");
    record.undo(model);
    assert_eq!(state(model), before, "{what}: undo restores the model bit for bit");
    record.redo(model);
    assert_eq!(state(model), after, "{what}: redo restores the edit bit for bit");
    record
}

fn weight_of(model: &Model, v: usize, joint: u16) -> f32 {
    let inf = model.meshes[0].primitives[0].influences.as_ref().unwrap();
    inf.vertex(v, &model.skins[0].sets).find(|(j, _)| *j == joint).map_or(0.0, |(_, w)| w)
}

#[test]
fn add_joint_places_it_in_bind_space_and_gives_it_no_weights() {
    let mut model = body();
    let hand = node_of(&model, "hand.L");
    let target = DVec3::new(2.9, 1.1, 0.05);
    let rec = check_edit(&mut model, "add", |m| add_joint(m, hand, target, "finger.L").unwrap());
    let new = rec.created()[0];
    assert_eq!(model.nodes.key(new), "finger.L");
    assert_eq!(model.nodes.nodes[new].parent, Some(hand));
    assert!((bind_position(&model, new).unwrap() - target).length() < 1e-12);
    assert_eq!(model.skins[0].joints.last(), Some(&new));
    let j = (model.skins[0].joints.len() - 1) as u16;
    assert!((0..model.meshes[0].primitives[0].positions.len()).all(|v| weight_of(&model, v, j) == 0.0));
    assert_eq!(add_joint(&mut model, hand, target, "finger.L").unwrap_err().to_string().lines().count(), 1);
    assert!(matches!(add_joint(&mut model, hand, target, " "), Err(SkeletonEditError::EmptyName)));
}

#[test]
fn move_joint_keeps_children_and_mesh_in_place() {
    let mut model = body();
    let elbow = node_of(&model, "elbow.L");
    let hand = node_of(&model, "hand.L");
    let hand_before = bind_position(&model, hand).unwrap();
    let target = DVec3::new(1.2, 1.15, -0.1);
    check_edit(&mut model, "move", |m| move_joint(m, elbow, target).unwrap());
    assert!((bind_position(&model, elbow).unwrap() - target).length() < 1e-12);
    assert!((bind_position(&model, hand).unwrap() - hand_before).length() < 1e-12, "the child stays");
    let NodeTransform::Trs(trs) = model.nodes.nodes[elbow].rest else { panic!() };
    assert_eq!(trs.rotation, glam::DQuat::IDENTITY, "only the translation changed");
}

#[test]
fn reparent_keeps_bind_positions_and_refuses_cycles() {
    let mut model = body();
    let (spine, hand, shoulder) = (node_of(&model, "spine"), node_of(&model, "hand.L"), node_of(&model, "shoulder.L"));
    let before = bind_position(&model, hand).unwrap();
    check_edit(&mut model, "reparent", |m| reparent(m, hand, Some(spine)).unwrap());
    assert_eq!(model.nodes.nodes[hand].parent, Some(spine));
    assert!((bind_position(&model, hand).unwrap() - before).length() < 1e-12);
    let elbow = node_of(&model, "elbow.L");
    let err = reparent(&mut model, shoulder, Some(elbow)).unwrap_err();
    assert!(matches!(err, SkeletonEditError::Cycle { .. }), "{err}");
    assert!(reparent(&mut model, shoulder, Some(shoulder)).is_err());
}

#[test]
fn rename_refuses_clashes_and_empty_names() {
    let mut model = body();
    let elbow = node_of(&model, "elbow.L");
    check_edit(&mut model, "rename", |m| rename_node(m, elbow, "forearm.L").unwrap());
    assert_eq!(model.nodes.key(elbow), "forearm.L");
    let err = rename_node(&mut model, elbow, "hand.L").unwrap_err();
    assert_eq!(err.to_string(), format!("the name \"hand.L\" is already used by node #{}", node_of(&model, "hand.L")));
    assert!(matches!(rename_node(&mut model, elbow, ""), Err(SkeletonEditError::EmptyName)));
    assert!(rename_node(&mut model, elbow, "a\nb").is_err());
    assert!(rename_node(&mut model, elbow, "forearm.L").is_ok(), "its own name is no clash");
}

#[test]
fn delete_moves_children_and_weights_to_the_parent() {
    let mut model = body();
    let (shoulder, elbow, hand) =
        (node_of(&model, "shoulder.L"), node_of(&model, "elbow.L"), node_of(&model, "hand.L"));
    let hand_pos = bind_position(&model, hand).unwrap();
    let n = model.meshes[0].primitives[0].positions.len();
    // Joints are nodes 0..6 and joint indices equal node indices in the synthetic rig.
    let expected: Vec<f32> = (0..n).map(|v| weight_of(&model, v, 2) + weight_of(&model, v, 3)).collect();
    let hand_w: Vec<f32> = (0..n).map(|v| weight_of(&model, v, 4)).collect();
    let rec = check_edit(&mut model, "delete", |m| delete_joint(m, elbow).unwrap());
    assert_eq!(rec.node_map()[elbow], None);
    assert_eq!(rec.node_map()[hand], Some(hand - 1));
    let hand = hand - 1;
    assert_eq!(model.nodes.key(hand), "hand.L");
    assert_eq!(model.nodes.nodes[hand].parent, Some(shoulder));
    assert!((bind_position(&model, hand).unwrap() - hand_pos).length() < 1e-12);
    assert_eq!(model.skins[0].joints.len(), 5);
    for v in 0..n {
        assert!((weight_of(&model, v, 2) - expected[v]).abs() < 1e-6, "vertex {v}: the parent took the weight");
        assert!((weight_of(&model, v, 3) - hand_w[v]).abs() < 1e-6, "vertex {v}: hand renumbered to 3");
        let inf = model.meshes[0].primitives[0].influences.as_ref().unwrap();
        let sum: f32 = inf.vertex(v, &model.skins[0].sets).map(|(_, w)| w).sum();
        assert!((sum - 1.0).abs() < 1e-6);
    }
    // The root has weights (through the right arm) and no parent joint.
    let spine = node_of(&model, "spine");
    let chest = node_of(&model, "chest");
    assert!(delete_joint(&mut model, chest).is_ok(), "chest's weights go to spine");
    let err = delete_joint(&mut model, spine).unwrap_err();
    assert!(matches!(err, SkeletonEditError::NoParentForWeights(_)), "{err}");
    let mesh_node = model.instances[0].node;
    assert!(delete_joint(&mut model, mesh_node).is_err(), "the mesh node is no joint");
}

#[test]
fn symmetrize_mirrors_names_positions_and_frames() {
    let mut model = body();
    let shoulder = node_of(&model, "shoulder.L");
    let elbow = node_of(&model, "elbow.L");
    // Give the left elbow a turned frame and a tail, so frames and tails are mirrored too.
    orient_joint(&mut model, elbow).unwrap();
    let rec = check_edit(&mut model, "symmetrize", |m| symmetrize(m, shoulder).unwrap().0);
    assert_eq!(rec.created().len(), 3);
    for name in ["shoulder", "elbow", "hand"] {
        let l = node_of(&model, &format!("{name}.L"));
        let r = node_of(&model, &format!("{name}.R"));
        let (pl, pr) = (bind_position(&model, l).unwrap(), bind_position(&model, r).unwrap());
        assert!((pr - DVec3::new(-pl.x, pl.y, pl.z)).length() < 1e-9, "{name}: {pl} mirrors to {pr}");
    }
    let (el, er) = (node_of(&model, "elbow.L"), node_of(&model, "elbow.R"));
    assert_eq!(model.nodes.nodes[er].parent, Some(node_of(&model, "shoulder.R")));
    assert_eq!(model.nodes.nodes[node_of(&model, "shoulder.R")].parent, Some(node_of(&model, "chest")));
    let (tl, tr) = (model.nodes.nodes[el].bone_tail.unwrap(), model.nodes.nodes[er].bone_tail.unwrap());
    assert!((tr - DVec3::new(-tl.x, tl.y, tl.z)).length() < 1e-9, "{tl} {tr}");
    let (rl, rr) = (model.nodes.nodes[el].bone_roll.unwrap(), model.nodes.nodes[er].bone_roll.unwrap());
    assert!((rl + rr).abs() < 1e-9, "mirrored rolls are opposite: {rl} {rr}");
    // Again: the right side exists now and is moved, not duplicated.
    let joints = model.skins[0].joints.len();
    let (rec, report) = symmetrize(&mut model, shoulder).unwrap();
    assert!(rec.created().is_empty() && report.created.is_empty());
    assert_eq!(report.updated.len(), 3, "{report:?}");
    assert_eq!(model.skins[0].joints.len(), joints);
    // A subtree on the plane has nothing to mirror.
    let chest = node_of(&model, "chest");
    let neck = add_joint(&mut model, chest, DVec3::new(0.0, 1.5, 0.0), "neck").unwrap().created()[0];
    assert!(matches!(symmetrize(&mut model, neck), Err(SkeletonEditError::NothingToMirror(_))));
}

fn names(pairs: &[(String, String)]) -> Vec<(&str, &str)> {
    pairs.iter().map(|(a, b)| (a.trim_matches('"'), b.trim_matches('"'))).collect()
}

#[test]
fn symmetrize_names_unmarked_joints_in_the_rigs_scheme_and_reports_them() {
    let mut model = body();
    // The user's scheme is `_l`/`_r`; the arm's lower joints have no side yet.
    for (old, new) in [("shoulder.L", "shoulder_l"), ("shoulder_stub.R", "stub_r"), ("elbow.L", "elbow")] {
        let n = node_of(&model, old);
        rename_node(&mut model, n, new).unwrap();
    }
    let hand = node_of(&model, "hand.L");
    rename_node(&mut model, hand, "joint").unwrap();
    let shoulder = node_of(&model, "shoulder_l");
    let (_, report) = check_edit_report(&mut model, shoulder);
    assert_eq!(names(&report.renamed), vec![("elbow", "elbow_l"), ("joint", "joint_l")]);
    assert_eq!(
        names(&report.created),
        vec![("shoulder_l", "shoulder_r"), ("elbow_l", "elbow_r"), ("joint_l", "joint_r")]
    );
    assert!(report.updated.is_empty() && report.skipped.is_empty() && report.unmatched.is_empty(), "{report:?}");
    assert_eq!(report.axis, 0);
    for name in ["shoulder", "elbow", "joint"] {
        let (l, r) = (node_of(&model, &format!("{name}_l")), node_of(&model, &format!("{name}_r")));
        let (pl, pr) = (bind_position(&model, l).unwrap(), bind_position(&model, r).unwrap());
        assert!((pr - DVec3::new(-pl.x, pl.y, pl.z)).length() < 1e-9, "{name}: {pl} mirrors to {pr}");
    }
    assert_eq!(model.nodes.nodes[node_of(&model, "joint_r")].parent, Some(node_of(&model, "elbow_r")));
    assert!(report.summary().starts_with("3 created, 0 updated, 2 renamed, 0 skipped, 0 unmatched"));
}

/// Symmetrize through `check_edit` (exact undo and redo, mesh in place), keeping the report.
fn check_edit_report(
    model: &mut Model,
    root: usize,
) -> (SkeletonRecord, skinlab::rig::skeleton_edit::SymmetrizeReport) {
    let mut report = None;
    let rec = check_edit(model, "symmetrize", |m| {
        let (rec, r) = symmetrize(m, root).unwrap();
        report = Some(r);
        rec
    });
    (rec, report.unwrap())
}

#[test]
fn symmetrize_from_the_middle_matches_existing_joints_by_name_and_position() {
    let mut model = body();
    // The right shoulder exists, unnamed by side, where the left one's mirror image lies.
    let stub = node_of(&model, "shoulder_stub.R");
    rename_node(&mut model, stub, "stub").unwrap();
    let chest = node_of(&model, "chest");
    let joints = model.skins[0].joints.len();
    let (rec, report) = check_edit_report(&mut model, chest);
    assert_eq!(names(&report.skipped), vec![("chest", "on the symmetry plane")]);
    assert_eq!(names(&report.updated), vec![("shoulder.L", "shoulder.R")]);
    assert_eq!(names(&report.renamed), vec![("stub", "shoulder.R")]);
    assert_eq!(names(&report.created), vec![("elbow.L", "elbow.R"), ("hand.L", "hand.R")]);
    assert_eq!(rec.created().len(), 2);
    assert_eq!(node_of(&model, "shoulder.R"), stub, "the existing joint was taken, not duplicated");
    assert_eq!(model.skins[0].joints.len(), joints + 2);
    assert_eq!(model.nodes.nodes[node_of(&model, "elbow.R")].parent, Some(stub));
    // Once more: everything exists now and is only updated.
    let (rec, report) = symmetrize(&mut model, chest).unwrap();
    assert!(rec.created().is_empty());
    assert_eq!(report.updated.len(), 3, "{report:?}");
    // A joint of the other side that no source mirrors onto is reported. (The side with more
    // joints is the source when the subtree's root lies on the plane.)
    let (hand_l, hand_r) = (node_of(&model, "hand.L"), node_of(&model, "hand.R"));
    add_joint(&mut model, hand_r, DVec3::new(-2.6, 1.0, 0.0), "claw.R").unwrap();
    add_joint(&mut model, hand_l, DVec3::new(2.6, 1.0, 0.1), "thumb.L").unwrap();
    add_joint(&mut model, hand_l, DVec3::new(2.6, 1.0, -0.1), "index.L").unwrap();
    let (_, report) = symmetrize(&mut model, chest).unwrap();
    assert_eq!(report.unmatched, vec!["\"claw.R\"".to_owned()], "{report:?}");
    assert_eq!(names(&report.created), vec![("thumb.L", "thumb.R"), ("index.L", "index.R")]);
}

#[test]
fn orient_aims_y_at_the_child_and_keeps_the_mesh() {
    let mut model = body();
    let (shoulder, elbow) = (node_of(&model, "shoulder.L"), node_of(&model, "elbow.L"));
    let elbow_pos = bind_position(&model, elbow).unwrap();
    check_edit(&mut model, "orient", |m| orient_joint(m, shoulder).unwrap());
    let frame = model.skins[0].joint_from_bind[shoulder].inverse();
    let y = DMat3::from_mat4(frame).y_axis.normalize();
    let head = bind_position(&model, shoulder).unwrap();
    assert!((y - (elbow_pos - head).normalize()).length() < 1e-9, "y {y}");
    assert!((bind_position(&model, elbow).unwrap() - elbow_pos).length() < 1e-12, "the child stays");
    let tail = model.nodes.nodes[shoulder].bone_tail.unwrap();
    assert!((tail - DVec3::new(0.0, 1.0, 0.0)).length() < 1e-9, "tail at the child along +Y: {tail}");
    assert!(model.nodes.nodes[shoulder].bone_roll.unwrap().is_finite());
    let hand = node_of(&model, "hand.L");
    assert!(matches!(orient_joint(&mut model, hand), Err(SkeletonEditError::NothingToAim(_))));
}

/// An unskinned model: a mesh node with a translation and no skin.
fn unskinned() -> Model {
    let mut model = build(&[joint("tmp", None, DVec3::ZERO)], &cylinder_mesh(2.0, 0.25, 5, 6));
    let mut nodes = vec![Node {
        name: Some("body".into()),
        rest: NodeTransform::Trs(Trs { translation: DVec3::new(0.0, 0.5, 0.0), ..Trs::default() }),
        mesh: Some(0),
        ..Node::default()
    }];
    nodes[0].children.clear();
    model.nodes = NodeTree::new(nodes, vec![0]);
    model.skins.clear();
    model.instances.clear();
    model.rigid_instances = vec![(0, 0)];
    model.meshes[0].primitives[0].influences = None;
    model
}

#[test]
fn create_skin_binds_everything_to_a_new_root() {
    let mut model = unskinned();
    let rec =
        check_edit(&mut model, "create skin", |m| create_skin(m, &[0], DVec3::new(0.1, 0.0, 0.0), "root").unwrap());
    let root = rec.created()[0];
    assert_eq!(model.skins.len(), 1);
    assert_eq!(model.skins[0].joints, vec![root]);
    assert_eq!(model.instances.len(), 1);
    assert!(model.rigid_instances.is_empty());
    assert_eq!(model.nodes.nodes[0].skin, Some(0));
    assert!((bind_position(&model, root).unwrap() - DVec3::new(0.1, 0.0, 0.0)).length() < 1e-12);
    // The mesh node's translation is baked into the inverse bind matrix: the rest pose draws the
    // mesh where the unskinned node drew it (0.5 up), not at the origin.
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(&model, &Pose::rest(), SkinningMethod::Lbs, &mut out);
    let p0 = model.meshes[0].primitives[0].positions[0];
    assert!((out[0][0].positions[0] - (p0 + Vec3::new(0.0, 0.5, 0.0))).length() < 1e-6);
    let child = check_edit(&mut model, "add", |m| add_joint(m, root, DVec3::new(1.0, 0.0, 0.0), "tip").unwrap());
    assert!((bind_position(&model, child.created()[0]).unwrap() - DVec3::X).length() < 1e-12);
    assert!(matches!(create_skin(&mut model, &[0], DVec3::ZERO, "r2"), Err(SkeletonEditError::AlreadySkinned(_))));
    assert!(matches!(create_skin(&mut model, &[root], DVec3::ZERO, "r2"), Err(SkeletonEditError::NoMesh(_))));
}

#[test]
fn edits_chained_with_then_undo_and_redo_as_one_record() {
    let mut model = body();
    // A clip keying the chest and the hand: the second delete changes the clips.
    let key = |node: usize| skinlab::model::animation::Channel {
        node,
        path: skinlab::model::animation::ChannelPath::Rotation,
        interpolation: skinlab::model::animation::Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.3, 0.95],
        key_interpolation: Vec::new(),
    };
    let channels = vec![key(node_of(&model, "chest")), key(node_of(&model, "hand.L"))];
    model.clips.push(skinlab::model::Clip { name: Some("wave".into()), channels, weights: Vec::new() });
    let before = state(&model);
    let (shoulder, elbow, hand) =
        (node_of(&model, "shoulder.L"), node_of(&model, "elbow.L"), node_of(&model, "hand.L"));
    let nodes_before = model.nodes.len();
    // A move, a delete (weights to the parent, node indices shift), an add under the hand (now
    // one index lower), a second delete (the chest: more weights, the arm shifts again) and a
    // move of the new joint.
    let moved = move_joint(&mut model, shoulder, DVec3::new(0.35, 1.05, 0.02)).unwrap();
    let deleted = delete_joint(&mut model, elbow).unwrap();
    let added = add_joint(&mut model, hand - 1, DVec3::new(2.9, 1.1, 0.05), "finger.L").unwrap();
    let new = added.created()[0];
    let chest = node_of(&model, "chest");
    let second = delete_joint(&mut model, chest).unwrap();
    let new_now = second.node_map()[new].unwrap();
    let last = move_joint(&mut model, new_now, DVec3::new(3.0, 1.2, 0.0)).unwrap();
    let after = state(&model);
    let chain = moved.then(deleted).then(added).then(second).then(last);
    assert_eq!(chain.label(), "Move Joint", "the chain is named as its first edit");
    assert_eq!(chain.node_map().len(), nodes_before);
    assert_eq!(chain.node_map()[elbow], None);
    assert_eq!(chain.node_map()[hand], Some(node_of(&model, "hand.L")));
    assert_eq!(chain.created(), [new_now], "the created joint, numbered after every edit");
    assert_eq!(chain.inverse_node_map()[new_now], None);
    assert!(!chain.weights().is_empty());
    chain.undo(&mut model);
    assert_eq!(state(&model), before, "undo of the chain restores the model bit for bit");
    chain.redo(&mut model);
    assert_eq!(state(&model), after, "redo of the chain restores the edits bit for bit");
}

/// Deleting joint `node` of skin 0, vertex by vertex as the contract of delete states it: the
/// vertex's pairs (pivot first, then ascending), the deleted joint's weight added to its parent
/// joint's in f64, every sum divided by the total, zeros dropped, joints above the deleted one
/// renumbered; then the stored state compared bit for bit.
fn check_delete_by_vertex(mut model: Model, node: usize) {
    let skin = &model.skins[0];
    let j = skin.joints.iter().position(|&n| n == node).unwrap() as u16;
    // The nearest ancestor that is a joint of the skin takes the weights.
    let mut up = model.nodes.nodes[node].parent;
    let parent = loop {
        let p = up.expect("a joint above the deleted one");
        if let Some(k) = skin.joints.iter().position(|&n| n == p) {
            break k as u16;
        }
        up = model.nodes.nodes[p].parent;
    };
    let old = model.clone();
    delete_joint(&mut model, node).unwrap();
    let mut changed = 0;
    for inst in old.instances.iter().filter(|i| i.skin == 0) {
        for (p, prim) in old.meshes[inst.mesh].primitives.iter().enumerate() {
            let Some(inf) = &prim.influences else { continue };
            let now = model.meshes[inst.mesh].primitives[p].influences.as_ref().unwrap();
            for v in 0..inf.len() {
                let pairs = inf.vertex_influences(v, &old.skins[0].sets).pairs;
                let got: Vec<(u16, u32)> = now
                    .vertex_influences(v, &model.skins[0].sets)
                    .pairs
                    .iter()
                    .map(|&(k, w)| (k, w.to_bits()))
                    .collect();
                let renumber = |k: u16| if k > j { k - 1 } else { k };
                if !pairs.iter().any(|&(k, _)| k == j) {
                    let same: Vec<(u16, u32)> = pairs.iter().map(|&(k, w)| (renumber(k), w.to_bits())).collect();
                    assert_eq!(got, same, "vertex {v} without the deleted joint is only renumbered");
                    continue;
                }
                changed += 1;
                let mut merged: Vec<(u16, f64)> = Vec::new();
                for &(k, w) in &pairs {
                    let k = if k == j { parent } else { k };
                    match merged.iter_mut().find(|m| m.0 == k) {
                        Some(m) => m.1 += f64::from(w),
                        None => merged.push((k, f64::from(w))),
                    }
                }
                let sum: f64 = merged.iter().map(|m| m.1).sum();
                let expected: Vec<(u16, u32)> = merged
                    .iter()
                    .filter(|m| m.1 > 0.0)
                    .map(|&(k, w)| (renumber(k), ((w / sum) as f32).to_bits()))
                    .collect();
                // The pivot goes first; the rest ascend.
                let mut want = expected.clone();
                let pivot = want
                    .iter()
                    .enumerate()
                    .fold(None::<(usize, f32)>, |best, (i, &(_, w))| match best {
                        Some((_, bw)) if bw >= f32::from_bits(w) => best,
                        _ => Some((i, f32::from_bits(w))),
                    })
                    .map_or(0, |b| b.0);
                let first = want.remove(pivot);
                want.sort_by_key(|x| x.0);
                want.insert(0, first);
                assert_eq!(got, want, "vertex {v}: the deleted joint's weight merged into its parent's");
            }
        }
    }
    assert!(changed > 0, "the deleted joint had weights");
}

#[test]
fn delete_merges_each_vertex_into_the_parent_bit_for_bit() {
    let mut model = body();
    // A vertex whose merge ties: hand 0.5 (its pivot), shoulder and elbow 0.25 each. Merged,
    // shoulder and hand both hold 0.5 and the pivot stays the hand, the first in its list.
    let (table, meshes) = (&mut model.skins[0].sets, &mut model.meshes);
    let inf = meshes[0].primitives[0].influences.as_mut().unwrap();
    table.grow_slots(4);
    inf.grow_slots(table.slots());
    inf.set_vertex_pairs(5, &[(4, 0.5), (2, 0.25), (3, 0.25)], table).unwrap();
    let elbow = node_of(&model, "elbow.L");
    check_delete_by_vertex(model, elbow);
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models/CesiumMan.glb"));
    let (model, _) = skinlab::io::load_document(path).unwrap();
    // The fourth joint: its weights cover much of the body.
    let joint = model.skins[0].joints[3];
    check_delete_by_vertex(model, joint);
}
