//! The range-of-motion clip (`analysis::rom`, `skinlab rom`): the clip sampled at its key times
//! (and between them) turns each joint by exactly the intended rotation about the sweep's axes,
//! measured independently on the joints' model-space rotations; it exports as a glTF animation
//! with no validator errors and plays back the same poses after reimport; bad options give one
//! error line and exit status 2.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;
#[path = "common/js_check.rs"]
mod js_check;

use cli_run::{assert_one_error_line, skinlab};
use common::shared_models;
use glam::{DQuat, DVec3};
use skinlab::analysis::poses::{bind_globals, bone};
use skinlab::analysis::rom::{motion_angles, rom_clip, sample_on_bind, RomMotion, RomRequest};
use skinlab::analysis::sweep::{motion_axis, Motion};
use skinlab::io::{export_model, load_document, load_model, ExportOptions};
use skinlab::model::Model;
use skinlab::rig::fk::model_from_node;
use skinlab::rig::keys::key_times;
use skinlab::rig::sample::sample_clip;
use skinlab::rig::Pose;

fn rotation_of(m: &glam::DMat4) -> DQuat {
    let (_, r, _) = m.to_scale_rotation_translation();
    r
}

/// The angle between two rotations (radians).
fn angle_between(a: DQuat, b: DQuat) -> f64 {
    2.0 * a.dot(b).abs().min(1.0).acos()
}

/// Checks every key and the midpoints between keys: the joint's model-space rotation is its
/// rotation at the motion's start (its bind rotation) turned by the intended angle about the
/// segment's axis, and the other chosen joints keep their bind rotations; returns the worst
/// error (rad).
fn check_clip(model: &Model, joints: &[usize], max_deg: f64, tolerance: f64) -> f64 {
    let rom = rom_clip(
        model,
        &RomRequest { joints: joints.to_vec(), max_angle_rad: max_deg.to_radians(), seconds_per_motion: 0.8 },
    );
    assert_eq!(rom.segments.len(), joints.len() * 3);
    let bind = bind_globals(model);
    let bind_pose = skinlab::analysis::poses::bind_pose(model);
    let mut worst: f64 = 0.0;
    let mut globals = Vec::new();
    for seg in &rom.segments {
        // The sweep's axes: twist about the bone, the bend about its perpendicular.
        let (_, dir) = bone(model, &bind, seg.node);
        let axis = DVec3::from_array(seg.axis);
        match seg.motion {
            RomMotion::Twist => assert!(axis.abs_diff_eq(motion_axis(model, &bind, seg.node, Motion::Twist), 1e-12)),
            RomMotion::Bend => assert!(axis.abs_diff_eq(motion_axis(model, &bind, seg.node, Motion::Bend), 1e-12)),
            RomMotion::SideBend => assert!(axis.dot(dir).abs() < 1e-9),
        }
        assert_eq!(seg.keys.iter().map(|k| k.1).collect::<Vec<_>>(), motion_angles(max_deg.to_radians()));
        let mut samples: Vec<(f64, f64)> = seg.keys.clone();
        samples.extend(seg.keys.windows(2).map(|w| (0.5 * (w[0].0 + w[1].0), 0.5 * (w[0].1 + w[1].1))));
        // The joint's model-space rotation when the motion starts (at rest).
        model_from_node(&model.nodes, &sample_on_bind(model, &rom.clip, seg.keys[0].0), &mut globals);
        let start = rotation_of(&globals[seg.node]);
        let off = angle_between(start, rotation_of(&bind[seg.node]));
        assert!(off < 1e-3, "node {} starts {off} rad from its bind rotation", seg.node);
        for (t, angle) in samples {
            let pose = sample_on_bind(model, &rom.clip, t);
            model_from_node(&model.nodes, &pose, &mut globals);
            let expected = DQuat::from_axis_angle(axis, angle) * start;
            let err = angle_between(rotation_of(&globals[seg.node]), expected);
            worst = worst.max(err);
            assert!(err < tolerance, "node {} {:?} at {t} s: {err} rad off", seg.node, seg.motion);
            // Every other chosen joint keeps its bind rotation (relative to its parent).
            for &other in joints.iter().filter(|&&n| n != seg.node) {
                let local = |p: &Pose| p.local_trs(&model.nodes, other).rotation;
                let e = angle_between(local(&pose), local(&bind_pose));
                assert!(e < tolerance, "node {other} moved while {} turns: {e}", seg.node);
            }
        }
    }
    worst
}

