//! The stress sweep (`analysis::sweep`, `skinlab sweep`): its metrics on the synthetic two-bone
//! cylinder (LBS's candy wrapper at a 180° twist, LBS's volume loss at a 90° bend equal to what
//! tests/contract.rs measures), report files that parse and hold every step, the plot, and one
//! error line with exit status 2 for bad joints and options.
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;

use std::ffi::OsStr;

use cli_run::{assert_one_error_line, skinlab};
use common::{rigs, shared_models};
use glam::DVec3;
use skinlab::analysis::sweep::{sweep, Motion, SweepReport, SweepRequest};
use skinlab::plot::sweep as plot;
use skinlab::rig::Pose;
use skinlab::skinning::{Deformer, SkinningMethod};

const METHODS: [SkinningMethod; 3] = [SkinningMethod::Lbs, SkinningMethod::Dqs, SkinningMethod::Sbs];

fn cylinder_sweep(motion: Motion) -> SweepReport {
    let model = rigs::two_bone_cylinder(41, 24);
    let request = SweepRequest {
        joints: vec![1],
        methods: METHODS.to_vec(),
        motions: vec![motion],
        max_angle_rad: std::f64::consts::PI,
        steps: 37,
    };
    sweep(&model, "cylinder", &request)
}

#[test]
fn a_180_degree_twist_collapses_the_cylinder_under_lbs_only() {
    let report = cylinder_sweep(Motion::Twist);
    let sw = &report.sweeps[0];
    assert_eq!((sw.joint.as_str(), sw.motion), ("mid", Motion::Twist));
    assert!((DVec3::from_array(sw.axis) - DVec3::X).length() < 1e-12, "the twist axis is the bone: {:?}", sw.axis);
    for c in &sw.curves {
        assert_eq!(c.steps.len(), 37);
        let first = c.steps[0];
        assert!((first.collapse - 1.0).abs() < 1e-6 && first.volume_change.abs() < 1e-6 && first.flip == 0.0);
        let last = c.steps[36];
        assert!((last.angle_deg - 180.0).abs() < 1e-9);
        println!("{}: collapse at 180° {:.4}, bulge {:.4}", c.method, last.collapse, last.bulge);
        match c.method {
            SkinningMethod::Lbs => assert!(last.collapse < 0.05, "LBS collapses: {}", last.collapse),
            _ => assert!(last.collapse > 0.95, "{} keeps the section: {}", c.method, last.collapse),
        }
        // A smooth twist below 180°: no vertex jumps more than the rigid arc.
        assert!(c.steps[..36].iter().all(|m| m.flip <= 1.0 + 1e-6), "{}: {:?}", c.method, c.steps);
    }
}

#[test]
fn a_90_degree_bend_loses_the_volume_the_contract_measures() {
    let report = cylinder_sweep(Motion::Bend);
    let sw = &report.sweeps[0];
    assert!((DVec3::from_array(sw.axis) - DVec3::Z).length() < 1e-12, "bend axis {:?}", sw.axis);
    // The contract's measurement: the whole cylinder's enclosed volume, joint 1 turned 90° about z.
    let model = rigs::two_bone_cylinder(41, 24);
    let prim = &model.meshes[0].primitives[0];
    let rest = rigs::enclosed_volume(&prim.positions, &prim.triangles);
    let mut pose = Pose::rest();
    rigs::rotate(&mut pose, 1, DVec3::Z, std::f64::consts::FRAC_PI_2);
    let mut changes = Vec::new();
    for c in &sw.curves {
        let step = &c.steps[18];
        assert!((step.angle_deg - 90.0).abs() < 1e-9);
        let mut out = Vec::new();
        Deformer::new().deform_all(&model, &pose, c.method, &mut out);
        let expect = rigs::enclosed_volume(&out[0][0].positions, &prim.triangles) / rest - 1.0;
        println!("{}: volume change at 90° {:+.4} (contract {:+.4})", c.method, step.volume_change, expect);
        assert!((step.volume_change - expect).abs() < 1e-6, "{}: {} vs {expect}", c.method, step.volume_change);
        changes.push(step.volume_change);
    }
    assert!(changes[0] < -0.01, "LBS loses volume: {}", changes[0]);
    assert!(changes[2].abs() < changes[0].abs(), "SBS loses less than LBS: {changes:?}");
    // The inner side of the LBS elbow pinches more than SBS's.
    let collapse = |i: usize| sw.curves[i].steps[18].collapse;
    assert!(collapse(0) < collapse(2), "collapse LBS {} SBS {}", collapse(0), collapse(2));
}

