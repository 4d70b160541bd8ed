//! What an import drops or approximates reaches the user: one `warning: FILE: ...` line per kind
//! on standard error in every command that reads a model (the command still succeeds), and the
//! same lines on the editor's status line (tests/ui_morph.rs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cli_run.rs"]
mod cli_run;

use std::path::{Path, PathBuf};

use cli_run::skinlab;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ufbx").join(name)
}

/// The stderr lines of a successful run.
fn warnings_of(out: &std::process::Output) -> Vec<String> {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr.lines().map(str::to_owned).collect()
}

#[test]
fn an_fbx_skin_asking_for_dual_quaternions_is_one_warning_line_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let file = data("max_transformed_skin_7500_binary.fbx");
    let f = file.to_str().unwrap();
    let (obj, glb) = (dir.path().join("out.obj"), dir.path().join("out.glb"));
    let expected = format!("warning: {f}: 1 skins ask for dual-quaternion skinning: deformed by the method chosen");
    for args in [
        vec!["info", f],
        vec!["deform", f, "--out", obj.to_str().unwrap()],
        vec!["export", f, "--out", glb.to_str().unwrap()],
        vec!["info", f, "--sets"],
    ] {
        let lines = warnings_of(&skinlab(&args));
        assert_eq!(lines, std::slice::from_ref(&expected), "{args:?}");
    }
    // The exported glTF holds what the import made: nothing more is dropped, nothing is said again.
    assert!(warnings_of(&skinlab(["info", glb.to_str().unwrap()])).is_empty());
}

#[test]
fn morph_targets_on_a_mesh_without_a_skin_are_applied_so_nothing_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let file = data("blender440_shape_weight_anim_7400_binary.fbx");
    let glb = dir.path().join("shapes.glb");
    assert!(warnings_of(&skinlab(["export", file.to_str().unwrap(), "--out", glb.to_str().unwrap()])).is_empty());
    assert!(warnings_of(&skinlab(["info", glb.to_str().unwrap()])).is_empty());
}

#[test]
fn a_file_the_import_keeps_whole_prints_nothing_on_stderr() {
    let file = data("maya_game_sausage_7500_binary_wiggle.fbx");
    assert!(warnings_of(&skinlab(["info", file.to_str().unwrap()])).is_empty());
}
