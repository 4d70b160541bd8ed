//! Hostile input through the binary, second round: outputs that are special files or the command's
//! own inputs, several outputs that must be written all or nothing, modes kept, overflowing poses
//! and edits, numeric arguments out of range, a closed standard output, OBJ faces that made the
//! triangulation cubic, and error lines of readable length. Each test fails without its fix.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cli_run.rs"]
mod cli_run;
#[path = "common/tiny_gltf.rs"]
mod tiny_gltf;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cli_run::{assert_one_error_line, skinlab};
use tiny_gltf::TinyGltf;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The tiny rig as `tiny.gltf` and the demo arm as `arm.glb` in `dir`.
fn models(dir: &Path) -> (PathBuf, PathBuf) {
    let tiny = dir.join("tiny.gltf");
    fs::write(&tiny, TinyGltf::new().gltf_bytes()).unwrap();
    let arm = dir.join("arm.glb");
    fs::write(&arm, skinlab::demo::demo_glb()).unwrap();
    (tiny, arm)
}

fn ok(out: &std::process::Output) {
    assert!(out.status.success(), "status {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
}

#[test]
fn special_files_are_refused_as_outputs_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let (tiny, _) = models(dir.path());
    let (fifo, fifo_glb, fifo_json) =
        (dir.path().join("pipe"), dir.path().join("pipe.glb"), dir.path().join("pipe.json"));
    assert!(Command::new("mkfifo").args([&fifo, &fifo_glb, &fifo_json]).status().unwrap().success());
    let folder = dir.path().join("folder.glb");
    fs::create_dir(&folder).unwrap();
    for (args, kind) in [
        (vec!["deform", s(&tiny), "--out", s(&fifo)], "a FIFO"),
        (vec!["export", s(&tiny), "--out", s(&fifo_glb)], "a FIFO"),
        (vec!["export", s(&tiny), "--out", s(&folder)], "a directory"),
        (vec!["pose", s(&tiny), "--ik", "Tip=0,1,1", "--chain", "1", "--out", s(&fifo_json)], "a FIFO"),
        (vec!["sweep", s(&tiny), "--out", s(&fifo_json)], "a FIFO"),
    ] {
        assert_one_error_line(&skinlab(&args), &[kind, "not a regular file"]);
    }
    use std::os::unix::fs::FileTypeExt as _;
    for f in [&fifo, &fifo_glb, &fifo_json] {
        assert!(fs::metadata(f).unwrap().file_type().is_fifo(), "the FIFO is still a FIFO");
    }
    assert!(folder.is_dir());
}

#[test]
fn no_command_writes_over_a_file_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let (tiny, arm) = models(dir.path());
    let d = |name: &str| dir.path().join(name);
    // An external-buffer copy, a pose file and a weights file.
    ok(&skinlab(["export", s(&tiny), "--external-buffer", "--out", s(&d("ext.gltf"))]));
    let bin = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bin"))
        .unwrap();
    let pose = d("p.json");
    fs::write(&pose, r#"{"format":"skinlab-pose","version":1,"joints":{"Tip":{"rotation":[0,0,0.38,0.92]}}}"#).unwrap();
    let weights = d("w.json");
    ok(&skinlab(["weights", "transfer", s(&tiny), s(&tiny), "--out", s(&weights)]));
    let link = d("alias.gltf");
    fs::hard_link(&tiny, &link).unwrap();
    let before: Vec<(PathBuf, Vec<u8>)> =
        [&tiny, &arm, &bin, &pose, &weights].iter().map(|p| (p.to_path_buf(), fs::read(p).unwrap())).collect();
    let (ext, o_glb, x_glb) = (d("ext.gltf"), d("o.glb"), d("x.glb"));
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (vec!["deform", s(&tiny), "--out", s(&tiny)], &["--out names the model"]),
        (vec!["deform", s(&tiny), "--out", s(&link)], &["--out names the model"]),
        (vec!["render", s(&tiny), "--out", s(&tiny)], &["--out names the model"]),
        (vec!["weights", "transfer", s(&arm), s(&tiny), "--out", s(&tiny)], &["the target model"]),
        (vec!["deform", s(&ext), "--out", s(&bin)], &["a file the model uses"]),
        (
            vec!["export", s(&tiny), "--out", s(&o_glb), "--weights", s(&weights), "--save-pose", s(&weights)],
            &["the weights file"],
        ),
        (vec!["export", s(&tiny), "--out", s(&o_glb), "--pose", s(&pose), "--obj", s(&pose)], &["the pose file"]),
        (vec!["deform", s(&tiny), "--pose", s(&pose), "--out", s(&pose)], &["the pose file"]),
        (vec!["export", s(&tiny), "--out", s(&x_glb), "--obj", s(&x_glb)], &["--out and --obj name the same file"]),
    ];
    for (args, needles) in cases {
        assert_one_error_line(&skinlab(&args), needles);
    }
    for (path, bytes) in before {
        assert_eq!(fs::read(&path).unwrap(), bytes, "{} was written over", path.display());
    }
    assert!(!d("x.glb").exists() && !d("o.glb").exists(), "nothing written");
}

