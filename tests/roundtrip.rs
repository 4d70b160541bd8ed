//! glTF export round trips on every shared model: unchanged exports keep every byte that matters,
//! re-encoded and edited weights come back, baked poses equal `skinlab deform`, the CLI refuses to
//! clobber its input, and every exported file passes the Khronos glTF-Validator (run through Node
//! with scripts/validate-gltf.mjs; scripts/setup.sh installs it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use glam::{DQuat, Vec3};
use serde_json::Value;
use skinlab::io::gltf_export::export_bytes;
use skinlab::io::weights_file::weights_to_json;
use skinlab::io::{
    self, apply_weights_file, export_model, load_document, write_weights_file, Bake, Container, ExportOptions,
    WeightsFormat,
};
use skinlab::model::influences::VertexInfluences;
use skinlab::model::Model;
use skinlab::rig::{fk, sample, Pose};
use skinlab::skinning::{Deformer, SkinningMethod};

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models");
const BIN: &str = env!("CARGO_BIN_EXE_skinlab");

fn models() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(MODELS)
        .expect("shared models directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
        .collect();
    out.sort();
    assert_eq!(out.len(), 9, "expected the 9 shared models in {MODELS}");
    out
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

// ---------- reading exported files ----------

/// The JSON and the single buffer of a glTF file (GLB, embedded or external buffer).
fn read_gltf(path: &Path) -> (Value, Vec<Vec<u8>>) {
    let bytes = std::fs::read(path).unwrap();
    let (json, blob): (Value, Option<Vec<u8>>) = if bytes.starts_with(b"glTF") {
        let jlen = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let json = serde_json::from_slice(bytes[20..20 + jlen].trim_ascii_end()).unwrap();
        let blob = (bytes.len() > 20 + jlen).then(|| {
            let at = 20 + jlen;
            let blen = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            bytes[at + 8..at + 8 + blen].to_vec()
        });
        (json, blob)
    } else {
        (serde_json::from_slice(&bytes).unwrap(), None)
    };
    let mut blob = blob;
    let buffers = json["buffers"]
        .as_array()
        .map(|bs| {
            bs.iter()
                .map(|b| match b.get("uri").and_then(Value::as_str) {
                    None => blob.take().expect("GLB BIN chunk"),
                    Some(uri) if uri.starts_with("data:") => {
                        base64::engine::general_purpose::STANDARD.decode(uri.split_once(',').unwrap().1).unwrap()
                    }
                    Some(uri) => std::fs::read(path.parent().unwrap().join(uri)).unwrap(),
                })
                .collect()
        })
        .unwrap_or_default();
    (json, buffers)
}

fn view_bytes(json: &Value, buffers: &[Vec<u8>], view: usize) -> Vec<u8> {
    let v = &json["bufferViews"][view];
    let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = v["byteLength"].as_u64().unwrap() as usize;
    buffers[v["buffer"].as_u64().unwrap() as usize][off..off + len].to_vec()
}

/// An accessor's description (without its location) and its element bytes, tightly packed.
fn accessor_data(json: &Value, buffers: &[Vec<u8>], index: usize) -> (String, Vec<u8>) {
    let acc = &json["accessors"][index];
    assert!(acc.get("sparse").is_none(), "sparse accessors are not in the test models");
    let mut desc = acc.clone();
    let obj = desc.as_object_mut().unwrap();
    obj.remove("bufferView");
    obj.remove("byteOffset");
    let csize = match acc["componentType"].as_u64().unwrap() {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        _ => 4,
    };
    let comps = match acc["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        _ => 16,
    };
    let elem = csize * comps;
    let count = acc["count"].as_u64().unwrap() as usize;
    let Some(view) = acc.get("bufferView").and_then(Value::as_u64) else {
        return (desc.to_string(), Vec::new());
    };
    let data = view_bytes(json, buffers, view as usize);
    let stride = json["bufferViews"][view as usize]["byteStride"].as_u64().map_or(elem, |s| s as usize);
    let off = acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let mut out = Vec::with_capacity(count * elem);
    for i in 0..count {
        out.extend_from_slice(&data[off + i * stride..off + i * stride + elem]);
    }
    (desc.to_string(), out)
}

/// Asserts that `exported` carries everything of `source` unchanged, except the JOINTS/WEIGHTS
/// of the primitives in `rewritten` (mesh, primitive).
fn assert_document_kept(source: &Path, exported: &Path, rewritten: &BTreeSet<(usize, usize)>) {
    let (sj, sb) = read_gltf(source);
    let (ej, eb) = read_gltf(exported);
    let what = format!("{} -> {}", source.display(), exported.display());
    for (key, value) in sj.as_object().unwrap() {
        if matches!(
            key.as_str(),
            "buffers" | "bufferViews" | "accessors" | "meshes" | "skins" | "animations" | "images"
        ) {
            continue;
        }
        assert_eq!(Some(value), ej.get(key), "{what}: top-level {key:?} changed");
    }
    assert_eq!(ej["buffers"].as_array().map_or(0, Vec::len), 1, "{what}: one buffer");
    let acc = |j: &Value, b: &[Vec<u8>], v: &Value| accessor_data(j, b, v.as_u64().unwrap() as usize);
    // Meshes: same JSON apart from accessor indices; same accessor data.
    let smeshes = sj["meshes"].as_array().unwrap();
    let emeshes = ej["meshes"].as_array().unwrap();
    assert_eq!(smeshes.len(), emeshes.len(), "{what}: mesh count");
    for (m, (sm, em)) in smeshes.iter().zip(emeshes).enumerate() {
        let (sp, ep) = (sm["primitives"].as_array().unwrap(), em["primitives"].as_array().unwrap());
        assert_eq!(sp.len(), ep.len());
        for (p, (sp, ep)) in sp.iter().zip(ep).enumerate() {
            for (k, v) in sp.as_object().unwrap() {
                if k != "attributes" && k != "indices" {
                    assert_eq!(Some(v), ep.get(k), "{what}: mesh {m} primitive {p} {k}");
                }
            }
            if let Some(i) = sp.get("indices") {
                assert_eq!(acc(&sj, &sb, i), acc(&ej, &eb, &ep["indices"]), "{what}: mesh {m} primitive {p} indices");
            }
            let sa = sp["attributes"].as_object().unwrap();
            let ea = ep["attributes"].as_object().unwrap();
            let skin_attr = |k: &str| k.starts_with("JOINTS_") || k.starts_with("WEIGHTS_");
            let changed = rewritten.contains(&(m, p));
            for (k, v) in sa {
                if changed && skin_attr(k) {
                    continue;
                }
                let e = ea.get(k).unwrap_or_else(|| panic!("{what}: mesh {m} primitive {p} lost {k}"));
                assert_eq!(acc(&sj, &sb, v), acc(&ej, &eb, e), "{what}: mesh {m} primitive {p} {k}");
            }
            let names = |a: &serde_json::Map<String, Value>| {
                a.keys().filter(|k| !(changed && skin_attr(k))).cloned().collect::<BTreeSet<_>>()
            };
            assert_eq!(names(sa), names(ea), "{what}: mesh {m} primitive {p} attribute names");
        }
        assert_eq!(sm.get("name"), em.get("name"));
    }
    // Skins and animations: same JSON apart from accessor indices; same accessor data.
    for (key, acc_fields) in [("skins", &["inverseBindMatrices"][..]), ("animations", &[][..])] {
        let (s, e) = (sj.get(key).cloned().unwrap_or_default(), ej.get(key).cloned().unwrap_or_default());
        assert_eq!(s.as_array().map(Vec::len), e.as_array().map(Vec::len), "{what}: {key} count");
        for (i, (s, e)) in s.as_array().into_iter().flatten().zip(e.as_array().into_iter().flatten()).enumerate() {
            for (k, v) in s.as_object().unwrap() {
                if acc_fields.contains(&k.as_str()) {
                    assert_eq!(acc(&sj, &sb, v), acc(&ej, &eb, &e[k]), "{what}: {key} {i} {k}");
                } else if k == "samplers" {
                    for (sm, em) in v.as_array().unwrap().iter().zip(e[k].as_array().unwrap()) {
                        assert_eq!(sm["interpolation"], em["interpolation"]);
                        assert_eq!(acc(&sj, &sb, &sm["input"]), acc(&ej, &eb, &em["input"]), "{what}: {key} {i}");
                        assert_eq!(acc(&sj, &sb, &sm["output"]), acc(&ej, &eb, &em["output"]), "{what}: {key} {i}");
                    }
                } else {
                    assert_eq!(Some(v), e.get(k), "{what}: {key} {i} {k}");
                }
            }
        }
    }
    // Images: same fields; image data from views identical.
    for (i, (s, e)) in
        sj["images"].as_array().into_iter().flatten().zip(ej["images"].as_array().into_iter().flatten()).enumerate()
    {
        for (k, v) in s.as_object().unwrap() {
            if k == "bufferView" {
                let (a, b) = (v.as_u64().unwrap() as usize, e[k].as_u64().unwrap() as usize);
                assert!(view_bytes(&sj, &sb, a) == view_bytes(&ej, &eb, b), "{what}: image {i} data changed");
            } else {
                assert_eq!(Some(v), e.get(k), "{what}: image {i} {k}");
            }
        }
    }
}

// ---------- comparing models ----------

fn weight_map(m: &Model, mesh: usize, skin: usize, prim: usize, v: usize) -> BTreeMap<u16, f32> {
    let inf = m.meshes[mesh].primitives[prim].influences.as_ref().unwrap();
    inf.vertex(v, &m.skins[skin].sets).collect()
}

fn assert_same_weights(a: &Model, b: &Model, tol: f32, what: &str) {
    for inst in &a.instances {
        for (p, prim) in a.meshes[inst.mesh].primitives.iter().enumerate() {
            let other = &b.meshes[inst.mesh].primitives[p];
            assert_eq!(prim.influences.is_some(), other.influences.is_some(), "{what}: influences present");
            let Some(inf) = &prim.influences else { continue };
            for v in 0..inf.len() {
                let (x, y) = (weight_map(a, inst.mesh, inst.skin, p, v), weight_map(b, inst.mesh, inst.skin, p, v));
                for j in x.keys().chain(y.keys()) {
                    let (wx, wy) = (x.get(j).copied().unwrap_or(0.0), y.get(j).copied().unwrap_or(0.0));
                    assert!(
                        (wx - wy).abs() <= tol,
                        "{what}: node {} primitive {p} vertex {v} joint {j}: {wx} vs {wy} ({x:?} vs {y:?})",
                        inst.node
                    );
                }
            }
        }
    }
}

fn assert_same_model(a: &Model, b: &Model, weight_tol: f32, what: &str) {
    assert_eq!(a.nodes, b.nodes, "{what}: node tree");
    assert_eq!(a.instances, b.instances, "{what}: skinned instances");
    assert_eq!(a.rigid_instances, b.rigid_instances, "{what}: rigid instances");
    assert_eq!(a.clips, b.clips, "{what}: animations");
    assert_eq!(a.skins.len(), b.skins.len(), "{what}: skins");
    for (s, t) in a.skins.iter().zip(&b.skins) {
        assert_eq!((&s.name, &s.joints, &s.joint_from_bind), (&t.name, &t.joints, &t.joint_from_bind), "{what}: skin");
    }
    assert_eq!(a.meshes.len(), b.meshes.len(), "{what}: meshes");
    for (m, n) in a.meshes.iter().zip(&b.meshes) {
        assert_eq!(m.name, n.name);
        assert_eq!(m.primitives.len(), n.primitives.len());
        for (p, q) in m.primitives.iter().zip(&n.primitives) {
            assert_eq!(p.positions, q.positions, "{what}: positions");
            assert_eq!(p.normals, q.normals, "{what}: normals");
            assert_eq!(p.triangles, q.triangles, "{what}: triangles");
            assert_eq!(p.topology, q.topology, "{what}: topology");
        }
    }
    assert_same_weights(a, b, weight_tol, what);
}

// ---------- the validator ----------

/// Validates `exports` (each with its source) in one Node run: zero errors, no warning the source
/// does not have, and no issue of any severity about skins, joints, weights or accessors.
fn assert_valid(pairs: &[(PathBuf, PathBuf)]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/validate-gltf.mjs");
    let mut files: Vec<&PathBuf> = pairs.iter().flat_map(|(e, s)| [e, s]).collect();
    files.sort();
    files.dedup();
    let out = Command::new("node")
        .arg(&script)
        .args(&files)
        .output()
        .expect("node is needed for the glTF-Validator (run scripts/setup.sh)");
    assert!(
        out.status.success(),
        "the glTF-Validator did not run (run scripts/setup.sh): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let by_file: BTreeMap<String, &Value> =
        reports.iter().map(|r| (r["file"].as_str().unwrap().to_owned(), r)).collect();
    let codes = |r: &Value, max_severity: u64| -> BTreeSet<String> {
        r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["severity"].as_u64().unwrap() <= max_severity)
            .map(|m| m["code"].as_str().unwrap().to_owned())
            .collect()
    };
    for (export, source) in pairs {
        let e = by_file[&export.display().to_string()];
        let s = by_file[&source.display().to_string()];
        assert_eq!(e["errors"], 0, "{}: validator errors: {}", export.display(), e["messages"]);
        let new_warnings: Vec<String> = codes(e, 1).difference(&codes(s, 1)).cloned().collect();
        assert!(new_warnings.is_empty(), "{}: new warnings {new_warnings:?}: {}", export.display(), e["messages"]);
        let skin_issues: Vec<String> = codes(e, 3)
            .into_iter()
            .filter(|c| {
                c.starts_with("ACCESSOR_") || c.starts_with("SKIN_") || c.contains("JOINTS") || c.contains("WEIGHTS")
            })
            .collect();
        assert!(skin_issues.is_empty(), "{}: skin/accessor issues {skin_issues:?}", export.display());
    }
}

fn file_size(p: &Path) -> u64 {
    std::fs::metadata(p).unwrap().len()
}

fn options(container: Container) -> ExportOptions {
    ExportOptions { container, ..ExportOptions::default() }
}

// ---------- tests ----------

#[test]
fn unchanged_export_round_trips_every_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    for src in models() {
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
    for src in models() {
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
    let mut record = skinlab::paint::StrokeRecord::new("test edit");
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
    for src in models() {
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
            let got = weight_map(&again, mesh, skin, p, v);
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
    for (i, src) in models().into_iter().enumerate() {
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
                for (v, e) in exp.positions.iter().enumerate() {
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
                    for (v, e) in exp.normals.iter().enumerate() {
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
        for v in 0..model.meshes[inst.mesh].primitives[0].positions.len() {
            let a = weight_map(&model, inst.mesh, inst.skin, 0, v);
            let b = weight_map(&again, other.mesh, other.skin, 0, v);
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
