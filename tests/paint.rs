//! Weight painting through the library API: blend modes on a small mesh with known results, the
//! weight rules through dabs and tools, x-mirror painting, undo bit for bit, random strokes that
//! must keep every vertex valid, partial re-skinning equal to a full pass, and rigidity: a vertex
//! painted fully to one joint moves exactly with that joint under LBS, DQS and SBS.

#[path = "common/paint_rig.rs"]
mod paint_rig;

use glam::{DMat4, DQuat, DVec3, Vec3};
use proptest::prelude::*;
use skinlab::model::influences::VertexInfluences;
use skinlab::model::{
    Influences, JointSetTable, Mesh, Model, Node, NodeTransform, NodeTree, Primitive, Skin, SkinnedInstance, Topology,
    Trs,
};
use skinlab::paint::normalize::is_valid;
use skinlab::paint::{
    apply_dab, apply_surface_dab, footprint, pick, reskin_after_dab, tools, BlendMode, BrushSettings, Dab, DabTarget,
    Falloff, FootprintOptions, ModelTopology, Ray, StrokeRecord, SurfaceScratch, Touch, View, WeightRules,
};
use skinlab::rig::Pose;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

const TARGET: DabTarget = DabTarget { instance: 0, prim: 0 };

/// A 3 × 2 grid of vertices (0 1 2 on y = 0, 3 4 5 on y = 1) skinned to four joints at the origin.
///
/// ```text
/// 3 - 4 - 5
/// | / | / |
/// 0 - 1 - 2
/// ```
fn small_model(weights: &[&[(u16, f32)]]) -> Model {
    let mut nodes: Vec<Node> = (0..4)
        .map(|k| Node {
            name: Some(format!("j{k}")),
            parent: None,
            children: Vec::new(),
            rest: NodeTransform::Trs(Trs::default()),
            mesh: None,
            skin: None,
            ..Node::default()
        })
        .collect();
    nodes.push(Node {
        name: None,
        parent: None,
        children: Vec::new(),
        rest: NodeTransform::Trs(Trs::default()),
        mesh: Some(0),
        skin: Some(0),
        ..Node::default()
    });
    let positions: Vec<Vec3> = (0..6).map(|i| Vec3::new((i % 3) as f32, (i / 3) as f32, 0.0)).collect();
    let verts: Vec<VertexInfluences> = weights.iter().map(|w| VertexInfluences { pairs: w.to_vec() }).collect();
    let mut table = JointSetTable::new(4);
    let influences = Influences::from_vertices(&verts, &mut table).unwrap();
    Model {
        nodes: NodeTree::new(nodes, vec![0, 1, 2, 3, 4]),
        meshes: vec![Mesh {
            name: None,
            primitives: vec![Primitive {
                positions,
                normals: None,
                triangles: vec![[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]],
                topology: Topology::Triangles,
                influences: Some(influences),
            }],
        }],
        skins: vec![Skin {
            name: None,
            joints: vec![0, 1, 2, 3],
            joint_from_bind: vec![DMat4::IDENTITY; 4],
            sets: table,
        }],
        clips: Vec::new(),
        instances: vec![SkinnedInstance { node: 4, mesh: 0, skin: 0 }],
        rigid_instances: Vec::new(),
    }
}

const A: u16 = 0;
const B: u16 = 1;
const C: u16 = 2;

fn influences(model: &Model) -> &Influences {
    model.meshes[0].primitives[0].influences.as_ref().unwrap()
}

/// Vertex `v`'s weights, joints ascending.
fn weights(model: &Model, v: usize) -> Vec<(u16, f32)> {
    influences(model).vertex(v, &model.skins[0].sets).collect()
}

fn assert_weights(model: &Model, v: usize, expect: &[(u16, f32)]) {
    let got = weights(model, v);
    assert_eq!(got.len(), expect.len(), "vertex {v}: {got:?} vs {expect:?}");
    for (g, e) in got.iter().zip(expect) {
        assert!(g.0 == e.0 && (g.1 - e.1).abs() < 1e-6, "vertex {v}: {got:?} vs {expect:?}");
    }
}

fn brush(mode: BlendMode, strength: f32, value: f32) -> BrushSettings {
    BrushSettings { mode, strength, value, falloff: Falloff::Constant, ..BrushSettings::default() }
}

fn touches(vs: &[u32]) -> Vec<Touch> {
    vs.iter().map(|&v| Touch { vertex: v, distance: 0.0 }).collect()
}

fn dab(model: &mut Model, joint: u16, b: &BrushSettings, vs: &[u32], rules: &WeightRules) -> StrokeRecord {
    let topo = ModelTopology::new(model);
    let mut record = StrokeRecord::new("test");
    let t = touches(vs);
    apply_dab(model, TARGET, &Dab { joint, brush: b, radius: 1.0, touches: &t }, rules, &topo, &mut record).unwrap();
    record
}

