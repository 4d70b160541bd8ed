//! Hostile input and faults: one regression test per crash class that coverage-guided fuzzing
//! (fuzz/) and fault injection found, each reproduced from a small file built here (never a
//! copied one) and now ending in exit status 2 and one line; special files; failed writes to
//! stdout and stderr; the external-buffer pair under a full filesystem; temporaries of killed
//! exports.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/tiny_gltf.rs"]
mod tiny_gltf;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::json;
use tiny_gltf::TinyGltf;

fn skinlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skinlab")).args(args).output().unwrap()
}

/// Status 2, exactly one stderr line `error: ...` holding every needle, no panic, empty stdout.
fn assert_one_line(out: &Output, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "status {:?}; stderr: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one stderr line, got {stderr:?}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for needle in needles {
        assert!(lines[0].contains(needle), "{:?} should mention {needle:?}", lines[0]);
    }
    assert!(out.stdout.is_empty(), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    lines[0].to_owned()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

#[test]
fn the_tiny_rig_itself_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "tiny.gltf", &TinyGltf::new().gltf_bytes());
    let out = dir.path().join("out.glb");
    let run = skinlab(&["export", &file, "--out", s(&out), "--bake", "--animation", "Bend", "--time", "1"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    skinlab::io::load_model(&out).unwrap();
}

// ---------- crash class 1: a skin with no joints used by a mesh ----------

#[test]
fn a_skin_without_joints_is_refused_and_never_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = TinyGltf::new();
    tiny.json["skins"][0] = json!({"joints": []});
    // Every weight zero, so no vertex names a joint the skin does not have.
    tiny.bin[60..108].fill(0);
    let file = write(dir.path(), "jointless.gltf", &tiny.gltf_bytes());
    let out = dir.path().join("out.obj");
    assert_one_line(&skinlab(&["deform", &file, "--out", s(&out)]), &["jointless.gltf", "skin 0 has no joints"]);
    let glb = dir.path().join("out.glb");
    assert_one_line(&skinlab(&["export", &file, "--bake", "--out", s(&glb)]), &["skin 0 has no joints"]);
    assert_eq!(names(dir.path()), ["jointless.gltf"], "nothing written");

    // Below the importer, the skinning frame never indexes past an empty joint table.
    let mut model = skinlab::io::load_model_from_bytes(&TinyGltf::new().gltf_bytes(), Path::new("t.gltf")).unwrap();
    model.skins[0].joints.clear();
    model.skins[0].joint_from_bind.clear();
    let mut deformer = skinlab::skinning::Deformer::new();
    let mut deformed = Vec::new();
    for method in skinlab::skinning::SkinningMethod::ALL {
        deformer.deform_all(&model, &skinlab::rig::Pose::rest(), method, &mut deformed);
        assert!(deformed[0][0].positions.iter().all(|p| p.is_finite()), "{method}");
    }
}

// ---------- crash class 2: an accessor count near 2^64 in the exporter ----------

#[test]
fn an_accessor_count_near_2_pow_64_is_an_error_in_the_exporter() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = TinyGltf::new();
    // An attribute skinlab does not read, sharing the JOINTS_0 view, which a weights rewrite
    // compacts: the exporter computes its byte range.
    tiny.json["accessors"].as_array_mut().unwrap().push(json!(
        {"bufferView": 1, "componentType": 5123, "count": u64::MAX, "type": "VEC4"}));
    tiny.json["meshes"][0]["primitives"][0]["attributes"]["_CUSTOM"] = json!(6);
    let file = write(dir.path(), "huge_count.gltf", &tiny.gltf_bytes());
    let out = dir.path().join("out.glb");
    let line = assert_one_line(
        &skinlab(&["export", &file, "--weights-format", "u8", "--out", s(&out)]),
        &["out.glb", "accessor 6", "18446744073709551615", "overflow"],
    );
    assert!(!out.exists(), "{line}");
}

// ---------- crash class 3: a small file declaring a huge animation ----------

