//! `skinlab weights compare` and `skinlab weights evaluate`: exact figures on hand-built weight
//! pairs (made from SimpleSkin with weights files through `skinlab export`), a model compared with
//! itself, the volume figure on the contract's two-bone cylinder, and every bad input ending with
//! one `error:` line and exit status 2.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/gltf_edit.rs"]
mod gltf_edit;

#[path = "common/cli_run.rs"]
mod cli_run;
use cli_run::{assert_one_error_line, skinlab};

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::rigs;
use glam::DVec3;
use gltf_edit::{model, GltfDoc};
use serde_json::Value;
use skinlab::analysis::poses::PoseSet;
use skinlab::analysis::{compare, evaluate};
use skinlab::rig::Pose;
use skinlab::skinning::{Deformer, SkinningMethod};

fn json_of(out: &Output) -> Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn compare_json(a: &Path, b: &Path) -> Value {
    json_of(&skinlab([
        OsStr::new("weights"),
        OsStr::new("compare"),
        a.as_os_str(),
        b.as_os_str(),
        OsStr::new("--json"),
    ]))
}

/// SimpleSkin (10 vertices, joints `#1` and `#2`) with every vertex's weights replaced.
fn simple_skin_with(dir: &Path, name: &str, vertices: &[&str]) -> PathBuf {
    let entries: Vec<String> = vertices.iter().enumerate().map(|(v, w)| format!("[{v}, {w}]")).collect();
    let text = format!(
        r##"{{"format": "skinlab-weights", "version": 1, "primitives": [{{"node": "#0", "primitive": 0, "vertices": [{}]}}]}}"##,
        entries.join(", ")
    );
    let weights = dir.join(format!("{name}.json"));
    fs::write(&weights, text).unwrap();
    let out_path = dir.join(format!("{name}.glb"));
    let out = skinlab([
        OsStr::new("export"),
        model("SimpleSkin.gltf").as_os_str(),
        OsStr::new("--weights"),
        weights.as_os_str(),
        OsStr::new("--out"),
        out_path.as_os_str(),
    ]);
    assert!(out.status.success(), "export: {}", String::from_utf8_lossy(&out.stderr));
    out_path
}

const ONE: &str = r##"[["#1", 1.0]]"##;
const TWO: &str = r##"[["#2", 1.0]]"##;

#[test]
fn a_model_compared_with_itself_is_identical() {
    for name in ["SimpleSkin.gltf", "RiggedFigure.glb", "Character_HumanoidRig.glb", "Fox.glb"] {
        let v = compare_json(&model(name), &model(name));
        let w = &v["weights"];
        assert_eq!(w["l1_mean"], 0.0, "{name}");
        assert_eq!(w["l1_max"], 0.0, "{name}");
        assert_eq!(w["precision"], 1.0, "{name}");
        assert_eq!(w["recall"], 1.0, "{name}");
        let d = &v["deformation"];
        assert!(d["poses"].as_u64().unwrap() >= 10, "{name}: {d}");
        assert!(d["mean"].as_f64().unwrap() < 1e-6 && d["max"].as_f64().unwrap() < 1e-6, "{name}: {d}");
        assert_eq!(v["smoothness_reference"], v["smoothness_compared"], "{name}");
        assert_eq!(v["unweighted_compared"], 0, "{name}");
    }
}

#[test]
fn a_hand_built_pair_gives_the_hand_computed_figures() {
    let dir = tempfile::tempdir().unwrap();
    let reference = simple_skin_with(dir.path(), "reference", &[ONE, ONE, ONE, ONE, ONE, TWO, TWO, TWO, TWO, TWO]);
    let half = r##"[["#1", 0.5], ["#2", 0.5]]"##;
    let slight = r##"[["#2", 0.97], ["#1", 0.03]]"##;
    let compared = simple_skin_with(dir.path(), "compared", &[ONE, ONE, ONE, ONE, ONE, half, ONE, slight, TWO, TWO]);
    let v = compare_json(&reference, &compared);
    let w = &v["weights"];
    // L1: vertex 5 is 1, vertex 6 is 2, vertex 7 is 0.06; the rest 0.
    assert!((w["l1_mean"].as_f64().unwrap() - 0.306).abs() < 1e-6, "{w}");
    assert!((w["l1_max"].as_f64().unwrap() - 2.0).abs() < 1e-6, "{w}");
    // Influences above 0.05: reference 10; compared 11 (vertex 5 has two, 0.03 does not count);
    // shared 9 (vertex 6 has the wrong joint).
    assert_eq!(w["reference_influences"], 10, "{w}");
    assert_eq!(w["compared_influences"], 11, "{w}");
    assert_eq!(w["shared_influences"], 9, "{w}");
    assert!((w["precision"].as_f64().unwrap() - 9.0 / 11.0).abs() < 1e-12, "{w}");
    assert!((w["recall"].as_f64().unwrap() - 0.9).abs() < 1e-12, "{w}");
    // Different weights move the mesh differently once the clip bends the second joint.
    let d = &v["deformation"];
    assert_eq!(d["poses"], 10, "one clip, ten times: {d}");
    assert!(d["max"].as_f64().unwrap() > 0.01, "{d}");
    // The text report says the same.
    let text = skinlab([OsStr::new("weights"), OsStr::new("compare"), reference.as_os_str(), compared.as_os_str()]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("mean 0.3060, max 2.0000"), "{text}");
    assert!(text.contains("precision 0.8182, recall 0.9000"), "{text}");
}

