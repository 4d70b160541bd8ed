//! The command line on bad input: every broken model, pose file or argument ends with exit status 2,
//! exactly one stderr line `error: <file>: <problem>`, no panic and no output file (an existing one
//! is left byte-identical). Also `--help` on every subcommand and `skinlab info` on a real model.
//! Broken files are made in a temporary directory from the shared models.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/gltf_edit.rs"]
mod gltf_edit;

#[path = "common/cli_run.rs"]
mod cli_run;
use cli_run::{assert_one_error_line, skinlab};

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use gltf_edit::{model, simple_skin, GltfDoc};
use serde_json::json;

/// Runs `deform` with `args` (the model and pose options) twice: with an `--out` that does not exist
/// (it must still not exist) and with one that does (it must be unchanged). Both runs must fail with
/// one line containing the needles; no temporary file may be left beside the output.
fn assert_deform_fails(args: &[&OsStr], needles: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.obj");
    let mut argv: Vec<&OsStr> = vec![OsStr::new("deform")];
    argv.extend_from_slice(args);
    let out = skinlab(argv.iter().copied().chain([OsStr::new("--out"), fresh.as_os_str()]));
    let line = assert_one_error_line(&out, needles);
    assert!(!fresh.exists(), "no output file on failure ({line})");

    let existing = dir.path().join("existing.obj");
    let old = b"o keep/0\nv 1 2 3\n".to_vec();
    fs::write(&existing, &old).unwrap();
    let out = skinlab(argv.iter().copied().chain([OsStr::new("--out"), existing.as_os_str()]));
    let again = assert_one_error_line(&out, needles);
    assert_eq!(fs::read(&existing).unwrap(), old, "an existing output is left as it was ({again})");
    let names: Vec<String> =
        fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, vec!["existing.obj".to_owned()], "no temporary files left");
    line
}

/// `deform MODEL` fails naming the file and every needle; `info MODEL` fails with the same line.
fn assert_model_fails(path: &Path, needles: &[&str]) -> String {
    let name = path.file_name().unwrap().to_str().unwrap().to_owned();
    let mut all = vec![name.as_str()];
    all.extend_from_slice(needles);
    let line = assert_deform_fails(&[path.as_os_str()], &all);
    let info = skinlab([OsStr::new("info"), path.as_os_str()]);
    assert_eq!(assert_one_error_line(&info, &all), line, "info and deform report the same problem");
    line
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn missing_and_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    assert_model_fails(&dir.path().join("nowhere.glb"), &["no such file"]);
    assert_model_fails(&write(dir.path(), "empty.glb", b""), &["empty"]);
    assert_model_fails(&write(dir.path(), "empty.gltf", b""), &["empty"]);
    // A device would never end.
    assert_model_fails(Path::new("/dev/zero"), &["not a regular file"]);
    // A directory is not a file.
    let sub = dir.path().join("folder.gltf");
    fs::create_dir(&sub).unwrap();
    assert_model_fails(&sub, &["is not a regular file (a directory)"]);
}

#[test]
fn truncated_glb_at_every_part() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = fs::read(model("RiggedSimple.glb")).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let bin_start = 20 + json_len + 8;
    let cuts = [
        (3, "truncated"),  // inside the magic
        (4, "truncated"),  // magic only
        (10, "truncated"), // inside the length field
        (12, "truncated"), // header only
        (17, "truncated"), // inside the JSON chunk header
        (20 + json_len / 2, "truncated"),
        (bin_start - 4, "truncated"), // inside the BIN chunk header
        (bin_start + 100, "truncated"),
        (bytes.len() - 1, "truncated"),
    ];
    for (cut, needle) in cuts {
        let name = format!("cut{cut}.glb");
        assert_model_fails(&write(dir.path(), &name, &bytes[..cut]), &[needle]);
    }
}

