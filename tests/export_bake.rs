//! glTF export beyond weights: a baked pose equals `skinlab deform` (API and CLI, OBJ and the saved
//! pose), a mesh shared by two skins is split only when its weights differ, the CLI refuses bad
//! outputs with one line and leaves nothing behind, and unknown extensions are carried without
//! renumbering while compressed data is refused. Every export passes the Khronos validator.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/export_check.rs"]
mod export_check;

use export_check::*;

use std::path::Path;
use std::process::Command;

use glam::{DQuat, Vec3};
use serde_json::Value;
use skinlab::io::gltf_export::export_bytes;
use skinlab::io::{self, export_model, load_document, Bake, Container, ExportOptions, WeightsFormat};
use skinlab::model::influences::VertexInfluences;
use skinlab::model::Model;
use skinlab::rig::{fk, sample, Pose};
use skinlab::skinning::{Deformer, SkinningMethod};

const BIN: &str = env!("CARGO_BIN_EXE_skinlab");

/// A pose per model: animation #0 at 0.3 s, or for models without animations a few rotated joints.
fn test_pose(model: &Model) -> Pose {
    let mut pose = Pose::rest();
    if let Some(clip) = model.clips.first() {
        sample::sample_clip(clip, 0.3, &mut pose);
    } else {
        for (k, &j) in model.skins[0].joints.iter().enumerate().skip(1).step_by(3) {
            let rest = model.nodes.nodes[j].rest.to_trs().rotation;
            pose.set_rotation(j, DQuat::from_rotation_x(0.3 + 0.1 * k as f64) * rest);
        }
    }
    pose
}

#[test]
fn baked_pose_equals_deform() {
    let dir = tempfile::tempdir().unwrap();
    let methods = SkinningMethod::ALL;
    let mut pairs = Vec::new();
    for (i, src) in common::shared_model_files().into_iter().enumerate() {
        let (model, source) = load_document(&src).unwrap();
        let pose = test_pose(&model);
        let method = methods[i % methods.len()];
        let mut deformer = Deformer::new();
        let mut expected = Vec::new();
        deformer.deform_all(&model, &pose, method, &mut expected);
        let posed_world = deformer.model_from_node().to_vec();
        let container = if i % 2 == 0 { Container::Glb } else { Container::GltfEmbedded };
        let out = dir.path().join(format!(
            "{}-baked.{}",
            stem(&src),
            if container == Container::Glb { "glb" } else { "gltf" }
        ));
        let opts =
            ExportOptions { container, bake: Some(Bake { pose: pose.clone(), method }), ..ExportOptions::default() };
        let report = export_model(&model, &source, &opts, &out).unwrap();
        assert_eq!(report.baked_nodes, model.instances.len());
        let baked = io::load_model(&out).unwrap();
        assert!(baked.instances.is_empty(), "{}: no skinned mesh is left", out.display());
        assert!(baked.skins.is_empty(), "{}: unused skins are removed", out.display());
        assert_eq!(baked.clips, model.clips, "animations are kept");
        // The pose is in the nodes: every node's rest world matrix equals its posed one.
        let mut world = Vec::new();
        fk::model_from_node(&baked.nodes, &Pose::rest(), &mut world);
        let (lo, hi) = model.rest_bounds();
        let diag = f64::from((hi - lo).length()).max(1e-9);
        for (n, (a, b)) in world.iter().zip(&posed_world).enumerate() {
            let scale = b.abs().to_cols_array().iter().fold(1.0f64, |m, v| m.max(*v));
            assert!(a.abs_diff_eq(*b, 1e-5 * scale), "{}: node {n} world differs:\n{a}\n{b}", out.display());
        }
        // The baked meshes, drawn with their nodes, are the deformed meshes.
        for (k, inst) in model.instances.iter().enumerate() {
            let mesh = baked.nodes.nodes[inst.node].mesh.unwrap();
            assert!(baked.rigid_instances.contains(&(inst.node, mesh)));
            for (p, exp) in expected[k].iter().enumerate() {
                let prim = &baked.meshes[mesh].primitives[p];
                let w = world[inst.node];
                // The baked mesh is rigid, in the file's order; the skinned model may hold its
                // vertices in joint-set order.
                let order = &model.meshes[inst.mesh].primitives[p].order;
                for (v, e) in order.to_file(&exp.positions).iter().enumerate() {
                    let got = w.transform_point3(prim.positions[v].as_dvec3());
                    let err = (got - e.as_dvec3()).length() / diag;
                    assert!(
                        err < 1e-5,
                        "{}: node {} primitive {p} vertex {v}: {got} vs {e} ({err})",
                        out.display(),
                        inst.node
                    );
                }
                if !exp.normals.is_empty() {
                    let normal = glam::DMat3::from_mat4(w).inverse().transpose();
                    for (v, e) in order.to_file(&exp.normals).iter().enumerate() {
                        let got = (normal * prim.normals.as_ref().unwrap()[v].as_dvec3()).normalize();
                        assert!((got - e.as_dvec3()).length() < 1e-4, "{}: normal {v}: {got} vs {e}", out.display());
                    }
                }
            }
        }
        pairs.push((out, src));
    }
    assert_valid(&pairs);
}

