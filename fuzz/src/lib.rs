//! The fuzz harnesses' bodies: one function per harness, each taking the fuzzer's bytes and
//! panicking only when skinlab breaks one of its promises (a panic inside skinlab, an exported file
//! that skinlab cannot load back, painted weights that break the `Influences` invariants, an undo
//! that does not restore every bit). The AFL binaries in `src/bin/` call these; the ordinary test
//! suite (`tests/fuzz_regressions.rs`) includes this file and replays the stored regression
//! corpus (`fuzz/regressions/<harness>/`) through exactly the same code.

use std::path::Path;
use std::sync::OnceLock;

use glam::{DQuat, DVec3};
use skinlab::io::clips_json::{clips_from_json, clips_to_json};
use skinlab::io::gltf_export::export_bytes;
use skinlab::io::obj::check_finite;
use skinlab::io::pose_file;
use skinlab::io::pose_library::{decode_thumbnail, PoseLibrary, MAX_THUMBNAIL_SIDE};
use skinlab::io::recovery::{
    morph_weights_from_json, morph_weights_to_json, RecoveryFile, CLIPS, MORPH_WEIGHTS, POSE, WEIGHTS,
};
use skinlab::io::{load_document_from_bytes, load_model_from_bytes, Bake, Container, ExportOptions, SourceDocument};
use skinlab::io::{weights_file, WeightsFormat};
use skinlab::model::Model;
use skinlab::model::StrokeRecord;
use skinlab::paint::normalize::is_valid;
use skinlab::paint::weight_table::{apply_table_op, TableOp};
use skinlab::paint::{
    apply_dab, gradient_fill, tools, BlendMode, BrushSettings, Dab, DabTarget, Falloff, Gradient, ModelTopology,
    SelectOp, Selection, SurfacePoint, WeightRules,
};
use skinlab::rig::ik::{self, IkGoal, IkSolver};
use skinlab::rig::{sample, Pose};
use skinlab::skinning::{Deformer, SkinningMethod};

/// A directory that does not exist: external buffers and images named by fuzzed files resolve
/// into it and are never found.
const NOWHERE: &str = "/nonexistent-skinlab-fuzz";
/// Most animation clips and nodes a harness poses, so that one input stays fast.
const MOST_CLIPS: usize = 3;

