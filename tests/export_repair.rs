//! Export repairs what the deformation contract repairs: source weights that do not sum to 1 are
//! written normalised (with a count of the vertices changed, `--keep-weights` to write them as
//! they are) so that the export passes the Khronos validator although the source did not; and a
//! view that interleaves positions with skin attributes keeps `count × stride` bytes after the
//! skin attributes are re-encoded (three.js's GLTFLoader reads whole strides); and vertices with
//! more influences than the export's limit are written with their largest ones, normalised.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/gltf_edit.rs"]
mod gltf_edit;
#[path = "common/js_check.rs"]
mod js_check;

use std::path::{Path, PathBuf};
use std::process::Command;

use gltf_edit::{simple_skin, GltfDoc, SIX_WEIGHTS};
use js_check::error_codes as codes;
use serde_json::Value;
use skinlab::io::{export_model, load_document, ExportOptions, WeightsFormat};

/// Validator reports for `files`, in order.
fn validate(files: &[&Path]) -> Vec<Value> {
    let files: Vec<PathBuf> = files.iter().map(|f| f.to_path_buf()).collect();
    let mut by = js_check::validate(&files);
    files.iter().map(|f| by.remove(f).unwrap()).collect()
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
    let by = |p: &Path| &reports[[&src, &out, &kept].iter().position(|f| f.as_path() == p).unwrap()];
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

#[test]
fn an_interleaved_view_keeps_count_times_stride_bytes_after_re_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let src = GltfDoc::simple_skin_interleaved().write(&dir.path().join("interleaved.gltf"));
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

#[test]
fn vertices_beyond_the_influence_limit_keep_their_largest_weights_normalised() {
    let dir = tempfile::tempdir().unwrap();
    let src = GltfDoc::simple_skin_six_influences().write(&dir.path().join("six.gltf"));
    let (model, source) = load_document(&src).unwrap();
    let inf = model.meshes[0].primitives[0].influences.as_ref().unwrap();
    assert_eq!(inf.count(0, &model.skins[0].sets), 6, "the model keeps all six source influences");

    // The default limit (4): the four vertices are rewritten and counted.
    let out = dir.path().join("four.glb");
    let report = export_model(&model, &source, &ExportOptions::default(), &out).unwrap();
    assert_eq!((report.repaired_vertices, report.rewritten_primitives), (4, 1));
    // A limit that the source respects: nothing to repair, the source's two sets are kept.
    let eight = dir.path().join("eight.glb");
    let opts = ExportOptions { max_influences: 8, ..ExportOptions::default() };
    assert_eq!(export_model(&model, &source, &opts, &eight).unwrap().repaired_vertices, 0);
    // --keep-weights writes the six as they are.
    let kept = dir.path().join("kept.glb");
    let opts = ExportOptions { keep_weights: true, ..ExportOptions::default() };
    let report = export_model(&model, &source, &opts, &kept).unwrap();
    assert_eq!((report.repaired_vertices, report.rewritten_primitives), (0, 0));

    let back = skinlab::io::load_model(&out).unwrap();
    let back_inf = back.meshes[0].primitives[0].influences.as_ref().unwrap();
    let sets = &back.skins[0].sets;
    let top: f32 = SIX_WEIGHTS[..4].iter().sum();
    for v in 0..4 {
        let mut got: Vec<(u16, f32)> = back_inf.vertex(v, sets).collect();
        got.sort_by_key(|p| p.0);
        let want: Vec<(u16, f32)> = (0..4).map(|j| (j as u16, SIX_WEIGHTS[j] / top)).collect();
        assert_eq!(got.len(), 4, "vertex {v}: {got:?}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.0, w.0, "vertex {v}: the largest four are kept: {got:?}");
            assert!((g.1 - w.1).abs() < 1e-6, "vertex {v}: normalised: {got:?} vs {want:?}");
        }
    }
    for v in 4..10 {
        assert_eq!(back_inf.count(v, sets), inf.count(v, &model.skins[0].sets), "vertex {v} is as it was");
    }
    for file in [&eight, &kept] {
        let again = skinlab::io::load_model(file).unwrap();
        assert_eq!(again.meshes[0].primitives[0].influences.as_ref().unwrap().count(0, &again.skins[0].sets), 6);
    }

    let files = [src.clone(), out.clone(), eight.clone(), kept.clone()];
    let reports = js_check::validate(&files);
    let loads = js_check::three_load(&files);
    for f in &files {
        assert_eq!(reports[f]["errors"], 0, "{}: {}", f.display(), reports[f]["messages"]);
        assert_eq!(loads[f]["ok"], true, "{}: {}", f.display(), loads[f]["error"]);
    }

    // The CLI says so in its one repair line.
    let o = Command::new(env!("CARGO_BIN_EXE_skinlab"))
        .args(["export", src.to_str().unwrap(), "--out", dir.path().join("cli.glb").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let notes: Vec<&str> = text.lines().filter(|l| l.contains("source weights of 4 vertices")).collect();
    assert_eq!(notes.len(), 1, "{text}");
    assert!(notes[0].contains("beyond 4 influences"), "{text}");
    assert!(!text.contains("trimmed"), "one line for the repair: {text}");
}
