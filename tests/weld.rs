//! The model as one surface, on the shared real models with several primitives: random strokes of
//! every blend mode and every tool leave every weld group (coincident vertices across primitives
//! and seams) with identical weights, bit for bit after undo; posed after painting, coincident
//! vertices stay coincident under LBS, DQS and SBS (crack 0); Weld Weights repairs a model whose
//! groups disagree.

#![allow(clippy::unwrap_used)]

mod common;

use glam::DQuat;
use proptest::prelude::*;
use skinlab::model::influences::VertexInfluences;
use skinlab::model::Model;
use skinlab::model::StrokeRecord;
use skinlab::paint::weld::AGREEMENT_TOLERANCE;
use skinlab::paint::{
    apply_surface_dab, disagreeing_groups, footprint, tools, weld_groups, BlendMode, BrushSettings, Dab, DabTarget,
    FootprintOptions, Hit, ModelSurface, ModelTopology, SurfaceScratch, Touch, View, WeightRules, WeldSource,
};
use skinlab::rig::Pose;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

/// Real models made of several primitives (and skins).
const MULTI: [&str; 4] = ["Character_HumanoidRig.glb", "Knight.glb", "Enemy_Flying_Gun.glb", "Stegosaurus.glb"];

fn load(name: &str) -> Option<Model> {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models")).join(name);
    path.exists().then(|| skinlab::io::load_model(&path).unwrap())
}

fn diagonal(m: &Model) -> f32 {
    let (lo, hi) = m.rest_bounds();
    lo.distance(hi)
}

/// Surface vertices in weld groups that span more than one primitive (the borders).
fn border_vertices(topo: &ModelTopology) -> Vec<u32> {
    let s = &topo.surface;
    (0..s.len() as u32)
        .filter(|&g| {
            let parts: Vec<usize> = s.adjacency().welded(g).iter().filter_map(|&m| s.locate(m).map(|l| l.0)).collect();
            parts.iter().any(|&p| p != parts[0])
        })
        .collect()
}

/// One dab centred on surface vertex `g` as deformed in `out`, over the whole surface.
#[allow(clippy::too_many_arguments)]
fn dab_at(
    m: &mut Model,
    topo: &ModelTopology,
    out: &[Vec<DeformedPrimitive>],
    g: u32,
    joint: u16,
    brush: &BrushSettings,
    radius: f32,
    record: &mut StrokeRecord,
) -> skinlab::paint::DabOutcome {
    let s = &topo.surface;
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    s.gather_deformed(out, &mut positions, &mut normals);
    let triangle = s.triangles().iter().position(|t| t.contains(&g)).unwrap_or(0);
    let (k, _) = s.locate(g).unwrap();
    let part = s.parts()[k];
    let target = DabTarget { instance: part.instance, prim: part.prim };
    let p = positions[g as usize];
    let hit = Hit { point: p, triangle, vertex: g, barycentric: [1.0, 0.0, 0.0], t: 1.0 };
    let view = View::Perspective { eye: p + normals[g as usize] * radius * 10.0 };
    let opts = FootprintOptions {
        radius,
        whole_volume: brush.whole_volume,
        front_faces_only: brush.front_faces_only,
        view: Some(view),
    };
    let mut touches: Vec<Touch> = Vec::new();
    footprint(
        &hit,
        &positions,
        &normals,
        s.triangles(),
        s.adjacency(),
        &opts,
        &mut SurfaceScratch::default(),
        &mut touches,
    );
    let dab = Dab { joint, brush, radius, touches: &touches };
    apply_surface_dab(m, target, &dab, &WeightRules::default(), topo, record).unwrap()
}

/// The widest spread of any weld group's deformed copies (model units).
fn crack(topo: &ModelTopology, out: &[Vec<DeformedPrimitive>]) -> f32 {
    let s = &topo.surface;
    let pos = |g: u32| {
        let (k, v) = s.locate(g).unwrap();
        let part = s.parts()[k];
        out[part.instance][part.prim].positions[v as usize]
    };
    let mut worst = 0.0f32;
    for g in 0..s.len() as u32 {
        let members = s.adjacency().welded(g);
        if members[0] != g || members.len() < 2 {
            continue;
        }
        let p0 = pos(g);
        for &x in &members[1..] {
            worst = worst.max(pos(x).distance(p0));
        }
    }
    worst
}

