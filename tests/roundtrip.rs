//! glTF export round trips on every shared model: unchanged exports keep every byte that matters,
//! re-encoded and edited weights come back (through the API, the CLI and weights files), more than
//! four influences take a second set, and every exported file passes the Khronos glTF-Validator
//! (run through Node with scripts/validate-gltf.mjs; scripts/setup.sh installs it). Baked poses,
//! shared meshes, refused outputs and unknown extensions are in `tests/export_bake.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/export_check.rs"]
mod export_check;

use export_check::*;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use skinlab::io::weights_file::weights_to_json;
use skinlab::io::{
    self, apply_weights_file, export_model, load_document, write_weights_file, Container, ExportOptions, WeightsFormat,
};
use skinlab::model::influences::VertexInfluences;
use skinlab::model::Model;

const BIN: &str = env!("CARGO_BIN_EXE_skinlab");

#[test]
fn unchanged_export_round_trips_every_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    for src in common::shared_model_files() {
        let (model, source) = load_document(&src).unwrap();
        let mut outs = vec![(dir.path().join(format!("{}.glb", stem(&src))), Container::Glb)];
        if src.extension().unwrap() == "gltf" || stem(&src) == "RiggedSimple" {
            outs.push((dir.path().join(format!("{}-embedded.gltf", stem(&src))), Container::GltfEmbedded));
            outs.push((dir.path().join(format!("{}-external.gltf", stem(&src))), Container::GltfExternal));
        }
        for (out, container) in outs {
            let report = export_model(&model, &source, &options(container), &out).unwrap();
            assert_eq!(report.rewritten_primitives, 0, "nothing was edited");
            assert!(report.compacted);
            let again = io::load_model(&out).unwrap();
            assert_same_model(&model, &again, 0.0, &out.display().to_string());
            assert_document_kept(&src, &out, &BTreeSet::new());
            for (path, size) in &report.files {
                assert_eq!(file_size(path), *size as u64, "{}", path.display());
            }
            let written: u64 = report.files.iter().map(|f| f.1 as u64).sum();
            if container != Container::GltfEmbedded || src.extension().unwrap() == "gltf" {
                let limit = file_size(&src) as f64 * 1.1 + 2048.0;
                assert!(
                    (written as f64) <= limit,
                    "{}: {written} bytes for a {}-byte source",
                    out.display(),
                    file_size(&src)
                );
            }
            pairs.push((out, src.clone()));
        }
    }
    assert_eq!(
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".tmp"))
            .count(),
        0
    );
    assert_valid(&pairs);
}