#[test]
fn several_outputs_are_written_all_or_nothing_and_keep_their_modes() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let (tiny, _) = models(dir.path());
    let keep_json = dir.path().join("keep.json");
    let keep_obj = dir.path().join("keep.obj");
    for f in [&keep_json, &keep_obj] {
        fs::write(f, "old").unwrap();
        fs::set_permissions(f, fs::Permissions::from_mode(0o600)).unwrap();
    }
    let missing = dir.path().join("no_such_folder");
    // The second file cannot be written: the first must not have replaced its old file.
    let run = skinlab(["sweep", s(&tiny), "--out", s(&keep_json), "--plot", s(&missing.join("p.png"))]);
    assert_one_error_line(&run, &["p.png", "cannot write"]);
    let run = skinlab([
        "export",
        s(&tiny),
        "--out",
        s(&missing.join("x.glb")),
        "--obj",
        s(&keep_obj),
        "--save-pose",
        s(&keep_json),
    ]);
    assert_one_error_line(&run, &["x.glb", "cannot write"]);
    for f in [&keep_json, &keep_obj] {
        assert_eq!(fs::read_to_string(f).unwrap(), "old", "{} was replaced", f.display());
    }
    let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 4, "no temporary left: {leftovers:?}");
    // Written for real, a replaced file keeps its mode.
    ok(&skinlab(["deform", s(&tiny), "--out", s(&keep_obj)]));
    assert!(fs::read_to_string(&keep_obj).unwrap().starts_with("o "));
    assert_eq!(fs::metadata(&keep_obj).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn overflowing_poses_are_solved_or_refused_never_panicking_or_writing_non_finite_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let (tiny, arm) = models(dir.path());
    let pose = |name: &str, joints: &str| {
        let p = dir.path().join(name);
        fs::write(&p, format!(r#"{{"format":"skinlab-pose","version":1,"joints":{{{joints}}}}}"#)).unwrap();
        p
    };
    let out = dir.path().join("out.json");
    // A huge finite quaternion is a rotation like any other (180° about X).
    let huge = pose("huge.json", r#""elbow":{"rotation":[1e300,0,0,0]}"#);
    for solver in ["--chain=2", "--fabrik"] {
        let run = skinlab(["pose", s(&arm), "--pose", s(&huge), "--ik", "wrist=1,1,0", solver, "--out", s(&out)]);
        ok(&run);
        let written =
            skinlab::io::pose_file::read_pose_file(&out, &skinlab::io::load_model(&arm).unwrap().nodes).unwrap();
        for o in written.overrides.values() {
            if let Some(r) = o.rotation {
                assert!(r.is_finite() && r.is_normalized(), "{r:?}");
            }
        }
    }
    // Overflowing scales and translations: one line, nothing written.
    fs::remove_file(&out).unwrap();
    for (name, joints) in [
        ("scale.json", r#""shoulder":{"scale":[1e308,1e308,1e308]}"#),
        ("move.json", r#""shoulder":{"translation":[1e300,0,0]}"#),
    ] {
        let p = pose(name, joints);
        let run = skinlab(["pose", s(&arm), "--pose", s(&p), "--ik", "wrist=1,1,0", "--out", s(&out)]);
        assert_one_error_line(&run, &["out of numeric range"]);
        let run =
            skinlab(["pose", s(&arm), "--pose", s(&p), "--ik", "wrist=1,1,0", "--pole", "0,1,1", "--out", s(&out)]);
        assert_one_error_line(&run, &["out of numeric range"]);
        for method in ["lbs", "dqs", "sbs", "sbs-c"] {
            let run = skinlab(["deform", s(&arm), "--pose", s(&p), "--method", method, "--out", s(&out)]);
            assert_one_error_line(&run, &["is not finite in this pose", "nothing was written"]);
        }
        let run =
            skinlab(["export", s(&arm), "--pose", s(&p), "--obj", s(&out), "--out", s(&dir.path().join("e.glb"))]);
        assert_one_error_line(&run, &["is not finite in this pose"]);
        let run = skinlab(["render", s(&arm), "--pose", s(&p), "--out", s(&dir.path().join("r.png"))]);
        assert_one_error_line(&run, &["is not finite in this pose"]);
    }
    assert!(!out.exists(), "nothing written");
    // A model whose node has a 3e38 scale.
    let mut big = TinyGltf::new();
    big.json["nodes"][1]["scale"] = serde_json::json!([3e38, 3e38, 3e38]);
    let file = dir.path().join("big.gltf");
    fs::write(&file, big.gltf_bytes()).unwrap();
    assert_one_error_line(&skinlab(["deform", s(&file), "--out", s(&out)]), &["is not finite in this pose"]);
    let _ = tiny;
}

#[test]
fn rig_edits_beyond_32_bit_floats_and_node_number_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (tiny, _) = models(dir.path());
    let out = dir.path().join("out.glb");
    for edits in [
        &["move Tip 1e39,0,0"][..],
        &["add Big Root 1e308,0,0"],
        // Each position fits, but the tip's offset from its parent (6e38) does not.
        &["move Tip 3e38,0,0", "move Root -3e38,0,0"],
    ] {
        let mut args = vec!["rig", s(&tiny), "--out", s(&out)];
        for edit in edits {
            args.extend(["--edit", edit]);
        }
        assert_one_error_line(&skinlab(&args), &["beyond 32-bit floats"]);
    }
    let run = skinlab(["rig", s(&tiny), "--out", s(&out), "--edit", "rename Tip #1"]);
    assert_one_error_line(&run, &["reads as a node number"]);
    assert!(!out.exists());
    // Moved to the edge of the range, the file still loads.
    ok(&skinlab(["rig", s(&tiny), "--out", s(&out), "--edit", "move Tip 1e30,0,0"]));
    ok(&skinlab(["info", s(&out)]));
}

#[test]
fn numeric_arguments_outside_their_range_are_one_line_errors() {
    for (args, needle) in [
        (vec!["bench", "--synthetic", "1000000000000"], "--synthetic"),
        (vec!["bench", "--synthetic", "18446744073709551615"], "--synthetic"),
        (vec!["bench", "--synthetic", "1000", "--joints", "1000000000"], "--joints"),
        (vec!["bench", "--synthetic", "1000", "--joints", "0"], "--joints"),
        (vec!["bench", "--synthetic", "1000", "--threads", "100000"], "--threads"),
        (vec!["bench", "--synthetic", "1000", "--influences", "0"], "--influences"),
        (vec!["bench", "--synthetic", "1000", "--influences", "17"], "--influences"),
        (vec!["bench", "--synthetic", "1000", "--frames", "0"], "--frames"),
        (vec!["densify", "m.glb", "--vertices", "50000000", "--out", "o.glb"], "--vertices"),
        (vec!["render", "m.glb", "--size", "8192x8192", "--out", "o.png"], "--size"),
        (vec!["pose", "m.glb", "--ik", "a=0,0,0", "--chain", "0", "--out", "p.json"], "--chain"),
    ] {
        assert_one_error_line(&skinlab(&args), &[needle]);
    }
}

#[test]
fn rig_reports_a_closed_or_full_standard_output_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (tiny, _) = models(dir.path());
    let out = dir.path().join("out.glb");
    let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_skinlab"))
        .args(["rig", s(&tiny), "--out", s(&out), "--edit", "rename Tip Hand"])
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2), "{}", String::from_utf8_lossy(&run.stderr));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.starts_with("error: cannot write to standard output") && stderr.lines().count() == 1, "{stderr}");
}