/// Every joint rotated by up to ~0.6 rad (deterministic).
fn random_pose(m: &Model, seed: u64) -> Pose {
    let mut pose = Pose::rest();
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((x >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0
    };
    for skin in &m.skins {
        for &j in &skin.joints {
            let q = DQuat::from_euler(glam::EulerRot::XYZ, next() * 0.6, next() * 0.6, next() * 0.6);
            pose.set_rotation(j, m.nodes.nodes[j].rest.to_trs().rotation * q);
        }
    }
    pose
}

#[test]
fn real_models_weld_across_primitives_and_open_without_disagreement() {
    for name in MULTI {
        let Some(m) = load(name) else { continue };
        let topo = ModelTopology::new(&m);
        let s = &topo.surface;
        let mut meshes: Vec<usize> = m.instances.iter().map(|i| i.mesh).collect();
        meshes.sort_unstable();
        meshes.dedup();
        let prims: usize = meshes.iter().map(|&x| m.meshes[x].primitives.len()).sum();
        assert_eq!(s.parts().len(), prims, "{name}: every skinned primitive is part of the surface");
        let groups = (0..s.len() as u32).filter(|&g| s.adjacency().rep(g) == g).count();
        let border = border_vertices(&topo).len();
        let disagree = disagreeing_groups(&m, s, 0.0).len();
        eprintln!(
            "{name}: {} parts, {} vertices, {groups} weld groups, {border} border vertices, {disagree} disagree",
            s.parts().len(),
            s.len()
        );
        // Stegosaurus ships four cracks: claw vertices of primitive 0 bound rigidly to a toe
        // joint while their coincident copies in primitive 1 blend with the foot.
        let expected = if name == "Stegosaurus.glb" { 4 } else { 0 };
        assert_eq!(disagree, expected, "{name}: weld groups that disagree in the file");
    }
    let m = load("Character_HumanoidRig.glb");
    if let Some(m) = m {
        assert!(!border_vertices(&ModelTopology::new(&m)).is_empty(), "the humanoid's primitives meet");
    }
}

/// Which operation a step of the property test runs.
#[derive(Clone, Copy, Debug)]
enum Step {
    Dab { mode: usize, centre: f32, border: bool, radius: f32, joint: usize, mirror: bool, volume: bool, front: bool },
    Tool(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0usize..5, 0.0f32..1.0, any::<bool>(), 0.02f32..0.15, 0usize..64, any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(mode, centre, border, radius, joint, mirror, volume, front)| Step::Dab {
                mode, centre, border, radius, joint, mirror, volume, front
            }),
        1 => (0usize..6).prop_map(Step::Tool),
    ]
}

fn run_step(
    m: &mut Model,
    topo: &ModelTopology,
    border: &[u32],
    out: &mut Vec<Vec<DeformedPrimitive>>,
    step: Step,
) -> StrokeRecord {
    let diag = diagonal(m);
    let mut rec = StrokeRecord::new("step");
    match step {
        Step::Dab { mode, centre, border: on_border, radius, joint, mirror, volume, front } => {
            let pool: Vec<u32> = if on_border && !border.is_empty() {
                border.to_vec()
            } else {
                (0..topo.surface.len() as u32).collect()
            };
            let g = pool[((centre * pool.len() as f32) as usize).min(pool.len() - 1)];
            let brush = BrushSettings {
                mode: BlendMode::ALL[mode],
                strength: 0.7,
                value: 0.6,
                mirror_x: mirror,
                whole_volume: volume,
                front_faces_only: front,
                ..BrushSettings::default()
            };
            let joint = (joint % topo.surface.joint_nodes().len()) as u16;
            dab_at(m, topo, out, g, joint, &brush, radius * diag, &mut rec);
        }
        Step::Tool(t) => {
            let rules = WeightRules { limit: 3, ..WeightRules::default() };
            match t {
                0 => tools::normalize_all(m, topo, &rules, &mut rec).map(|_| ()),
                1 => tools::limit_total(m, topo, &rules, &mut rec).map(|_| ()),
                2 => tools::clean(m, topo, &rules, 0.05, &mut rec).map(|_| ()),
                3 => tools::smooth_all(m, topo, &rules, 0.5, 2, &mut rec).map(|_| ()),
                4 => weld_groups(m, &topo.surface, WeldSource::Mean, &rules, &mut rec).map(|_| ()),
                _ => weld_groups(m, &topo.surface, WeldSource::LargerSide, &rules, &mut rec).map(|_| ()),
            }
            .unwrap();
        }
    }
    let mut d = Deformer::new();
    d.deform_all(m, &Pose::rest(), SkinningMethod::Lbs, out);
    rec
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 12,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x0E5_5EED),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_strokes_and_tools_keep_weld_groups_identical_and_undo_exactly(
        steps in prop::collection::vec(step(), 1..10),
        model in 0usize..MULTI.len(),
    ) {
        let Some(mut m) = load(MULTI[model]) else { return Ok(()) };
        let topo = ModelTopology::new(&m);
        let border = border_vertices(&topo);
        let original = common::weight_bits(&m);
        // Groups that already disagree in the file (Stegosaurus) may stay so until welded.
        let shipped = disagreeing_groups(&m, &topo.surface, 0.0);
        let mut out = Vec::new();
        Deformer::new().deform_all(&m, &Pose::rest(), SkinningMethod::Lbs, &mut out);
        let mut records = Vec::new();
        for &s in &steps {
            records.push(run_step(&mut m, &topo, &border, &mut out, s));
            let bad = disagreeing_groups(&m, &topo.surface, 0.0);
            prop_assert!(bad.iter().all(|g| shipped.contains(g)), "{}: {} weld groups disagree after {:?}", MULTI[model], bad.len(), s);
        }
        for r in records.iter().rev() {
            r.undo(&mut m);
        }
        prop_assert!(common::weight_bits(&m) == original, "{}: undo is not bit for bit", MULTI[model]);
    }
}