#[test]
fn add_subtract_replace_on_known_weights() {
    let rules = WeightRules::default();
    let base: [&[(u16, f32)]; 6] =
        [&[(A, 1.0)], &[(A, 0.5), (B, 0.5)], &[(A, 1.0)], &[(A, 1.0)], &[(A, 1.0)], &[(A, 1.0)]];
    let mut m = small_model(&base);
    dab(&mut m, B, &brush(BlendMode::Add, 0.5, 0.0), &[0], &rules);
    assert_weights(&m, 0, &[(A, 0.5), (B, 0.5)]);
    dab(&mut m, B, &brush(BlendMode::Add, 0.25, 0.0), &[1], &rules);
    assert_weights(&m, 1, &[(A, 0.25), (B, 0.75)]);
    dab(&mut m, B, &brush(BlendMode::Subtract, 0.25, 0.0), &[1], &rules);
    assert_weights(&m, 1, &[(A, 0.5), (B, 0.5)]);
    dab(&mut m, C, &brush(BlendMode::Replace, 1.0, 0.3), &[2], &rules);
    assert_weights(&m, 2, &[(A, 0.7), (C, 0.3)]);
    dab(&mut m, C, &brush(BlendMode::Replace, 0.5, 1.0), &[2], &rules);
    assert_weights(&m, 2, &[(A, 0.35), (C, 0.65)]);
    // Subtracting a vertex's only joint: the weight has nowhere to go, so nothing changes.
    let record = dab(&mut m, A, &brush(BlendMode::Subtract, 1.0, 0.0), &[3], &rules);
    assert_weights(&m, 3, &[(A, 1.0)]);
    assert!(record.is_empty());
    // Subtract to zero next to another joint removes the joint.
    dab(&mut m, B, &brush(BlendMode::Subtract, 1.0, 0.0), &[1], &rules);
    assert_weights(&m, 1, &[(A, 1.0)]);
    // Untouched vertices keep their weights.
    assert_weights(&m, 4, &[(A, 1.0)]);
}

#[test]
fn smooth_averages_mesh_neighbours() {
    let rules = WeightRules::default();
    let w: [&[(u16, f32)]; 6] = [&[(A, 1.0)], &[(B, 1.0)], &[(A, 1.0)], &[(C, 1.0)], &[(A, 1.0)], &[(A, 1.0)]];
    // Vertex 1's neighbours are 0, 2, 4, 5 (all A).
    let mut m = small_model(&w);
    dab(&mut m, A, &brush(BlendMode::Smooth, 1.0, 0.0), &[1], &rules);
    assert_weights(&m, 1, &[(A, 1.0)]);
    let mut m = small_model(&w);
    dab(&mut m, A, &brush(BlendMode::Smooth, 0.5, 0.0), &[1], &rules);
    assert_weights(&m, 1, &[(A, 0.5), (B, 0.5)]);
    // Vertex 4's neighbours are 0 (A), 1 (B), 3 (C), 5 (A); targets come from the weights before
    // the dab, so smoothing 1 and 4 together does not see 1's new value.
    let mut m = small_model(&w);
    dab(&mut m, A, &brush(BlendMode::Smooth, 1.0, 0.0), &[1, 4], &rules);
    assert_weights(&m, 1, &[(A, 1.0)]);
    assert_weights(&m, 4, &[(A, 0.5), (B, 0.25), (C, 0.25)]);
    // Neighbours without influence do not count: 1's mean over 0, 2, 4 is A 2/3, B 1/3.
    let w: [&[(u16, f32)]; 6] = [&[(A, 1.0)], &[(C, 1.0)], &[(B, 1.0)], &[(A, 1.0)], &[(A, 1.0)], &[]];
    let mut m = small_model(&w);
    dab(&mut m, A, &brush(BlendMode::Smooth, 0.5, 0.0), &[1], &rules);
    assert_weights(&m, 1, &[(A, 1.0 / 3.0), (B, 1.0 / 6.0), (C, 0.5)]);
    assert_weights(&m, 5, &[]);
}

#[test]
fn blur_moves_towards_the_footprint_mean() {
    let rules = WeightRules::default();
    let w: [&[(u16, f32)]; 6] = [&[(A, 1.0)], &[(B, 1.0)], &[(A, 1.0)], &[(A, 1.0)], &[(A, 1.0)], &[(A, 1.0)]];
    let mut m = small_model(&w);
    dab(&mut m, A, &brush(BlendMode::Blur, 1.0, 0.0), &[0, 1, 2], &rules);
    for v in 0..3 {
        assert_weights(&m, v, &[(A, 2.0 / 3.0), (B, 1.0 / 3.0)]);
    }
    let mut m = small_model(&w);
    dab(&mut m, A, &brush(BlendMode::Blur, 0.5, 0.0), &[0, 1, 2], &rules);
    assert_weights(&m, 1, &[(A, 1.0 / 3.0), (B, 2.0 / 3.0)]);
    assert_weights(&m, 0, &[(A, 5.0 / 6.0), (B, 1.0 / 6.0)]);
    // Falloff weighs the footprint: vertex 1 at the rim counts for nothing.
    let mut m = small_model(&w);
    let topo = ModelTopology::new(&m);
    let b =
        BrushSettings { mode: BlendMode::Blur, strength: 1.0, falloff: Falloff::Linear, ..BrushSettings::default() };
    let t = [Touch { vertex: 0, distance: 0.0 }, Touch { vertex: 1, distance: 1.0 }];
    let mut rec = StrokeRecord::new("blur");
    apply_dab(&mut m, TARGET, &Dab { joint: A, brush: &b, radius: 1.0, touches: &t }, &rules, &topo, &mut rec).unwrap();
    assert_weights(&m, 1, &[(B, 1.0)]);
    assert!(rec.is_empty());
}

#[test]
fn locked_joints_keep_their_weights_under_every_mode() {
    let mut rules = WeightRules::default();
    rules.set_locked(A, true);
    let w: [&[(u16, f32)]; 6] = [
        &[(A, 0.4), (B, 0.6)],
        &[(A, 0.2), (B, 0.3), (C, 0.5)],
        &[(C, 1.0)],
        &[(B, 1.0)],
        &[(A, 0.5), (C, 0.5)],
        &[(A, 1.0)],
    ];
    for mode in BlendMode::ALL {
        let mut m = small_model(&w);
        let before: Vec<f32> =
            (0..6).map(|v| skinlab::paint::display::joint_weight(influences(&m), &m.skins[0].sets, v, A)).collect();
        dab(&mut m, C, &brush(mode, 0.7, 0.9), &[0, 1, 2, 3, 4, 5], &rules);
        for v in 0..6 {
            let after = skinlab::paint::display::joint_weight(influences(&m), &m.skins[0].sets, v, A);
            assert_eq!(after.to_bits(), before[v].to_bits(), "{mode:?} vertex {v}");
            assert!(is_valid(&weights(&m, v)), "{mode:?} vertex {v}: {:?}", weights(&m, v));
        }
    }
    // Painting a locked joint does nothing.
    let mut m = small_model(&w);
    let rec = dab(&mut m, A, &brush(BlendMode::Add, 1.0, 0.0), &[0, 1], &rules);
    assert!(rec.is_empty());
    // Add next to a lock: the free joints share what the lock leaves.
    let mut m = small_model(&w);
    dab(&mut m, C, &brush(BlendMode::Add, 0.2, 0.0), &[0], &rules);
    assert_weights(&m, 0, &[(A, 0.4), (B, 0.4), (C, 0.2)]);
}