fn fox() -> std::path::PathBuf {
    shared_models().join("Fox.glb")
}

#[test]
fn json_and_csv_reports_hold_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("sweep.json");
    let csv = dir.path().join("sweep.csv");
    let png = dir.path().join("sweep.png");
    let joints = "b_LeftForeArm_010,b_Tail02_013";
    for (out, plot) in [(&json, Some(&png)), (&csv, None)] {
        let mut args =
            vec![OsStr::new("sweep"), fox().into_os_string().leak(), OsStr::new("--joints"), OsStr::new(joints)];
        args.extend([OsStr::new("--steps"), OsStr::new("7"), OsStr::new("--max-angle"), OsStr::new("120")]);
        args.extend([OsStr::new("--out"), out.as_os_str()]);
        if let Some(p) = plot {
            args.extend([OsStr::new("--plot"), p.as_os_str()]);
        }
        let run = skinlab(&args);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let text = String::from_utf8(run.stdout).unwrap();
        assert!(text.contains("b_Tail02_013") && text.contains("collapse"), "{text}");
    }
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let sweeps = report["sweeps"].as_array().unwrap();
    assert_eq!(sweeps.len(), 4, "two joints x twist, bend");
    for sw in sweeps {
        let curves = sw["curves"].as_array().unwrap();
        let methods: Vec<&str> = curves.iter().map(|c| c["method"].as_str().unwrap()).collect();
        assert_eq!(methods, ["lbs", "dqs", "sbs"]);
        for c in curves {
            let steps = c["steps"].as_array().unwrap();
            assert_eq!(steps.len(), 7);
            for (k, m) in steps.iter().enumerate() {
                assert!((m["angle_deg"].as_f64().unwrap() - 20.0 * k as f64).abs() < 1e-9);
                for key in ["collapse", "volume_change", "bulge", "flip"] {
                    assert!(m[key].as_f64().unwrap().is_finite(), "{key} in {m}");
                }
            }
        }
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "joint,node,motion,method,step,angle_deg,collapse,volume_change,bulge,flip,weight,jump"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2 * 2 * 3 * 7);
    assert!(rows.iter().all(|r| r.len() == 12 && r[9].parse::<f64>().unwrap().is_finite() && r[10].is_empty()));
    // Same numbers in both files.
    let first = &sweeps[0]["curves"][0]["steps"][3];
    assert_eq!(rows[3][6].parse::<f64>().unwrap(), first["collapse"].as_f64().unwrap());
    // The plot: one row per joint and motion, every method's colour drawn.
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!((img.width(), img.height()), plot::picture_size(4));
    // The legend across the top (each method's swatch, the names in dark text), then the curves.
    let legend_rows = 30;
    let in_legend = || (0..legend_rows).flat_map(|y| (0..img.width()).map(move |x| (x, y)));
    for m in [SkinningMethod::Lbs, SkinningMethod::Dqs, SkinningMethod::Sbs] {
        let c = plot::method_colour(m);
        let swatch = in_legend().filter(|&(x, y)| img.get_pixel(x, y).0 == c).count();
        assert!(swatch >= 24 * 4, "{m} has its swatch in the legend: {swatch} pixels");
        let curve = img.enumerate_pixels().filter(|(_, y, p)| *y >= legend_rows && p.0 == c).count();
        assert!(curve > 200, "{m} curves drawn: {curve} pixels");
    }
    let ink = in_legend().filter(|&(x, y)| img.get_pixel(x, y).0[..3].iter().all(|&v| v < 80)).count();
    assert!(ink > 300, "the legend names the methods in dark text: {ink} pixels");
}

