//! FBX files deform as their authoring tool drew them: for files from Maya, 3ds Max, Blender and
//! MotionBuilder (ufbx's test data, `tests/data/ufbx/README.md`), `skinlab deform FILE.fbx
//! --animation CLIP --time T` lands every vertex within 1e-3 of the model's diagonal of the OBJ
//! frame the tool exported at that time (matched as point sets: the tools' OBJ writers order
//! vertices their own way). An opened FBX exports valid glTF that three.js plays as skinlab
//! deforms it, edited keys included.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cli_run.rs"]
mod cli_run;
#[path = "common/js_check.rs"]
mod js_check;

use std::path::{Path, PathBuf};

use glam::{DVec3, Vec3};
use skinlab::io::load_model;
use skinlab::rig::{fk, sample, Pose};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ufbx").join(name)
}

fn obj_points(path: &Path) -> Vec<DVec3> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f64> = l.split_whitespace().take(3).map(|x| x.parse().unwrap()).collect();
            DVec3::new(v[0], v[1], v[2])
        })
        .collect()
}

/// The largest distance from a point of `a` to the nearest point of `b`.
fn one_sided(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().map(|p| b.iter().map(|q| p.distance_squared(*q)).fold(f64::INFINITY, f64::min).sqrt()).fold(0.0, f64::max)
}

/// Deforms `fbx` by `clip` at `time` with LBS and returns the symmetric distance to the OBJ frame
/// (taken into the model's metres and Y-up through the file's root conversion), relative to the
/// frame's diagonal.
fn relative_distance(fbx: &str, clip: &str, time: f64, frame: &str) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.obj");
    let run = cli_run::skinlab([
        "deform",
        data(fbx).to_str().unwrap(),
        "--animation",
        clip,
        "--time",
        &time.to_string(),
        "--method",
        "lbs",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{fbx}: {}", String::from_utf8_lossy(&run.stderr));
    let model = load_model(&data(fbx)).unwrap();
    let root = model.nodes.scene_roots[0];
    let conversion = model.nodes.nodes[root].rest.to_matrix();
    let want: Vec<DVec3> = obj_points(&data(frame)).iter().map(|p| conversion.transform_point3(*p)).collect();
    let got = obj_points(&out);
    let (lo, hi) = want.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(a, b), p| (a.min(*p), b.max(*p)));
    let diagonal = lo.distance(hi);
    let d = one_sided(&got, &want).max(one_sided(&want, &got)) / diagonal;
    println!("{fbx} {clip} t={time:.4}: {d:.2e} of the diagonal {diagonal:.3} m");
    d
}

/// Each file's frames, as the tool exported them.
const FRAMES: &[(&str, &str, f64, &str)] = &[
    ("maya_game_sausage_7500_binary_wiggle.fbx", "wiggle", 10.0 / 24.0, "maya_game_sausage_wiggle_10.obj"),
    ("maya_game_sausage_7500_binary_wiggle.fbx", "wiggle", 18.0 / 24.0, "maya_game_sausage_wiggle_18.obj"),
    ("max_transformed_skin_7500_binary.fbx", "Take 001", 5.0 / 30.0, "max_transformed_skin_5.obj"),
    ("max_transformed_skin_7500_binary.fbx", "Take 001", 15.0 / 30.0, "max_transformed_skin_15.obj"),
    ("blender_279_sausage_7400_binary.fbx", "Skeleton|Spin", 15.0 / 24.0, "blender_279_sausage_spin_15.obj"),
    ("blender_279_sausage_7400_binary.fbx", "Skeleton|Wiggle", 20.0 / 24.0, "blender_279_sausage_wiggle_20.obj"),
    ("motionbuilder_sausage_rrss_7700_binary.fbx", "Take 001", 1.0, "motionbuilder_sausage_rrss_24.obj"),
    ("motionbuilder_sausage_rrss_7700_binary.fbx", "Take 001", 2.0, "motionbuilder_sausage_rrss_48.obj"),
    ("maya_mixed_inherit_mode_7700_ascii.fbx", "Take 001", 4.0 / 24.0, "maya_mixed_inherit_mode_4.obj"),
    ("maya_mixed_inherit_mode_7700_ascii.fbx", "Take 001", 7.0 / 24.0, "maya_mixed_inherit_mode_7.obj"),
];

#[test]
fn maya_max_blender_and_motionbuilder_frames_match_within_1e3_of_the_diagonal() {
    for &(fbx, clip, time, frame) in FRAMES {
        let d = relative_distance(fbx, clip, time, frame);
        assert!(d <= 1e-3, "{fbx} at {time}: {d} of the diagonal");
    }
    // The frames differ from the rest pose by far more than that (the test can fail).
    let rest = relative_distance(
        "blender_279_sausage_7400_binary.fbx",
        "Skeleton|Base",
        0.0,
        "blender_279_sausage_spin_15.obj",
    );
    assert!(rest > 0.05, "{rest}");
}