#[test]
fn cli_bake_writes_the_same_obj_as_deform_and_saves_the_pose() {
    let src = Path::new(MODELS).join("Fox.glb");
    let dir = tempfile::tempdir().unwrap();
    let (out, obj, pose) = (dir.path().join("fox.glb"), dir.path().join("export.obj"), dir.path().join("pose.json"));
    let deform_obj = dir.path().join("deform.obj");
    let run = Command::new(BIN)
        .args(["export", src.to_str().unwrap(), "--out", out.to_str().unwrap(), "--bake", "--animation", "Walk"])
        .args([
            "--time",
            "0.25",
            "--method",
            "sbs",
            "--obj",
            obj.to_str().unwrap(),
            "--save-pose",
            pose.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let run = Command::new(BIN)
        .args(["deform", src.to_str().unwrap(), "--animation", "Walk", "--time", "0.25", "--method", "sbs"])
        .args(["--out", deform_obj.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success());
    assert_eq!(std::fs::read(&obj).unwrap(), std::fs::read(&deform_obj).unwrap(), "export --obj is deform's OBJ");
    // The saved pose reproduces the same deformation.
    let from_pose = dir.path().join("from_pose.obj");
    let run = Command::new(BIN)
        .args(["deform", src.to_str().unwrap(), "--pose", pose.to_str().unwrap(), "--method", "sbs"])
        .args(["--out", from_pose.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success());
    let parse = |p: &Path| -> Vec<Vec3> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("v "))
            .map(|l| {
                let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
                Vec3::new(v[0], v[1], v[2])
            })
            .collect()
    };
    let (a, b) = (parse(&deform_obj), parse(&from_pose));
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(x, y)| (*x - *y).length() < 1e-3), "the saved pose deforms the same");
    // The baked file's vertices, placed by their node, are the OBJ's vertices.
    let baked = io::load_model(&out).unwrap();
    let mut world = Vec::new();
    fk::model_from_node(&baked.nodes, &Pose::rest(), &mut world);
    let (model, _) = load_document(&src).unwrap();
    let node = model.instances[0].node;
    let mesh = baked.nodes.nodes[node].mesh.unwrap();
    let placed: Vec<Vec3> = baked.meshes[mesh].primitives[0]
        .positions
        .iter()
        .map(|p| world[node].transform_point3(p.as_dvec3()).as_vec3())
        .collect();
    assert_eq!(placed.len(), a.len());
    let (lo, hi) = model.rest_bounds();
    assert!(placed.iter().zip(&a).all(|(x, y)| (*x - *y).length() < 1e-5 * (hi - lo).length()));
}

