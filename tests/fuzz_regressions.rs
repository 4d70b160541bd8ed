//! Replays the fuzz regression corpus: every stored input under `fuzz/regressions/<harness>/`
//! goes through the very harness body the AFL binaries run (`fuzz/src/lib.rs`, included here),
//! so a crash that fuzzing once found stays fixed. No fuzzing happens here; see fuzz/README.md.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod harness;

use std::path::Path;

/// Runs every file of `fuzz/regressions/<name>` through `body`; returns how many there were.
fn replay(name: &str, body: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions").join(name);
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let result = std::panic::catch_unwind(|| body(&data));
        assert!(result.is_ok(), "{name} harness fails on {}", file.display());
    }
    files.len()
}

#[test]
fn gltf_regressions() {
    assert!(replay("gltf", harness::gltf) >= 5);
}

#[test]
fn pose_regressions() {
    assert!(replay("pose", harness::pose) >= 1);
}

#[test]
fn recovery_regressions() {
    assert!(replay("recovery", harness::recovery) >= 1);
}

#[test]
fn weights_regressions() {
    assert!(replay("weights", harness::weights) >= 1);
}

#[test]
fn paint_regressions() {
    assert!(replay("paint", harness::paint) >= 1);
}

#[test]
fn obj_regressions() {
    assert!(replay("obj", harness::obj) >= 3);
}

#[test]
fn pose_library_regressions() {
    assert!(replay("pose_library", harness::pose_library) >= 1);
}

#[test]
fn fbx_regressions() {
    assert!(replay("fbx", harness::fbx) >= 6);
}

#[test]
fn the_warm_up_inputs_pass_every_harness() {
    harness::warm_up();
}