/// Runs every harness once on small fixed inputs, so that the per-process state (the demo arm,
/// the paint starting points, rayon's pool) exists before AFL's persistent loop: its one-time
/// code then stays out of each input's coverage (without it `paint` was 35 % stable).
pub fn warm_up() {
    gltf(&skinlab::demo::demo_glb());
    fbx(b"; FBX 7.4.0 project file\n");
    pose(b"{}");
    weights(b"{}");
    recovery(b"{}");
    obj(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    pose_library(b"{}");
    for k in 0..3u8 {
        paint(&[k, 0, 0, 0, 0, 0, 0, 0, 0, 5, 3, 6, 7, 0, 0]);
    }
}

/// glTF/GLB bytes: load (the first byte picks the `.glb` or `.gltf` name), then [`deform_and_export`].
pub fn gltf(data: &[u8]) {
    let name = if data.first().is_some_and(|&b| b == b'g') { "in.glb" } else { "in.gltf" };
    if let Ok((model, source)) = load_document_from_bytes(data, &Path::new(NOWHERE).join(name)) {
        deform_and_export(&model, &source, data.len());
    }
}

/// FBX bytes, read as `skinlab` reads a file (from disk: the size cap, ufbx with external files
/// off and its allocations capped, the GLB it becomes through the glTF importer), then
/// [`deform_and_export`]; the import's warnings are single lines.
pub fn fbx(data: &[u8]) {
    let path = std::env::temp_dir().join(format!("skinlab-fuzz-{}.fbx", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let loaded = skinlab::io::load_document(&path);
    let _ = std::fs::remove_file(&path);
    if let Ok((model, source)) = loaded {
        assert!(source.warnings().iter().all(|w| !w.contains('\n')), "a warning of more than one line");
        deform_and_export(&model, &source, data.len());
    }
}

/// Deforms rest, clip and bent poses (morph targets at full weight) with every method, exports to
/// bytes (plain in each container and weights format picked by `variant`, baked with every
/// method); every export must load back.
fn deform_and_export(model: &Model, source: &SourceDocument, variant: usize) {
    let poses = poses_of(model);
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    for pose in &poses {
        for method in SkinningMethod::ALL {
            deformer.deform_all(model, pose, method, &mut out);
        }
    }
    let weights_format =
        [None, Some(WeightsFormat::Float), Some(WeightsFormat::U16), Some(WeightsFormat::U8)][variant % 4];
    for container in [Container::Glb, Container::GltfEmbedded] {
        let options =
            ExportOptions { container, weights_format, max_influences: 1 + variant % 8, ..ExportOptions::default() };
        export_must_reload(model, source, &options);
    }
    for (k, method) in SkinningMethod::ALL.into_iter().enumerate() {
        let pose = poses[(variant + k) % poses.len()].clone();
        let options = ExportOptions { bake: Some(Bake { pose, method }), ..ExportOptions::default() };
        export_must_reload(model, source, &options);
    }
}

/// Pose-file text against the demo arm: parse, deform with every method (a deformation that is not
/// finite must be reported by the writers' check, never written), bake-export with every method
/// (each export must load back), and inverse kinematics from the pose with the two-bone solver and
/// FABRIK: a solve either fails with its error and leaves the pose as it was, or leaves finite
/// unit rotations.
pub fn pose(data: &[u8]) {
    let (model, source) = demo();
    let text = String::from_utf8_lossy(data);
    let Ok(pose) = pose_file::parse_pose(&text, &model.nodes) else {
        return;
    };
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    for method in SkinningMethod::ALL {
        deformer.deform_all(model, &pose, method, &mut out);
        let finite = out.iter().flatten().all(|p| p.positions.iter().chain(&p.normals).all(|v| v.is_finite()));
        assert_eq!(check_finite(model, &out).is_ok(), finite, "the writers' finite check disagrees");
        let options = ExportOptions { bake: Some(Bake { pose: pose.clone(), method }), ..ExportOptions::default() };
        export_must_reload(model, source, &options);
    }
    let _ = pose_file::pose_to_json(&pose, &model.nodes);
    let end = model.nodes.len() - 1;
    for (chain, solver) in [(2, IkSolver::Auto), (end.max(1), IkSolver::Fabrik)] {
        let mut solved = pose.clone();
        let goal = IkGoal { end, target: DVec3::new(0.5, 1.0, 0.5), chain, pole: None, solver };
        match ik::solve(&model.nodes, &mut solved, &goal, &[]) {
            Ok(_) => {
                let unit =
                    solved.overrides.values().filter_map(|o| o.rotation).all(|r| r.is_finite() && r.is_normalized());
                assert!(unit, "inverse kinematics left a rotation that is not a finite unit quaternion");
            }
            Err(_) => assert!(solved == pose, "a failed solve changed the pose"),
        }
    }
}

/// OBJ text, read as `skinlab` reads a file (from disk, so the size cap and checks run): every
/// triangle names vertices that exist, and the model exports to a glTF that loads back.
pub fn obj(data: &[u8]) {
    let path = std::env::temp_dir().join(format!("skinlab-fuzz-{}.obj", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let loaded = skinlab::io::load_document(&path);
    let _ = std::fs::remove_file(&path);
    let Ok((model, source)) = loaded else {
        return;
    };
    for prim in model.meshes.iter().flat_map(|m| &m.primitives) {
        let n = prim.positions.len();
        assert!(prim.triangles.iter().flatten().all(|&i| (i as usize) < n), "a triangle names a missing vertex");
    }
    export_must_reload(&model, &source, &ExportOptions::default());
}

/// Pose-library text against the demo arm: parse; each thumbnail decodes within the size caps or
/// is refused with an error; each pose deforms; the library writes back to text that parses to
/// the same library.
pub fn pose_library(data: &[u8]) {
    let (model, _) = demo();
    let text = String::from_utf8_lossy(data);
    let Ok(library) = PoseLibrary::parse(&text, &model.nodes) else {
        return;
    };
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    for entry in &library.poses {
        if let Ok(picture) = decode_thumbnail(&entry.thumbnail_png) {
            assert!(picture.width <= MAX_THUMBNAIL_SIDE && picture.height <= MAX_THUMBNAIL_SIDE);
            assert_eq!(picture.rgba.len(), 4 * picture.width as usize * picture.height as usize);
        }
        deformer.deform_all(model, &entry.pose, SkinningMethod::Sbs, &mut out);
    }
    let written = library.to_json(&model.nodes);
    match PoseLibrary::parse(&written, &model.nodes) {
        Ok(again) => {
            // Names, thumbnails and posed joints survive (rotations are normalised again on reading).
            let shape = |l: &PoseLibrary| -> Vec<(String, Vec<u8>, Vec<usize>)> {
                l.poses
                    .iter()
                    .map(|p| (p.name.clone(), p.thumbnail_png.clone(), p.pose.overrides.keys().copied().collect()))
                    .collect()
            };
            assert!(shape(&again) == shape(&library), "skinlab's own pose library reads back different");
        }
        Err(e) => panic!("skinlab's own pose library does not parse: {e}"),
    }
}

/// Weights-file text against the demo arm: apply (an error must leave the model unchanged), check
/// every vertex, deform, write the weights back out and apply that to a fresh copy, export (it
/// must load back).
pub fn weights(data: &[u8]) {
    let (original, source) = demo();
    let mut model = original.clone();
    let text = String::from_utf8_lossy(data);
    if weights_file::apply_weights(&text, &mut model).is_err() {
        assert!(same_weights(&model, original), "a failed weights file changed the model");
        return;
    }
    check_all_valid(&model, 16);
    let mut out = Vec::new();
    let mut deformer = Deformer::new();
    for method in SkinningMethod::ALL {
        deformer.deform_all(&model, &Pose::rest(), method, &mut out);
    }
    let (json, _) = weights_file::weights_to_json(&model, Some(original));
    let mut again = original.clone();
    if let Err(e) = weights_file::apply_weights(&json, &mut again) {
        panic!("skinlab's own weights file does not apply: {e}\n{json}");
    }
    export_must_reload(&model, source, &ExportOptions::default());
}

/// Recovery-file text (what the editor reads at every start) against the demo arm: parse it; it
/// must write back to text that parses to the same file. Its clips section as a restore reads
/// it: applied to the arm's nodes, every clip sampled and deformed with every method, written
/// back and read again to the same clips. Its pose and weights sections go through the pose and
/// weights harnesses. (The skeleton section names a file on disk: loading one is the `gltf`
/// harness.) Its morph weights read back as written.
pub fn recovery(data: &[u8]) {
    let (model, _) = demo();
    let text = String::from_utf8_lossy(data);
    let Ok(file) = RecoveryFile::parse(&text) else {
        return;
    };
    let written = file.to_json();
    match RecoveryFile::parse(&written) {
        Ok(again) => assert!(again == file, "skinlab's own recovery file reads back different:\n{written}"),
        Err(e) => panic!("skinlab's own recovery file does not parse: {e}\n{written}"),
    }
    if let Some(value) = file.sections.get(CLIPS) {
        if let Ok(clips) = clips_from_json(value, &model.nodes) {
            let mut clipped = model.clone();
            clipped.clips = clips;
            let mut deformer = Deformer::new();
            let mut out = Vec::new();
            for pose in poses_of(&clipped) {
                for method in SkinningMethod::ALL {
                    deformer.deform_all(&clipped, &pose, method, &mut out);
                }
            }
            let back = clips_to_json(&clipped.clips, &clipped.nodes);
            match clips_from_json(&back, &clipped.nodes) {
                Ok(again) => assert!(again == clipped.clips, "skinlab's own clips read back different"),
                Err(e) => panic!("skinlab's own clips do not read back: {e}"),
            }
        }
    }
    if let Some(Ok(weights)) = file.sections.get(MORPH_WEIGHTS).map(|v| morph_weights_from_json(v, &model.nodes)) {
        let again = morph_weights_from_json(&morph_weights_to_json(&weights, &model.nodes), &model.nodes);
        assert!(again.is_ok_and(|a| a == weights), "skinlab's own morph weights read back different");
    }
    if let Some(text) = file.section_text(POSE) {
        pose(text.as_bytes());
    }
    if let Some(text) = file.section_text(WEIGHTS) {
        weights(text.as_bytes());
    }
}

/// A byte stream of paint operations on the demo arm, posed: dabs (every mode, falloff, joint,
/// radius, strength, mirror, volume and front-face setting), whole-model tools, selection masks
/// (select, grow, shrink, hide; restricted or not), gradient fills, weight-table operations, rule
/// changes and undo. A masked vertex never changes. After every operation every vertex satisfies the `Influences` invariants and the limit;
/// at the end the re-skinned buffers equal a full deformation and undoing everything restores the
/// original weights bit for bit.
pub fn paint(data: &[u8]) {
    let k = usize::from(data.first().copied().unwrap_or(0)) % 3;
    let (method, start) = (SkinningMethod::ALL[k], &painting()[k]);
    let (original, topology, pose) = (&start.model, &start.topology, &start.pose);
    let mut model = original.clone();
    let mut deformer = start.deformer.clone();
    let mut out = start.out.clone();
    let mut rules = WeightRules::default();
    let mut records: Vec<StrokeRecord> = Vec::new();
    let mut bytes = Bytes(data.get(1..).unwrap_or_default());
    let target = DabTarget { instance: 0, prim: 0 };
    let mut touches = Vec::new();
    while let Some(op) = bytes.next() {
        let mut record = StrokeRecord::new("fuzz");
        let mut layout_changed = false;
        let before = rules.mask.as_ref().map(|_| all_weights(&model, topology));
        match op % 11 {
            0..=4 => {
                let brush = BrushSettings {
                    mode: BlendMode::ALL[bytes.below(5)],
                    strength: bytes.unit(),
                    falloff: Falloff::ALL[bytes.below(4)],
                    value: bytes.unit(),
                    whole_volume: bytes.flag(),
                    front_faces_only: bytes.flag(),
                    mirror_x: bytes.flag(),
                    ..BrushSettings::default()
                };
                let joint = bytes.next().map_or(0, u16::from) % 8;
                let radius = bytes.unit() * 2.0;
                let deformed = &out[0][0];
                let prim = &model.meshes[model.instances[0].mesh].primitives[0];
                let tri = bytes.below(prim.triangles.len().max(1));
                let Some(&[a, b, c]) = prim.triangles.get(tri) else { break };
                let point =
                    (deformed.positions[a as usize] + deformed.positions[b as usize] + deformed.positions[c as usize])
                        / 3.0;
                touches.clear();
                touches.extend(deformed.positions.iter().enumerate().filter_map(|(v, p)| {
                    let distance = p.distance(point);
                    (distance <= radius).then_some(skinlab::paint::Touch { vertex: v as u32, distance })
                }));
                let dab = Dab { joint, brush: &brush, radius, touches: &touches };
                let Ok(outcome) = apply_dab(&mut model, target, &dab, &rules, topology, &mut record) else {
                    continue;
                };
                for &v in &outcome.touched {
                    let ws = vertex_weights(&model, v as usize);
                    assert!(is_valid(&ws) && ws.len() <= rules.limit(), "vertex {v} after a dab: {ws:?}");
                }
                skinlab::paint::reskin_after_dab(&mut deformer, &model, pose, &outcome, &mut out);
            }
            5 => {
                let outcome = match bytes.below(4) {
                    0 => tools::normalize_all(&mut model, topology, &rules, &mut record),
                    1 => tools::limit_total(&mut model, topology, &rules, &mut record),
                    2 => tools::clean(&mut model, topology, &rules, bytes.unit() * 0.5, &mut record),
                    _ => tools::smooth_all(&mut model, topology, &rules, bytes.unit(), bytes.below(3), &mut record),
                };
                layout_changed = outcome.is_ok_and(|o| o.layout_changed);
                check_all_valid(&model, 16);
            }
            6 => {
                if let Some(last) = records.pop() {
                    last.undo(&mut model);
                    layout_changed = true;
                }
            }
            7 => {
                let joint = bytes.next().map_or(0, u16::from) % 8;
                rules.set_locked(joint, bytes.flag());
                rules.limit = 1 + bytes.below(8);
            }
            8 => {
                // A selection (every k-th vertex from an offset, grown or shrunk, some hidden) as the
                // mask, restricted to it or only hiding; or no mask.
                let adj = topology.surface.adjacency();
                let mut selection = Selection::new(topology.surface.len());
                let (step, offset) = (1 + bytes.below(7), bytes.below(7));
                let picked: Vec<u32> = (offset..topology.surface.len()).step_by(step).map(|v| v as u32).collect();
                selection.select_vertices(adj, &picked, SelectOp::Replace);
                match bytes.below(4) {
                    0 => selection.grow(adj),
                    1 => selection.shrink(adj),
                    2 => selection.hide(adj, bytes.flag()),
                    _ => {}
                }
                rules.mask = if bytes.flag() { None } else { selection.editable_mask(bytes.flag()) };
            }
            9 => {
                let triangles = topology.surface.triangles().len().max(1);
                let mut point = || SurfacePoint {
                    triangle: bytes.below(triangles) as u32,
                    barycentric: {
                        let (a, b) = (bytes.unit(), bytes.unit());
                        let (a, b) = if a + b > 1.0 { (1.0 - a, 1.0 - b) } else { (a, b) };
                        [a, b, 1.0 - a - b]
                    },
                };
                let (start, end) = (point(), point());
                let gradient = Gradient {
                    joint: bytes.next().map_or(0, u16::from) % 8,
                    start,
                    end,
                    start_value: bytes.unit(),
                    end_value: bytes.unit(),
                };
                let outcome = gradient_fill(&mut model, &topology.surface, &rules, &gradient, &mut record);
                layout_changed = outcome.is_ok_and(|o| o.tool.layout_changed);
                check_all_valid(&model, 16);
            }
            _ => {
                let adj = topology.surface.adjacency();
                let step = 1 + bytes.below(9);
                let groups: Vec<u32> =
                    (0..topology.surface.len() as u32).filter(|&g| adj.rep(g) == g).step_by(step).collect();
                let joint = bytes.next().map_or(0, u16::from) % 8;
                let table_op = match bytes.below(4) {
                    0 => TableOp::Set { joint, value: bytes.unit() },
                    1 => TableOp::Scale { joint, factor: bytes.unit() * 3.0 },
                    2 => TableOp::Normalize,
                    _ => TableOp::Paste(
                        topology.surface.weights(&model, bytes.below(topology.surface.len().max(1)) as u32),
                    ),
                };
                let outcome = apply_table_op(&mut model, &topology.surface, &rules, &groups, &table_op, &mut record);
                layout_changed = outcome.is_ok_and(|o| o.tool.layout_changed);
                check_all_valid(&model, 16);
            }
        }
        if let (Some(before), Some(mask)) = (before, &rules.mask) {
            if op % 11 != 6 && op % 11 != 8 {
                let after = all_weights(&model, topology);
                for (g, (b, a)) in before.iter().zip(&after).enumerate() {
                    assert!(
                        mask.get(g).copied().unwrap_or(false) || b == a,
                        "masked vertex {g} changed: {b:?} -> {a:?}"
                    );
                }
            }
        }
        if layout_changed || !record.is_empty() && matches!(op % 11, 5 | 9 | 10) {
            deformer.deform_all(&model, pose, method, &mut out);
        }
        if !record.is_empty() {
            records.push(record);
        }
    }
    check_all_valid(&model, 16);
    let mut fresh = Vec::new();
    Deformer::new().deform_all(&model, pose, method, &mut fresh);
    assert!(out == fresh, "re-skinned buffers differ from a full deformation");
    for record in records.iter().rev() {
        record.undo(&mut model);
    }
    assert!(same_weights(&model, original), "undoing every operation does not restore the weights");
}

/// The demo arm and its source document, loaded once.
fn demo() -> &'static (Model, SourceDocument) {
    static DEMO: OnceLock<(Model, SourceDocument)> = OnceLock::new();
    DEMO.get_or_init(|| match load_document_from_bytes(&skinlab::demo::demo_glb(), Path::new("demo_arm.glb")) {
        Ok(loaded) => loaded,
        Err(e) => panic!("the demo arm does not load: {e}"),
    })
}

/// The paint harness's starting point, per method: the demo arm, its brush topology, the pose and
/// a deformer prepared for it with its output (built once; each input clones what it changes).
struct PaintStart {
    model: Model,
    topology: ModelTopology,
    pose: Pose,
    deformer: Deformer,
    out: Vec<Vec<skinlab::skinning::DeformedPrimitive>>,
}

fn painting() -> &'static [PaintStart] {
    static START: OnceLock<Vec<PaintStart>> = OnceLock::new();
    START.get_or_init(|| {
        let model = demo().0.clone();
        let topology = ModelTopology::new(&model);
        let mut pose = Pose::rest();
        for node in 0..model.nodes.len() {
            pose.set_rotation(node, DQuat::from_axis_angle(DVec3::new(0.3, 0.5, 0.8).normalize(), 0.4));
        }
        SkinningMethod::ALL
            .into_iter()
            .map(|method| {
                let mut deformer = Deformer::new();
                let mut out = Vec::new();
                deformer.deform_all(&model, &pose, method, &mut out);
                PaintStart { model: model.clone(), topology: topology.clone(), pose: pose.clone(), deformer, out }
            })
            .collect()
    })
}

/// Rest, a few clip samples and one pose rotating every node with every morph target at 1.
fn poses_of(model: &Model) -> Vec<Pose> {
    let mut poses = vec![Pose::rest()];
    for clip in model.clips.iter().take(MOST_CLIPS) {
        let (a, b) = clip.range();
        for t in [a, 0.5 * (a + b), b + 1.0] {
            let mut pose = Pose::rest();
            sample::sample_clip(clip, t, &mut pose);
            poses.push(pose);
        }
    }
    let mut bent = Pose::rest();
    for node in 0..model.nodes.len() {
        let angle = 0.3 + 0.1 * (node % 7) as f64;
        bent.set_rotation(node, DQuat::from_axis_angle(DVec3::new(0.2, 0.9, 0.4).normalize(), angle));
        if let Some(mesh) = model.nodes.nodes[node].mesh.and_then(|m| model.meshes.get(m)) {
            bent.morph_weights.insert(node, vec![1.0; mesh.morphs.len()]);
        }
    }
    poses.push(bent);
    poses
}

/// Exports to bytes; when that succeeds, the result must load back.
fn export_must_reload(model: &Model, source: &SourceDocument, options: &ExportOptions) {
    let name = if options.container == Container::Glb { "out.glb" } else { "out.gltf" };
    let out = Path::new(NOWHERE).join(name);
    let Ok((files, _)) = export_bytes(model, source, options, &out) else {
        return;
    };
    if let Err(e) = load_model_from_bytes(&files.main, &out) {
        let bake = options.bake.as_ref().map(|b| b.method);
        panic!("skinlab wrote a file it cannot load ({:?}, bake {bake:?}): {e}", options.container);
    }
}

/// One vertex's influences of the first instance's first primitive.
fn vertex_weights(model: &Model, v: usize) -> Vec<(u16, f32)> {
    let inst = &model.instances[0];
    let table = &model.skins[inst.skin].sets;
    model.meshes[inst.mesh].primitives[0]
        .influences
        .as_ref()
        .map_or_else(Vec::new, |inf| inf.vertex(v, table).collect())
}

/// Every surface vertex's weights, bit for bit.
fn all_weights(model: &Model, topology: &ModelTopology) -> Vec<Vec<(u16, u32)>> {
    (0..topology.surface.len() as u32)
        .map(|g| topology.surface.weights(model, g).into_iter().map(|(j, w)| (j, w.to_bits())).collect())
        .collect()
}

/// Every vertex of every skinned primitive is valid and within `limit` influences.
fn check_all_valid(model: &Model, limit: usize) {
    for inst in &model.instances {
        let table = &model.skins[inst.skin].sets;
        for (p, prim) in model.meshes[inst.mesh].primitives.iter().enumerate() {
            let Some(inf) = &prim.influences else { continue };
            for v in 0..inf.len() {
                let ws: Vec<(u16, f32)> = inf.vertex(v, table).collect();
                let unweighted = ws.is_empty();
                assert!(
                    unweighted || is_valid(&ws) && ws.len() <= limit,
                    "mesh {} prim {p} vertex {v}: {ws:?}",
                    inst.mesh
                );
            }
        }
    }
}

/// Whether both models' weights are identical bit for bit, vertex by vertex.
fn same_weights(a: &Model, b: &Model) -> bool {
    a.instances.iter().all(|inst| {
        let (ta, tb) = (&a.skins[inst.skin].sets, &b.skins[inst.skin].sets);
        a.meshes[inst.mesh].primitives.iter().zip(&b.meshes[inst.mesh].primitives).all(|(p, q)| {
            match (&p.influences, &q.influences) {
                (Some(x), Some(y)) => {
                    x.len() == y.len()
                        && (0..x.len()).all(|v| {
                            x.vertex(v, ta)
                                .map(|(j, w)| (j, w.to_bits()))
                                .eq(y.vertex(v, tb).map(|(j, w)| (j, w.to_bits())))
                        })
                }
                (None, None) => true,
                _ => false,
            }
        })
    })
}

/// The fuzzer's bytes as a stream of small choices (zeros once exhausted).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.next().unwrap_or(0)) % n.max(1)
    }
    fn unit(&mut self) -> f32 {
        f32::from(self.next().unwrap_or(0)) / 255.0
    }
    fn flag(&mut self) -> bool {
        self.next().unwrap_or(0) & 1 == 1
    }
}