#[test]
fn units_become_metres_and_the_file_keeps_its_own() {
    // The Maya file is in centimetres: its root converts by 0.01.
    let model = load_model(&data("maya_game_sausage_7500_binary_wiggle.fbx")).unwrap();
    let root = model.nodes.scene_roots[0];
    let m = model.nodes.nodes[root].rest.to_matrix();
    assert!((m.x_axis.length() - 0.01).abs() < 1e-9, "{m}");
    let (_, source) = skinlab::io::load_document(&data("maya_game_sausage_7500_binary_wiggle.fbx")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sausage.gltf");
    skinlab::io::export_model(
        &model,
        &source,
        &skinlab::io::ExportOptions { container: skinlab::io::Container::GltfEmbedded, ..Default::default() },
        &out,
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(json["asset"]["extras"]["fbx"]["unit_meters"].as_f64(), Some(0.01), "{}", json["asset"]);
}

#[test]
fn an_animated_blend_shape_weight_morphs_as_blender_drew_it() {
    let file = data("blender440_shape_weight_anim_7400_binary.fbx");
    let model = load_model(&file).unwrap();
    let clip = model.find_clip("Cube|Action").unwrap();
    let root = model.nodes.scene_roots[0];
    let conversion = model.nodes.nodes[root].rest.to_matrix();
    for (time, frame) in
        [(15.0 / 24.0, "blender440_shape_weight_anim_15.obj"), (25.0 / 24.0, "blender440_shape_weight_anim_25.obj")]
    {
        let mut pose = Pose::rest();
        sample::sample_clip(&model.clips[clip], time, &mut pose);
        let mut world = Vec::new();
        fk::model_from_node(&model.nodes, &pose, &mut world);
        let &(node, mesh) = model.rigid_instances.first().unwrap();
        let mesh = &model.meshes[mesh];
        let weights = pose.morph_weights.get(&node).cloned().unwrap_or(mesh.morphs.default_weights.clone());
        assert!(weights.iter().any(|&w| w > 0.05), "{weights:?}");
        let mut got = Vec::new();
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let mut positions = prim.order.to_file(&prim.positions);
            for (target, &w) in mesh.morphs.primitives[p].iter().zip(&weights) {
                for (&v, &d) in target.vertices.iter().zip(&target.positions) {
                    positions[v as usize] += w * d;
                }
            }
            got.extend(positions.iter().map(|v: &Vec3| world[node].transform_point3(v.as_dvec3())));
        }
        let want: Vec<DVec3> = obj_points(&data(frame)).iter().map(|p| conversion.transform_point3(*p)).collect();
        let (lo, hi) = want.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(a, b), p| (a.min(*p), b.max(*p)));
        let d = one_sided(&got, &want).max(one_sided(&want, &got)) / lo.distance(hi);
        println!("blend shape at {time:.3}: weights {weights:?}, {d:.2e} of the diagonal");
        assert!(d <= 1e-3, "{frame}: {d}");
    }
}

/// three.js's skinned positions (scripts/three_pose.mjs) of the first skinned mesh of `file`
/// playing `clip` at `time`: in the mesh's frame, file order.
fn three_pose(file: &Path, clip: &str, time: f64) -> Vec<DVec3> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/three_pose.mjs");
    let out =
        std::process::Command::new("node").arg(&script).arg(file).arg(clip).arg(time.to_string()).output().unwrap();
    assert!(out.status.success(), "three_pose: {}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["warnings"].as_array().unwrap().is_empty(), "{}", report["warnings"]);
    report["meshes"][0]["positions"][0]
        .as_array()
        .unwrap()
        .chunks(3)
        .map(|c| DVec3::new(c[0].as_f64().unwrap(), c[1].as_f64().unwrap(), c[2].as_f64().unwrap()))
        .collect()
}

#[test]
fn an_opened_fbx_exports_valid_gltf_that_three_js_plays_with_its_edits() {
    let file = data("blender_279_sausage_7400_binary.fbx");
    let (mut model, source) = skinlab::io::load_document(&file).unwrap();
    // An edit: the Spin clip's rotation keys of its first channel turned further.
    let spin = model.find_clip("Skeleton|Spin").unwrap();
    let channel =
        model.clips[spin].channels.iter_mut().find(|c| c.path == skinlab::model::ChannelPath::Rotation).unwrap();
    let extra = glam::DQuat::from_rotation_x(0.4);
    for q in channel.values.chunks_exact_mut(4) {
        let r = (extra * glam::DQuat::from_slice(q)).normalize();
        q.copy_from_slice(&r.to_array().map(|v| f64::from(v as f32)));
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sausage.glb");
    skinlab::io::export_model(&model, &source, &skinlab::io::ExportOptions::default(), &out).unwrap();
    let report = &js_check::validate(std::slice::from_ref(&out))[&out];
    assert!(js_check::error_codes(report).is_empty(), "{report}");
    let reopened = load_model(&out).unwrap();
    assert_eq!(reopened.clips[spin].channels, model.clips[spin].channels, "edited keys kept");
    let inst = &model.instances[0];
    let prim = &model.meshes[inst.mesh].primitives[0];
    for time in [0.25, 15.0 / 24.0] {
        let mut pose = Pose::rest();
        sample::sample_clip(&model.clips[spin], time, &mut pose);
        let mut deformed = Vec::new();
        skinlab::skinning::Deformer::new().deform_all(
            &model,
            &pose,
            skinlab::skinning::SkinningMethod::Lbs,
            &mut deformed,
        );
        let ours = prim.order.to_file(&deformed[0][0].positions);
        let mut world = Vec::new();
        fk::model_from_node(&model.nodes, &Pose::rest(), &mut world);
        let three: Vec<DVec3> =
            three_pose(&out, "Skeleton|Spin", time).iter().map(|p| world[inst.node].transform_point3(*p)).collect();
        let d = ours.iter().zip(&three).map(|(a, b)| a.as_dvec3().distance(*b)).fold(0.0, f64::max);
        assert!(d <= 1e-4, "t = {time}: three.js differs by {d}");
    }
}