#[test]
fn influence_limit_is_enforced_by_dabs() {
    let rules = WeightRules { limit: 2, ..WeightRules::default() };
    let w: [&[(u16, f32)]; 6] =
        [&[(A, 0.7), (B, 0.3)], &[(A, 1.0)], &[(A, 1.0)], &[(A, 1.0)], &[(A, 1.0)], &[(A, 1.0)]];
    let mut m = small_model(&w);
    dab(&mut m, C, &brush(BlendMode::Replace, 1.0, 0.2), &[0], &rules);
    // A 0.56, B 0.24, C 0.2 → B dropped (smallest that is not the painted joint), A takes 0.8.
    assert_weights(&m, 0, &[(A, 0.8), (C, 0.2)]);
    // Smooth over many joints stays within the limit.
    let w: [&[(u16, f32)]; 6] = [&[(A, 1.0)], &[(B, 1.0)], &[(C, 1.0)], &[(3, 1.0)], &[(B, 1.0)], &[(C, 1.0)]];
    let mut m = small_model(&w);
    dab(&mut m, A, &brush(BlendMode::Smooth, 0.9, 0.0), &[0, 1, 2, 3, 4, 5], &rules);
    for v in 0..6 {
        let ws = weights(&m, v);
        assert!(ws.len() <= 2 && is_valid(&ws), "vertex {v}: {ws:?}");
    }
}

#[test]
fn tools_clean_limit_normalize_and_smooth() {
    let w: [&[(u16, f32)]; 6] = [
        &[(A, 0.02), (B, 0.9), (C, 0.08)],
        &[(A, 0.25), (B, 0.25), (C, 0.25), (3, 0.25)],
        &[(C, 1.0)],
        &[(B, 1.0)],
        &[(A, 0.01), (C, 0.99)],
        &[(A, 1.0)],
    ];
    let rules = WeightRules::default();
    let mut m = small_model(&w);
    let topo = ModelTopology::new(&m);
    let mut rec = StrokeRecord::new("clean");
    let out = tools::clean(&mut m, &topo, &rules, 0.05, &mut rec).unwrap();
    assert_eq!(out.changed, 2);
    assert_weights(&m, 0, &[(B, 0.9 / 0.98), (C, 0.08 / 0.98)]);
    assert_weights(&m, 4, &[(C, 1.0)]);
    assert_weights(&m, 1, &[(A, 0.25), (B, 0.25), (C, 0.25), (3, 0.25)]);
    rec.undo(&mut m);
    assert_weights(&m, 0, &[(A, 0.02), (B, 0.9), (C, 0.08)]);

    let limit2 = WeightRules { limit: 2, ..WeightRules::default() };
    let mut rec = StrokeRecord::new("limit");
    let out = tools::limit_total(&mut m, &topo, &limit2, &mut rec).unwrap();
    assert_eq!(out.changed, 2);
    assert_weights(&m, 0, &[(B, 0.9 / 0.98), (C, 0.08 / 0.98)]);
    assert_eq!(weights(&m, 1).len(), 2);
    assert!(is_valid(&weights(&m, 1)));

    let mut rec = StrokeRecord::new("normalize");
    let out = tools::normalize_all(&mut m, &topo, &rules, &mut rec).unwrap();
    assert!(out.changed <= 6);
    for v in 0..6 {
        assert!(is_valid(&weights(&m, v)));
    }

    // Smooth All converges towards a common value and keeps locks.
    let mut locked = WeightRules::default();
    locked.set_locked(A, true);
    let mut m = small_model(&w);
    let topo = ModelTopology::new(&m);
    let before_a: Vec<f32> =
        (0..6).map(|v| skinlab::paint::display::joint_weight(influences(&m), &m.skins[0].sets, v, A)).collect();
    let mut rec = StrokeRecord::new("smooth all");
    let out = tools::smooth_all(&mut m, &topo, &locked, 0.5, 10, &mut rec).unwrap();
    assert!(out.changed > 0);
    for v in 0..6 {
        let ws = weights(&m, v);
        assert!(is_valid(&ws) && ws.len() <= 4, "vertex {v}: {ws:?}");
        let a = skinlab::paint::display::joint_weight(influences(&m), &m.skins[0].sets, v, A);
        assert_eq!(a.to_bits(), before_a[v].to_bits(), "locked A on vertex {v}");
    }
    rec.undo(&mut m);
    assert_eq!(influences(&m), influences(&small_model(&w)));
}

/// Every bit of a primitive's stored influences.
fn bits(inf: &Influences) -> (Vec<u32>, Vec<u32>) {
    (inf.weights().iter().map(|w| w.to_bits()).collect(), inf.packed_sets().to_vec())
}