#[test]
fn posed_after_painting_coincident_vertices_stay_coincident() {
    for name in MULTI {
        let Some(mut m) = load(name) else { continue };
        let topo = ModelTopology::new(&m);
        let border = border_vertices(&topo);
        let diag = diagonal(&m);
        let mut out = Vec::new();
        Deformer::new().deform_all(&m, &Pose::rest(), SkinningMethod::Lbs, &mut out);
        let mut weld = StrokeRecord::new("weld");
        weld_groups(&mut m, &topo.surface, WeldSource::Mean, &WeightRules::default(), &mut weld).unwrap();
        Deformer::new().deform_all(&m, &Pose::rest(), SkinningMethod::Lbs, &mut out);
        let rest_crack = crack(&topo, &out);
        // Add and Smooth strokes across the borders (and anywhere), as the report did.
        for i in 0..40usize {
            let pool =
                if i % 2 == 0 && !border.is_empty() { &border } else { &(0..topo.surface.len() as u32).collect() };
            let g = pool[(i * 7919) % pool.len()];
            let mode = if i % 3 == 2 { BlendMode::Smooth } else { BlendMode::Add };
            let brush = BrushSettings { mode, strength: 0.8, ..BrushSettings::default() };
            let joint = ((i * 5) % topo.surface.joint_nodes().len()) as u16;
            let mut rec = StrokeRecord::new("paint");
            dab_at(&mut m, &topo, &out, g, joint, &brush, 0.08 * diag, &mut rec);
            Deformer::new().deform_all(&m, &Pose::rest(), SkinningMethod::Lbs, &mut out);
        }
        assert!(disagreeing_groups(&m, &topo.surface, 0.0).is_empty(), "{name}");
        for seed in 0..3 {
            let pose = random_pose(&m, seed);
            for method in [SkinningMethod::Lbs, SkinningMethod::Dqs, SkinningMethod::Sbs] {
                Deformer::new().deform_all(&m, &pose, method, &mut out);
                let c = crack(&topo, &out);
                eprintln!(
                    "{name} {method:?} pose {seed}: crack {:.2e} of the diagonal (rest {:.2e})",
                    c / diag,
                    rest_crack / diag
                );
                assert!(c <= 1e-5 * diag, "{name} {method:?}: crack {c} (diagonal {diag})");
            }
        }
        // The measure can fail: one copy of a border group painted alone opens a crack.
        if let Some(&g) = border.first() {
            let s = &topo.surface;
            let members = s.adjacency().welded(g).to_vec();
            let (k, v) = s.locate(members[1]).unwrap();
            let part = s.parts()[k];
            let skin = &mut m.skins[part.skin];
            let far = (skin.joints.len() - 1) as u16;
            let inf = m.meshes[part.mesh].primitives[part.prim].influences.as_mut().unwrap();
            inf.set_vertex(v as usize, &VertexInfluences { pairs: vec![(far, 1.0)] }, &mut skin.sets).unwrap();
            assert_eq!(disagreeing_groups(&m, s, 0.0), vec![s.adjacency().rep(g)], "{name}: the broken group is found");
            let pose = random_pose(&m, 7);
            Deformer::new().deform_all(&m, &pose, SkinningMethod::Lbs, &mut out);
            let c = crack(&topo, &out);
            eprintln!("{name}: one copy painted alone: crack {:.2e} of the diagonal", c / diag);
        }
    }
}