#[test]
fn random_poses_follow_the_seed_and_move_unequal_weights() {
    let dir = tempfile::tempdir().unwrap();
    let reference = simple_skin_with(dir.path(), "reference", &[ONE, ONE, ONE, ONE, ONE, TWO, TWO, TWO, TWO, TWO]);
    let compared = simple_skin_with(dir.path(), "compared", &[ONE; 10]);
    let run = || {
        json_of(&skinlab([
            OsStr::new("weights"),
            OsStr::new("compare"),
            reference.as_os_str(),
            compared.as_os_str(),
            OsStr::new("--poses"),
            OsStr::new("random"),
            OsStr::new("--json"),
        ]))
    };
    let (first, second) = (run(), run());
    assert_eq!(first["deformation"], second["deformation"], "a fixed seed gives the same poses");
    assert_eq!(first["deformation"]["poses"], 10);
    assert!(first["deformation"]["mean"].as_f64().unwrap() > 0.0);
    assert!(first["poses"].as_str().unwrap().contains("seed 1"));
}

#[test]
fn evaluate_on_the_cylinder_matches_the_contract_volume_figure() {
    let model = rigs::two_bone_cylinder(41, 24);
    let prim = &model.meshes[0].primitives[0];
    // The contract test's figure: the second joint bent 90° about Z, LBS.
    let rest = rigs::enclosed_volume(&prim.positions, &prim.triangles);
    let mut pose = Pose::rest();
    rigs::rotate(&mut pose, 1, DVec3::Z, std::f64::consts::FRAC_PI_2);
    let mut out = Vec::new();
    Deformer::new().deform_all(&model, &pose, SkinningMethod::Lbs, &mut out);
    let contract_ratio = rigs::enclosed_volume(&out[0][0].positions, &prim.triangles) / rest;
    assert!(contract_ratio < 0.99, "LBS loses volume: {contract_ratio}");

    let e = evaluate(&model, SkinningMethod::Lbs);
    assert_eq!(e.vertices, prim.positions.len());
    assert_eq!(e.unweighted, 0);
    assert_eq!(e.influence_histogram.iter().sum::<usize>(), e.vertices);
    assert!(e.smoothness > 0.0 && e.smoothness.is_finite());
    let mid = e.bends.iter().find(|b| b.joint == "mid").expect("the second joint is bent");
    assert!((mid.axis[2].abs() - 1.0).abs() < 1e-9, "bent about an axis perpendicular to the bone: {:?}", mid.axis);
    assert!((mid.ratio - contract_ratio).abs() < 1e-4, "evaluate {} vs contract {contract_ratio}", mid.ratio);
    // Bending the root turns the whole cylinder rigidly.
    let root = e.bends.iter().find(|b| b.joint == "root").unwrap();
    assert!((root.ratio - 1.0).abs() < 1e-4, "{}", root.ratio);
    // SBS keeps more of the volume than LBS.
    let sbs = evaluate(&model, SkinningMethod::Sbs);
    let sbs_mid = sbs.bends.iter().find(|b| b.joint == "mid").unwrap();
    assert!((sbs_mid.ratio - 1.0).abs() < (mid.ratio - 1.0).abs(), "{} vs {}", sbs_mid.ratio, mid.ratio);
}

#[test]
fn smoother_weights_have_lower_energy_and_the_library_compare_agrees() {
    let model = rigs::two_bone_cylinder(41, 24);
    // A hard step at the joint instead of the blend over the middle.
    let mut hard = rigs::two_bone_cylinder(41, 24);
    let positions = hard.meshes[0].primitives[0].positions.clone();
    let mut weights = skinlab::analysis::weights_of(&hard);
    for (v, w) in weights[0].primitives[0].iter_mut().enumerate() {
        *w = vec![(u16::from(positions[v].x > 1.0), 1.0)];
    }
    hard = skinlab::analysis::with_weights(&hard, &weights).unwrap();
    let soft = evaluate(&model, SkinningMethod::Lbs).smoothness;
    let step = evaluate(&hard, SkinningMethod::Lbs).smoothness;
    assert!(step > 2.0 * soft, "a step costs more than a blend: {step} vs {soft}");
    let c = compare(&model, &hard, PoseSet::Random).unwrap();
    assert!(c.weights.l1_mean > 0.0 && c.deformation.max > 0.0);
    assert!((c.smoothness_compared - step).abs() < 1e-9 * step);
}