/// A thin C-shaped face of `corners` corners (outer arc out, inner arc back) as OBJ lines, its
/// vertices numbered from `base`.
fn c_face(corners: usize, base: usize, z: f32) -> String {
    let half = corners / 2;
    let mut text = String::new();
    for (radius, turn) in [(1.0f32, false), (0.99, true)] {
        for i in 0..half {
            let k = if turn { half - 1 - i } else { i };
            let a = 0.3 + (std::f32::consts::TAU - 0.6) * k as f32 / (half - 1) as f32;
            text.push_str(&format!("v {} {} {z}\n", radius * a.cos(), radius * a.sin()));
        }
    }
    text.push('f');
    for i in 0..corners {
        text.push_str(&format!(" {}", base + i));
    }
    text.push('\n');
    text
}

#[test]
fn forty_c_shaped_faces_of_4096_corners_are_triangulated_in_time() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.obj");
    let text: String = (0..40).map(|f| c_face(4096, 1 + f * 4096, f as f32)).collect();
    fs::write(&file, text).unwrap();
    // Cubic ear clipping took about 15 minutes on this file; the limit only catches a hang.
    let run = Command::new("timeout").args(["120", env!("CARGO_BIN_EXE_skinlab"), "info", s(&file)]).output().unwrap();
    ok(&run);
    let model = skinlab::io::load_model(&file).unwrap();
    let triangles: usize = model.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.triangles.len()).sum();
    assert_eq!(triangles, 40 * 4094);
}

