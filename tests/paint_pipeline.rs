//! Weight painting as the editor does it (pick → footprint → dab → re-skin) on the paint rig:
//! rigidity (a vertex painted fully to one joint moves exactly with that joint under LBS, DQS and
//! SBS), partial re-skinning equal to a full pass, one-slot tables growing, x-mirror painting, front
//! faces only, random strokes that keep every vertex valid and undo exactly, a round trip through
//! per-vertex slots, stale frames. The real models are in `tests/paint_real_models.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/paint_rig.rs"]
mod paint_rig;

use glam::{DQuat, DVec3, Vec3};
use paint_rig::{bits, influences, weights};
use proptest::prelude::*;
use skinlab::model::influences::VertexInfluences;
use skinlab::model::StrokeRecord;
use skinlab::model::{Influences, JointSetTable, Model};
use skinlab::paint::normalize::is_valid;
use skinlab::paint::{
    apply_dab, footprint, pick, reskin_after_dab, BlendMode, BrushSettings, Dab, DabTarget, Falloff, FootprintOptions,
    ModelTopology, Ray, SurfaceScratch, View, WeightRules,
};
use skinlab::rig::Pose;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

const TARGET: DabTarget = DabTarget { instance: 0, prim: 0 };
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

/// A model being painted as the editor holds it: its topology, the pose, the deformer and the
/// deformed primitives of the last pass.
struct Scene {
    m: Model,
    topo: ModelTopology,
    pose: Pose,
    deformer: Deformer,
    out: Vec<Vec<DeformedPrimitive>>,
}

impl Scene {
    /// `m` in `pose`, deformed once by `method`.
    fn new(m: Model, pose: Pose, method: SkinningMethod) -> Self {
        let topo = ModelTopology::new(&m);
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        deformer.deform_all(&m, &pose, method, &mut out);
        Self { m, topo, pose, deformer, out }
    }

    /// pick → footprint → dab → re-skin, as the editor does it, at the rest point `at` (axial
    /// position, angle); returns what the dab changed.
    fn stroke(
        &mut self,
        at: (f32, f32),
        joint: u16,
        b: &BrushSettings,
        radius: f32,
        rules: &WeightRules,
        record: &mut StrokeRecord,
    ) -> Option<skinlab::paint::DabOutcome> {
        let ray = side_ray(&self.out, &self.m, at.0, at.1);
        let prim = &self.m.meshes[0].primitives[0];
        let deformed = &self.out[0][0];
        let hit = pick(&ray, &deformed.positions, &prim.triangles)?;
        let (target, model_hit) = skinlab::paint::pick_model(&ray, &self.m, &self.out).expect("pick_model agrees");
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
            self.topo.surface.adjacency(),
            &options,
            &mut SurfaceScratch::default(),
            &mut touches,
        );
        let dab = Dab { joint, brush: b, radius, touches: &touches };
        let outcome = apply_dab(&mut self.m, TARGET, &dab, rules, &self.topo, record).unwrap();
        reskin_after_dab(&mut self.deformer, &self.m, &self.pose, &outcome, &mut self.out);
        Some(outcome)
    }
}

