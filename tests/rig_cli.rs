//! `skinlab rig` and OBJ models through the binary: an OBJ opens in `info`, gets a skeleton from
//! `rig --edit ...` that exports valid and re-imports; bad edits and broken OBJ files end in one
//! `error:` line with exit status 2 and leave no output file.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/cli_run.rs"]
mod cli_run;
use cli_run::{assert_one_error_line, skinlab};

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

const TUBE: &str = "o tube\n\
    v 0 -1 -1\nv 0 1 -1\nv 0 1 1\nv 0 -1 1\n\
    v 4 -1 -1\nv 4 1 -1\nv 4 1 1\nv 4 -1 1\n\
    f 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\nf -1 -2 -3 -4\nf 1 4 3 2\n";

fn write(dir: &Path, name: &str, text: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn an_obj_is_rigged_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let obj = write(dir.path(), "tube.obj", TUBE.as_bytes());
    let info = skinlab([OsStr::new("info"), obj.as_os_str()]);
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    assert!(String::from_utf8_lossy(&info.stdout).contains("rigid (unskinned) mesh nodes: 1"));
    let out = dir.path().join("tube.glb");
    let run = skinlab([
        "rig",
        obj.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--edit",
        "create-skin tube root 0,0,0",
        "--edit",
        "add arm.L root 2,0,0",
        "--edit",
        "add hand.L arm.L 4,0,0",
        "--edit",
        "orient root",
        "--edit",
        "rename root hips",
        "--edit",
        "bind",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stdout).contains("1 skins, 3 joints"));
    let info = skinlab([OsStr::new("info"), out.as_os_str()]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("hips (#1)") && text.contains("hand.L (#3)"), "{text}");

    assert!(!text.contains("influences per vertex: 1: 8 (100.0%)"), "bound, not all on the root: {text}");
}

#[test]
fn symmetrize_mirrors_a_subtree_and_reports_it() {
    // A bar from x = -4 to 4: symmetric across the x = 0 plane.
    let bar = TUBE.replace("v 0 ", "v -4 ").replace("o tube", "o bar");
    let dir = tempfile::tempdir().unwrap();
    let obj = write(dir.path(), "bar.obj", bar.as_bytes());
    let out = dir.path().join("bar.glb");
    let mut args = vec!["rig".to_owned(), obj.display().to_string(), "--out".into(), out.display().to_string()];
    for edit in [
        "create-skin bar root 0,0,0",
        "add arm.L root 2,0,0",
        "add hand.L arm.L 3.5,0,0",
        "add finger arm.L 3,0,0.5",
        "symmetrize arm.L",
        "bind",
    ] {
        args.extend(["--edit".to_owned(), edit.to_owned()]);
    }
    let run = skinlab(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("Symmetrize arm.L (3 created, 0 updated, 1 renamed, 0 skipped, 0 unmatched)"), "{stdout}");
    assert!(stdout.contains("1 skins, 7 joints"), "{stdout}");
    let back = skinlab::io::load_model(&out).unwrap();
    for name in ["arm.R", "hand.R", "finger.R", "finger.L"] {
        assert!(back.nodes.find(name).is_ok(), "{name} is in the written file");
    }
}

#[test]
fn bad_edits_give_one_line_and_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let obj = write(dir.path(), "tube.obj", TUBE.as_bytes());
    let out = dir.path().join("out.glb");
    let skin = "create-skin tube root 0,0,0";
    for (edits, needles) in [
        (vec!["twist root"], vec!["twist root", "expected one of"]),
        (vec![skin, "add root root 1,0,0"], vec!["already used by node"]),
        (vec![skin, "add a root 1,0"], vec!["not a position"]),
        (vec![skin, "add a root 1,nan,0"], vec!["not a position"]),
        (vec![skin, "add a nobody 1,0,0"], vec!["nobody"]),
        (vec![skin, "delete root"], vec!["no parent joint"]),
        (vec![skin, "add a root 1,0,0", "reparent root a"], vec!["descendants"]),
        (vec![skin, "orient root"], vec!["no child or tail"]),
        (vec![skin, "symmetrize root"], vec!["nothing to mirror", "symmetry plane"]),
        (vec!["create-skin tube r 0,0,0", "create-skin tube r2 0,0,0"], vec!["already skinned"]),
        (vec!["delete tube"], vec!["not a joint"]),
        (vec!["bind"], vec!["no skin to bind"]),
    ] {
        let mut args: Vec<String> =
            vec!["rig".into(), obj.display().to_string(), "--out".into(), out.display().to_string()];
        for e in &edits {
            args.push("--edit".into());
            args.push((*e).into());
        }
        assert_one_error_line(&skinlab(&args), &needles);
        assert!(!out.exists(), "no output after {edits:?}");
    }
}

#[test]
fn broken_obj_files_give_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, needles) in [
        ("range.obj", &b"v 0 0 0\nf 1 2 3\n"[..], vec!["range.obj", "line 2", "vertex 2 does not exist"]),
        ("nan.obj", b"v 0 0 nan\nf 1 1 1\n", vec!["line 1", "not finite"]),
        ("zero.obj", b"v 0 0 0\nf 0 1 1\n", vec!["line 2", "index 0"]),
        ("empty.obj", b"", vec!["empty.obj", "no faces"]),
        ("binary.obj", b"\x00\xff\xfe\x01\x02", vec!["no faces"]),
        ("short.obj", b"v 1 2\n", vec!["too few numbers"]),
    ] {
        let path = write(dir.path(), name, text);
        assert_one_error_line(&skinlab([OsStr::new("info"), path.as_os_str()]), &needles);
    }
    let missing = dir.path().join("missing.obj");
    assert_one_error_line(&skinlab([OsStr::new("info"), missing.as_os_str()]), &["missing.obj", "no such file"]);
}
