//! The two JavaScript checks every export must pass, each run once through Node over many files
//! (both installed under target/tools by scripts/setup.sh): the Khronos glTF-Validator
//! (scripts/validate-gltf.mjs) and three.js's GLTFLoader (scripts/three_load.mjs, which also reads
//! every attribute, skin and animation track back).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Runs `script` (in scripts/) over `files`; its JSON reports by file path.
fn run(script: &str, files: &[PathBuf]) -> BTreeMap<PathBuf, Value> {
    run_with(script, files, &[])
}

/// Runs `script` over `files` with environment variables `env`.
fn run_with(script: &str, files: &[PathBuf], env: &[(&str, String)]) -> BTreeMap<PathBuf, Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(script);
    let out = Command::new("node")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .arg(&script)
        .args(files)
        .output()
        .unwrap_or_else(|e| panic!("node is needed for {} (run scripts/setup.sh): {e}", script.display()));
    assert!(
        out.status.success(),
        "{} did not run (run scripts/setup.sh): {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {}", script.display(), String::from_utf8_lossy(&out.stdout)));
    assert_eq!(reports.len(), files.len());
    reports.into_iter().map(|r| (PathBuf::from(r["file"].as_str().unwrap()), r)).collect()
}

/// The glTF-Validator's report per file (`errors`, `warnings`, `messages` [{code, severity, ..}]).
pub fn validate(files: &[PathBuf]) -> BTreeMap<PathBuf, Value> {
    run("validate-gltf.mjs", files)
}

/// three.js's verdict per file (`ok`, `error`, `warnings`, `meshes`, `skinnedMeshes`, `bones`,
/// `vertices`, `clips`, `tracks`, `textures`).
pub fn three_load(files: &[PathBuf]) -> BTreeMap<PathBuf, Value> {
    run("three_load.mjs", files)
}

/// three.js's verdict per file with every animation track sampled at `times` (seconds) by its
/// own interpolants: `samples` {"clip/track": [[values] per time]}.
pub fn three_samples(files: &[PathBuf], times: &[f64]) -> BTreeMap<PathBuf, Value> {
    let list: Vec<String> = times.iter().map(f64::to_string).collect();
    run_with("three_load.mjs", files, &[("THREE_SAMPLE_TIMES", list.join(","))])
}

/// The error codes (severity 0) of a validator report.
pub fn error_codes(report: &Value) -> Vec<String> {
    report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["severity"].as_u64() == Some(0))
        .map(|m| m["code"].as_str().unwrap().to_owned())
        .collect()
}
