//! One weight-painting dab on a 100k-vertex mesh with a brush covering about 5k vertices, and on
//! a 1M-vertex mesh with a brush covering about 20k, including the footprint, blending,
//! renormalisation and influence limit, joint-set interning, incremental set preparation (SBS
//! centres for new sets), re-skinning of the touched vertices and the CPU side of their upload
//! (the coalesced byte ranges of the touched vertices, `render::gpu_changes`).
//! Also the CPU pick of the deformed mesh under the cursor (every triangle, or through the pick
//! boxes, and fitting those), and building the brush caches
//! (welded adjacency, mirror maps) once per load, and taking a skeleton edit's joints into them.
//! Run with `cargo bench --bench paint`.

#![allow(missing_docs, clippy::expect_used)]

#[path = "../tests/common/paint_rig.rs"]
mod paint_rig;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use glam::{DQuat, Vec3};
use skinlab::model::Model;
use skinlab::model::StrokeRecord;
use skinlab::paint::{
    apply_dab, footprint, pick, reskin_after_dab, BlendMode, BrushSettings, Dab, DabTarget, FootprintOptions, Hit,
    ModelTopology, PickBoxes, Ray, SurfaceScratch, Touch, View, WeightRules,
};
use skinlab::render::gpu_changes::Changed;
use skinlab::rig::Pose;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

const TARGET: DabTarget = DabTarget { instance: 0, prim: 0 };

/// A cylinder rig size and the footprint wanted on it.
#[derive(Clone, Copy)]
struct Size {
    rings: usize,
    wanted: usize,
    name: &'static str,
}

/// 776 rings × 129 columns = 100,104 vertices, a 5k-vertex footprint.
const SMALL: Size = Size { rings: 776, wanted: 5_000, name: "100k_5k" };
/// 7,752 rings × 129 columns = 1,000,008 vertices, a 20k-vertex footprint.
const LARGE: Size = Size { rings: 7_752, wanted: 20_000, name: "1m_20k" };

struct Scene {
    model: Model,
    topo: ModelTopology,
    pose: Pose,
    deformer: Deformer,
    out: Vec<Vec<DeformedPrimitive>>,
    ray: Ray,
    hit: Hit,
    radius: f32,
}