/// The demo's joints turn exactly (3e-8 rad, f32 keys); on Fox the model-space rotations read back
/// from its f32 node data agree to 1.5e-4 rad (0.01°), hence the looser bound there.
#[test]
fn sampled_poses_at_key_times_are_the_intended_rotations() {
    let demo = skinlab::demo::demo_model().unwrap();
    let joints: Vec<usize> = demo.skins[0].joints.clone();
    println!("demo arm ±90°: worst {:.2e} rad", check_clip(&demo, &joints, 90.0, 1e-7));
    println!("demo arm ±180°: worst {:.2e} rad", check_clip(&demo, &joints, 180.0, 1e-7));
    let fox = load_model(&shared_models().join("Fox.glb")).unwrap();
    let joints: Vec<usize> =
        ["b_Spine01_02", "b_LeftLeg01_015", "b_Tail02_013"].iter().map(|n| fox.nodes.find(n).unwrap()).collect();
    println!("Fox ±60°: worst {:.2e} rad", check_clip(&fox, &joints, 60.0, 3e-4));
}

#[test]
fn the_clip_exports_valid_and_plays_back_the_same_poses() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for file in ["CesiumMan.glb", "Fox.glb"] {
        let src = shared_models().join(file);
        let out = dir.path().join(file.replace(".glb", "-rom.glb"));
        let run = skinlab([
            "rom".as_ref(),
            src.as_os_str(),
            "--max-angle".as_ref(),
            "75".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert!(String::from_utf8_lossy(&run.stdout).contains("added clip \"ROM\""));
        let (model, _) = load_document(&src).unwrap();
        let reopened = load_model(&out).unwrap();
        assert_eq!(reopened.clips.len(), model.clips.len() + 1);
        // The source's clips are untouched; the ROM clip plays back what the core generates.
        assert_eq!(reopened.clips[..model.clips.len()], model.clips[..]);
        let rom = reopened.clips.last().unwrap();
        assert_eq!(rom.name.as_deref(), Some("ROM"));
        let joints = skinlab::analysis::sweep::weighted_joints(&model);
        let generated =
            rom_clip(&model, &RomRequest { joints, max_angle_rad: 75f64.to_radians(), seconds_per_motion: 1.0 });
        let mut times = key_times(&generated.clip, None);
        times.extend(times.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect::<Vec<_>>());
        for t in times {
            let (mut a, mut b) = (Pose::rest(), Pose::rest());
            sample_clip(&generated.clip, t, &mut a);
            sample_clip(rom, t, &mut b);
            assert_eq!(a, b, "{file} at {t} s");
        }
        // Added again, the clip is "ROM.001" beside the first.
        let (mut again, source) = load_document(&out).unwrap();
        let second = rom_clip(
            &again,
            &RomRequest { joints: vec![again.skins[0].joints[1]], max_angle_rad: 0.5, seconds_per_motion: 1.0 },
        );
        assert_eq!(second.clip.name.as_deref(), Some("ROM.001"));
        again.clips.push(second.clip);
        let out2 = dir.path().join(file.replace(".glb", "-rom2.glb"));
        export_model(&again, &source, &ExportOptions::default(), &out2).unwrap();
        assert_eq!(load_model(&out2).unwrap().clips, again.clips);
        files.extend([out, out2]);
    }
    let reports = js_check::validate(&files);
    for f in &files {
        assert_eq!(reports[f]["errors"], 0, "{}: {}", f.display(), reports[f]["messages"]);
    }
}

#[test]
fn bad_options_give_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let fox = shared_models().join("Fox.glb");
    let out = dir.path().join("out.glb");
    let run = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec!["rom".as_ref(), fox.as_os_str()];
        args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
        skinlab(args)
    };
    let o = out.to_str().unwrap();
    assert_one_error_line(&run(&["--joints", "NoSuchBone", "--out", o]), &["NoSuchBone", "Fox.glb"]);
    assert_one_error_line(&run(&["--max-angle", "0", "--out", o]), &["--max-angle"]);
    assert_one_error_line(&run(&["--max-angle", "270", "--out", o]), &["--max-angle"]);
    assert_one_error_line(&run(&["--seconds-per-motion", "-1", "--out", o]), &["--seconds-per-motion"]);
    assert_one_error_line(&run(&["--out", dir.path().join("out.obj").to_str().unwrap()]), &["out.obj"]);
    assert_one_error_line(&run(&["--out", fox.to_str().unwrap()]), &["Fox.glb"]);
    assert!(!out.exists());
}
