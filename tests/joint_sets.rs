//! The SBS joint-set table (`analysis::joint_sets`, `skinlab info --sets`): its centres equal a
//! reference solve written here (the stacked system's SVD pseudo-inverse in f64 through nalgebra,
//! with the reference's own FK and polar decomposition), coinciding rotations are flagged, and the
//! command line gives one error line with exit status 2 on bad options.
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;

use std::ffi::OsStr;

use cli_run::{assert_one_error_line, skinlab};
use common::{reference, rigs, shared_models};
use glam::{DMat3, DVec3};
use skinlab::analysis::joint_sets::{joint_set_table, SetWarning};
use skinlab::model::Model;
use skinlab::rig::{sample, Pose};

/// Minimum-norm least squares of the stacked `(R_a − R_b) r = t_b − t_a` by nalgebra's SVD of the
/// dense matrix, singular values below 1e-6 dropped (spec "sbs" step 2).
fn reference_centre(rs: &[DMat3], ts: &[DVec3]) -> DVec3 {
    let n = rs.len();
    let rows = 3 * n * (n - 1) / 2;
    let mut d = nalgebra::DMatrix::<f64>::zeros(rows, 3);
    let mut e = nalgebra::DMatrix::<f64>::zeros(rows, 1);
    let mut row = 0;
    for a in 0..n {
        for b in a + 1..n {
            let diff = rs[a] - rs[b];
            let rhs = ts[b] - ts[a];
            for r in 0..3 {
                for c in 0..3 {
                    d[(row + r, c)] = diff.row(r)[c];
                }
                e[(row + r, 0)] = rhs[r];
            }
            row += 3;
        }
    }
    let x = d.svd(true, true).solve(&e, 1e-6).unwrap();
    DVec3::new(x[(0, 0)], x[(1, 0)], x[(2, 0)])
}

/// Checks every well-conditioned row's centre against the reference; returns how many were checked.
fn check_centres(model: &Model, pose: &Pose) -> usize {
    let mut checked = 0;
    for table in joint_set_table(model, pose) {
        let skin = &model.skins[table.skin];
        for row in &table.rows {
            if row.warning.is_some() || row.lbs_fallback {
                continue;
            }
            let mut rs = Vec::new();
            let mut ts = Vec::new();
            for &node in &row.nodes {
                let j = skin.joints.iter().position(|&n| n == node).unwrap();
                let c = reference::global(model, pose, node) * skin.joint_from_bind[j];
                let (r, _s) = reference::polar_higham(DMat3::from_mat4(c)).unwrap();
                rs.push(r);
                ts.push(c.w_axis.truncate());
            }
            let expect = reference_centre(&rs, &ts);
            let got = DVec3::from_array(row.centre_bind);
            let tol = 1e-7 * (1.0 + expect.length()) * row.condition.unwrap_or(1.0);
            assert!((got - expect).length() <= tol, "set {} {:?}: {got} vs reference {expect}", row.set, row.members);
            // The model-space centre is the members' common image of r_c.
            let images: Vec<DVec3> = rs.iter().zip(&ts).map(|(r, t)| *r * expect + *t).collect();
            let mean = images.iter().copied().sum::<DVec3>() / images.len() as f64;
            assert!((DVec3::from_array(row.centre_model) - mean).length() <= tol, "set {} model centre", row.set);
            assert!((row.centre_distance * table.extent - got.length()).abs() <= 1e-9 * (1.0 + got.length()));
            checked += 1;
        }
    }
    checked
}

#[test]
fn centres_equal_the_reference_solve_on_real_models() {
    let mut checked = 0;
    for file in ["Fox.glb", "CesiumMan.glb", "RiggedFigure.glb", "Character_HumanoidRig.glb"] {
        let model = skinlab::io::load_model(&shared_models().join(file)).unwrap();
        for clip in &model.clips {
            let (a, b) = clip.range();
            for t in [0.3, 0.7] {
                let mut pose = Pose::rest();
                sample::sample_clip(clip, a + (b - a) * t, &mut pose);
                checked += check_centres(&model, &pose);
            }
        }
    }
    println!("centres checked: {checked}");
    assert!(checked > 100, "enough well-conditioned sets: {checked}");
}