/// The cylinder rig of `size`; with `ordered` its vertices in joint-set order, as the importer
/// orders every loaded file (`model::vertex_order`), else in the order it is built (rings).
fn scene(method: SkinningMethod, size: Size, ordered: bool) -> Scene {
    // `size.rings` rings × 129 columns, 17 joints.
    let mut model = paint_rig::cylinder_rig(size.rings, 128, 8, 4);
    if ordered {
        model.order_by_joint_set();
    }
    let topo = ModelTopology::new(&model);
    let mut pose = Pose::rest();
    for (i, node) in model.nodes.nodes.iter().enumerate() {
        if node.mesh.is_none() {
            pose.set_rotation(i, DQuat::from_rotation_z(0.12) * DQuat::from_rotation_x(0.04));
        }
    }
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(&model, &pose, method, &mut out);
    // Aim at the deformed surface near x = 0.3 (between two joints), along the normal.
    let prim = &model.meshes[0].primitives[0];
    let target = Vec3::new(0.3, paint_rig::RADIUS, 0.0);
    let v = (0..prim.positions.len())
        .min_by(|&i, &j| prim.positions[i].distance(target).total_cmp(&prim.positions[j].distance(target)))
        .unwrap_or(0);
    let (p, n) = (out[0][0].positions[v], out[0][0].normals[v]);
    let ray = Ray { origin: p + n * 3.0, direction: -n };
    let hit = pick(&ray, &out[0][0].positions, &prim.triangles).expect("the ray hits the cylinder");
    // Radius giving a footprint of about 5k vertices.
    let (mut lo, mut hi) = (0.0f32, 2.0f32);
    let mut touches = Vec::new();
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        gather(&model, &topo, &out, &ray, &hit, mid, &mut touches);
        if touches.len() < size.wanted {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let radius = hi;
    gather(&model, &topo, &out, &ray, &hit, radius, &mut touches);
    eprintln!(
        "paint bench ({method}): {} vertices, footprint of {} vertices at radius {radius:.4}",
        prim.positions.len(),
        touches.len()
    );
    Scene { model, topo, pose, deformer, out, ray, hit, radius }
}

fn gather(
    model: &Model,
    topo: &ModelTopology,
    out: &[Vec<DeformedPrimitive>],
    ray: &Ray,
    hit: &Hit,
    radius: f32,
    touches: &mut Vec<Touch>,
) {
    let prim = &model.meshes[0].primitives[0];
    let options = FootprintOptions {
        radius,
        whole_volume: false,
        front_faces_only: true,
        view: Some(View::Perspective { eye: ray.origin }),
    };
    footprint(
        hit,
        &out[0][0].positions,
        &out[0][0].normals,
        &prim.triangles,
        topo.surface.adjacency(),
        &options,
        &mut SurfaceScratch::default(),
        touches,
    );
}

fn bench_dab(c: &mut Criterion, method: SkinningMethod, mode: BlendMode, size: Size, ordered: bool) {
    let s = scene(method, size, ordered);
    let joint = paint_rig::joint(&s.model, "seg3.L");
    let brush = BrushSettings { mode, strength: 0.5, ..BrushSettings::default() };
    let rules = WeightRules::default();
    let name = format!(
        "dab_{}_{}_{}{}",
        size.name,
        method.name(),
        mode.label().to_lowercase(),
        if ordered { "_ordered" } else { "" }
    );
    // The editor keeps its surface-walk scratch (sized by the mesh) from dab to dab.
    let mut scratch = SurfaceScratch::default();
    c.bench_function(&name, |b| {
        b.iter_batched(
            || (s.model.clone(), s.deformer.clone(), s.out.clone(), Vec::new()),
            |(mut model, mut deformer, mut out, mut touches)| {
                let prim = &model.meshes[0].primitives[0];
                let options = FootprintOptions {
                    radius: s.radius,
                    whole_volume: false,
                    front_faces_only: true,
                    view: Some(View::Perspective { eye: s.ray.origin }),
                };
                footprint(
                    &s.hit,
                    &out[0][0].positions,
                    &out[0][0].normals,
                    &prim.triangles,
                    s.topo.surface.adjacency(),
                    &options,
                    &mut scratch,
                    &mut touches,
                );
                let mut record = StrokeRecord::new("bench");
                let dab = Dab { joint, brush: &brush, radius: s.radius, touches: &touches };
                let outcome = apply_dab(&mut model, TARGET, &dab, &rules, &s.topo, &mut record).expect("dab");
                reskin_after_dab(&mut deformer, &model, &s.pose, &outcome, &mut out);
                // The CPU side of the upload: the byte ranges of the touched vertices.
                let changed = Changed::Vertices(outcome.parts.clone());
                let vertices = out[0][0].positions.len() as u32;
                let ranges = changed.ranges(0, 0, vertices);
                black_box((ranges, out, record.len(), model, deformer))
            },
            BatchSize::LargeInput,
        );
    });
}

fn dabs(c: &mut Criterion) {
    bench_dab(c, SkinningMethod::Sbs, BlendMode::Add, SMALL, false);
    bench_dab(c, SkinningMethod::Sbs, BlendMode::Smooth, SMALL, false);
    bench_dab(c, SkinningMethod::Lbs, BlendMode::Add, SMALL, false);
}

fn dabs_1m(c: &mut Criterion) {
    bench_dab(c, SkinningMethod::Sbs, BlendMode::Add, LARGE, false);
    // As a loaded file is held: vertices in joint-set order.
    bench_dab(c, SkinningMethod::Sbs, BlendMode::Add, LARGE, true);
    bench_dab(c, SkinningMethod::Lbs, BlendMode::Add, LARGE, false);
    let s = scene(SkinningMethod::Sbs, LARGE, false);
    let tris = &s.model.meshes[0].primitives[0].triangles;
    let positions = &s.out[0][0].positions;
    c.bench_function("pick_1m", |b| b.iter(|| black_box(pick(&s.ray, positions, tris))));
    let mut boxes = PickBoxes::new(positions, tris);
    assert_eq!(boxes.pick(&s.ray, positions, tris), pick(&s.ray, positions, tris));
    c.bench_function("pick_boxed_1m", |b| b.iter(|| black_box(boxes.pick(&s.ray, positions, tris))));
    c.bench_function("pick_boxes_fit_1m", |b| b.iter(|| boxes.fit(positions, tris)));
    // The vertices of the 20k-vertex footprint the dab benchmark paints.
    let mut touches = Vec::new();
    gather(&s.model, &s.topo, &s.out, &s.ray, &s.hit, s.radius, &mut touches);
    let mut touched: Vec<u32> = touches.iter().map(|t| t.vertex).collect();
    touched.sort_unstable();
    boxes.refit_vertices(positions, tris, &touched);
    c.bench_function("pick_boxes_refit_20k_1m", |b| b.iter(|| boxes.refit_vertices(positions, tris, &touched)));
}

fn picking(c: &mut Criterion) {
    let s = scene(SkinningMethod::Sbs, SMALL, false);
    let tris = &s.model.meshes[0].primitives[0].triangles;
    c.bench_function("pick_100k", |b| b.iter(|| black_box(pick(&s.ray, &s.out[0][0].positions, tris))));
}

fn topology(c: &mut Criterion) {
    let model = paint_rig::cylinder_rig(776, 128, 8, 4);
    c.bench_function("topology_100k", |b| b.iter(|| black_box(ModelTopology::new(&model))));
    // After a skeleton edit (a joint deleted) the caches keep their surface and take the joints.
    let topo = ModelTopology::new(&model);
    let mut edited = model.clone();
    let joint = edited.skins[0].joints[paint_rig::joint(&model, "seg3.L") as usize];
    skinlab::rig::skeleton_edit::delete_joint(&mut edited, joint).expect("delete a joint");
    c.bench_function("topology_rejoint_100k", |b| {
        b.iter_batched(|| topo.clone(), |mut t| black_box(t.rejoint(&edited)), BatchSize::LargeInput)
    });
}

criterion_group! {
    name = once_per_load;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    targets = topology
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    targets = dabs, picking
}
criterion_group! {
    name = at_1m;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    targets = dabs_1m
}
criterion_main!(benches, once_per_load, at_1m);
