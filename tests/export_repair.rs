//! Export repairs what the deformation contract repairs: source weights that do not sum to 1 are
//! written normalised (with a count of the vertices changed, `--keep-weights` to write them as
//! they are) so that the export passes the Khronos validator although the source did not; and a
//! view that interleaves positions with skin attributes keeps `count × stride` bytes after the
//! skin attributes are re-encoded (three.js's GLTFLoader reads whole strides).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/gltf_edit.rs"]
mod gltf_edit;

use std::path::{Path, PathBuf};
use std::process::Command;

use gltf_edit::{simple_skin, GltfDoc};
use serde_json::{json, Value};
use skinlab::io::{export_model, load_document, ExportOptions, WeightsFormat};

/// Validator reports for `files`, by file name.
fn validate(files: &[&Path]) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/validate-gltf.mjs");
    let out = Command::new("node").arg(&script).args(files).output().expect("node (run scripts/setup.sh)");
    assert!(out.status.success(), "validator did not run: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn codes(report: &Value) -> Vec<String> {
    report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["severity"].as_u64() == Some(0))
        .map(|m| m["code"].as_str().unwrap().to_owned())
        .collect()
}

/// SimpleSkin with the weights of vertices 0..4 scaled so that they do not sum to 1.
fn non_normalised(dir: &Path) -> PathBuf {
    let mut doc = GltfDoc::simple_skin();
    for v in 0..4 {
        for slot in 0..4 {
            let at = simple_skin::weight_at(v, slot);
            let b = &doc.buffers[simple_skin::SKIN_BUFFER][at..at + 4];
            let w = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            doc.set_f32(simple_skin::SKIN_BUFFER, at, w * if v % 2 == 0 { 0.8 } else { 1.5 });
        }
    }
    doc.write(&dir.join("nonnorm.gltf"))
}

#[test]
fn non_normalised_source_weights_are_written_normalised_and_the_export_validates() {
    let dir = tempfile::tempdir().unwrap();
    let src = non_normalised(dir.path());
    let (model, source) = load_document(&src).unwrap();
    let out = dir.path().join("fixed.glb");
    let report = export_model(&model, &source, &ExportOptions::default(), &out).unwrap();
    assert_eq!(report.repaired_vertices, 4);
    assert_eq!(report.rewritten_primitives, 1);
    let kept = dir.path().join("kept.glb");
    let opts = ExportOptions { keep_weights: true, ..ExportOptions::default() };
    assert_eq!(export_model(&model, &source, &opts, &kept).unwrap().repaired_vertices, 0);

    let reports = validate(&[&src, &out, &kept]);
    let by = |p: &Path| reports.iter().find(|r| r["file"] == p.display().to_string()).unwrap();
    assert!(codes(by(&src)).contains(&"ACCESSOR_WEIGHTS_NON_NORMALIZED".to_owned()), "the source must fail");
    assert_eq!(by(&out)["errors"], 0, "{}", by(&out)["messages"]);
    assert!(codes(by(&kept)).contains(&"ACCESSOR_WEIGHTS_NON_NORMALIZED".to_owned()), "--keep-weights kept them");
    // The written weights are the model's (normalised) weights.
    let back = skinlab::io::load_model(&out).unwrap();
    assert_eq!(back.meshes[0].primitives[0].influences, model.meshes[0].primitives[0].influences);
}

#[test]
fn the_cli_notes_how_many_vertices_were_normalised() {
    let dir = tempfile::tempdir().unwrap();
    let src = non_normalised(dir.path());
    let out = dir.path().join("cli.glb");
    let o = Command::new(env!("CARGO_BIN_EXE_skinlab"))
        .args(["export", src.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let notes: Vec<&str> = text.lines().filter(|l| l.contains("normalised the source weights of 4 vertices")).collect();
    assert_eq!(notes.len(), 1, "{text}");
    let o = Command::new(env!("CARGO_BIN_EXE_skinlab"))
        .args(["export", src.to_str().unwrap(), "--keep-weights", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stdout).contains("normalised"));
}

/// SimpleSkin with POSITION, JOINTS_0 and WEIGHTS_0 interleaved in one view (stride 36).
fn interleaved(dir: &Path) -> PathBuf {
    let mut doc = GltfDoc::simple_skin();
    let view = |doc: &GltfDoc, a: usize| -> (usize, usize) {
        let acc = &doc.json["accessors"][a];
        let v = &doc.json["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        let off = v["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0);
        (v["buffer"].as_u64().unwrap() as usize, off as usize)
    };
    let ((pb, po), (jb, jo), (wb, wo)) = (view(&doc, 1), view(&doc, 2), view(&doc, 3));
    let mut data = Vec::new();
    for v in 0..10 {
        data.extend_from_slice(&doc.buffers[pb][po + 12 * v..po + 12 * v + 12]);
        data.extend_from_slice(&doc.buffers[jb][jo + 16 * v..jo + 16 * v + 8]);
        data.extend_from_slice(&doc.buffers[wb][wo + 16 * v..wo + 16 * v + 16]);
    }
    let buffer = doc.buffers.len();
    doc.json["buffers"].as_array_mut().unwrap().push(json!({"byteLength": data.len()}));
    doc.buffers.push(data);
    let views = doc.json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": buffer, "byteLength": 360, "byteStride": 36, "target": 34962}));
    let view = views.len() - 1;
    for (a, off) in [(1, 0), (2, 12), (3, 20)] {
        doc.json["accessors"][a]["bufferView"] = json!(view);
        doc.json["accessors"][a]["byteOffset"] = json!(off);
    }
    doc.write(&dir.join("interleaved.gltf"))
}

#[test]
fn an_interleaved_view_keeps_count_times_stride_bytes_after_re_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let src = interleaved(dir.path());
    let (model, source) = load_document(&src).unwrap();
    let out = dir.path().join("u8.gltf");
    let opts = ExportOptions {
        container: skinlab::io::Container::GltfEmbedded,
        weights_format: Some(WeightsFormat::U8),
        ..ExportOptions::default()
    };
    export_model(&model, &source, &opts, &out).unwrap();
    let json: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let pos =
        &json["accessors"][json["meshes"][0]["primitives"][0]["attributes"]["POSITION"].as_u64().unwrap() as usize];
    let view = &json["bufferViews"][pos["bufferView"].as_u64().unwrap() as usize];
    let (stride, count) = (view["byteStride"].as_u64().unwrap(), pos["count"].as_u64().unwrap());
    let offset = pos["byteOffset"].as_u64().unwrap_or(0);
    assert!(
        view["byteLength"].as_u64().unwrap() >= offset + count * stride,
        "view of {} bytes for {count} × {stride} from {offset}",
        view["byteLength"]
    );
    let reports = validate(&[&out]);
    assert_eq!(reports[0]["errors"], 0, "{}", reports[0]["messages"]);
    let back = skinlab::io::load_model(&out).unwrap();
    assert_eq!(back.meshes[0].primitives[0].positions, model.meshes[0].primitives[0].positions);
}