#[test]
fn undo_restores_bit_for_bit_including_tied_pivots() {
    // Vertex 0 has tied weights in file order (C, A): the pivot is C, which sorts second.
    let w: [&[(u16, f32)]; 6] =
        [&[(C, 0.5), (A, 0.5)], &[(A, 0.3), (B, 0.7)], &[(A, 1.0)], &[(A, 1.0)], &[(B, 1.0)], &[(A, 1.0)]];
    let mut m = small_model(&w);
    let original = bits(influences(&m));
    let original_lookups: Vec<Vec<(u16, f32)>> = (0..6).map(|v| weights(&m, v)).collect();
    let mut stroke = StrokeRecord::new("stroke");
    for (mode, joint) in [(BlendMode::Add, B), (BlendMode::Smooth, A), (BlendMode::Replace, 3), (BlendMode::Blur, A)] {
        let rec = dab(&mut m, joint, &brush(mode, 0.6, 0.4), &[0, 1, 2, 4], &WeightRules::default());
        stroke.merge(&rec);
    }
    let painted = bits(influences(&m));
    assert_ne!(painted, original);
    let sets_after_paint = m.skins[0].sets.len();
    let touched = stroke.undo(&mut m);
    assert_eq!(bits(influences(&m)), original, "undo is bit for bit");
    for v in 0..6 {
        assert_eq!(weights(&m, v), original_lookups[v], "table lookup of vertex {v}");
    }
    assert_eq!(Influences::unpack(influences(&m).packed_sets()[0]).1, 1, "pivot C kept");
    assert_eq!(touched.len(), 1);
    assert_eq!(touched[0].vertices, vec![0, 1, 2, 4]);
    assert_eq!(m.skins[0].sets.len(), sets_after_paint, "tables never shrink");
    stroke.redo(&mut m);
    assert_eq!(bits(influences(&m)), painted, "redo is bit for bit");
    stroke.undo(&mut m);
    assert_eq!(bits(influences(&m)), original);
}

fn posed(model: &Model) -> Pose {
    let mut pose = Pose::rest();
    let find = |name: &str| model.nodes.nodes.iter().position(|n| n.name.as_deref() == Some(name));
    let mut rotate = |name: &str, q: DQuat| {
        if let Some(i) = find(name) {
            pose.set_rotation(i, q);
        }
    };
    rotate("Spine", DQuat::from_rotation_y(0.3));
    rotate("seg1.L", DQuat::from_rotation_z(0.9));
    rotate("seg2.L", DQuat::from_rotation_x(1.2) * DQuat::from_rotation_z(-0.5));
    rotate("seg1.R", DQuat::from_rotation_y(-1.1));
    if let Some(i) = find("seg1.R") {
        pose.set_translation(i, DVec3::new(-1.0, 0.2, 0.1));
    }
    pose
}

/// A ray at the deformed surface near the rest point at axial position `x`, angle `a`: aimed at
/// the centroid of a triangle at the nearest vertex, along that vertex's deformed normal, from 3
/// units away.
fn side_ray(out: &[Vec<DeformedPrimitive>], model: &Model, x: f32, a: f32) -> Ray {
    let target = Vec3::new(x, paint_rig::RADIUS * a.cos(), paint_rig::RADIUS * a.sin());
    let prim = &model.meshes[0].primitives[0];
    let rest = &prim.positions;
    let v = (0..rest.len()).min_by(|&i, &j| rest[i].distance(target).total_cmp(&rest[j].distance(target))).unwrap();
    let tri = prim.triangles.iter().find(|t| t.contains(&(v as u32))).unwrap();
    let d = &out[0][0];
    let c = tri.iter().fold(Vec3::ZERO, |acc, &k| acc + d.positions[k as usize]) / 3.0;
    let n = d.normals[v];
    Ray { origin: c + n * 3.0, direction: -n }
}

/// pick → footprint → dab → re-skin, as the editor does it; returns what the dab changed.
#[allow(clippy::too_many_arguments)]
fn stroke_at(
    model: &mut Model,
    topo: &ModelTopology,
    deformer: &mut Deformer,
    pose: &Pose,
    out: &mut Vec<Vec<DeformedPrimitive>>,
    at: (f32, f32),
    joint: u16,
    b: &BrushSettings,
    radius: f32,
    rules: &WeightRules,
    record: &mut StrokeRecord,
) -> Option<skinlab::paint::DabOutcome> {
    let ray = side_ray(out, model, at.0, at.1);
    let prim = &model.meshes[0].primitives[0];
    let deformed = &out[0][0];
    let hit = pick(&ray, &deformed.positions, &prim.triangles)?;
    let (target, model_hit) = skinlab::paint::pick_model(&ray, model, out).expect("pick_model agrees");
    assert_eq!((target, model_hit), (TARGET, hit));
    let mut touches = Vec::new();
    let options = FootprintOptions {
        radius,
        whole_volume: b.whole_volume,
        front_faces_only: b.front_faces_only,
        view: Some(View::Perspective { eye: ray.origin }),
    };
    footprint(
        &hit,
        &deformed.positions,
        &deformed.normals,
        &prim.triangles,
        topo.surface.adjacency(),
        &options,
        &mut SurfaceScratch::default(),
        &mut touches,
    );
    let outcome =
        apply_dab(model, TARGET, &Dab { joint, brush: b, radius, touches: &touches }, rules, topo, record).unwrap();
    reskin_after_dab(deformer, model, pose, &outcome, out);
    Some(outcome)
}