#[test]
fn a_mesh_shared_by_two_skins_is_split_only_when_its_weights_differ() {
    // SimpleSkin with a second skin (joints in the other order) on a second node using mesh 0.
    let dir = tempfile::tempdir().unwrap();
    let mut json: Value =
        serde_json::from_slice(&std::fs::read(Path::new(MODELS).join("SimpleSkin.gltf")).unwrap()).unwrap();
    json["skins"].as_array_mut().unwrap().push(serde_json::json!({"joints": [2, 1]}));
    json["nodes"].as_array_mut().unwrap().push(serde_json::json!({"name": "Second", "mesh": 0, "skin": 1}));
    json["scenes"][0]["nodes"].as_array_mut().unwrap().push(serde_json::json!(3));
    let src = dir.path().join("two-skins.gltf");
    std::fs::write(&src, serde_json::to_vec(&json).unwrap()).unwrap();
    let (mut model, source) = load_document(&src).unwrap();
    assert_eq!(model.meshes.len(), 2, "the importer copies the mesh for the second skin");
    let second = model.instances.iter().find(|i| i.node == 3).unwrap().clone();
    let table = &mut model.skins[1].sets;
    let inf = model.meshes[second.mesh].primitives[0].influences.as_mut().unwrap();
    inf.set_vertex(0, &VertexInfluences { pairs: vec![(1, 0.9), (0, 0.1)] }, table).unwrap();

    let unchanged = dir.path().join("unchanged.gltf");
    let (files, _) = export_bytes(source.original(), &source, &options(Container::GltfEmbedded), &unchanged).unwrap();
    let j: Value = serde_json::from_slice(&files.main).unwrap();
    assert_eq!(j["meshes"].as_array().unwrap().len(), 1, "unedited: still one mesh");

    let out = dir.path().join("edited.glb");
    export_model(&model, &source, &ExportOptions::default(), &out).unwrap();
    let (j, _) = read_gltf(&out);
    assert_eq!(j["meshes"].as_array().unwrap().len(), 2, "edited: the second node gets its own mesh");
    assert_eq!((j["nodes"][0]["mesh"].as_u64(), j["nodes"][3]["mesh"].as_u64()), (Some(0), Some(1)));
    let again = io::load_model(&out).unwrap();
    assert_eq!(again.instances.len(), 2);
    for inst in &model.instances {
        let other = again.instances.iter().find(|i| i.node == inst.node).unwrap();
        let (pa, pb) = (&model.meshes[inst.mesh].primitives[0], &again.meshes[other.mesh].primitives[0]);
        for v in 0..pa.positions.len() {
            // Vertex `v` of the file in each model's own order.
            let a = weight_map(&model, inst.mesh, inst.skin, 0, pa.order.model_index(v));
            let b = weight_map(&again, other.mesh, other.skin, 0, pb.order.model_index(v));
            assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
            assert!(a.values().zip(b.values()).all(|(x, y)| (x - y).abs() < 1e-6), "node {} vertex {v}", inst.node);
        }
    }
    assert_valid(&[(out, src)]);
}