#[test]
fn a_small_file_declaring_a_huge_animation_is_refused_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = TinyGltf::new();
    // 2^26 key times without a buffer view: 512 MiB of decoded values from a 2 KB file.
    tiny.json["accessors"][4] = json!({"componentType": 5126, "count": 1u64 << 26, "type": "SCALAR",
        "sparse": {"count": 1, "indices": {"bufferView": 4, "componentType": 5125}, "values": {"bufferView": 4}}});
    let file = write(dir.path(), "huge_clip.gltf", &tiny.gltf_bytes());
    assert!(fs::metadata(&file).unwrap().len() < 4096);
    // Under a 512 MiB address-space limit the old code aborted on the failed allocation.
    let out = Command::new("sh")
        .args(["-c", "ulimit -v 524288 && exec \"$0\" info \"$1\"", env!("CARGO_BIN_EXE_skinlab"), &file])
        .output()
        .unwrap();
    assert_one_line(
        &out,
        &["huge_clip.gltf", "animation 0 channel 0 input (accessor 4)", "536870912 bytes", "a file of this size"],
    );

    // Many samplers reading the same accessors multiply a small buffer just the same.
    let mut tiny = TinyGltf::new();
    let keys = 80_000usize;
    let view = tiny.json["bufferViews"].as_array().unwrap().len();
    tiny.json["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(json!({"buffer": 0, "byteOffset": tiny.bin.len(), "byteLength": keys * 12}));
    tiny.bin.resize(tiny.bin.len() + keys * 12, 0);
    tiny.json["buffers"][0]["byteLength"] = json!(tiny.bin.len());
    let accessors = tiny.json["accessors"].as_array_mut().unwrap();
    accessors.push(json!({"bufferView": view, "componentType": 5126, "count": keys, "type": "SCALAR"}));
    accessors.push(json!({"bufferView": view, "componentType": 5126, "count": keys, "type": "VEC3"}));
    let (input, output) = (accessors.len() - 2, accessors.len() - 1);
    let anim = &mut tiny.json["animations"][0];
    for k in 0..400 {
        anim["samplers"].as_array_mut().unwrap().push(json!({"input": input, "output": output}));
        anim["channels"]
            .as_array_mut()
            .unwrap()
            .push(json!({"sampler": k + 1, "target": {"node": 2, "path": "scale"}}));
    }
    let file = write(dir.path(), "aliased.gltf", &tiny.gltf_bytes());
    assert!(fs::metadata(&file).unwrap().len() < 2_000_000);
    assert_one_line(&skinlab(&["info", &file]), &["aliased.gltf", "needs", "a file of this size"]);
}

// ---------- crash class 4: export --bake writing non-finite POSITION bounds ----------

#[test]
fn a_bake_that_overflows_f32_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = TinyGltf::new();
    tiny.json["nodes"][1]["scale"] = json!([1e20, 1e20, 1e20]);
    tiny.json["nodes"][2]["scale"] = json!([1e20, 1e20, 1e20]);
    let file = write(dir.path(), "extreme.gltf", &tiny.gltf_bytes());
    let plain = write(dir.path(), "tiny.gltf", &TinyGltf::new().gltf_bytes());
    for method in ["lbs", "dqs", "sbs"] {
        let out = dir.path().join(format!("baked-{method}.glb"));
        assert_one_line(
            &skinlab(&["export", &file, "--bake", "--method", method, "--out", s(&out)]),
            &["not finite", "nothing was written"],
        );
        assert!(!out.exists());
    }
    // A pose whose translation leaves f32's range is refused the same way.
    let pose = write(
        dir.path(),
        "far.json",
        br#"{"format": "skinlab-pose", "version": 1, "joints": {"Tip": {"translation": [1e300, 0, 0]}}}"#,
    );
    let out = dir.path().join("far.glb");
    assert_one_line(
        &skinlab(&["export", &plain, "--bake", "--pose", &pose, "--out", s(&out)]),
        &["not finite", "nothing was written"],
    );
    assert!(!out.exists());
}

// ---------- crash class 5: indices beyond 2^32 (truncated to 32 bits by the gltf crate) ----------

#[test]
fn indices_and_offsets_beyond_2_pow_32_are_errors_not_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = TinyGltf::new();
    // 2^32 + 0 would read view 0 after truncation: the wrong data, silently.
    tiny.json["accessors"][2]["bufferView"] = json!(1u64 << 32);
    let file = write(dir.path(), "index.gltf", &tiny.gltf_bytes());
    let out = dir.path().join("o.obj");
    assert_one_line(&skinlab(&["deform", &file, "--out", s(&out)]), &["accessors.2.bufferView", "4294967296"]);

    let mut tiny = TinyGltf::new();
    tiny.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!((1u64 << 32));
    let file = write(dir.path(), "attribute.gltf", &tiny.gltf_bytes());
    assert_one_line(&skinlab(&["info", &file]), &["attributes.POSITION", "4294967296"]);

    let mut tiny = TinyGltf::new();
    tiny.json["accessors"][2]["byteOffset"] = json!((1u64 << 32) + 4);
    let file = write(dir.path(), "offset.gltf", &tiny.gltf_bytes());
    assert_one_line(&skinlab(&["info", &file]), &["accessor 2", "4294967300", "past the end"]);
}

// ---------- crash class 6: failed writes to stdout and stderr ----------