#[test]
fn not_gltf_files() {
    let dir = tempfile::tempdir().unwrap();
    assert_model_fails(&write(dir.path(), "notes.txt", b"hello, world\n"), &["not a glTF file"]);
    assert_model_fails(&write(dir.path(), "text.gltf", b"hello, world\n"), &["not a glTF file"]);
    let noise: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    assert_model_fails(&write(dir.path(), "noise.bin", &noise), &["not a glTF file"]);
    assert_model_fails(&write(dir.path(), "noise.glb", &noise), &["not a GLB file", "magic"]);
    // A PNG renamed to .glb.
    assert_model_fails(&write(dir.path(), "image.glb", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), &["magic"]);
    // JSON that is not glTF.
    assert_model_fails(&write(dir.path(), "other.gltf", br#"{"hello": "world"}"#), &["invalid glTF"]);
    assert_model_fails(&write(dir.path(), "list.gltf", b"[1, 2, 3]"), &["not a glTF file"]);
}

#[test]
fn glb_header_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = fs::read(model("RiggedSimple.glb")).unwrap();

    let mut bad = good.clone();
    bad[..4].copy_from_slice(b"glTX");
    assert_model_fails(&write(dir.path(), "magic.glb", &bad), &["wrong magic", "glTX"]);

    for (name, delta) in [("long.glb", 4i64), ("short.glb", -4), ("huge.glb", 1 << 30)] {
        let mut bad = good.clone();
        let len = (good.len() as i64 + delta) as u32;
        bad[8..12].copy_from_slice(&len.to_le_bytes());
        assert_model_fails(&write(dir.path(), name, &bad), &["length", &len.to_string()]);
    }

    let mut bad = good.clone();
    bad[4..8].copy_from_slice(&1u32.to_le_bytes());
    assert_model_fails(&write(dir.path(), "version.glb", &bad), &["version 1"]);

    // A JSON chunk length that runs past the end.
    let mut bad = good.clone();
    bad[12..16].copy_from_slice(&(good.len() as u32).to_le_bytes());
    assert_model_fails(&write(dir.path(), "chunk.glb", &bad), &["chunk 0", "past the end"]);

    // JSON chunk that is not JSON.
    let mut bad = good.clone();
    bad[20..24].copy_from_slice(b"@@@@");
    assert_model_fails(&write(dir.path(), "json.glb", &bad), &["invalid glTF"]);

    // The BIN chunk typed as something else.
    let json_len = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    let mut bad = good.clone();
    bad[20 + json_len + 4..20 + json_len + 8].copy_from_slice(b"XXXX");
    assert_model_fails(&write(dir.path(), "bintype.glb", &bad), &["second chunk"]);
}

#[test]
fn invalid_gltf_json() {
    let dir = tempfile::tempdir().unwrap();
    assert_model_fails(
        &write(dir.path(), "cut.gltf", br#"{"asset": {"version": "2.0"}, "nodes": ["#),
        &["invalid glTF"],
    );
    let text = fs::read(model("SimpleSkin.gltf")).unwrap();
    assert_model_fails(&write(dir.path(), "half.gltf", &text[..text.len() / 2]), &["invalid glTF"]);
    // A reference to an object that does not exist.
    let mut doc = GltfDoc::simple_skin();
    doc.json["nodes"][0]["mesh"] = json!(5);
    assert_model_fails(&doc.write(&dir.path().join("dangling.gltf")), &["invalid glTF", "mesh"]);
    // A node that is its own parent.
    let mut doc = GltfDoc::simple_skin();
    doc.json["nodes"][2]["children"] = json!([1]);
    assert_model_fails(&doc.write(&dir.path().join("cycle.gltf")), &["node"]);
}

#[test]
fn zero_quaternions() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = GltfDoc::simple_skin();
    doc.json["nodes"][2]["rotation"] = json!([0.0, 0.0, 0.0, 0.0]);
    assert_model_fails(&doc.write(&dir.path().join("node.gltf")), &["node 2", "zero rotation quaternion"]);

    // The 4th rotation key of the clip (buffer 3, values from byte 48, 16 bytes each).
    let mut doc = GltfDoc::simple_skin();
    for c in 0..4 {
        doc.set_f32(3, 48 + 16 * 3 + 4 * c, 0.0);
    }
    assert_model_fails(
        &doc.write(&dir.path().join("key.gltf")),
        &["animation 0 channel 0", "key 3", "zero quaternion"],
    );
}

#[test]
fn accessor_out_of_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = GltfDoc::simple_skin();
    doc.json["accessors"][1]["count"] = json!(11);
    assert_model_fails(&doc.write(&dir.path().join("count.gltf")), &["accessor 1", "POSITION", "past the end"]);

    let mut doc = GltfDoc::simple_skin();
    doc.json["accessors"][3]["byteOffset"] = json!(168);
    assert_model_fails(&doc.write(&dir.path().join("offset.gltf")), &["accessor 3", "WEIGHTS_0", "past the end"]);

    let mut doc = GltfDoc::simple_skin();
    doc.json["bufferViews"][4]["byteLength"] = json!(100_000);
    assert_model_fails(&doc.write(&dir.path().join("view.gltf")), &["buffer view 4", "past the end"]);

    let mut doc = GltfDoc::simple_skin();
    doc.json["accessors"][4]["count"] = json!(4_000_000_000u64);
    assert_model_fails(&doc.write(&dir.path().join("hugecount.gltf")), &["accessor 4"]);

    // A sparse accessor without a view must not allocate gigabytes on a file's word.
    let mut doc = GltfDoc::simple_skin();
    let ibm = doc.json["accessors"][4].as_object_mut().unwrap();
    ibm.remove("bufferView");
    ibm.insert("count".into(), json!(268_435_455));
    ibm.insert(
        "sparse".into(),
        json!({"count": 1, "indices": {"bufferView": 0, "componentType": 5123}, "values": {"bufferView": 3}}),
    );
    assert_model_fails(&doc.write(&dir.path().join("viewless.gltf")), &["accessor 4", "without a buffer view"]);

    let mut doc = GltfDoc::simple_skin();
    doc.json["accessors"][6]["count"] = json!(13);
    assert_model_fails(&doc.write(&dir.path().join("anim.gltf")), &["animation 0", "accessor 6"]);
}