#[test]
fn painting_fully_to_one_joint_makes_vertices_rigid_under_every_method() {
    for method in SkinningMethod::ALL {
        let mut m = paint_rig::cylinder_rig(41, 16, 2, 4);
        let topo = ModelTopology::new(&m);
        let pose = posed(&m);
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        deformer.deform_all(&m, &pose, method, &mut out);
        let j = paint_rig::joint(&m, "seg1.L");
        let b = BrushSettings {
            mode: BlendMode::Replace,
            value: 1.0,
            strength: 1.0,
            falloff: Falloff::Constant,
            ..BrushSettings::default()
        };
        let mut rec = StrokeRecord::new("rigid");
        // Between seg1.L (x = 1) and seg2.L (x = 2), where the rig blends two joints.
        let outcome = stroke_at(
            &mut m,
            &topo,
            &mut deformer,
            &pose,
            &mut out,
            (1.5, 0.4),
            j,
            &b,
            0.3,
            &WeightRules::default(),
            &mut rec,
        )
        .unwrap();
        assert!(outcome.touched.len() > 10, "{}", outcome.touched.len());
        let c = deformer.skin_frame(0).model_from_bind[j as usize];
        let prim = &m.meshes[0].primitives[0];
        for &v in &outcome.touched {
            assert_eq!(weights(&m, v as usize), vec![(j, 1.0)]);
            let expect = c.transform_point3(prim.positions[v as usize].as_dvec3()).as_vec3();
            let got = out[0][0].positions[v as usize];
            assert!((got - expect).length() < 1e-5, "{method}: vertex {v}: {got} vs {expect}");
            let n = prim.normals.as_ref().unwrap()[v as usize].as_dvec3();
            let expect_n = c.transform_vector3(n).normalize().as_vec3();
            assert!((out[0][0].normals[v as usize] - expect_n).length() < 1e-5, "{method}: normal of {v}");
        }
    }
}

#[test]
fn partial_reskin_equals_a_full_pass() {
    for method in SkinningMethod::ALL {
        let mut m = paint_rig::cylinder_rig(41, 16, 3, 4);
        let topo = ModelTopology::new(&m);
        let pose = posed(&m);
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        deformer.deform_all(&m, &pose, method, &mut out);
        let sets_before = m.skins[0].sets.len();
        let mut rec = StrokeRecord::new("paint");
        let spine = paint_rig::joint(&m, "Spine");
        let seg3 = paint_rig::joint(&m, "seg3.R");
        for (i, (x, joint)) in [(0.5, spine), (-1.2, seg3), (1.7, spine)].into_iter().enumerate() {
            let b =
                BrushSettings { mode: BlendMode::Add, strength: 0.4, whole_volume: i == 1, ..BrushSettings::default() };
            stroke_at(
                &mut m,
                &topo,
                &mut deformer,
                &pose,
                &mut out,
                (x, 0.3 * i as f32),
                joint,
                &b,
                0.6,
                &WeightRules::default(),
                &mut rec,
            )
            .unwrap();
        }
        assert!(m.skins[0].sets.len() > sets_before, "new three-joint sets were interned");
        let mut fresh = Vec::new();
        Deformer::new().deform_all(&m, &pose, method, &mut fresh);
        assert_eq!(out, fresh, "{method}: incremental sets + partial re-skin == full pass");
        // Undo, re-skin what it touched, and compare again.
        let touched = rec.undo(&mut m);
        for t in touched {
            assert!(deformer.deform_vertices(&m, &m.instances[0], t.prim, &t.vertices, &mut out[0][t.prim]));
        }
        Deformer::new().deform_all(&m, &pose, method, &mut fresh);
        assert_eq!(out, fresh, "{method}: after undo");
    }
}

#[test]
fn one_slot_tables_grow_to_the_limit() {
    let mut m = paint_rig::cylinder_rig(21, 8, 1, 1);
    assert_eq!(m.skins[0].sets.slots(), 1);
    let topo = ModelTopology::new(&m);
    let pose = posed(&m);
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(&m, &pose, SkinningMethod::Sbs, &mut out);
    let before = out.clone();
    let mut rec = StrokeRecord::new("grow");
    let b = BrushSettings { mode: BlendMode::Add, strength: 0.5, ..BrushSettings::default() };
    let j = paint_rig::joint(&m, "seg1.L");
    let outcome = stroke_at(
        &mut m,
        &topo,
        &mut deformer,
        &pose,
        &mut out,
        (0.2, 0.0),
        j,
        &b,
        0.4,
        &WeightRules::default(),
        &mut rec,
    )
    .unwrap();
    assert!(outcome.layout_changed);
    assert_eq!(m.skins[0].sets.slots(), 4);
    assert_eq!(influences(&m).slots(), 4);
    for v in 0..before[0][0].positions.len() {
        if !outcome.touched.contains(&(v as u32)) {
            assert!((out[0][0].positions[v] - before[0][0].positions[v]).length() < 1e-6, "vertex {v} moved");
        }
    }
    for &v in &outcome.touched {
        assert_eq!(weights(&m, v as usize).len(), 2);
    }
    // Undo after growing: same weights and set ids (rows padded with zeros).
    rec.undo(&mut m);
    let original = paint_rig::cylinder_rig(21, 8, 1, 1);
    let (o, u) = (influences(&original), influences(&m));
    assert_eq!(o.packed_sets(), u.packed_sets());
    for v in 0..o.len() {
        assert_eq!(
            o.vertex(v, &original.skins[0].sets).collect::<Vec<_>>(),
            u.vertex(v, &m.skins[0].sets).collect::<Vec<_>>()
        );
    }
}