#[test]
fn weld_weights_repairs_disagreeing_groups() {
    let Some(mut m) = load("Character_HumanoidRig.glb") else { return };
    let topo = ModelTopology::new(&m);
    let s = &topo.surface;
    let border = border_vertices(&topo);
    // Break three cross-primitive groups: the copy in the later primitive goes to another joint.
    let mut broken = Vec::new();
    for &g in border.iter().step_by(border.len() / 3 + 1).take(3) {
        let rep = s.adjacency().rep(g);
        let last = *s.adjacency().welded(rep).last().unwrap();
        let (k, v) = s.locate(last).unwrap();
        let part = s.parts()[k];
        let before = s.weights(&m, last);
        let j = (0..s.joint_nodes().len() as u16).find(|j| !before.iter().any(|p| p.0 == *j)).unwrap();
        let local = s.skin_joint(part.skin, j).unwrap();
        let skin = &mut m.skins[part.skin];
        let inf = m.meshes[part.mesh].primitives[part.prim].influences.as_mut().unwrap();
        inf.set_vertex(v as usize, &VertexInfluences { pairs: vec![(local, 1.0)] }, &mut skin.sets).unwrap();
        broken.push(rep);
    }
    broken.sort_unstable();
    broken.dedup();
    assert_eq!(disagreeing_groups(&m, s, 0.0), broken);
    let original = common::weight_bits(&m);
    for source in [WeldSource::Mean, WeldSource::LargerSide] {
        let mut rec = StrokeRecord::new("weld");
        let n = weld_groups(&mut m, s, source, &WeightRules::default(), &mut rec).unwrap();
        assert_eq!(n, broken.len(), "{source:?}");
        assert!(disagreeing_groups(&m, s, 0.0).is_empty(), "{source:?}");
        for &g in &broken {
            let w = s.weights(&m, g);
            let sum: f32 = w.iter().map(|p| p.1).sum();
            assert!((sum - 1.0).abs() < 1e-5, "{source:?}: {w:?}");
            if source == WeldSource::Mean {
                assert!(w.len() >= 2, "the mean mixes both sides: {w:?}");
            }
        }
        rec.undo(&mut m);
        assert!(common::weight_bits(&m) == original, "{source:?}: undo restores the disagreement bit for bit");
    }
}

#[test]
fn a_dab_on_one_primitive_reaches_across_the_border() {
    let Some(mut m) = load("Character_HumanoidRig.glb") else { return };
    let topo = ModelTopology::new(&m);
    let border = border_vertices(&topo);
    let mut out = Vec::new();
    Deformer::new().deform_all(&m, &Pose::rest(), SkinningMethod::Lbs, &mut out);
    let g = border[border.len() / 2];
    let brush = BrushSettings { mode: BlendMode::Replace, strength: 1.0, value: 0.37, ..BrushSettings::default() };
    let mut rec = StrokeRecord::new("across");
    let radius = 0.05 * diagonal(&m);
    let outcome = dab_at(&mut m, &topo, &out, g, 0, &brush, radius, &mut rec);
    let parts: Vec<(usize, usize)> = outcome.parts.iter().map(|t| (t.mesh, t.prim)).collect();
    assert!(parts.len() >= 2, "one dab paints both primitives at the border: {parts:?}");
}

#[test]
fn every_blend_mode_and_every_tool_keeps_weld_groups_identical() {
    for name in MULTI {
        let Some(mut m) = load(name) else { continue };
        let topo = ModelTopology::new(&m);
        let border = border_vertices(&topo);
        let mut out = Vec::new();
        Deformer::new().deform_all(&m, &Pose::rest(), SkinningMethod::Lbs, &mut out);
        let original = common::weight_bits(&m);
        let mut records = Vec::new();
        let mut steps: Vec<Step> = (0..BlendMode::ALL.len())
            .flat_map(|mode| {
                [false, true].map(|mirror| Step::Dab {
                    mode,
                    centre: 0.37 + 0.1 * mode as f32,
                    border: true,
                    radius: 0.1,
                    joint: 3 * mode + 1,
                    mirror,
                    volume: mirror,
                    front: !mirror,
                })
            })
            .collect();
        steps.extend((0..6).map(Step::Tool));
        for step in steps {
            records.push(run_step(&mut m, &topo, &border, &mut out, step));
            let bad = disagreeing_groups(&m, &topo.surface, 0.0).len();
            // The file's own disagreements (Stegosaurus) stay until a dab covers them or a tool welds them.
            assert!(bad == 0 || name == "Stegosaurus.glb", "{name}: {bad} groups disagree after {step:?}");
        }
        assert!(disagreeing_groups(&m, &topo.surface, 0.0).is_empty(), "{name}: welded at the end");
        for r in records.iter().rev() {
            r.undo(&mut m);
        }
        assert!(common::weight_bits(&m) == original, "{name}: undo is not bit for bit");
    }
}

