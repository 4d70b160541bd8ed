//! The loader and the deformation core never panic on a broken file: deterministic mutations of real
//! models (truncations, bit flips, and JSON edits: every number set to awkward values, every member
//! removed) go through `io::load_model_from_bytes` in-process; each one must end in `Ok` or `Err`,
//! and every model that loads must deform (rest pose, every clip at a few times, one random pose)
//! with every method without a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/gltf_edit.rs"]
mod gltf_edit;

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use gltf_edit::model;
use serde_json::Value;
use skinlab::rig::{sample, Pose};
use skinlab::skinning::{Deformer, SkinningMethod};

thread_local! {
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
    static IN_FUZZ: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static LOADED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Loads `bytes` as the file `name` and deforms what loads; returns the panic message, if any.
fn exercise(bytes: &[u8], name: &str) -> Option<String> {
    let path = Path::new("/nonexistent-fuzz-dir").join(name);
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Ok(model) = skinlab::io::load_model_from_bytes(bytes, &path) else {
            return;
        };
        LOADED.with(|n| n.set(n.get() + 1));
        let mut poses = vec![Pose::rest()];
        for clip in &model.clips {
            let (a, b) = clip.range();
            for t in [a - 1.0, a, 0.5 * (a + b), b, b + 1.0] {
                let mut pose = Pose::rest();
                sample::sample_clip(clip, t, &mut pose);
                poses.push(pose);
            }
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut random = Pose::rest();
        for node in 0..model.nodes.len() {
            let axis = glam::DVec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5 + 1e-3).normalize();
            random.set_rotation(node, glam::DQuat::from_axis_angle(axis, rng.unit() * 2.0));
        }
        poses.push(random);
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        for pose in &poses {
            for method in SkinningMethod::ALL {
                deformer.deform_all(&model, pose, method, &mut out);
            }
        }
        let _ = skinlab::cli::info::describe(&model, name);
        let mut obj = Vec::new();
        let _ = skinlab::io::obj::write_obj(&mut obj, &model, &out);
    }));
    match result {
        Ok(()) => None,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            let at = PANIC_AT.with(|p| p.borrow_mut().take()).unwrap_or_default();
            Some(format!("{msg} at {at}"))
        }
    }
}

/// Runs every variant, collecting panics (the hook records where, without printing).
fn run_all(variants: Vec<(String, Vec<u8>)>, ext: &str) -> Vec<String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_FUZZ.with(|f| f.get()) {
                let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
                PANIC_AT.with(|p| *p.borrow_mut() = Some(at));
            } else {
                default(info);
            }
        }));
    });
    let mut failures = Vec::new();
    IN_FUZZ.with(|f| f.set(true));
    for (what, bytes) in variants {
        if let Some(msg) = exercise(&bytes, &format!("fuzz.{ext}")) {
            failures.push(format!("{what}: {msg}"));
        }
    }
    IN_FUZZ.with(|f| f.set(false));
    failures
}

/// Truncations at `n` spread positions and `n` variants with 1 to 4 flipped bits.
fn byte_variants(bytes: &[u8], n: usize, seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for i in 0..n {
        let cut = i * bytes.len() / n;
        out.push((format!("cut at {cut}"), bytes[..cut].to_vec()));
    }
    let mut rng = Rng(seed);
    for i in 0..n {
        let mut b = bytes.to_vec();
        let flips = 1 + rng.below(4);
        let mut at = Vec::new();
        for _ in 0..flips {
            // Half the flips land in the first 2 KiB (headers and JSON), where they matter most.
            let pos = if i % 2 == 0 { rng.below(b.len().min(2048)) } else { rng.below(b.len()) };
            b[pos] ^= 1 << rng.below(8);
            at.push(pos);
        }
        out.push((format!("bits flipped at {at:?}"), b));
    }
    out
}

