//! Weight painting through the library API on a small mesh with known results: blend modes, the
//! weight rules through dabs and tools, undo bit for bit. The pick → footprint → dab → re-skin
//! pipeline on the paint rig and the real models is in `tests/paint_pipeline.rs`.
#![allow(clippy::unwrap_used, clippy::needless_range_loop, missing_docs)]

#[path = "common/paint_rig.rs"]
mod paint_rig;

use paint_rig::{bits, influences, weights};

use glam::{DMat4, Vec3};
use skinlab::model::influences::VertexInfluences;
use skinlab::model::StrokeRecord;
use skinlab::model::{
    Influences, JointSetTable, Mesh, Model, Node, NodeTransform, NodeTree, Primitive, Skin, SkinnedInstance, Topology,
    Trs,
};
use skinlab::paint::normalize::is_valid;
use skinlab::paint::{
    apply_dab, tools, BlendMode, BrushSettings, Dab, DabTarget, Falloff, ModelTopology, Touch, WeightRules,
};

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
                order: Default::default(),
            }],
            ..Mesh::default()
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