#[test]
fn reencoded_weights_round_trip_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    for src in common::shared_model_files() {
        let (model, source) = load_document(&src).unwrap();
        let skinned: BTreeSet<(usize, usize)> = {
            let (json, _) = read_gltf(&src);
            let mut set = BTreeSet::new();
            for inst in &model.instances {
                let m = json["nodes"][inst.node]["mesh"].as_u64().unwrap() as usize;
                for p in 0..model.meshes[inst.mesh].primitives.len() {
                    set.insert((m, p));
                }
            }
            set
        };
        for (format, tol) in [(WeightsFormat::Float, 1e-6), (WeightsFormat::U16, 2e-5), (WeightsFormat::U8, 4e-3)] {
            let out = dir.path().join(format!("{}-{format}.glb", stem(&src)));
            let opts = ExportOptions { weights_format: Some(format), ..ExportOptions::default() };
            let report = export_model(&model, &source, &opts, &out).unwrap();
            assert!(report.rewritten_primitives > 0);
            assert_eq!((report.trimmed_vertices, report.empty_vertices), (0, 0));
            let again = io::load_model(&out).unwrap();
            assert_same_model(&model, &again, tol, &out.display().to_string());
            assert_document_kept(&src, &out, &skinned);
            // Exact sums for the integer formats; joint index 0 for zero weights.
            let (json, buffers) = read_gltf(&out);
            for &(m, p) in &skinned {
                let attrs = &json["meshes"][m]["primitives"][p]["attributes"];
                let (jd, jb) = accessor_data(&json, &buffers, attrs["JOINTS_0"].as_u64().unwrap() as usize);
                let (wd, wb) = accessor_data(&json, &buffers, attrs["WEIGHTS_0"].as_u64().unwrap() as usize);
                assert!(attrs.get("JOINTS_1").is_none());
                let jsize = if jd.contains("5121") { 1 } else { 2 };
                let wsize = match format {
                    WeightsFormat::Float => 4,
                    WeightsFormat::U16 => 2,
                    WeightsFormat::U8 => 1,
                };
                assert_eq!(wd.contains("\"normalized\":true"), format != WeightsFormat::Float, "{wd}");
                for v in 0..wb.len() / (4 * wsize) {
                    let mut sum = 0u64;
                    for c in 0..4 {
                        let w = &wb[(v * 4 + c) * wsize..(v * 4 + c + 1) * wsize];
                        let j = &jb[(v * 4 + c) * jsize..(v * 4 + c + 1) * jsize];
                        let zero = w.iter().all(|&b| b == 0);
                        if zero {
                            assert!(j.iter().all(|&b| b == 0), "{}: zero weight with a non-zero joint", out.display());
                        }
                        sum += match format {
                            WeightsFormat::U16 => u64::from(u16::from_le_bytes([w[0], w[1]])),
                            WeightsFormat::U8 => u64::from(w[0]),
                            WeightsFormat::Float => 0,
                        };
                    }
                    match format {
                        WeightsFormat::U16 => assert_eq!(sum, 65535),
                        WeightsFormat::U8 => assert_eq!(sum, 255),
                        WeightsFormat::Float => {}
                    }
                }
            }
            if format == WeightsFormat::Float {
                let limit = file_size(&src) as f64 * 1.1 + 2048.0;
                assert!((file_size(&out) as f64) <= limit, "{}: bloated", out.display());
            } else {
                assert!(file_size(&out) <= file_size(&src), "{}: integer weights are smaller", out.display());
            }
            pairs.push((out, src.clone()));
        }
    }
    assert_valid(&pairs);
}

/// Sets new influences on a few vertices of every `step`-th skinned primitive (the first included).
fn edit_some(model: &mut Model, step: usize) -> Vec<(usize, usize, usize)> {
    // Each edit is written to every coincident copy of the vertex (its weld group, across
    // primitives and seams), as painting does: export welds copies that a weights file splits
    // (tests/weld.rs), and here every written weight must come back as written.
    let surface = skinlab::paint::ModelSurface::new(model);
    let mut record = skinlab::model::StrokeRecord::new("test edit");
    let mut edited = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut k = 0;
    for inst in model.instances.clone() {
        if !seen.insert(inst.mesh) {
            continue;
        }
        let joints = model.skins[inst.skin].joints.len() as u16;
        for p in 0..model.meshes[inst.mesh].primitives.len() {
            k += 1;
            if (k - 1) % step != 0 {
                continue;
            }
            let n = model.meshes[inst.mesh].primitives[p].positions.len();
            let part = surface.part_of(inst.mesh, p).map(|k| surface.parts()[k]);
            for v in [0, n / 3, n - 1] {
                let pairs = if joints > 1 && model.skins[inst.skin].sets.slots() > 1 {
                    vec![((v as u16 + 1) % joints, 0.6), (v as u16 % joints, 0.4)]
                } else {
                    vec![((v as u16 + 1) % joints, 1.0)]
                };
                let Some(part) = part else {
                    let table = &mut model.skins[inst.skin].sets;
                    let inf = model.meshes[inst.mesh].primitives[p].influences.as_mut().unwrap();
                    inf.set_vertex(v, &VertexInfluences { pairs }, table).unwrap();
                    edited.insert((inst.mesh, p, v));
                    continue;
                };
                let on_surface: Vec<(u16, f32)> =
                    pairs.iter().map(|&(j, w)| (surface.surface_joint(inst.skin, j).unwrap(), w)).collect();
                let mut changed = Vec::new();
                let g = part.first_vertex + v as u32;
                skinlab::paint::weld::write_group(model, &surface, g, &on_surface, &mut record, &mut changed).unwrap();
                edited.insert((inst.mesh, p, v));
                for (k, u) in changed {
                    let q = surface.parts()[k];
                    edited.insert((q.mesh, q.prim, u as usize));
                }
            }
        }
    }
    edited.into_iter().collect()
}