#[test]
fn cli_refuses_bad_outputs_with_one_line_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.glb");
    std::fs::copy(Path::new(MODELS).join("RiggedSimple.glb"), &model).unwrap();
    let original = std::fs::read(&model).unwrap();
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let export = |args: &[&str]| {
        let out = Command::new(BIN).arg("export").arg(&model).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let missing = dir.path().join("no/such/dir/out.glb");
    let busy = dir.path().join("busy.glb");
    std::fs::create_dir(&busy).unwrap();
    let model_str = model.to_str().unwrap().to_owned();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--out".into(), missing.to_str().unwrap().into()], "cannot write"),
        (vec!["--out".into(), model_str.clone()], "refusing to overwrite"),
        (vec!["--out".into(), dir.path().join("a.obj").to_str().unwrap().into()], "must end in .glb or .gltf"),
        (vec!["--out".into(), busy.to_str().unwrap().into()], "cannot write"),
        (
            vec!["--out".into(), dir.path().join("x.glb").to_str().unwrap().into(), "--external-buffer".into()],
            "needs a .gltf output",
        ),
        (
            vec!["--out".into(), dir.path().join("x.glb").to_str().unwrap().into(), "--obj".into(), model_str.clone()],
            "refusing to overwrite",
        ),
        (
            vec![
                "--out".into(),
                dir.path().join("x.glb").to_str().unwrap().into(),
                "--bake".into(),
                "--animation".into(),
                "Nope".into(),
            ],
            "no such animation",
        ),
    ];
    for (args, needle) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let before = listing();
        let (code, stderr) = export(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(needle), "{args:?}: {stderr}");
        assert_eq!(listing(), before, "{args:?}: no file (partial or temporary) is left");
        assert_eq!(std::fs::read(&model).unwrap(), original, "the input is untouched");
    }
    // With --force the input is replaced (atomically) by a valid export of itself.
    let (code, stderr) = export(&["--out", &model_str, "--force", "--weights-format", "u16"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_ne!(std::fs::read(&model).unwrap(), original);
    let again = io::load_model(&model).unwrap();
    assert_eq!(again.instances.len(), 1);
    assert_eq!(listing(), vec!["busy.glb".to_owned(), "model.glb".to_owned()]);
}

#[test]
fn unknown_extensions_are_carried_without_renumbering_and_compressed_data_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base: Value =
        serde_json::from_slice(&std::fs::read(Path::new(MODELS).join("SimpleSkin.gltf")).unwrap()).unwrap();
    let accessors = base["accessors"].as_array().unwrap().len();

    let mut json = base.clone();
    json["extensionsUsed"] = serde_json::json!(["EXT_made_up"]);
    json["nodes"][0]["extensions"] = serde_json::json!({"EXT_made_up": {"accessor": 3, "note": "kept"}});
    json["extras"] = serde_json::json!({"author": "test", "list": [1, 2.5, "x"]});
    let src = dir.path().join("unknown.gltf");
    std::fs::write(&src, serde_json::to_vec(&json).unwrap()).unwrap();
    let (model, source) = load_document(&src).unwrap();
    let out = dir.path().join("unknown-out.gltf");
    let opts = ExportOptions {
        container: Container::GltfEmbedded,
        weights_format: Some(WeightsFormat::U16),
        ..ExportOptions::default()
    };
    let report = export_model(&model, &source, &opts, &out).unwrap();
    assert!(!report.compacted, "an unknown extension may hold indices: nothing is renumbered");
    let (j, _) = read_gltf(&out);
    assert_eq!(j["accessors"].as_array().unwrap().len(), accessors + 2, "old accessors stay, new ones are appended");
    assert_eq!(j["nodes"][0]["extensions"], json["nodes"][0]["extensions"]);
    assert_eq!(j["extras"], json["extras"]);
    assert_eq!(j["extensionsUsed"], json["extensionsUsed"]);
    let again = io::load_model(&out).unwrap();
    assert_same_model(&model, &again, 2e-5, "unknown extension");

    let mut json = base;
    json["extensionsUsed"] = serde_json::json!(["EXT_meshopt_compression"]);
    let src = dir.path().join("meshopt.gltf");
    std::fs::write(&src, serde_json::to_vec(&json).unwrap()).unwrap();
    let (model, source) = load_document(&src).unwrap();
    let out = dir.path().join("meshopt-out.glb");
    let e = export_model(&model, &source, &ExportOptions::default(), &out).unwrap_err().to_string();
    assert!(e.contains("EXT_meshopt_compression") && e.starts_with(&out.display().to_string()), "{e}");
    assert!(!out.exists());
}