/// Every JSON path to a number, and to every object member, outside the buffers' data URIs.
fn json_paths(v: &Value, path: &mut Vec<PathStep>, leaves: &mut Vec<Vec<PathStep>>, members: &mut Vec<Vec<PathStep>>) {
    match v {
        Value::Number(_) | Value::String(_) => leaves.push(path.clone()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(PathStep::Index(i));
                json_paths(item, path, leaves, members);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                path.push(PathStep::Key(k.clone()));
                if k != "asset" && k != "uri" {
                    members.push(path.clone());
                }
                json_paths(item, path, leaves, members);
                path.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at_path<'a>(v: &'a mut Value, path: &[PathStep]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        PathStep::Key(k) => &mut v[k.as_str()],
        PathStep::Index(i) => &mut v[*i],
    })
}

fn path_text(path: &[PathStep]) -> String {
    path.iter()
        .map(|s| match s {
            PathStep::Key(k) => format!(".{k}"),
            PathStep::Index(i) => format!("[{i}]"),
        })
        .collect()
}

/// Replacement strings: every accessor type, interpolation and target path, and awkward URIs.
const STRINGS: [&str; 15] = [
    "",
    "SCALAR",
    "VEC2",
    "VEC4",
    "MAT2",
    "MAT3",
    "MAT4",
    "STEP",
    "CUBICSPLINE",
    "translation",
    "scale",
    "weights",
    "%aé%",
    "../../../../etc/passwd",
    "data:application/octet-stream;base64,AAAA",
];

/// JSON edits of a document: each number and string set to awkward values, each member removed.
fn json_variants(json: &Value, encode: &dyn Fn(&Value) -> Vec<u8>) -> Vec<(String, Vec<u8>)> {
    let (mut leaves, mut members) = (Vec::new(), Vec::new());
    json_paths(json, &mut Vec::new(), &mut leaves, &mut members);
    let mut out = Vec::new();
    for path in &leaves {
        let current = at_path(&mut json.clone(), path).clone();
        if current.is_string() {
            if path.iter().any(|s| matches!(s, PathStep::Key(k) if k == "uri"))
                && current.as_str().is_some_and(|u| u.starts_with("data:"))
            {
                // Keep one data URI edit per buffer: drop the payload.
                let mut j = json.clone();
                *at_path(&mut j, path) = Value::String("data:application/gltf-buffer;base64,".into());
                out.push((format!("{} emptied", path_text(path)), encode(&j)));
                continue;
            }
            for text in STRINGS {
                let mut j = json.clone();
                *at_path(&mut j, path) = Value::String(text.into());
                out.push((format!("{} = {text:?}", path_text(path)), encode(&j)));
            }
            continue;
        }
        let old = current.as_f64().unwrap_or(0.0);
        let values: Vec<Value> = vec![
            0.into(),
            1.into(),
            2.into(),
            3.into(),
            7.into(),
            (-1).into(),
            (old + 1.0).into(),
            (old - 1.0).into(),
            (old * 2.0).into(),
            65_535.into(),
            4_294_967_295u64.into(),
            18_446_744_073_709_551_615u64.into(),
            0.5.into(),
            1e30.into(),
            (-1e30).into(),
        ];
        for value in values {
            let mut j = json.clone();
            *at_path(&mut j, path) = value.clone();
            out.push((format!("{} = {value}", path_text(path)), encode(&j)));
        }
    }
    for path in &members {
        let mut j = json.clone();
        let (last, parent) = path.split_last().unwrap();
        if let (PathStep::Key(k), Value::Object(map)) = (last, at_path(&mut j, parent)) {
            map.remove(k);
        }
        out.push((format!("{} removed", path_text(path)), encode(&j)));
    }
    out
}