#[test]
fn edited_weights_come_through_the_cli_and_nothing_else_changes() {
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    for src in common::shared_model_files() {
        let (mut model, source) = load_document(&src).unwrap();
        let edited = edit_some(&mut model, 2);
        if edited.is_empty() {
            continue;
        }
        let weights = dir.path().join(format!("{}.weights.json", stem(&src)));
        let written = write_weights_file(&weights, &model, Some(source.original())).unwrap();
        assert!(written > 0 && written <= edited.len(), "only changed vertices are written");
        let out = dir.path().join(format!("{}-edited.glb", stem(&src)));
        let run = Command::new(BIN)
            .args([
                "export",
                src.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--weights",
                weights.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert!(String::from_utf8_lossy(&run.stdout).contains("new weights in"));
        let again = io::load_model(&out).unwrap();
        assert_same_model(&model, &again, 1e-6, &out.display().to_string());
        for &(mesh, p, v) in &edited {
            let skin = model.instances.iter().find(|i| i.mesh == mesh).unwrap().skin;
            // The same file vertex in the reloaded model's own order.
            let f = model.meshes[mesh].primitives[p].order.file_index(v);
            let got = weight_map(&again, mesh, skin, p, again.meshes[mesh].primitives[p].order.model_index(f));
            assert_eq!(got, weight_map(&model, mesh, skin, p, v), "{}: edited vertex {v}", out.display());
        }
        // The JSON keeps every primitive that was not edited byte for byte.
        let (json, _) = read_gltf(&src);
        let rewritten: BTreeSet<(usize, usize)> = edited
            .iter()
            .map(|&(mesh, p, _)| {
                let node = model.instances.iter().find(|i| i.mesh == mesh).unwrap().node;
                (json["nodes"][node]["mesh"].as_u64().unwrap() as usize, p)
            })
            .collect();
        assert_document_kept(&src, &out, &rewritten);
        let limit = file_size(&src) as f64 * 1.1 + 2048.0;
        assert!((file_size(&out) as f64) <= limit, "{}: bloated", out.display());
        pairs.push((out, src));
    }
    assert_eq!(pairs.len(), 9);
    assert_valid(&pairs);
}

#[test]
fn weights_file_round_trips_and_reports_precise_errors() {
    let src = Path::new(MODELS).join("Knight.glb");
    let (mut model, source) = load_document(&src).unwrap();
    let edited = edit_some(&mut model, 3);
    let dir = tempfile::tempdir().unwrap();
    // All vertices, applied to a fresh model, give the edited weights back.
    let all = dir.path().join("all.json");
    let n = write_weights_file(&all, &model, None).unwrap();
    assert_eq!(
        n,
        model
            .instances
            .iter()
            .map(|i| &model.meshes[i.mesh])
            .flat_map(|m| &m.primitives)
            .map(|p| p.positions.len())
            .sum::<usize>()
    );
    let mut fresh = source.original().clone();
    let applied = apply_weights_file(&all, &mut fresh).unwrap();
    assert_eq!(applied.vertices, n);
    assert_same_weights(&model, &fresh, 1e-7, "all vertices");
    // Only the changed ones.
    let (text, changed) = weights_to_json(&model, Some(source.original()));
    assert!(changed <= edited.len() && changed > 0);
    let mut fresh = source.original().clone();
    skinlab::io::weights_file::apply_weights(&text, &mut fresh).unwrap();
    assert_same_weights(&model, &fresh, 0.0, "changed vertices");
    assert_eq!(weights_to_json(&fresh, Some(&model)).1, 0);

    let body = model.nodes.unique_key(model.instances[0].node);
    let joint = model.nodes.unique_key(model.skins[0].joints[1]);
    let entry = |vertices: &str| {
        format!(
            r#"{{"format":"skinlab-weights","version":1,"primitives":[{{"node":{body:?},"primitive":0,"vertices":[{vertices}]}}]}}"#
        )
    };
    let cases = [
        (entry(r#"[0, [["NoSuchJoint", 1]]]"#), "joint \"NoSuchJoint\": no node"),
        (entry(&format!(r#"[999999, [[{joint:?}, 1]]]"#)), "vertex 999999 is beyond"),
        (entry(&format!(r#"[0, [[{joint:?}, -1]]]"#)), "is not a non-negative number"),
        (entry(&format!(r#"[0, [[{joint:?}, 0]]]"#)), "sum to 0"),
        (entry(&format!(r#"[0, [[{body:?}, 1]]]"#)), "is not a joint of the skin"),
        (entry("[0]"), "a vertex entry must be"),
        (r#"{"format":"skinlab-weights","version":2,"primitives":[]}"#.to_owned(), "\"version\" is 2"),
        (
            format!(
                r#"{{"format":"skinlab-weights","version":1,"primitives":[{{"node":{joint:?},"primitive":0,"vertices":[]}}]}}"#
            ),
            "is not a skinned mesh node",
        ),
    ];
    let out = dir.path().join("never.glb");
    for (text, needle) in cases {
        let file = dir.path().join("bad.json");
        std::fs::write(&file, &text).unwrap();
        let mut m = source.original().clone();
        let e = apply_weights_file(&file, &mut m).unwrap_err().to_string();
        assert!(e.contains(needle) && e.starts_with(&file.display().to_string()), "{e:?} should contain {needle:?}");
        assert_same_weights(source.original(), &m, 0.0, "a failed apply changes nothing");
        let run = Command::new(BIN)
            .args([
                "export",
                src.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--weights",
                file.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(needle), "{stderr}");
        assert!(!out.exists());
    }
}

#[test]
fn more_than_four_influences_need_a_second_set() {
    let src = Path::new(MODELS).join("RiggedFigure.glb");
    let (mut model, source) = load_document(&src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let inst = model.instances[0].clone();
    let key = |j: usize| model.nodes.unique_key(model.skins[0].joints[j]);
    let pairs: Vec<String> = [(3, 0.3), (4, 0.25), (5, 0.2), (6, 0.1), (7, 0.1), (8, 0.05)]
        .iter()
        .map(|&(j, w)| format!("[{:?}, {w}]", key(j)))
        .collect();
    let text = format!(
        r#"{{"format":"skinlab-weights","version":1,"primitives":[{{"node":{:?},"primitive":0,"vertices":[[0, [{}]]]}}]}}"#,
        model.nodes.unique_key(inst.node),
        pairs.join(", ")
    );
    skinlab::io::weights_file::apply_weights(&text, &mut model).unwrap();
    assert_eq!(model.skins[0].sets.slots(), 8, "the layout widens to hold six influences");
    let out8 = dir.path().join("eight.glb");
    let opts = ExportOptions { max_influences: 8, ..ExportOptions::default() };
    let report = export_model(&model, &source, &opts, &out8).unwrap();
    assert_eq!(report.trimmed_vertices, 0);
    let (json, _) = read_gltf(&out8);
    let attrs = &json["meshes"][0]["primitives"][0]["attributes"];
    assert!(attrs.get("JOINTS_1").is_some() && attrs.get("WEIGHTS_1").is_some(), "{attrs}");
    let again = io::load_model(&out8).unwrap();
    assert_same_weights(&model, &again, 1e-6, "eight influences");
    assert_eq!(weight_map(&again, 0, 0, 0, 0).len(), 6);

    let out4 = dir.path().join("four.glb");
    let report = export_model(&model, &source, &ExportOptions::default(), &out4).unwrap();
    assert_eq!(report.trimmed_vertices, 1);
    let again = io::load_model(&out4).unwrap();
    let w = weight_map(&again, 0, 0, 0, 0);
    assert_eq!(w.keys().copied().collect::<Vec<_>>(), vec![3, 4, 5, 6], "the four largest are kept");
    assert!((w.values().sum::<f32>() - 1.0).abs() < 1e-6);
    assert_valid(&[(out8, src.clone()), (out4, src)]);
}