#[test]
fn bad_joints_and_options_give_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let (fox, out) = (fox(), out.to_str().unwrap().to_owned());
    let fox = fox.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["sweep", fox, "--out", &out];
        args.extend_from_slice(extra);
        skinlab(args)
    };
    assert_one_error_line(&run(&["--joints", "NoSuchBone"]), &["NoSuchBone", "Fox.glb"]);
    assert_one_error_line(&run(&["--joints", "b_Tail02_013,Nope"]), &["Nope"]);
    assert_one_error_line(&run(&["--joints", "#0"]), &["#0", "not a joint"]);
    assert_one_error_line(&run(&["--method", "lbs,xyz"]), &["xyz"]);
    assert_one_error_line(&run(&["--motion", "roll"]), &["roll"]);
    assert_one_error_line(&run(&["--steps", "1"]), &["--steps"]);
    assert_one_error_line(&run(&["--max-angle", "0"]), &["--max-angle"]);
    assert_one_error_line(&run(&["--max-angle", "nan"]), &["--max-angle"]);
    assert_one_error_line(&run(&["--plot", "p.jpg"]), &["--plot", ".png"]);
    assert_one_error_line(&skinlab(["sweep", fox, "--out", "r.txt"]), &["--out", ".json"]);
    assert!(!std::path::Path::new(&out).exists(), "no report after a failure");
    assert_one_error_line(&skinlab(["sweep", "/nonexistent/m.glb", "--out", &out]), &["m.glb"]);
}

#[test]
fn the_weight_motion_shows_sbs_jumping_and_sbs_c_continuous() {
    let model = skinlab::io::load_model(&shared_models().join("CesiumMan.glb")).unwrap();
    let node = model.nodes.find("Skeleton_neck_joint_1").unwrap();
    let methods = vec![SkinningMethod::Lbs, SkinningMethod::Sbs, SkinningMethod::SbsC];
    let request =
        SweepRequest { joints: vec![node], methods, motions: vec![Motion::Weight], max_angle_rad: 1.0, steps: 11 };
    let report = sweep(&model, "CesiumMan", &request);
    let sw = &report.sweeps[0];
    assert_eq!(sw.motion, Motion::Weight);
    let last = |i: usize| sw.curves[i].weight_steps.last().copied().unwrap();
    for c in &sw.curves {
        assert_eq!(c.weight_steps.len(), 11);
        assert!((c.weight_steps[0].weight - 0.1).abs() < 1e-12 && (last(0).weight - 1e-6).abs() < 1e-15);
        println!("{}: jump {:?}", c.method, c.weight_steps.iter().map(|w| w.jump).collect::<Vec<_>>());
    }
    // SBS: the centre of a set of three or more joints jumps (up to 2e-3 of the diagonal on a real model, docs/sbs-c.md).
    assert!(last(1).jump > 1e-3, "SBS jumps: {:?}", last(1));
    // LBS and SBS-C: the jump goes to zero with the weight.
    assert!(last(0).jump < 1e-5 && last(2).jump < 1e-5, "LBS {:?}, SBS-C {:?}", last(0), last(2));
    let c = &sw.curves[2].weight_steps;
    assert!(c.windows(2).all(|p| p[1].jump <= p[0].jump * 1.01 + 1e-7), "SBS-C's jump shrinks with the weight: {c:?}");
}