#[test]
fn mirror_painting_paints_the_other_side_with_the_mirrored_joint() {
    let mut m = paint_rig::cylinder_rig(41, 16, 2, 4);
    let topo = ModelTopology::new(&m);
    assert_eq!(topo.mirror.matched(), m.meshes[0].primitives[0].positions.len());
    let left = paint_rig::joint(&m, "seg1.L");
    let right = paint_rig::joint(&m, "seg1.R");
    assert_eq!(topo.mirror_joint(left), right);
    assert_eq!(topo.mirror_joint(paint_rig::joint(&m, "Spine")), paint_rig::joint(&m, "Spine"));
    let pose = Pose::rest();
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(&m, &pose, SkinningMethod::Lbs, &mut out);
    let b = BrushSettings {
        mode: BlendMode::Replace,
        value: 0.8,
        strength: 0.7,
        mirror_x: true,
        ..BrushSettings::default()
    };
    let mut rec = StrokeRecord::new("mirror");
    let outcome = stroke_at(
        &mut m,
        &topo,
        &mut deformer,
        &pose,
        &mut out,
        (0.6, 1.0),
        left,
        &b,
        0.5,
        &WeightRules::default(),
        &mut rec,
    )
    .unwrap();
    let mirror = &topo.mirror;
    let table = &m.skins[0].sets;
    let inf = influences(&m);
    let w = |v: u32, j: u16| skinlab::paint::display::joint_weight(inf, table, v as usize, j);
    let mut mirrored = 0;
    for &v in &outcome.touched {
        let mv = mirror.get(v).unwrap();
        if w(v, left) > 0.0 {
            assert!((w(v, left) - w(mv, right)).abs() < 1e-6, "vertex {v} / {mv}");
            mirrored += 1;
        }
        assert!(outcome.touched.contains(&mv), "mirror of {v} touched");
    }
    assert!(mirrored > 10);
    // The painted side is x > 0 only (plus its mirror).
    let prim = &m.meshes[0].primitives[0];
    assert!(outcome.touched.iter().any(|&v| prim.positions[v as usize].x < -0.1));
}

#[test]
fn front_faces_only_spares_the_far_side() {
    let m = paint_rig::cylinder_rig(41, 16, 2, 4);
    let topo = ModelTopology::new(&m);
    let pose = Pose::rest();
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(&m, &pose, SkinningMethod::Lbs, &mut out);
    let j = paint_rig::joint(&m, "seg2.L");
    for front in [true, false] {
        let mut m2 = m.clone();
        let b = BrushSettings {
            mode: BlendMode::Add,
            strength: 1.0,
            whole_volume: true,
            front_faces_only: front,
            ..BrushSettings::default()
        };
        let mut rec = StrokeRecord::new("volume");
        let outcome = stroke_at(
            &mut m2,
            &topo,
            &mut deformer,
            &pose,
            &mut out,
            (0.0, 0.0),
            j,
            &b,
            1.2,
            &WeightRules::default(),
            &mut rec,
        )
        .unwrap();
        // The ray comes from +y: the far side is y < 0.
        let far = outcome.touched.iter().any(|&v| m2.meshes[0].primitives[0].positions[v as usize].y < -0.2);
        assert_eq!(far, !front, "front_faces_only = {front}");
        deformer.deform_all(&m, &pose, SkinningMethod::Lbs, &mut out);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5EED_5EED),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_strokes_keep_every_vertex_valid_and_undo_exactly(
        dabs in prop::collection::vec(
            (0usize..5, 0u16..5, 0.0f32..1.0, 0usize..4, 0.05f32..1.5, -2.2f32..2.2, 0.0f32..6.3, any::<bool>(), any::<bool>(), any::<bool>(), 0.0f32..1.0),
            1..8),
        limit in 1usize..5,
        lock in prop::option::of(0u16..5),
        method in 0usize..3,
    ) {
        let mut m = paint_rig::cylinder_rig(25, 10, 2, 4);
        let original = bits(influences(&m));
        let topo = ModelTopology::new(&m);
        let pose = posed(&m);
        let method = SkinningMethod::ALL[method];
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        deformer.deform_all(&m, &pose, method, &mut out);
        let mut rules = WeightRules { limit, ..WeightRules::default() };
        if let Some(j) = lock {
            rules.set_locked(j, true);
        }
        let mut records = Vec::new();
        let mut landed = 0;
        for (mode, joint, strength, falloff, radius, x, a, volume, front, mirror, value) in dabs {
            let b = BrushSettings {
                mode: BlendMode::ALL[mode],
                strength,
                falloff: Falloff::ALL[falloff],
                value,
                whole_volume: volume,
                front_faces_only: front,
                mirror_x: mirror,
                ..BrushSettings::default()
            };
            let mut rec = StrokeRecord::new("random");
            let outcome = stroke_at(&mut m, &topo, &mut deformer, &pose, &mut out, (x, a), joint, &b, radius, &rules, &mut rec);
            landed += usize::from(outcome.is_some());
            if let Some(outcome) = outcome {
                for &v in &outcome.touched {
                    let ws = weights(&m, v as usize);
                    prop_assert!(is_valid(&ws), "vertex {}: {:?}", v, ws);
                    prop_assert!(ws.len() <= rules.limit(), "limit {} exceeded on {}: {:?}", rules.limit(), v, ws);
                }
            }
            records.push(rec);
        }
        prop_assert!(landed > 0, "every ray aims at the surface");
        let inf = influences(&m);
        for v in 0..inf.len() {
            let ws = weights(&m, v);
            prop_assert!(is_valid(&ws), "vertex {}: {:?}", v, ws);
        }
        prop_assert!(out[0][0].positions.iter().all(|p| p.is_finite()));
        let mut fresh = Vec::new();
        Deformer::new().deform_all(&m, &pose, method, &mut fresh);
        prop_assert_eq!(&out, &fresh);
        for rec in records.iter().rev() {
            rec.undo(&mut m);
        }
        let undone = bits(influences(&m));
        prop_assert_eq!(&undone.1, &original.1);
        // Weights: equal bits in the original slots (growth pads rows with zeros).
        let k0 = original.0.len() / undone.1.len();
        let k1 = undone.0.len() / undone.1.len();
        for v in 0..undone.1.len() {
            prop_assert_eq!(&undone.0[v * k1..v * k1 + k0], &original.0[v * k0..v * k0 + k0]);
            prop_assert!(undone.0[v * k1 + k0..(v + 1) * k1].iter().all(|&b| b == 0));
        }
    }
}