#[test]
fn error_lines_cut_long_names_and_broken_obj_statements_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (tiny, _) = models(dir.path());
    // A 1 MB joint name in a pose file, which the error echoes.
    let long = dir.path().join("long.json");
    let name = "J".repeat(1 << 20);
    fs::write(&long, format!(r#"{{"format":"skinlab-pose","version":1,"joints":{{"{name}":{{}}}}}}"#)).unwrap();
    let run = skinlab(["deform", s(&tiny), "--pose", s(&long), "--out", s(&dir.path().join("o.obj"))]);
    let line = assert_one_error_line(&run, &["characters)"]);
    assert!(line.len() < 3000, "{} bytes", line.len());
    for (text, needle) in [
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 \\", "ends inside a statement"),
        ("f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", "vertex 1 does not exist (0 so far)"),
    ] {
        let file = dir.path().join("broken.obj");
        fs::write(&file, text).unwrap();
        assert_one_error_line(&skinlab(["info", s(&file)]), &[needle]);
    }
    let pose = dir.path().join("dup.json");
    fs::write(&pose, r#"{"format":"skinlab-pose","version":2,"version":1,"joints":{}}"#).unwrap();
    let run = skinlab(["deform", s(&tiny), "--pose", s(&pose), "--out", s(&dir.path().join("o.obj"))]);
    assert_one_error_line(&run, &["\"version\" appears twice"]);
}