/// The range-of-motion clip drives the sweep: at the clip's keys the metrics equal the sweep's own
/// steps at the same angles (0°, 45°, 90° of a twist and a bend on the cylinder), and each run
/// holds exactly the keys of its motion, in time order.
#[test]
fn the_range_of_motion_clip_drives_the_sweep() {
    use skinlab::analysis::rom::{rom_clip, RomRequest};
    use skinlab::analysis::sweep::sweep_clip;
    let mut model = rigs::two_bone_cylinder(41, 24);
    let rom = rom_clip(
        &model,
        &RomRequest { joints: vec![1], max_angle_rad: std::f64::consts::FRAC_PI_2, seconds_per_motion: 1.0 },
    );
    model.clips.push(rom.clip.clone());
    let request = |steps| SweepRequest {
        joints: vec![1],
        methods: METHODS.to_vec(),
        motions: vec![Motion::Twist, Motion::Bend],
        max_angle_rad: std::f64::consts::FRAC_PI_2,
        steps,
    };
    let driven = sweep_clip(&model, "cylinder", &rom.clip, &request(3));
    let own = sweep(&model, "cylinder", &request(3));
    assert_eq!(driven.sweeps.len(), 2, "a twist run and a bend run");
    for (d, o) in driven.sweeps.iter().zip(&own.sweeps) {
        assert_eq!((d.motion, d.axis), (o.motion, o.axis));
        for (dc, oc) in d.curves.iter().zip(&o.curves) {
            let angles: Vec<f64> = dc.steps.iter().map(|m| m.angle_deg.round()).collect();
            assert_eq!(angles, [0.0, 45.0, 90.0, 45.0, 0.0, -45.0, -90.0, -45.0, 0.0], "{}", dc.method);
            let times: Vec<f64> = dc.steps.iter().map(|m| m.time_secs.unwrap()).collect();
            assert!(times.windows(2).all(|w| w[0] < w[1]), "time order: {times:?}");
            for (dm, om) in dc.steps[..3].iter().zip(&oc.steps) {
                let what = format!("{} {:?} at {}°", dc.method, d.motion, om.angle_deg);
                assert!((dm.angle_deg - om.angle_deg).abs() < 1e-4, "{what}: angle {}", dm.angle_deg);
                assert!(
                    (dm.collapse - om.collapse).abs() < 1e-4,
                    "{what}: collapse {} vs {}",
                    dm.collapse,
                    om.collapse
                );
                assert!((dm.volume_change - om.volume_change).abs() < 1e-4, "{what}: volume");
                assert!((dm.bulge - om.bulge).abs() < 1e-4, "{what}: bulge");
            }
        }
    }
    // LBS's twist collapse at the clip's 90° key, as in the sweep's own.
    let lbs = &driven.sweeps[0].curves[0];
    assert!(lbs.steps[2].collapse < 0.9, "LBS pinches at a 90° twist: {}", lbs.steps[2].collapse);
}

#[test]
fn a_clip_driven_sweep_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let rom = dir.path().join("fox-rom.glb");
    let made = skinlab([
        "rom".as_ref(),
        fox().as_os_str(),
        "--joints".as_ref(),
        "b_LeftLeg01_015".as_ref(),
        "--max-angle".as_ref(),
        "60".as_ref(),
        "--out".as_ref(),
        rom.as_os_str(),
    ]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let report = dir.path().join("r.json");
    let plot = dir.path().join("r.png");
    let run = |extra: &[&str]| {
        let mut args: Vec<&OsStr> = vec!["sweep".as_ref(), rom.as_os_str(), "--out".as_ref(), report.as_os_str()];
        args.extend(extra.iter().map(OsStr::new));
        skinlab(&args)
    };
    let ok = run(&["--clip", "ROM", "--joints", "b_LeftLeg01_015", "--plot", plot.to_str().unwrap()]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let steps = json["sweeps"][0]["curves"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 9, "0 → 60 → 0 → −60 → 0 in 30° keys");
    assert!(steps.iter().all(|s| s["time_secs"].is_number()));
    assert!(std::fs::metadata(&plot).unwrap().len() > 1000);
    assert_one_error_line(&run(&["--clip", "Nope"]), &["--clip", "Nope", "ROM"]);
    assert_one_error_line(&run(&["--clip", "ROM", "--motion", "weight"]), &["--motion weight", "--clip"]);
}
