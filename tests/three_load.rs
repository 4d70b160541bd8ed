//! Every export of every shared model — weights re-encoded as float, u16 and u8, and a baked pose
//! — loads in three.js's GLTFLoader (npm `three`, in Node, through scripts/three_load.mjs: every
//! attribute, skin and animation track read back) and passes the Khronos glTF-Validator, each run
//! once over all the files. A synthetic view trimmed as the old repack did ((count − 1) × stride +
//! element size) proves that the loader check fails where the validator does not.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/gltf_edit.rs"]
mod gltf_edit;
#[path = "common/js_check.rs"]
mod js_check;

use std::path::{Path, PathBuf};

use glam::DQuat;
use gltf_edit::GltfDoc;
use serde_json::{json, Value};
use skinlab::io::{export_model, load_document, Bake, Container, ExportOptions, WeightsFormat};
use skinlab::model::Model;
use skinlab::rig::{sample, Pose};
use skinlab::skinning::SkinningMethod;

/// Animation #0 at 0.3 s, or for a model without animations a few rotated joints.
fn pose(model: &Model) -> Pose {
    let mut pose = Pose::rest();
    if let Some(clip) = model.clips.first() {
        sample::sample_clip(clip, 0.3, &mut pose);
    } else {
        for &j in model.skins[0].joints.iter().skip(1).step_by(3) {
            let rest = model.nodes.nodes[j].rest.to_trs().rotation;
            pose.set_rotation(j, DQuat::from_rotation_x(0.4) * rest);
        }
    }
    pose
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_export_of_every_model_loads_in_three_js_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    // (export, its source, baked)
    let mut exports: Vec<(PathBuf, PathBuf, bool)> = Vec::new();
    for src in common::shared_model_files() {
        let (model, source) = load_document(&src).unwrap();
        for format in [WeightsFormat::Float, WeightsFormat::U16, WeightsFormat::U8] {
            let out = dir.path().join(format!("{}-{format}.glb", stem(&src)));
            let opts = ExportOptions { weights_format: Some(format), ..ExportOptions::default() };
            assert!(export_model(&model, &source, &opts, &out).unwrap().rewritten_primitives > 0);
            exports.push((out, src.clone(), false));
        }
        let out = dir.path().join(format!("{}-baked.glb", stem(&src)));
        let opts = ExportOptions {
            bake: Some(Bake { pose: pose(&model), method: SkinningMethod::Sbs }),
            ..ExportOptions::default()
        };
        export_model(&model, &source, &opts, &out).unwrap();
        exports.push((out, src.clone(), true));
        // The .gltf layouts (a data URI, an external .bin) on the smallest models.
        if stem(&src).starts_with("Rigged") || stem(&src) == "SimpleSkin" {
            for (container, name) in [(Container::GltfEmbedded, "embedded"), (Container::GltfExternal, "external")] {
                let out = dir.path().join(format!("{}-u8-{name}.gltf", stem(&src)));
                let opts =
                    ExportOptions { container, weights_format: Some(WeightsFormat::U8), ..ExportOptions::default() };
                export_model(&model, &source, &opts, &out).unwrap();
                exports.push((out, src.clone(), false));
            }
        }
    }
    // The interleaved source of the original bug report, in every format.
    let interleaved = GltfDoc::simple_skin_interleaved().write(&dir.path().join("interleaved.gltf"));
    let (model, source) = load_document(&interleaved).unwrap();
    for format in [WeightsFormat::Float, WeightsFormat::U16, WeightsFormat::U8] {
        let out = dir.path().join(format!("interleaved-{format}.gltf"));
        let opts = ExportOptions {
            container: Container::GltfEmbedded,
            weights_format: Some(format),
            ..ExportOptions::default()
        };
        export_model(&model, &source, &opts, &out).unwrap();
        exports.push((out, interleaved.clone(), false));
    }
    assert_eq!(exports.len(), 9 * 4 + 3 * 2 + 3);

    let mut files: Vec<PathBuf> = exports.iter().flat_map(|(e, s, _)| [e.clone(), s.clone()]).collect();
    files.sort();
    files.dedup();
    let loads = js_check::three_load(&files);
    let reports = js_check::validate(&files);
    for (export, src, baked) in &exports {
        let (e, s) = (&loads[export], &loads[src]);
        assert_eq!(s["ok"], true, "{}: the source does not load in three.js: {}", src.display(), s["error"]);
        assert_eq!(e["ok"], true, "{}: three.js's GLTFLoader: {}", export.display(), e["error"]);
        assert_eq!(e["warnings"], json!([]), "{}: three.js warned", export.display());
        let same = |key: &str| assert_eq!(e[key], s[key], "{}: {key}", export.display());
        for key in ["meshes", "vertices", "clips", "tracks", "textures"] {
            same(key);
        }
        if *baked {
            assert_eq!(e["skinnedMeshes"], 0, "{}: a baked model has no skinned mesh", export.display());
        } else {
            same("skinnedMeshes");
            same("bones");
        }
        let r = &reports[export];
        assert_eq!(r["errors"], 0, "{}: validator: {}", export.display(), r["messages"]);
    }
}