#[test]
fn failed_writes_to_stdout_and_stderr_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "tiny.gltf", &TinyGltf::new().gltf_bytes());
    let full = || fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let run = |args: &[&str], stdout: Stdio, stderr: Stdio| {
        Command::new(env!("CARGO_BIN_EXE_skinlab")).args(args).stdout(stdout).stderr(stderr).output().unwrap()
    };
    // A full disk.
    let out = run(&["info", &file], full().into(), Stdio::piped());
    assert_one_line(&out, &["cannot write to standard output"]);
    let glb = dir.path().join("out.glb");
    let out = run(&["export", &file, "--out", s(&glb)], full().into(), Stdio::piped());
    assert_one_line(&out, &["cannot write to standard output"]);
    // A closed pipe (the reader has gone before anything is written).
    let mut child = Command::new(env!("CARGO_BIN_EXE_skinlab"))
        .args(["info", &file])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_one_line(&out, &["cannot write to standard output", "Broken pipe"]);
    // Nowhere to report: stderr itself fails. The status still says it, without a panic's 101.
    let out = run(&["info", s(&dir.path().join("missing.glb"))], Stdio::piped(), full().into());
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["--help"], full().into(), Stdio::piped());
    assert_eq!(out.status.code(), Some(2));
}

// ---------- special files ----------

#[test]
fn special_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "tiny.gltf", &TinyGltf::new().gltf_bytes());
    let fifo = dir.path().join("fifo.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = dir.path().join("out.glb");
    // A FIFO nobody writes to would block for ever; /dev/zero would be read without end.
    for (flag, input) in
        [("--weights", s(&fifo)), ("--weights", "/dev/zero"), ("--pose", s(&fifo)), ("--pose", "/dev/zero")]
    {
        let run = skinlab(&["export", &file, flag, input, "--out", s(&out)]);
        assert_one_line(&run, &[input, "is not a regular file"]);
    }
    assert_one_line(&skinlab(&["info", s(&fifo)]), &["is not a regular file (a FIFO)"]);
    assert_one_line(&skinlab(&["info", "/dev/zero"]), &["is not a regular file (a device)"]);
    assert_one_line(&skinlab(&["info", s(dir.path())]), &["is not a regular file (a directory)"]);
    // A regular weights file larger than the model's vertices can explain.
    let big = dir.path().join("big.json");
    let f = fs::File::create(&big).unwrap();
    f.set_len(64 << 20).unwrap();
    assert_one_line(
        &skinlab(&["export", &file, "--weights", s(&big), "--out", s(&out)]),
        &["bytes such a file may hold"],
    );
    assert!(!out.exists());
}

// ---------- atomic pairs and temporaries ----------

/// Exports the tiny rig as an external-buffer pair into `dir`; extra arguments change the content.
fn export_pair(src: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["export", src, "--external-buffer", "--out", s(out)];
    args.extend_from_slice(extra);
    skinlab(&args)
}

/// The external buffer the `.gltf` at `gltf` names.
fn referenced_bin(gltf: &Path) -> PathBuf {
    let json: serde_json::Value = serde_json::from_slice(&fs::read(gltf).unwrap()).unwrap();
    gltf.with_file_name(json["buffers"][0]["uri"].as_str().unwrap())
}

#[test]
fn a_new_pair_never_overwrites_the_buffer_the_old_one_uses() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "tiny.gltf", &TinyGltf::new().gltf_bytes());
    let out_dir = dir.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("rig.gltf");
    assert!(export_pair(&src, &out, &[]).status.success());
    let first = referenced_bin(&out);
    assert_eq!(names(&out_dir).len(), 2, "{:?}", names(&out_dir));
    assert!(export_pair(&src, &out, &["--weights-format", "u16"]).status.success());
    let second = referenced_bin(&out);
    assert_ne!(first, second, "a different buffer gets a different name");
    assert_eq!(names(&out_dir), {
        let mut v = vec!["rig.gltf".to_owned(), second.file_name().unwrap().to_str().unwrap().to_owned()];
        v.sort();
        v
    });
    // The same content again: the same names, nothing left over.
    assert!(export_pair(&src, &out, &["--weights-format", "u16"]).status.success());
    assert_eq!(referenced_bin(&out), second);
    assert_eq!(names(&out_dir).len(), 2);
    skinlab::io::load_model(&out).unwrap();
}

/// Mounts a 64 KiB tmpfs on `dir` when this process may (root, a kernel that allows it).
fn mount_small_tmpfs(dir: &Path) -> bool {
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs", s(dir)])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|st| st.success())
}