/// A three-joint chain along +x over a cylinder whose every vertex is weighted to all three.
fn three_joint_chain() -> Model {
    let mut mesh = rigs::cylinder_mesh(3.0, 0.25, 13, 12);
    mesh.weights = mesh.positions.iter().map(|_| vec![(0, 0.5), (1, 0.3), (2, 0.2)]).collect();
    let joints = [
        rigs::joint("a", None, DVec3::ZERO),
        rigs::joint("b", Some(0), DVec3::new(1.0, 0.0, 0.0)),
        rigs::joint("c", Some(1), DVec3::new(1.0, 0.0, 0.0)),
    ];
    rigs::build(&joints, &mesh)
}

#[test]
fn coinciding_rotations_need_no_centre_and_distinct_ones_are_told_apart() {
    let model = three_joint_chain();
    let rest = joint_set_table(&model, &Pose::rest());
    let row = &rest[0].rows[0];
    assert_eq!(row.members, ["a", "b", "c"]);
    assert_eq!(row.vertices, model.meshes[0].primitives[0].positions.len());
    assert!(row.no_centre_needed && row.warning.is_none(), "{row:?}");
    assert_eq!(row.condition, None);
    // Turning the root alone keeps every relative rotation the identity: still no centre needed.
    let mut root_only = Pose::rest();
    rigs::rotate(&mut root_only, 0, DVec3::Y, 0.8);
    let row = &joint_set_table(&model, &root_only)[0].rows[0];
    assert!(row.no_centre_needed && row.warning.is_none(), "{row:?}");
    // b and c about one axis: the system keeps a null direction along it.
    let mut one_axis = Pose::rest();
    rigs::rotate(&mut one_axis, 1, DVec3::Z, 0.5);
    rigs::rotate(&mut one_axis, 2, DVec3::Z, 0.4);
    let row = &joint_set_table(&model, &one_axis)[0].rows[0];
    assert_eq!(row.warning, Some(SetWarning::NearSingular), "{row:?}");
    assert!(!row.no_centre_needed);
    // About two different axes: well conditioned, and the centre is the reference's.
    let mut bent = Pose::rest();
    rigs::rotate(&mut bent, 1, DVec3::Z, 0.5);
    rigs::rotate(&mut bent, 2, DVec3::Y, 0.7);
    let row = &joint_set_table(&model, &bent)[0].rows[0];
    assert_eq!(row.warning, None, "{row:?}");
    assert!(row.condition.unwrap() < 10.0, "{row:?}");
    assert!(!row.far_path);
    assert_eq!(check_centres(&model, &bent), 1);
}

#[test]
fn info_sets_prints_text_and_json() {
    let fox = shared_models().join("Fox.glb");
    let out = skinlab([OsStr::new("info"), fox.as_os_str(), OsStr::new("--sets")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("condition") && text.contains("b_Hip_01, b_LeftLeg01_015"), "{text}");
    assert!(
        text.contains("no centre needed") && !text.contains("! near-singular"),
        "the rest pose warns of nothing:\n{text}"
    );
    let args = [OsStr::new("info"), fox.as_os_str(), OsStr::new("--sets"), OsStr::new("--json")];
    let out = skinlab(args.iter().copied().chain([
        OsStr::new("--animation"),
        OsStr::new("#1"),
        OsStr::new("--time"),
        OsStr::new("0.5"),
    ]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["skins"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 26);
    assert!(rows.iter().all(|r| r["vertices"].as_u64().unwrap() > 0 && r["members"].as_array().unwrap().len() >= 2));
    assert!(rows.iter().any(|r| r["warning"].is_null() && r["condition"].as_f64().unwrap() >= 1.0));
}

#[test]
fn info_sets_bad_options_give_one_line() {
    let fox = shared_models().join("Fox.glb");
    let fox = fox.to_str().unwrap();
    assert_one_error_line(&skinlab(["info", fox, "--json"]), &["--sets"]);
    assert_one_error_line(&skinlab(["info", fox, "--animation", "#1"]), &["--sets"]);
    assert_one_error_line(&skinlab(["info", fox, "--sets", "--animation", "NoSuchClip"]), &["NoSuchClip", "Fox.glb"]);
    assert_one_error_line(&skinlab(["info", fox, "--sets", "--pose", "/nonexistent/pose.json"]), &["pose.json"]);
    assert_one_error_line(&skinlab(["info", fox, "--sets", "--time", "1"]), &["--animation"]);
}