/// The byte length the old repack gave an interleaved view: up to the end of the last element of
/// the accessor reaching furthest ((count − 1) × stride + element size past its offset).
fn trimmed_length(json: &Value, view: usize) -> u64 {
    let stride = json["bufferViews"][view]["byteStride"].as_u64().unwrap();
    json["accessors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["bufferView"].as_u64() == Some(view as u64))
        .map(|a| {
            let components = match a["type"].as_str().unwrap() {
                "SCALAR" => 1,
                "VEC2" => 2,
                "VEC3" => 3,
                _ => 4,
            };
            let size = match a["componentType"].as_u64().unwrap() {
                5120 | 5121 => 1,
                5122 | 5123 => 2,
                _ => 4,
            };
            a["byteOffset"].as_u64().unwrap_or(0) + (a["count"].as_u64().unwrap() - 1) * stride + components * size
        })
        .max()
        .unwrap()
}

#[test]
fn a_view_trimmed_as_the_old_repack_did_fails_in_three_js_but_not_in_the_validator() {
    let dir = tempfile::tempdir().unwrap();
    let src = GltfDoc::simple_skin_interleaved().write(&dir.path().join("interleaved.gltf"));
    let (model, source) = load_document(&src).unwrap();
    let good = dir.path().join("u8.gltf");
    let opts = ExportOptions {
        container: Container::GltfEmbedded,
        weights_format: Some(WeightsFormat::U8),
        ..ExportOptions::default()
    };
    export_model(&model, &source, &opts, &good).unwrap();

    // The same file with the positions' interleaved view cut to what the old repack kept.
    let mut json: Value = serde_json::from_slice(&std::fs::read(&good).unwrap()).unwrap();
    let position = json["meshes"][0]["primitives"][0]["attributes"]["POSITION"].as_u64().unwrap() as usize;
    let view = json["accessors"][position]["bufferView"].as_u64().unwrap() as usize;
    assert!(json["bufferViews"][view]["byteStride"].as_u64().unwrap() > 12, "the export keeps positions interleaved");
    let full = json["bufferViews"][view]["byteLength"].as_u64().unwrap();
    let trimmed = trimmed_length(&json, view);
    assert!(trimmed < full, "{trimmed} < {full}");
    json["bufferViews"][view]["byteLength"] = json!(trimmed);
    let bad = dir.path().join("trimmed.gltf");
    std::fs::write(&bad, serde_json::to_vec(&json).unwrap()).unwrap();

    let files = [good.clone(), bad.clone()];
    let loads = js_check::three_load(&files);
    let reports = js_check::validate(&files);
    assert_eq!(loads[&good]["ok"], true, "{}", loads[&good]["error"]);
    assert_eq!(reports[&bad]["errors"], 0, "the validator accepts the trimmed view: {}", reports[&bad]["messages"]);
    assert_eq!(loads[&bad]["ok"], false, "three.js must refuse the trimmed view");
    let error = loads[&bad]["error"].as_str().unwrap();
    assert!(error.contains("RangeError") && error.contains("typed array length"), "{error}");
}