#[test]
fn bad_input_gives_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let simple = model("SimpleSkin.gltf");
    let run = |args: &[&OsStr]| skinlab([OsStr::new("weights")].iter().copied().chain(args.iter().copied()));
    let compare_of = |a: &Path, b: &Path| run(&[OsStr::new("compare"), a.as_os_str(), b.as_os_str()]);

    let missing = dir.path().join("nowhere.glb");
    assert_one_error_line(&compare_of(&missing, &simple), &["nowhere.glb", "no such file"]);
    assert_one_error_line(&compare_of(&simple, &missing), &["nowhere.glb", "no such file"]);
    assert_one_error_line(&run(&[OsStr::new("evaluate"), missing.as_os_str()]), &["nowhere.glb", "no such file"]);

    // Different meshes.
    assert_one_error_line(
        &compare_of(&model("Fox.glb"), &model("CesiumMan.glb")),
        &["CesiumMan.glb", "vertices", "Fox.glb"],
    );
    assert_one_error_line(&compare_of(&model("Character_HumanoidRig.glb"), &model("Fox.glb")), &["skinned meshes"]);
    // Same vertex count, moved vertex.
    let mut doc = GltfDoc::simple_skin();
    doc.set_f32(0, 48, 5.0); // x of vertex 0 (POSITION starts at byte 48 of buffer 0)
    let moved = doc.write(&dir.path().join("moved.gltf"));
    assert_one_error_line(&compare_of(&simple, &moved), &["moved.gltf", "not the same mesh"]);
    // A weighted joint whose name the reference lacks.
    let mut doc = GltfDoc::simple_skin();
    doc.json["nodes"][2]["name"] = Value::String("Forearm\nnext line".into());
    let renamed = doc.write(&dir.path().join("renamed.gltf"));
    assert_one_error_line(&compare_of(&simple, &renamed), &["renamed.gltf", "Forearm", "no joint of that name"]);
    // Hostile files: noise, a truncated GLB, JSON that is no glTF.
    let noise: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let noise_path = dir.path().join("noise.glb");
    fs::write(&noise_path, noise).unwrap();
    assert_one_error_line(&compare_of(&simple, &noise_path), &["noise.glb"]);
    assert_one_error_line(&run(&[OsStr::new("evaluate"), noise_path.as_os_str()]), &["noise.glb"]);
    let bytes = fs::read(model("RiggedSimple.glb")).unwrap();
    let cut = dir.path().join("cut.glb");
    fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert_one_error_line(&compare_of(&cut, &model("RiggedSimple.glb")), &["cut.glb", "truncated"]);
    let other = dir.path().join("other.gltf");
    fs::write(&other, br#"{"asset": {"version": "2.0"}, "nodes": [{"mesh": 7}]}"#).unwrap();
    assert_one_error_line(&compare_of(&other, &simple), &["other.gltf"]);
    // Nothing skinned.
    let empty = dir.path().join("empty.gltf");
    fs::write(&empty, br#"{"asset": {"version": "2.0"}}"#).unwrap();
    assert_one_error_line(&compare_of(&empty, &empty), &["empty.gltf", "no skinned mesh"]);
    assert_one_error_line(&run(&[OsStr::new("evaluate"), empty.as_os_str()]), &["empty.gltf", "no skinned mesh"]);
    // Bad arguments.
    assert_one_error_line(&run(&[OsStr::new("compare"), simple.as_os_str()]), &["required"]);
    assert_one_error_line(
        &run(&[
            OsStr::new("compare"),
            simple.as_os_str(),
            simple.as_os_str(),
            OsStr::new("--poses"),
            OsStr::new("some"),
        ]),
        &["--poses"],
    );
    assert_one_error_line(
        &run(&[OsStr::new("evaluate"), simple.as_os_str(), OsStr::new("--method"), OsStr::new("xyz")]),
        &["--method"],
    );
}

#[test]
fn vertices_without_weight_stay_at_their_bind_placement() {
    use skinlab::analysis::deformation::deformation_distance;
    use skinlab::analysis::poses::{bind_pose, random_poses};
    use skinlab::analysis::{weights_of, with_weights};
    use skinlab::model::NodeTransform;
    let mut model = rigs::two_bone_cylinder(11, 8);
    // A scaled root puts every joint's model_from_bind at 2·I in the bind pose, as FBX2glTF's ×100
    // armatures do: a vertex without weight must stay beside its neighbours, not at its raw
    // mesh-space position.
    if let NodeTransform::Trs(t) = &mut model.nodes.nodes[0].rest {
        t.scale = DVec3::splat(2.0);
    }
    let mut weights = weights_of(&model);
    for w in weights[0].primitives[0].iter_mut().take(5) {
        w.clear();
    }
    let holed = with_weights(&model, &weights).unwrap();
    let at_bind = deformation_distance(&model, &holed, &[bind_pose(&model)]);
    assert!(at_bind.max < 1e-6, "{at_bind:?}");
    let rest_diagonal = common::bbox_diagonal(model.meshes[0].primitives[0].positions.iter().copied());
    assert!((at_bind.diagonal - 2.0 * f64::from(rest_diagonal)).abs() < 1e-4, "{at_bind:?}");
    let posed = deformation_distance(&model, &holed, &random_poses(&model, 3, 1, std::f64::consts::FRAC_PI_4));
    assert!(posed.max > 0.01, "unweighted vertices do not follow the joints: {posed:?}");
}