#[test]
fn painted_weights_survive_a_roundtrip_through_per_vertex_slots() {
    // What any weights file or glTF writer stores: per vertex, `slots` (joint, weight) pairs.
    let mut m = paint_rig::cylinder_rig(41, 16, 2, 4);
    let topo = ModelTopology::new(&m);
    let pose = posed(&m);
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(&m, &pose, SkinningMethod::Sbs, &mut out);
    let mut rec = StrokeRecord::new("paint");
    let mut edited = skinlab::paint::EditedVertices::new();
    for (x, name) in [(0.4, "seg2.R"), (-1.0, "Spine"), (1.3, "seg1.R")] {
        let b = BrushSettings { mode: BlendMode::Add, strength: 0.6, ..BrushSettings::default() };
        let j = paint_rig::joint(&m, name);
        stroke_at(
            &mut m,
            &topo,
            &mut deformer,
            &pose,
            &mut out,
            (x, 0.5),
            j,
            &b,
            0.5,
            &WeightRules::default(),
            &mut rec,
        )
        .unwrap();
    }
    edited.note(&rec);
    assert!(edited.is_dirty() && edited.len() == rec.len());
    assert_eq!(edited.primitives().collect::<Vec<_>>(), vec![(0, 0)]);
    let table = &m.skins[0].sets;
    let inf = influences(&m);
    let slots = table.slots();
    let mut reloaded_table = JointSetTable::new(slots);
    let verts: Vec<VertexInfluences> = (0..inf.len())
        .map(|v| {
            let mut joints = vec![0u32; slots];
            let mut ws = vec![0.0f32; slots];
            for (s, (j, w)) in inf.vertex(v, table).enumerate() {
                joints[s] = u32::from(j);
                ws[s] = w;
            }
            VertexInfluences::from_slots(v, &joints, &ws, m.skins[0].joints.len()).unwrap()
        })
        .collect();
    let mut reloaded = m.clone();
    reloaded.meshes[0].primitives[0].influences = Some(Influences::from_vertices(&verts, &mut reloaded_table).unwrap());
    reloaded.skins[0].sets = reloaded_table;
    let mut again = Vec::new();
    Deformer::new().deform_all(&reloaded, &pose, SkinningMethod::Sbs, &mut again);
    for (a, b) in again[0][0].positions.iter().zip(&out[0][0].positions) {
        assert!((*a - *b).length() < 1e-5, "{a} vs {b}");
    }
    for v in 0..inf.len() {
        let (x, y) = (weights(&m, v), weights(&reloaded, v));
        assert_eq!(x.len(), y.len());
        assert!(x.iter().zip(&y).all(|(p, q)| p.0 == q.0 && (p.1 - q.1).abs() < 1e-6), "vertex {v}");
    }
}

/// The footprint of a dab at `hit` on primitive `target` over the whole surface (surface
/// vertices), as the editor gathers it.
fn surface_footprint(
    topo: &ModelTopology,
    m: &Model,
    out: &[Vec<DeformedPrimitive>],
    target: DabTarget,
    hit: &skinlab::paint::Hit,
    opts: &FootprintOptions,
    touches: &mut Vec<Touch>,
) {
    let s = &topo.surface;
    let part = s.parts()[s.part_of(m.instances[target.instance].mesh, target.prim).unwrap()];
    let hit = skinlab::paint::Hit {
        triangle: hit.triangle + part.first_triangle as usize,
        vertex: hit.vertex + part.first_vertex,
        ..*hit
    };
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    s.gather_deformed(out, &mut positions, &mut normals);
    footprint(&hit, &positions, &normals, s.triangles(), s.adjacency(), opts, &mut SurfaceScratch::default(), touches);
}

/// The shared real models, loaded when present.
fn real_models() -> Vec<(String, Model)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models");
    let names = [
        "RiggedSimple.glb",
        "RiggedFigure.glb",
        "CesiumMan.glb",
        "Fox.glb",
        "Knight.glb",
        "Character_HumanoidRig.glb",
        "Enemy_Flying_Gun.glb",
        "Stegosaurus.glb",
    ];
    names
        .iter()
        .filter_map(|n| {
            let path = std::path::Path::new(dir).join(n);
            path.exists().then(|| (n.to_string(), skinlab::io::load_model(&path).unwrap()))
        })
        .collect()
}

