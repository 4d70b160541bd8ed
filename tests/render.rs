//! `skinlab render` under Mesa's software EGL (no window, no display): the picture has the asked
//! size, is not blank, and its panels differ where the methods differ. Needs libegl1,
//! libegl-mesa0 and libgl1-mesa-dri (scripts/setup.sh installs them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn skinlab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_skinlab"));
    // Prove that no display server is involved.
    c.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    c
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo_arm.glb")
}

fn render(args: &[&str], out: &Path) -> image::RgbaImage {
    let o = skinlab().arg("render").args(args).arg("--out").arg(out).output().unwrap();
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
    image::open(out).unwrap().to_rgba8()
}

/// Pixels of panel `i` of `n` (left to right), skipping a margin so labels and the separator are
/// left out.
fn panel(img: &image::RgbaImage, i: u32, n: u32) -> Vec<[u8; 4]> {
    let w = img.width() / n;
    let mut v = Vec::new();
    for y in img.height() / 8..img.height() {
        for x in i * w + 8..(i + 1) * w - 8 {
            v.push(img.get_pixel(x, y).0);
        }
    }
    v
}

#[test]
fn lbs_and_sbs_panels_have_the_right_size_are_not_blank_and_differ() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("twist.png");
    let img = render(
        &[
            demo().to_str().unwrap(),
            "--animation",
            "twist",
            "--time",
            "1.8",
            "--method",
            "lbs,sbs",
            "--size",
            "640x360",
        ],
        &out,
    );
    assert_eq!(img.dimensions(), (640, 360));
    let (a, b) = (panel(&img, 0, 2), panel(&img, 1, 2));
    let background = img.get_pixel(img.width() / 2 - 20, 2).0;
    for p in [&a, &b] {
        let lit = p.iter().filter(|px| px != &&background).count();
        assert!(lit > p.len() / 20, "panel nearly blank: {lit} of {} pixels differ from the background", p.len());
    }
    let differ = a.iter().zip(&b).filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 24)).count();
    assert!(differ > 200, "LBS and SBS panels differ in only {differ} pixels");
}

#[test]
fn identical_methods_give_identical_panels_at_rest() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rest.png");
    let img = render(&[demo().to_str().unwrap(), "--method", "lbs,lbs", "--size", "400x200", "--no-grid"], &out);
    assert_eq!(img.dimensions(), (400, 200));
    let differ = panel(&img, 0, 2)
        .iter()
        .zip(&panel(&img, 1, 2))
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 24))
        .count();
    assert!(differ < 20, "two LBS panels differ in {differ} pixels");
}

#[test]
fn difference_overlay_colours_the_twist_red_and_prints_the_largest_distance() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("diff.png");
    let o = skinlab()
        .args([
            "render",
            demo().to_str().unwrap(),
            "--animation",
            "twist",
            "--time",
            "2",
            "--diff",
            "--size",
            "600x300",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("largest LBS vs SBS distance"));
    let img = image::open(&out).unwrap().to_rgba8();
    let reddish = img.pixels().filter(|p| p.0[0] > 150 && p.0[1] < 90 && p.0[2] < 90).count();
    assert!(reddish > 50, "only {reddish} red pixels in the difference overlay");
}

#[test]
fn bad_arguments_fail_with_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.png");
    for args in [
        vec![demo().to_str().unwrap().to_owned(), "--size".into(), "0x10".into()],
        vec![demo().to_str().unwrap().to_owned(), "--camera".into(), "sideways".into()],
        vec![demo().to_str().unwrap().to_owned(), "--animation".into(), "nope".into()],
        vec![demo().to_str().unwrap().to_owned(), "--method".into(), "sbs".into(), "--diff".into()],
        vec![dir.path().join("missing.glb").to_str().unwrap().to_owned()],
    ] {
        let o = skinlab().arg("render").args(&args).arg("--out").arg(&out).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!out.exists(), "{args:?} wrote a picture");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error"), "{args:?}: {err}");
    }
}

#[test]
fn a_real_model_in_a_bent_pose_renders_with_differing_panels() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models");
    let pose = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/poses/cesiumman_bent.json");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cesium.png");
    let img = render(
        &[
            models.join("CesiumMan.glb").to_str().unwrap(),
            "--pose",
            pose.to_str().unwrap(),
            "--method",
            "lbs,dqs,sbs",
            "--camera",
            "three-quarter",
            "--size",
            "900x400",
        ],
        &out,
    );
    assert_eq!(img.dimensions(), (900, 400));
    let (a, c) = (panel(&img, 0, 3), panel(&img, 2, 3));
    let background = img.get_pixel(5, img.height() / 4).0;
    assert!(a.iter().filter(|p| **p != background).count() > a.len() / 20, "LBS panel nearly blank");
    let differ = a.iter().zip(&c).filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 24)).count();
    assert!(differ > 30, "LBS and SBS panels differ in only {differ} pixels");
}

#[test]
fn a_mesh_without_a_skin_is_drawn_with_its_animated_morph_targets() {
    // Blender's cube with two shape keys whose weights its clip animates; no skin, no bone.
    let cube =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ufbx/blender440_shape_weight_anim_7400_binary.fbx");
    let dir = tempfile::tempdir().unwrap();
    let at = |t: &str| {
        let out = dir.path().join(format!("cube{t}.png"));
        let args = [cube.to_str().unwrap(), "--animation", "#0", "--time", t, "--method", "lbs", "--size", "320x240"];
        render(&args, &out)
    };
    let (rest, shaped, again) = (at("0"), at("0.8"), at("0"));
    let differ = |a: &image::RgbaImage, b: &image::RgbaImage| {
        a.pixels().zip(b.pixels()).filter(|(p, q)| p.0.iter().zip(q.0.iter()).any(|(x, y)| x.abs_diff(*y) > 24)).count()
    };
    assert!(
        differ(&rest, &shaped) > 200,
        "the shape keys do not move the cube: {} pixels differ",
        differ(&rest, &shaped)
    );
    assert_eq!(differ(&rest, &again), 0, "the same time draws the same picture");
}
