//! Helpers of the glTF export tests (`tests/roundtrip.rs`, `tests/export_bake.rs`): the shared
//! models, raw glTF reading (JSON, buffers, accessor bytes), "everything kept" and "same weights"
//! comparisons, and the Khronos validator run.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use serde_json::Value;
use skinlab::io::{Container, ExportOptions};
use skinlab::model::Model;

/// The shared models folder.
pub const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models");

pub fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

// ---------- reading exported files ----------

/// The JSON and the single buffer of a glTF file (GLB, embedded or external buffer).
pub fn read_gltf(path: &Path) -> (Value, Vec<Vec<u8>>) {
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

pub fn view_bytes(json: &Value, buffers: &[Vec<u8>], view: usize) -> Vec<u8> {
    let v = &json["bufferViews"][view];
    let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = v["byteLength"].as_u64().unwrap() as usize;
    buffers[v["buffer"].as_u64().unwrap() as usize][off..off + len].to_vec()
}

/// An accessor's description (without its location) and its element bytes, tightly packed.
pub fn accessor_data(json: &Value, buffers: &[Vec<u8>], index: usize) -> (String, Vec<u8>) {
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
pub fn assert_document_kept(source: &Path, exported: &Path, rewritten: &BTreeSet<(usize, usize)>) {
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

pub fn weight_map(m: &Model, mesh: usize, skin: usize, prim: usize, v: usize) -> BTreeMap<u16, f32> {
    let inf = m.meshes[mesh].primitives[prim].influences.as_ref().unwrap();
    inf.vertex(v, &m.skins[skin].sets).collect()
}

pub fn assert_same_weights(a: &Model, b: &Model, tol: f32, what: &str) {
    for inst in &a.instances {
        for (p, prim) in a.meshes[inst.mesh].primitives.iter().enumerate() {
            let other = &b.meshes[inst.mesh].primitives[p];
            assert_eq!(prim.influences.is_some(), other.influences.is_some(), "{what}: influences present");
            let Some(inf) = &prim.influences else { continue };
            // File vertex `v` in each model's own order (each load orders by its joint sets).
            for v in 0..inf.len() {
                let (va, vb) = (prim.order.model_index(v), other.order.model_index(v));
                let (x, y) = (weight_map(a, inst.mesh, inst.skin, p, va), weight_map(b, inst.mesh, inst.skin, p, vb));
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

pub fn assert_same_model(a: &Model, b: &Model, weight_tol: f32, what: &str) {
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
            // Compared in the file's order (each load orders by its own joint sets).
            assert_eq!(p.order.to_file(&p.positions), q.order.to_file(&q.positions), "{what}: positions");
            let normals = |p: &skinlab::model::Primitive| p.normals.as_ref().map(|n| p.order.to_file(n));
            assert_eq!(normals(p), normals(q), "{what}: normals");
            assert_eq!(p.file_triangles(), q.file_triangles(), "{what}: triangles");
            assert_eq!(p.topology, q.topology, "{what}: topology");
        }
    }
    assert_same_weights(a, b, weight_tol, what);
}

// ---------- the validator ----------

/// Validates `exports` (each with its source) in one Node run: zero errors, no warning the source
/// does not have, and no issue of any severity about skins, joints, weights or accessors.
pub fn assert_valid(pairs: &[(PathBuf, PathBuf)]) {
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

pub fn file_size(p: &Path) -> u64 {
    std::fs::metadata(p).unwrap().len()
}

pub fn options(container: Container) -> ExportOptions {
    ExportOptions { container, ..ExportOptions::default() }
}

// ---------- tests ----------