fn models_dir() -> std::path::PathBuf {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models")).to_path_buf()
}

#[test]
fn export_reports_disagreeing_groups_once_and_writes_painted_welds_intact() {
    let dir = tempfile::tempdir().unwrap();
    let stego = models_dir().join("Stegosaurus.glb");
    if stego.exists() {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skinlab"))
            .args(["export".as_ref(), stego.as_os_str(), "--out".as_ref(), dir.path().join("s.glb").as_os_str()])
            .output()
            .unwrap();
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("warning: ") && err.contains("4 weld groups"), "{err}");
    }
    // Painted across the borders, exported as floats and as u8, read back: still no crack.
    let path = models_dir().join("Character_HumanoidRig.glb");
    if !path.exists() {
        return;
    }
    let (mut m, source) = skinlab::io::load_document(&path).unwrap();
    let topo = ModelTopology::new(&m);
    let border = border_vertices(&topo);
    let mut out = Vec::new();
    Deformer::new().deform_all(&m, &Pose::rest(), SkinningMethod::Lbs, &mut out);
    for i in 0..12usize {
        let g = border[(i * 131) % border.len()];
        let brush = BrushSettings { mode: BlendMode::ALL[i % 5], strength: 0.6, ..BrushSettings::default() };
        let mut rec = StrokeRecord::new("p");
        let radius = 0.06 * diagonal(&m);
        dab_at(&mut m, &topo, &out, g, (i * 3 % 27) as u16, &brush, radius, &mut rec);
    }
    for format in [None, Some(skinlab::io::WeightsFormat::U8)] {
        let file = dir.path().join("painted.glb");
        let options = skinlab::io::ExportOptions { weights_format: format, ..skinlab::io::ExportOptions::default() };
        skinlab::io::export_model(&m, &source, &options, &file).unwrap();
        let back = skinlab::io::load_model(&file).unwrap();
        let s = ModelSurface::new(&back);
        assert!(
            disagreeing_groups(&back, &s, AGREEMENT_TOLERANCE).is_empty(),
            "{format:?}: the written file has no crack"
        );
    }
}

#[test]
fn a_weights_file_cannot_open_a_crack() {
    let path = models_dir().join("Character_HumanoidRig.glb");
    let Some(m) = load("Character_HumanoidRig.glb") else { return };
    let topo = ModelTopology::new(&m);
    let s = &topo.surface;
    let g = border_vertices(&topo)[0];
    let (k, v) = s.locate(g).unwrap();
    let part = s.parts()[k];
    // Weights files name vertices by file index (the model orders them by joint set).
    let v = m.meshes[part.mesh].primitives[part.prim].order.file_index(v as usize);
    let node = m.nodes.key(m.instances[part.instance].node);
    let joint = m.nodes.key(s.joint_nodes()[5]);
    let text = format!(
        r#"{{"format": "skinlab-weights", "version": 1, "primitives": [{{"node": "{node}", "primitive": {}, "vertices": [[{v}, [["{joint}", 1.0]]]]}}]}}"#,
        part.prim
    );
    let dir = tempfile::tempdir().unwrap();
    let weights = dir.path().join("w.json");
    std::fs::write(&weights, text).unwrap();
    let written = dir.path().join("out.glb");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skinlab"))
        .args(["export".as_ref(), path.as_os_str(), "--out".as_ref(), written.as_os_str()])
        .args(["--weights".as_ref(), weights.as_os_str()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "no warning: {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("welded 1 groups"), "{stdout}");
    let back = skinlab::io::load_model(&written).unwrap();
    let sb = ModelSurface::new(&back);
    assert!(disagreeing_groups(&back, &sb, AGREEMENT_TOLERANCE).is_empty());
    // The same file vertex in the reloaded model's own order.
    let g = sb.parts()[k].first_vertex + back.meshes[part.mesh].primitives[part.prim].order.model_index(v) as u32;
    let w = sb.weights(&back, g);
    assert!(w.iter().any(|p| p.0 == 5 && p.1 > 0.0), "the file's joint is in the mean: {w:?}");
}