#[test]
fn bad_influences() {
    let dir = tempfile::tempdir().unwrap();
    let b = simple_skin::SKIN_BUFFER;

    let mut doc = GltfDoc::simple_skin();
    doc.set_u16(b, simple_skin::joint_at(4, 1), 2);
    assert_model_fails(
        &doc.write(&dir.path().join("joint.gltf")),
        &["vertex 4", "joint index 2", "beyond the skin's 2 joints"],
    );

    let mut doc = GltfDoc::simple_skin();
    doc.set_f32(b, simple_skin::weight_at(3, 0), f32::NAN);
    assert_model_fails(&doc.write(&dir.path().join("nan.gltf")), &["vertex 3", "weight NaN", "not finite"]);

    let mut doc = GltfDoc::simple_skin();
    doc.set_f32(b, simple_skin::weight_at(5, 1), -0.5);
    assert_model_fails(&doc.write(&dir.path().join("negative.gltf")), &["vertex 5", "weight -0.5", "negative"]);

    let mut doc = GltfDoc::simple_skin();
    doc.set_f32(b, simple_skin::weight_at(6, 0), f32::INFINITY);
    assert_model_fails(&doc.write(&dir.path().join("inf.gltf")), &["vertex 6", "weight inf"]);

    // Integer weights must be normalized.
    let mut doc = GltfDoc::simple_skin();
    doc.json["accessors"][3]["componentType"] = json!(5121);
    assert_model_fails(&doc.write(&dir.path().join("intweights.gltf")), &["WEIGHTS_0", "not normalized"]);
}