#[test]
fn a_full_filesystem_between_the_two_files_leaves_the_old_pair_loadable() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "tiny.gltf", &TinyGltf::new().gltf_bytes());
    let out_dir = dir.path().join("small");
    fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("rig.gltf");
    if mount_small_tmpfs(&out_dir) {
        struct Unmount<'a>(&'a Path);
        impl Drop for Unmount<'_> {
            fn drop(&mut self) {
                let _ = Command::new("umount").arg(self.0).status();
            }
        }
        let _unmount = Unmount(&out_dir);
        assert!(export_pair(&src, &out, &[]).status.success());
        let old = (fs::read(&out).unwrap(), fs::read(referenced_bin(&out)).unwrap());
        // Fill the filesystem, then free one page: the new .bin's temporary fits, the .gltf's
        // does not.
        let filler = out_dir.join("filler");
        {
            use std::io::Write as _;
            let mut f = fs::File::create(&filler).unwrap();
            while f.write_all(&[0u8; 4096]).is_ok() {}
            let pages = f.metadata().unwrap().len().div_ceil(4096);
            f.set_len(pages.saturating_sub(1) * 4096).unwrap();
        }
        let run = export_pair(&src, &out, &["--weights-format", "u16"]);
        assert_one_line(&run, &["cannot write", "No space left on device"]);
        assert_eq!((fs::read(&out).unwrap(), fs::read(referenced_bin(&out)).unwrap()), old, "the old pair");
        skinlab::io::load_model(&out).unwrap();
        fs::remove_file(&filler).unwrap();
        assert_eq!(names(&out_dir).len(), 2, "no temporary left: {:?}", names(&out_dir));
    } else {
        // No tmpfs here: the same failure injected with a file-size limit (writes past 512 bytes
        // fail with EFBIG): the .bin (276 bytes) is written, the .gltf (about 1.5 KB) is not.
        assert!(export_pair(&src, &out, &[]).status.success());
        let old = (fs::read(&out).unwrap(), fs::read(referenced_bin(&out)).unwrap());
        let run = Command::new("sh")
            .args([
                "-c",
                "trap '' XFSZ; ulimit -f 1 && exec \"$0\" export \"$1\" --external-buffer --weights-format u16 --out \"$2\"",
                env!("CARGO_BIN_EXE_skinlab"),
                &src,
                s(&out),
            ])
            .output()
            .unwrap();
        assert_one_line(&run, &["cannot write"]);
        assert_eq!((fs::read(&out).unwrap(), fs::read(referenced_bin(&out)).unwrap()), old, "the old pair");
        skinlab::io::load_model(&out).unwrap();
        assert_eq!(names(&out_dir).len(), 2, "no temporary left: {:?}", names(&out_dir));
    }
}

#[test]
fn a_killed_exports_temporaries_are_gone_after_the_next_export_to_the_same_place() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "tiny.gltf", &TinyGltf::new().gltf_bytes());
    let out_dir = dir.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("rig.gltf");
    // What a SIGKILL between writing and renaming leaves: temporaries of the .gltf and of a
    // content-named .bin, from a process that no longer exists (Linux pids stay below 2^22).
    let dead = 4_194_304 + 17;
    let stale = [
        out_dir.join(skinlab::io::atomic_write::temporary_name("rig.gltf", dead)),
        out_dir.join(skinlab::io::atomic_write::temporary_name("rig.0123456789abcdef.bin", dead)),
        out_dir.join(skinlab::io::atomic_write::temporary_name("rig.glb", dead)),
    ];
    for f in &stale {
        fs::write(f, vec![0u8; 4096]).unwrap();
    }
    // Another file's temporary is not ours to remove.
    let foreign = out_dir.join(skinlab::io::atomic_write::temporary_name("notes.txt", dead));
    fs::write(&foreign, "x").unwrap();
    assert!(export_pair(&src, &out, &[]).status.success());
    assert!(!stale[0].exists() && !stale[1].exists(), "{:?}", names(&out_dir));
    assert!(stale[2].exists() && foreign.exists(), "other targets' temporaries are kept");
    let glb = out_dir.join("rig.glb");
    assert!(skinlab(&["export", &src, "--out", s(&glb)]).status.success());
    assert!(!stale[2].exists());

    // A real SIGKILL at varying moments of an export: whatever it leaves, the next export to the
    // same place leaves exactly the pair.
    for delay_ms in [0u64, 2, 5, 10, 20] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skinlab"))
            .args(["export", &src, "--external-buffer", "--weights-format", "u8", "--out", s(&out)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        skinlab::io::load_model(&out).unwrap();
        assert!(export_pair(&src, &out, &[]).status.success());
        let left = names(&out_dir);
        assert_eq!(left.iter().filter(|n| n.ends_with(".tmp")).count(), 1, "only the foreign temporary: {left:?}");
        skinlab::io::load_model(&out).unwrap();
    }
}
