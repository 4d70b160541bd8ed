//! Broken FBX files end in one `error:` line and exit status 2, never a panic, within bounded
//! memory (each run under `ulimit -v` of 3 GB): truncated files, bit flips, a huge declared array,
//! an ASCII file with tokens of the wrong type; a file naming external files opens none of them
//! (they are FIFOs here: opening one would block the run).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cli_run.rs"]
mod cli_run;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ufbx").join(name)
}

/// `skinlab info FILE` under a 3 GB address-space limit.
fn info_bounded(file: &Path) -> Output {
    let cmd = "ulimit -v 3000000 && exec timeout 60 \"$0\" info \"$1\"";
    Command::new("sh").arg("-c").arg(cmd).arg(env!("CARGO_BIN_EXE_skinlab")).arg(file).output().unwrap()
}

/// Either a clean run or one error line with status 2; never a panic, a signal or a timeout.
fn assert_clean_or_one_line(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    match out.status.code() {
        Some(0) => {}
        Some(2) => {
            assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
            assert!(stderr.starts_with("error: "), "{what}: {stderr}");
        }
        other => panic!("{what}: status {other:?}: {stderr}"),
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn truncated_files_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["maya_game_sausage_7500_binary_wiggle.fbx", "maya_mixed_inherit_mode_7700_ascii.fbx"] {
        let bytes = std::fs::read(data(name)).unwrap();
        for cut in [0, 10, 27, 100, bytes.len() / 3, bytes.len() / 2, bytes.len() - 200] {
            let file = write(dir.path(), "cut.fbx", &bytes[..cut]);
            let out = info_bounded(&file);
            assert_clean_or_one_line(&out, &format!("{name} cut at {cut}"));
            if cut <= 100 && name.contains("binary") {
                assert_eq!(out.status.code(), Some(2), "{name} cut at {cut} was read");
            }
        }
    }
}

#[test]
fn bit_flips_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for name in ["maya_game_sausage_7500_binary_wiggle.fbx", "max_transformed_skin_7500_binary.fbx"] {
        let original = std::fs::read(data(name)).unwrap();
        for round in 0..12 {
            let mut bytes = original.clone();
            for _ in 0..8 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let at = (seed >> 33) as usize % bytes.len();
                bytes[at] ^= 1 << ((seed >> 29) & 7);
            }
            let file = write(dir.path(), "flipped.fbx", &bytes);
            assert_clean_or_one_line(&info_bounded(&file), &format!("{name} round {round}"));
        }
    }
}

fn ascii() -> String {
    std::fs::read_to_string(data("maya_mixed_inherit_mode_7700_ascii.fbx")).unwrap()
}

#[test]
fn a_huge_declared_array_and_wrong_token_types_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = ascii();
    let huge = text.replacen("Vertices: *414 {", "Vertices: *4000000000 {", 1);
    assert_ne!(huge, text);
    let out = info_bounded(&write(dir.path(), "huge.fbx", huge.as_bytes()));
    assert_clean_or_one_line(&out, "huge array");
    // Strings where numbers belong, a number where a name belongs.
    let start = text.find("Vertices: *414 {").unwrap();
    let a = start + text[start..].find("a: ").unwrap() + 3;
    let mut wrong = text.clone();
    wrong.insert_str(a, "\"x\",\"y\",");
    let out = info_bounded(&write(dir.path(), "tokens.fbx", wrong.as_bytes()));
    assert_clean_or_one_line(&out, "strings in a number array");
    let wrong = text.replacen("Material: 1912236979936, \"Material::lambert1\"", "Material: \"x\", 12.5", 1);
    let out = info_bounded(&write(dir.path(), "tokens2.fbx", wrong.as_bytes()));
    assert_clean_or_one_line(&out, "a number as a name");
    let out = info_bounded(&write(dir.path(), "garbage.fbx", b"; FBX 7.7.0 project file\nObjects: { { } } }}}"));
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    cli_run::assert_one_error_line(&out, &["garbage.fbx"]);
}

#[test]
fn external_files_are_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("texture.png");
    let cache = dir.path().join("cache.mc");
    for f in [&fifo, &cache] {
        let made = Command::new("mkfifo").arg(f).status().unwrap();
        assert!(made.success());
    }
    let texture = format!(
        "\tTexture: 77, \"Texture::ext\", \"\" {{\n\t\tType: \"TextureVideoClip\"\n\t\tFileName: \"{0}\"\n\t\t\
         RelativeFilename: \"{0}\"\n\t}}\n\tVideo: 78, \"Video::ext\", \"Clip\" {{\n\t\tType: \"Clip\"\n\t\t\
         Filename: \"{0}\"\n\t\tRelativeFilename: \"{0}\"\n\t}}\n\tCacheFile: 79, \"CacheFile::c\", \"\" {{\n\t\t\
         Properties70:  {{\n\t\t\tP: \"CacheFileName\", \"KString\", \"\", \"\", \"{1}\"\n\t\t}}\n\t}}\n",
        fifo.display(),
        cache.display()
    );
    let text = ascii().replacen("Objects:  {\n", &format!("Objects:  {{\n{texture}"), 1).replacen(
        "Connections:  {\n",
        "Connections:  {\n\tC: \"OP\",77,1912236979936, \"DiffuseColor\"\n\tC: \"OO\",78,77\n",
        1,
    );
    let file = write(dir.path(), "external.fbx", text.as_bytes());
    let out = info_bounded(&file);
    assert_clean_or_one_line(&out, "external references");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // Export records the texture as not read (it would have blocked on the FIFO otherwise).
    let export = dir.path().join("out.glb");
    let run = cli_run::skinlab(["export", file.to_str().unwrap(), "--out", export.to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}