#[test]
fn buffers_missing_or_short() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = GltfDoc::simple_skin();
    let bytes = doc.to_bytes();
    let mut json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    json["buffers"][1]["uri"] = json!("skin%20data.bin");
    let path = write(dir.path(), "external.gltf", &serde_json::to_vec(&json).unwrap());
    assert_model_fails(&path, &["buffer 1", "missing external buffer", "skin data.bin"]);

    // Present but shorter than its byteLength.
    fs::write(dir.path().join("skin data.bin"), &doc.buffers[1][..300]).unwrap();
    assert_model_fails(&path, &["buffer 1", "300 bytes", "byteLength is 320"]);
    // With the whole file it loads.
    fs::write(dir.path().join("skin data.bin"), &doc.buffers[1]).unwrap();
    let ok = skinlab([OsStr::new("info"), path.as_os_str()]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));

    // A device or a directory is not a buffer file.
    json["buffers"][1]["uri"] = json!("/dev/zero");
    let device = write(dir.path(), "device.gltf", &serde_json::to_vec(&json).unwrap());
    assert_model_fails(&device, &["buffer 1", "/dev/zero", "not a regular file"]);
    fs::create_dir(dir.path().join("sub")).unwrap();
    json["buffers"][1]["uri"] = json!("sub");
    let folder = write(dir.path(), "folder.gltf", &serde_json::to_vec(&json).unwrap());
    assert_model_fails(&folder, &["buffer 1", "not a regular file"]);

    // An embedded buffer shorter than its byteLength.
    doc.buffers[2].truncate(100);
    assert_model_fails(&doc.write(&dir.path().join("short.gltf")), &["buffer 2", "100 bytes", "byteLength is 128"]);

    // A GLB whose buffer refers to a BIN chunk it lacks.
    let glb_json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4}]}"#;
    let glb = skinlab::io::glb::glb_bytes(glb_json, None).unwrap();
    assert_model_fails(&write(dir.path(), "nobin.glb", &glb), &["buffer 0", "binary chunk"]);

    // A data URI that is not base64.
    let mut json: serde_json::Value = serde_json::from_slice(&GltfDoc::simple_skin().to_bytes()).unwrap();
    json["buffers"][0]["uri"] = json!("data:application/gltf-buffer;base64,@@@@");
    assert_model_fails(&write(dir.path(), "base64.gltf", &serde_json::to_vec(&json).unwrap()), &["buffer 0", "base64"]);
}

#[test]
fn index_beyond_vertex_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = GltfDoc::simple_skin();
    doc.set_u16(simple_skin::INDEX_BUFFER, 2 * 7, 10);
    assert_model_fails(&doc.write(&dir.path().join("index.gltf")), &["indices", "index 10", "beyond the 10 vertices"]);
}

/// A SimpleSkin whose two joints are both named "Bone" and whose mesh node is "Skin".
fn model_with_duplicate_names(dir: &Path) -> PathBuf {
    let mut doc = GltfDoc::simple_skin();
    doc.json["nodes"][0]["name"] = json!("Skin");
    doc.json["nodes"][1]["name"] = json!("Bone");
    doc.json["nodes"][2]["name"] = json!("Bone");
    doc.write(&dir.join("dup.gltf"))
}