fn report(failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{} of {total} variants panicked:\n{}",
        failures.len(),
        failures.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn mutated_files_never_panic() {
    let gltf = std::fs::read(model("SimpleSkin.gltf")).unwrap();
    let glb = std::fs::read(model("RiggedSimple.glb")).unwrap();
    let mut failures = Vec::new();
    let variants = byte_variants(&gltf, 200, 1);
    let mut total = variants.len();
    failures.extend(run_all(variants, "gltf"));
    let variants = byte_variants(&glb, 200, 2);
    total += variants.len();
    failures.extend(run_all(variants, "glb"));
    report(&failures, total);
    // Truncations never load; flips in base64 payloads or in the BIN chunk often do.
    let loaded = LOADED.with(|n| n.get());
    assert!(loaded > 50, "only {loaded} of {total} mutated files load: too few to exercise the deformer");
}

/// SimpleSkin with a sparse POSITION accessor and a CUBICSPLINE clip, whose numbers are then edited.
fn simple_skin_with_sparse_and_spline() -> Value {
    let mut json: Value = serde_json::from_slice(&std::fs::read(model("SimpleSkin.gltf")).unwrap()).unwrap();
    // Sparse: 2 substituted positions; indices (u16) from view 0 (the triangle indices), values from
    // view 1 (the positions themselves).
    json["accessors"][1]["sparse"] = serde_json::json!({
        "count": 2,
        "indices": {"bufferView": 0, "byteOffset": 4, "componentType": 5123},
        "values": {"bufferView": 1, "byteOffset": 12}
    });
    // A sparse accessor without a buffer view (all zeros plus the substitutions).
    json["accessors"].as_array_mut().unwrap().push(serde_json::json!({
        "componentType": 5126, "count": 4, "type": "VEC3",
        "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5123}, "values": {"bufferView": 1}}
    }));
    // A CUBICSPLINE rotation sampler over the same keys: 4 keys × 3 elements of the 12 rotations.
    json["accessors"].as_array_mut().unwrap().push(serde_json::json!({
        "bufferView": 4, "componentType": 5126, "count": 4, "type": "SCALAR"
    }));
    json["animations"][0]["samplers"].as_array_mut().unwrap().push(serde_json::json!({
        "input": 8, "interpolation": "CUBICSPLINE", "output": 6
    }));
    json["animations"][0]["channels"].as_array_mut().unwrap().push(serde_json::json!({
        "sampler": 1, "target": {"node": 1, "path": "rotation"}
    }));
    json
}

#[test]
fn edited_json_never_panics() {
    // SimpleSkin as .gltf: the JSON with its data URIs.
    let json: Value = serde_json::from_slice(&std::fs::read(model("SimpleSkin.gltf")).unwrap()).unwrap();
    let variants = json_variants(&json, &|j| serde_json::to_vec(j).unwrap());
    let mut total = variants.len();
    let mut failures = run_all(variants, "gltf");

    // The same with a sparse accessor and a cubic-spline channel, which must load as they are.
    let json = simple_skin_with_sparse_and_spline();
    let bytes = serde_json::to_vec(&json).unwrap();
    let loaded = skinlab::io::load_model_from_bytes(&bytes, Path::new("sparse.gltf"));
    assert!(loaded.is_ok(), "{:?}", loaded.err().map(|e| e.to_string()));
    let variants = json_variants(&json, &|j| serde_json::to_vec(j).unwrap());
    total += variants.len();
    failures.extend(run_all(variants, "gltf"));

    // RiggedSimple as .glb: the JSON chunk edited, the BIN chunk kept.
    let glb = std::fs::read(model("RiggedSimple.glb")).unwrap();
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = glb[20 + json_len + 8..].to_vec();
    let variants =
        json_variants(&json, &|j| skinlab::io::glb::glb_bytes(&serde_json::to_vec(j).unwrap(), Some(&bin)).unwrap());
    total += variants.len();
    failures.extend(run_all(variants, "glb"));
    report(&failures, total);
    let loaded = LOADED.with(|n| n.get());
    assert!(loaded > total / 4, "only {loaded} of {total} edited files load: too few to exercise the deformer");
}
