//! The editor window starts under Xvfb on the demo model, draws, saves itself with
//! `--screenshot-after-frames` and exits cleanly; with no display it refuses with one line and
//! status 2. Needs `xvfb-run` (package xvfb) and Mesa's GL (scripts/setup.sh installs them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn skinlab_under_xvfb(args: &[&str]) -> std::process::Output {
    Command::new("timeout")
        .args(["180", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24 -nolisten tcp"])
        .arg(env!("CARGO_BIN_EXE_skinlab"))
        .args(args)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("xvfb-run and timeout must be installed (bash scripts/setup.sh)")
}

#[test]
fn editor_starts_on_the_demo_draws_the_arm_and_quits_after_the_screenshot() {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("editor.png");
    let o = skinlab_under_xvfb(&[
        "open",
        "--animation",
        "twist_bend",
        "--time",
        "1.5",
        "--compare",
        "sbs",
        "--screenshot-after-frames",
        "4",
        shot.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "status {:?}, stderr: {}", o.status, String::from_utf8_lossy(&o.stderr));
    let img = image::open(&shot).unwrap().to_rgba8();
    assert!(img.width() >= 800 && img.height() >= 500, "{:?}", img.dimensions());
    // The skin colour (lit, so a range) appears in the viewport: the 3D callback drew.
    let skin = img
        .pixels()
        .filter(|p| {
            let [r, g, b, _] = p.0;
            r > 90 && r > g && g > b && r - b > 25
        })
        .count();
    assert!(skin > 2000, "only {skin} skin-coloured pixels: the viewport did not draw the model");
}

#[test]
fn no_argument_start_opens_the_demo_editor() {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("plain.png");
    // `skinlab` alone is the editor; the screenshot flag lives on `open`, so run `open` with no model.
    let o = skinlab_under_xvfb(&["open", "--screenshot-after-frames", "2", shot.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(shot.exists());
}

#[test]
fn without_a_display_the_editor_refuses_with_one_line_and_status_2() {
    let o = Command::new(env!("CARGO_BIN_EXE_skinlab"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: cannot open the editor: no display"), "{err}");
}

#[test]
fn a_broken_model_on_the_command_line_opens_the_window_with_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.glb");
    std::fs::write(&bad, b"not a model").unwrap();
    let shot = dir.path().join("bad.png");
    // The window opens on the demo arm, shows the problem, and keeps running until the screenshot.
    let o =
        skinlab_under_xvfb(&["open", bad.to_str().unwrap(), "--screenshot-after-frames", "4", shot.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "status {:?}: {err}", o.status);
    assert!(err.contains("bad.glb") && err.contains("not a GLB file"), "{err}");
    let img = image::open(&shot).unwrap().to_rgba8();
    // The message is drawn in the error colour (255, 110, 100) on the status line.
    let red =
        img.pixels().filter(|p| p.0[0] > 200 && (80..140).contains(&p.0[1]) && (70..130).contains(&p.0[2])).count();
    assert!(red > 200, "only {red} error-coloured pixels: the message is not on screen");
}

#[test]
fn missing_keyboard_data_stops_the_editor_with_one_error_line_not_a_panic() {
    // winit's X11 start-up unwraps the keyboard setup; without xkb data it panicked (status 101).
    let o = Command::new("timeout")
        .args(["180", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24 -nolisten tcp"])
        .arg(env!("CARGO_BIN_EXE_skinlab"))
        .arg("open")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("RUST_BACKTRACE")
        .env("XKB_CONFIG_ROOT", "/nonexistent/xkb")
        .output()
        .expect("xvfb-run and timeout must be installed (bash scripts/setup.sh)");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(ours.len(), 1, "{err}");
    assert!(ours[0].contains("no X keyboard data (xkb)") && ours[0].contains("xkb-data"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_pose_library_with_oversized_thumbnails_opens_and_shows_them_broken() {
    use skinlab::io::pose_library::{library_path, LibraryPose, PoseLibrary};
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("arm.glb");
    std::fs::write(&model, skinlab::demo::demo_glb()).unwrap();
    let arm = skinlab::io::load_model(&model).unwrap();
    // A 20000×1 thumbnail (wider than any GPU texture) and a truncated one beside a good one.
    let png = |w: u32, h: u32| skinlab::thumbnail::encode_png(&vec![200u8; (w * h * 4) as usize], w, h).unwrap();
    let mut truncated = png(96, 96);
    truncated.truncate(60);
    let mut pose = skinlab::rig::Pose::rest();
    pose.set_rotation(2, glam::DQuat::from_rotation_z(0.8));
    let entry =
        |name: &str, thumbnail_png: Vec<u8>| LibraryPose { name: name.into(), pose: pose.clone(), thumbnail_png };
    let library =
        PoseLibrary { poses: vec![entry("Wide", png(20_000, 1)), entry("Cut", truncated), entry("Good", png(96, 96))] };
    library.write(&library_path(&model), &arm.nodes).unwrap();
    let shot = dir.path().join("library.png");
    let o = skinlab_under_xvfb(&[
        "open",
        model.to_str().unwrap(),
        "--screenshot-after-frames",
        "4",
        shot.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "status {:?}: {err}", o.status);
    assert!(!err.contains("panicked"), "{err}");
    assert!(shot.exists());
}