#[test]
fn bad_pose_files() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with_duplicate_names(dir.path());
    let pose = |name: &str, text: &str| write(dir.path(), name, text.as_bytes());
    let head = r#""format": "skinlab-pose", "version": 1"#;
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("unknown.json", format!(r#"{{{head}, "joints": {{"Arm": {{}}}}}}"#), vec!["joint \"arm\"", "no node"]),
        ("index.json", format!(r##"{{{head}, "joints": {{"#7": {{}}}}}}"##), vec!["\"#7\"", "no node"]),
        ("ambiguous.json", format!(r#"{{{head}, "joints": {{"Bone": {{}}}}}}"#), vec!["\"bone\"", "#1, #2"]),
        (
            "top.json",
            format!(r#"{{{head}, "joints": {{}}, "jionts": {{}}}}"#),
            vec!["unknown top-level field", "jionts"],
        ),
        (
            "field.json",
            format!(r#"{{{head}, "joints": {{"Skin": {{"rotaton": [0, 0, 0, 1]}}}}}}"#),
            vec!["joint \"skin\"", "unknown field", "rotaton"],
        ),
        (
            "inf.json",
            format!(r##"{{{head}, "joints": {{"#1": {{"translation": [0, 1e999, 0]}}}}}}"##),
            vec!["joint \"#1\"", "\"translation\"", "1e999", "not a finite number"],
        ),
        (
            "string.json",
            format!(r##"{{{head}, "joints": {{"#1": {{"scale": [1, "2", 1]}}}}}}"##),
            vec!["joint \"#1\"", "\"scale\"", "finite numbers"],
        ),
        (
            "zero.json",
            format!(r##"{{{head}, "joints": {{"#2": {{"rotation": [0, 0, 0, 0]}}}}}}"##),
            vec!["joint \"#2\"", "rotation", "zero quaternion"],
        ),
        (
            "length.json",
            format!(r##"{{{head}, "joints": {{"#2": {{"rotation": [0, 0, 1]}}}}}}"##),
            vec!["joint \"#2\"", "rotation", "3 numbers, expected 4"],
        ),
        (
            "length3.json",
            format!(r##"{{{head}, "joints": {{"#2": {{"translation": [0, 0, 1, 0]}}}}}}"##),
            vec!["translation", "4 numbers, expected 3"],
        ),
        ("malformed.json", format!(r#"{{{head}, "joints": {{"#), vec!["not valid JSON"]),
        ("array.json", "[]".to_owned(), vec!["JSON object"]),
        (
            "format.json",
            r#"{"format": "pose", "version": 1, "joints": {}}"#.to_owned(),
            vec!["\"format\"", "skinlab-pose"],
        ),
        ("noformat.json", r#"{"version": 1, "joints": {}}"#.to_owned(), vec!["missing \"format\""]),
        (
            "version.json",
            r#"{"format": "skinlab-pose", "version": 2, "joints": {}}"#.to_owned(),
            vec!["\"version\" is 2"],
        ),
        ("nojoints.json", format!("{{{head}}}"), vec!["missing \"joints\""]),
        ("entry.json", format!(r#"{{{head}, "joints": {{"Skin": 5}}}}"#), vec!["joint \"skin\"", "must be an object"]),
    ];
    for (name, text, needles) in cases {
        let path = pose(name, &text);
        let mut all = vec!["pose file", name];
        all.extend(needles);
        assert_deform_fails(&[model.as_os_str(), OsStr::new("--pose"), path.as_os_str()], &all);
    }
    // A device as the pose file.
    assert_deform_fails(
        &[model.as_os_str(), OsStr::new("--pose"), OsStr::new("/dev/zero")],
        &["pose file /dev/zero", "not a regular file"],
    );
    // A missing pose file.
    let gone = dir.path().join("gone.json");
    assert_deform_fails(&[model.as_os_str(), OsStr::new("--pose"), gone.as_os_str()], &["pose file", "gone.json"]);
    // The same keys resolve when they are unique, so the model itself is fine.
    let good = pose(
        "good.json",
        &format!(r##"{{{head}, "joints": {{"Skin": {{}}, "#2": {{"rotation": [0, 0, 0.3, 1]}}}}}}"##),
    );
    let out = dir.path().join("good.obj");
    let ok = skinlab([
        OsStr::new("deform"),
        model.as_os_str(),
        OsStr::new("--pose"),
        good.as_os_str(),
        OsStr::new("--out"),
        out.as_os_str(),
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(out.exists());
}

#[test]
fn bad_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let fox = model("Fox.glb");
    let fox = fox.as_os_str();
    assert_deform_fails(
        &[fox, OsStr::new("--animation"), OsStr::new("Jump")],
        &["Fox.glb: ", "--animation", "\"Jump\"", "Survey, Walk, Run"],
    );
    assert_deform_fails(&[fox, OsStr::new("--animation"), OsStr::new("#3")], &["Fox.glb: ", "no such animation"]);
    let cesium = model("CesiumMan.glb");
    assert_deform_fails(
        &[cesium.as_os_str(), OsStr::new("--animation"), OsStr::new("walk")],
        &["CesiumMan.glb: ", "no such animation", "#0"],
    );
    let rig = model("Character_HumanoidRig.glb");
    assert_deform_fails(
        &[rig.as_os_str(), OsStr::new("--animation"), OsStr::new("Idle")],
        &["Character_HumanoidRig.glb: ", "has no animations"],
    );
    assert_deform_fails(
        &[fox, OsStr::new("--method"), OsStr::new("lerp")],
        &["--method", "lerp", "lbs, dqs, sbs or sbs-c"],
    );
    assert_deform_fails(
        &[fox, OsStr::new("--animation"), OsStr::new("Walk"), OsStr::new("--time"), OsStr::new("soon")],
        &["--time", "soon"],
    );
    assert_deform_fails(&[fox, OsStr::new("--time"), OsStr::new("1")], &["--animation"]);
    assert_deform_fails(
        &[fox, OsStr::new("--animation"), OsStr::new("Walk"), OsStr::new("--time"), OsStr::new("NaN")],
        &["--time", "finite"],
    );
    let pose = write(dir.path(), "p.json", br#"{"format": "skinlab-pose", "version": 1, "joints": {}}"#);
    assert_deform_fails(
        &[fox, OsStr::new("--pose"), pose.as_os_str(), OsStr::new("--animation"), OsStr::new("Walk")],
        &["--pose", "--animation"],
    );
    assert_deform_fails(&[fox, OsStr::new("--bogus")], &["--bogus"]);
    // Missing arguments.
    assert_one_error_line(&skinlab(["deform"]), &["required"]);
    assert_one_error_line(&skinlab([OsStr::new("deform"), fox]), &["--out"]);
    assert_one_error_line(&skinlab(["info"]), &["required"]);
    assert_one_error_line(&skinlab(["frobnicate"]), &["frobnicate"]);
}

#[test]
fn names_from_the_file_cannot_break_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = GltfDoc::simple_skin();
    doc.json["animations"][0]["name"] = json!("Wave\nerror: fake second line");
    let path = doc.write(&dir.path().join("names.gltf"));
    let line = assert_deform_fails(
        &[path.as_os_str(), OsStr::new("--animation"), OsStr::new("Jump")],
        &["names.gltf", "no such animation", "Wave\\nerror: fake second line"],
    );
    assert!(!line.contains('\n'));
}

#[test]
fn unwritable_output() {
    let dir = tempfile::tempdir().unwrap();
    let fox = model("Fox.glb");
    let missing_dir = dir.path().join("no/such/dir/out.obj");
    let out = skinlab([OsStr::new("deform"), fox.as_os_str(), OsStr::new("--out"), missing_dir.as_os_str()]);
    assert_one_error_line(&out, &["out.obj", "cannot write"]);
    assert!(!dir.path().join("no").exists());

    // The output path is a directory: the rename fails and the temporary file is removed.
    let target = dir.path().join("taken.obj");
    fs::create_dir(&target).unwrap();
    let out = skinlab([OsStr::new("deform"), fox.as_os_str(), OsStr::new("--out"), target.as_os_str()]);
    assert_one_error_line(&out, &["taken.obj", "cannot write"]);
    assert!(target.is_dir());
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![OsStr::new("taken.obj").to_owned()], "no temporary files left");
}

#[test]
fn help_on_every_subcommand() {
    use clap::CommandFactory;
    let top = skinlab(["--help"]);
    assert_eq!(top.status.code(), Some(0));
    let text = String::from_utf8_lossy(&top.stdout);
    let cmd = skinlab::cli::Cli::command();
    let names: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_owned()).collect();
    assert!(names.iter().any(|n| n == "deform") && names.iter().any(|n| n == "info"), "{names:?}");
    for name in &names {
        assert!(text.contains(name.as_str()), "top-level help lists {name}");
        for args in [vec![name.as_str(), "--help"], vec![name.as_str(), "-h"], vec!["help", name.as_str()]] {
            let out = skinlab(&args);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert!(stdout.contains("Usage:") && stdout.contains(&format!("skinlab {name}")), "{args:?}: {stdout}");
        }
    }
    let deform = String::from_utf8_lossy(&skinlab(["deform", "--help"]).stdout).into_owned();
    for option in ["--pose", "--animation", "--time", "--method", "--out"] {
        assert!(deform.contains(option), "deform --help documents {option}");
    }
    let version = skinlab(["--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("skinlab "));
}

#[test]
fn info_on_cesium_man() {
    let out = skinlab([OsStr::new("info"), model("CesiumMan.glb").as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "meshes: 1 (1 primitives), skins: 1, animations: 1",
        "skinned vertices: 3273",
        "primitive 0: 3273 vertices, 4672 triangles, normals: yes",
        "19 joints",
        "joint tree:",
        "    Skeleton_torso_joint_1 (#3)\n      Skeleton_torso_joint_2 (#12)\n        torso_joint_3 (#13)\n",
        "            leg_joint_R_5 (#7)",
        "influences per vertex: 1: 458 (14.0%) 2: 1678 (51.3%) 3: 717 (21.9%) 4: 420 (12.8%)",
        "joint sets: 54 distinct, 38 non-trivial",
    ] {
        assert!(text.contains(needle), "info should contain {needle:?}:\n{text}");
    }
    // Every joint appears exactly once in the tree.
    let tree_lines =
        text.lines().filter(|l| l.starts_with("    ") && l.trim_end().ends_with(')') && l.contains(" (#")).count();
    assert_eq!(tree_lines, 19, "{text}");
}

/// Joint-set counts and influence histograms per skin, counted independently of skinlab (a small
/// Python GLB reader over JOINTS_0/WEIGHTS_0: zero weights dropped, duplicate joints merged, a set
/// trivial when it has one joint or a parent and its child).
#[test]
fn info_counts_match_an_independent_count() {
    let cases: [(&str, &[(&str, &str)]); 3] = [
        ("Fox.glb", &[("1: 772 (44.7%) 2: 917 (53.1%) 3: 33 (1.9%) 4: 6 (0.3%)", "41 distinct, 7 non-trivial")]),
        (
            "Knight.glb",
            &[("1: 985 (26.5%) 2: 1362 (36.7%) 3: 1127 (30.3%) 4: 242 (6.5%)", "34 distinct, 15 non-trivial")],
        ),
        (
            "Character_HumanoidRig.glb",
            &[
                ("1: 2 (0.4%) 2: 37 (7.3%) 3: 163 (32.2%) 4: 304 (60.1%)", "68 distinct, 59 non-trivial"),
                ("1: 16 (6.9%) 2: 204 (87.9%) 3: 12 (5.2%)", "8 distinct, 2 non-trivial"),
                ("1: 781 (100.0%)", "1 distinct, 0 non-trivial"),
                ("1: 4 (1.1%) 2: 190 (50.5%) 3: 182 (48.4%)", "12 distinct, 4 non-trivial"),
            ],
        ),
    ];
    for (file, skins) in cases {
        let out = skinlab([OsStr::new("info"), model(file).as_os_str()]);
        let text = String::from_utf8(out.stdout).unwrap();
        let histograms: Vec<&str> =
            text.lines().filter_map(|l| l.trim().strip_prefix("influences per vertex: ")).collect();
        let sets: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("joint sets: ")).collect();
        let expect_h: Vec<&str> = skins.iter().map(|s| s.0).collect();
        let expect_s: Vec<&str> = skins.iter().map(|s| s.1).collect();
        assert_eq!(histograms, expect_h, "{file}");
        assert_eq!(sets, expect_s, "{file}");
    }
}

#[test]
fn info_on_every_model() {
    let mut names: Vec<PathBuf> = fs::read_dir(gltf_edit::models_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 9);
    for path in names {
        let out = skinlab([OsStr::new("info"), path.as_os_str()]);
        assert_eq!(out.status.code(), Some(0), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let model = skinlab::io::load_model(&path).unwrap();
        assert_eq!(text.matches("joint sets: ").count(), model.skins.len(), "{text}");
        assert_eq!(text.matches("influences per vertex:").count(), model.skins.len(), "{text}");
        for skin in &model.skins {
            assert!(text.contains(&format!("{} joints", skin.joints.len())));
            for &j in &skin.joints {
                assert!(text.contains(&format!("{} (#{j})", model.nodes.key(j))), "joint #{j} in the tree");
            }
        }
    }
}