#[test]
fn painting_fully_to_one_joint_makes_vertices_rigid_under_every_method() {
    for method in SkinningMethod::ALL {
        let m = paint_rig::cylinder_rig(41, 16, 2, 4);
        let pose = posed(&m);
        let mut scene = Scene::new(m, pose, method);
        let j = paint_rig::joint(&scene.m, "seg1.L");
        let b = BrushSettings {
            mode: BlendMode::Replace,
            value: 1.0,
            strength: 1.0,
            falloff: Falloff::Constant,
            ..BrushSettings::default()
        };
        let mut rec = StrokeRecord::new("rigid");
        // Between seg1.L (x = 1) and seg2.L (x = 2), where the rig blends two joints.
        let outcome = scene.stroke((1.5, 0.4), j, &b, 0.3, &WeightRules::default(), &mut rec).unwrap();
        assert!(outcome.touched.len() > 10, "{}", outcome.touched.len());
        let Scene { m, deformer, out, .. } = &scene;
        let c = deformer.skin_frame(0).model_from_bind[j as usize];
        let prim = &m.meshes[0].primitives[0];
        for &v in &outcome.touched {
            assert_eq!(weights(m, v as usize), vec![(j, 1.0)]);
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
        let m = paint_rig::cylinder_rig(41, 16, 3, 4);
        let pose = posed(&m);
        let mut scene = Scene::new(m, pose, method);
        let sets_before = scene.m.skins[0].sets.len();
        let mut rec = StrokeRecord::new("paint");
        let spine = paint_rig::joint(&scene.m, "Spine");
        let seg3 = paint_rig::joint(&scene.m, "seg3.R");
        for (i, (x, joint)) in [(0.5, spine), (-1.2, seg3), (1.7, spine)].into_iter().enumerate() {
            let b =
                BrushSettings { mode: BlendMode::Add, strength: 0.4, whole_volume: i == 1, ..BrushSettings::default() };
            scene.stroke((x, 0.3 * i as f32), joint, &b, 0.6, &WeightRules::default(), &mut rec).unwrap();
        }
        let Scene { m, pose, deformer, out, .. } = &mut scene;
        assert!(m.skins[0].sets.len() > sets_before, "new three-joint sets were interned");
        let mut fresh = Vec::new();
        Deformer::new().deform_all(m, pose, method, &mut fresh);
        assert_eq!(*out, fresh, "{method}: incremental sets + partial re-skin == full pass");
        // Undo, re-skin what it touched, and compare again.
        let touched = rec.undo(m);
        for t in touched {
            assert!(deformer.deform_vertices(m, &m.instances[0], t.prim, &t.vertices, &mut out[0][t.prim]));
        }
        Deformer::new().deform_all(m, pose, method, &mut fresh);
        assert_eq!(*out, fresh, "{method}: after undo");
    }
}

#[test]
fn one_slot_tables_grow_to_the_limit() {
    let m = paint_rig::cylinder_rig(21, 8, 1, 1);
    assert_eq!(m.skins[0].sets.slots(), 1);
    let pose = posed(&m);
    let mut scene = Scene::new(m, pose, SkinningMethod::Sbs);
    let before = scene.out.clone();
    let mut rec = StrokeRecord::new("grow");
    let b = BrushSettings { mode: BlendMode::Add, strength: 0.5, ..BrushSettings::default() };
    let j = paint_rig::joint(&scene.m, "seg1.L");
    let outcome = scene.stroke((0.2, 0.0), j, &b, 0.4, &WeightRules::default(), &mut rec).unwrap();
    let Scene { mut m, out, .. } = scene;
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
    let mut scene = Scene::new(paint_rig::cylinder_rig(41, 16, 2, 4), Pose::rest(), SkinningMethod::Lbs);
    let (m, topo) = (&scene.m, &scene.topo);
    assert_eq!(topo.mirror.matched(), m.meshes[0].primitives[0].positions.len());
    let left = paint_rig::joint(m, "seg1.L");
    let right = paint_rig::joint(m, "seg1.R");
    assert_eq!(topo.mirror_joint(left), right);
    assert_eq!(topo.mirror_joint(paint_rig::joint(m, "Spine")), paint_rig::joint(m, "Spine"));
    let b = BrushSettings {
        mode: BlendMode::Replace,
        value: 0.8,
        strength: 0.7,
        mirror_x: true,
        ..BrushSettings::default()
    };
    let mut rec = StrokeRecord::new("mirror");
    let outcome = scene.stroke((0.6, 1.0), left, &b, 0.5, &WeightRules::default(), &mut rec).unwrap();
    let (m, mirror) = (&scene.m, &scene.topo.mirror);
    let table = &m.skins[0].sets;
    let inf = influences(m);
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
    let j = paint_rig::joint(&m, "seg2.L");
    for front in [true, false] {
        let mut scene = Scene::new(m.clone(), Pose::rest(), SkinningMethod::Lbs);
        let b = BrushSettings {
            mode: BlendMode::Add,
            strength: 1.0,
            whole_volume: true,
            front_faces_only: front,
            ..BrushSettings::default()
        };
        let mut rec = StrokeRecord::new("volume");
        let outcome = scene.stroke((0.0, 0.0), j, &b, 1.2, &WeightRules::default(), &mut rec).unwrap();
        // The ray comes from +y: the far side is y < 0.
        let far = outcome.touched.iter().any(|&v| m.meshes[0].primitives[0].positions[v as usize].y < -0.2);
        assert_eq!(far, !front, "front_faces_only = {front}");
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
        let m = paint_rig::cylinder_rig(25, 10, 2, 4);
        let original = bits(influences(&m));
        let pose = posed(&m);
        let method = SkinningMethod::ALL[method];
        let mut scene = Scene::new(m, pose, method);
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
            let outcome = scene.stroke((x, a), joint, &b, radius, &rules, &mut rec);
            landed += usize::from(outcome.is_some());
            if let Some(outcome) = outcome {
                for &v in &outcome.touched {
                    let ws = weights(&scene.m, v as usize);
                    prop_assert!(is_valid(&ws), "vertex {}: {:?}", v, ws);
                    prop_assert!(ws.len() <= rules.limit(), "limit {} exceeded on {}: {:?}", rules.limit(), v, ws);
                }
            }
            records.push(rec);
        }
        prop_assert!(landed > 0, "every ray aims at the surface");
        let Scene { mut m, pose, out, .. } = scene;
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
    let m = paint_rig::cylinder_rig(41, 16, 2, 4);
    let pose = posed(&m);
    let mut scene = Scene::new(m, pose, SkinningMethod::Sbs);
    let mut rec = StrokeRecord::new("paint");
    let mut edited = skinlab::paint::EditedVertices::new();
    for (x, name) in [(0.4, "seg2.R"), (-1.0, "Spine"), (1.3, "seg1.R")] {
        let b = BrushSettings { mode: BlendMode::Add, strength: 0.6, ..BrushSettings::default() };
        let j = paint_rig::joint(&scene.m, name);
        scene.stroke((x, 0.5), j, &b, 0.5, &WeightRules::default(), &mut rec).unwrap();
    }
    let Scene { m, pose, out, .. } = scene;
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