#[test]
fn real_models_keep_every_invariant_under_painting() {
    for (name, mut m) in real_models() {
        let topo = ModelTopology::new(&m);
        let original: Vec<Vec<Option<(Vec<u32>, Vec<u32>)>>> = m
            .meshes
            .iter()
            .map(|mesh| mesh.primitives.iter().map(|p| p.influences.as_ref().map(bits)).collect())
            .collect();
        let pairs: usize = topo.joint_mirrors.iter().enumerate().filter(|(j, &k)| *j != k as usize).count();
        let pose = Pose::rest();
        let method = SkinningMethod::Sbs;
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        deformer.deform_all(&m, &pose, method, &mut out);
        let (lo, hi) = m.rest_bounds();
        let diag = lo.distance(hi);
        let mut records = Vec::new();
        let mut landed = 0;
        for (i, mode) in [BlendMode::Add, BlendMode::Smooth, BlendMode::Replace, BlendMode::Blur, BlendMode::Subtract]
            .into_iter()
            .enumerate()
        {
            for (inst_i, inst) in m.instances.clone().iter().enumerate() {
                let prims = m.meshes[inst.mesh].primitives.len();
                let prim = i % prims;
                let buf = &out[inst_i][prim];
                if buf.positions.is_empty() || m.meshes[inst.mesh].primitives[prim].influences.is_none() {
                    continue;
                }
                let v = (buf.positions.len() * (i + 1)) / 7;
                let centre = buf.positions.iter().fold(Vec3::ZERO, |a, p| a + *p) / buf.positions.len() as f32;
                let away = (buf.positions[v] - centre).normalize_or(Vec3::Z);
                let ray = Ray { origin: buf.positions[v] + away * diag, direction: -away };
                let Some((target, hit)) = skinlab::paint::pick_model(&ray, &m, &out) else { continue };
                if m.meshes[m.instances[target.instance].mesh].primitives[target.prim].influences.is_none() {
                    continue;
                }
                let mut touches = Vec::new();
                let opts = FootprintOptions {
                    radius: 0.08 * diag,
                    whole_volume: i % 2 == 1,
                    front_faces_only: true,
                    view: Some(View::Perspective { eye: ray.origin }),
                };
                surface_footprint(&topo, &m, &out, target, &hit, &opts, &mut touches);
                let joint = (i * 7 % topo.surface.joint_nodes().len()) as u16;
                let b = BrushSettings { mode, strength: 0.6, value: 0.7, mirror_x: true, ..BrushSettings::default() };
                let mut rec = StrokeRecord::new("real");
                let dab = Dab { joint, brush: &b, radius: opts.radius, touches: &touches };
                let rules = WeightRules::default();
                let outcome = apply_surface_dab(&mut m, target, &dab, &rules, &topo, &mut rec).unwrap();
                landed += usize::from(!outcome.parts.is_empty());
                reskin_after_dab(&mut deformer, &m, &pose, &outcome, &mut out);
                records.push(rec);
            }
        }
        assert!(landed > 0, "{name}: no dab landed");
        for (mi, mesh) in m.meshes.iter().enumerate() {
            for (pi, p) in mesh.primitives.iter().enumerate() {
                let Some(inf) = &p.influences else { continue };
                let skin = m.instances.iter().find(|i| i.mesh == mi).map_or(0, |i| i.skin);
                for v in 0..inf.len() {
                    let ws: Vec<(u16, f32)> = inf.vertex(v, &m.skins[skin].sets).collect();
                    assert!(ws.is_empty() || is_valid(&ws), "{name} mesh {mi} prim {pi} vertex {v}: {ws:?}");
                }
            }
        }
        let mut fresh = Vec::new();
        Deformer::new().deform_all(&m, &pose, method, &mut fresh);
        assert_eq!(out, fresh, "{name}: partial re-skinning == full pass");
        for rec in records.iter().rev() {
            rec.undo(&mut m);
        }
        for (mi, mesh) in m.meshes.iter().enumerate() {
            for (pi, p) in mesh.primitives.iter().enumerate() {
                let (Some(inf), Some(orig)) = (&p.influences, &original[mi][pi]) else { continue };
                let now = bits(inf);
                assert_eq!(now.1, orig.1, "{name}: set words after undo");
                if now.0.len() == orig.0.len() {
                    assert_eq!(now.0, orig.0, "{name}: weights after undo");
                }
            }
        }
        eprintln!("{name}: {landed} dabs landed, {pairs} mirrored joints");
    }
}

#[test]
fn real_models_mirror_across_their_symmetry_plane() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models");
    // (file, expected axis, minimum share of prim 0 mirrored, a joint pair)
    let cases = [
        ("CesiumMan.glb", 1, 0.99, ("leg_joint_L_1", "leg_joint_R_1")),
        ("Fox.glb", 0, 0.95, ("b_LeftUpperArm_09", "b_RightUpperArm_06")),
        ("RiggedFigure.glb", 0, 0.99, ("arm_joint_L_2", "arm_joint_R_2")),
    ];
    for (file, axis, share, (left, right)) in cases {
        let path = std::path::Path::new(dir).join(file);
        if !path.exists() {
            continue;
        }
        let m = skinlab::io::load_model(&path).unwrap();
        let topo = ModelTopology::new(&m);
        assert_eq!(topo.mirror_axis, axis, "{file}");
        let n = m.meshes[0].primitives[0].positions.len();
        let matched = topo.mirror.matched();
        assert!(matched as f64 >= share * n as f64, "{file}: {matched} of {n} mirrored");
        let find = |name: &str| {
            m.skins[0].joints.iter().position(|&j| m.nodes.nodes[j].name.as_deref() == Some(name)).unwrap() as u16
        };
        assert_eq!(topo.mirror_joint(find(left)), find(right), "{file}");
        assert_eq!(topo.mirror_joint(find(right)), find(left), "{file}");
    }
}

#[test]
fn deform_vertices_patches_resizes_or_refuses_stale_frames() {
    let m = paint_rig::cylinder_rig(21, 8, 2, 4);
    let pose = posed(&m);
    let mut deformer = Deformer::new();
    let mut full = Vec::new();
    deformer.deform_all(&m, &pose, SkinningMethod::Dqs, &mut full);
    assert!(deformer.is_current(&m));
    // An empty buffer cannot be patched: the whole primitive is deformed.
    let mut buf = DeformedPrimitive::default();
    assert!(deformer.deform_vertices(&m, &m.instances[0], 0, &[3, 4, 999_999], &mut buf));
    assert_eq!(buf, full[0][0]);
    // Unknown primitive: untouched.
    let mut other = DeformedPrimitive::default();
    assert!(!deformer.deform_vertices(&m, &m.instances[0], 7, &[0], &mut other));
    assert_eq!(other, DeformedPrimitive::default());
    // A stale frame (a set appended without prepare_new_sets): refused, untouched.
    let mut grown = m.clone();
    let table = &mut grown.skins[0].sets;
    assert!(table.intern(&[0, 1, 4]).is_some());
    assert!(!deformer.is_current(&grown));
    let mut buf = DeformedPrimitive::default();
    assert!(!deformer.deform_vertices(&grown, &grown.instances[0], 0, &[0], &mut buf));
    assert_eq!(buf, DeformedPrimitive::default());
    assert_eq!(deformer.prepare_new_sets(&grown), 1);
    assert!(deformer.is_current(&grown));
}
