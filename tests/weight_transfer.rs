//! Weight transfer (`paint::transfer`, `skinlab weights transfer`): a model onto itself reproduces
//! its weights; onto a densified copy the LBS deformation distance stays below 1e-3 of the
//! diagonal; what lies too far is inpainted and unmatched joints are reported; the command line
//! transfers and fails in one line.

#![allow(clippy::unwrap_used)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;

use common::rigs;
use glam::{DVec3, Vec3};
use skinlab::model::influences::VertexInfluences;
use skinlab::model::StrokeRecord;
use skinlab::model::{Influences, Model};
use skinlab::paint::transfer::{apply_transfer, plan_transfer, TransferOptions};
use skinlab::paint::{apply_table_op, weld_groups, ModelSurface, TableOp, WeightRules, WeldSource};

/// A copy of `m` with every triangle split in four at its edge midpoints; a midpoint's weights
/// are the mean of its edge's ends, held to `limit` influences.
fn densified(m: &Model, limit: usize) -> Model {
    let mut out = m.clone();
    let Model { meshes, skins, instances, .. } = &mut out;
    for inst in instances.iter() {
        let mesh = &mut meshes[inst.mesh];
        let table = &mut skins[inst.skin].sets;
        for prim in &mut mesh.primitives {
            let Some(inf) = prim.influences.clone() else { continue };
            let weights: Vec<Vec<(u16, f32)>> = (0..inf.len()).map(|v| inf.vertex(v, table).collect()).collect();
            let mut raw: Vec<VertexInfluences> =
                weights.iter().map(|w| VertexInfluences { pairs: w.clone() }).collect();
            let mut edges = std::collections::HashMap::new();
            let mut tris = Vec::new();
            for t in prim.triangles.clone() {
                let mut mid = [0u32; 3];
                for k in 0..3 {
                    let (a, b) = (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]));
                    mid[k] = *edges.entry((a, b)).or_insert_with(|| {
                        let p = (prim.positions[a as usize] + prim.positions[b as usize]) * 0.5;
                        prim.positions.push(p);
                        let mut w: Vec<(u16, f32)> = Vec::new();
                        for &(j, x) in weights[a as usize].iter().chain(&weights[b as usize]) {
                            match w.iter_mut().find(|q| q.0 == j) {
                                Some(q) => q.1 += 0.5 * x,
                                None => w.push((j, 0.5 * x)),
                            }
                        }
                        w.sort_by(|p, q| q.1.total_cmp(&p.1));
                        w.truncate(limit);
                        let s: f32 = w.iter().map(|q| q.1).sum();
                        w.iter_mut().for_each(|q| q.1 /= s);
                        raw.push(VertexInfluences { pairs: w });
                        (prim.positions.len() - 1) as u32
                    });
                }
                tris.push([t[0], mid[0], mid[2]]);
                tris.push([t[1], mid[1], mid[0]]);
                tris.push([t[2], mid[2], mid[1]]);
                tris.push(mid);
            }
            prim.triangles = tris;
            prim.normals = None;
            prim.influences = Some(Influences::from_vertices(&raw, table).unwrap());
        }
    }
    out
}

/// Every vertex's weights at rest, sorted by joint.
fn all_weights(m: &Model) -> Vec<Vec<(u16, f32)>> {
    let s = ModelSurface::new(m);
    (0..s.len() as u32)
        .map(|g| {
            let mut w = s.weights(m, g);
            w.sort_by_key(|p| p.0);
            w
        })
        .collect()
}

#[test]
fn transfer_onto_itself_reproduces_the_weights() {
    for name in ["CesiumMan.glb", "Fox.glb", "Knight.glb", "Character_HumanoidRig.glb", "Stegosaurus.glb"] {
        let Some(mut m) = common::shared_model(name) else { continue };
        let ms = ModelSurface::new(&m);
        weld_groups(&mut m, &ms, WeldSource::Mean, &WeightRules::default(), &mut StrokeRecord::new("weld")).unwrap();
        let source = m.clone();
        let rules = WeightRules::default();
        let plan = plan_transfer(&source, &ms, &m, &ms, &rules, &TransferOptions::default()).unwrap();
        let mut rec = StrokeRecord::new("transfer");
        let report = apply_transfer(&mut m, &ms, &rules, &plan, &mut rec).unwrap();
        eprintln!("{name}: {}", report.summary());
        assert!(report.unmatched_joints.is_empty(), "{name}");
        let (a, b) = (all_weights(&source), all_weights(&m));
        let mut worst = 0.0f32;
        for (g, (x, y)) in a.iter().zip(&b).enumerate() {
            if x.is_empty() {
                continue;
            }
            assert_eq!(
                x.iter().map(|p| p.0).collect::<Vec<_>>(),
                y.iter().map(|p| p.0).collect::<Vec<_>>(),
                "{name} {g}"
            );
            for (p, q) in x.iter().zip(y) {
                worst = worst.max((p.1 - q.1).abs());
            }
        }
        eprintln!("{name}: largest weight change {worst:.2e}");
        assert!(worst < 1e-5, "{name}: {worst}");
        assert_eq!(report.inpainted, 0, "{name}: every vertex lies on its own surface");
    }
}

#[test]
fn transfer_onto_a_densified_copy_deforms_alike() {
    for name in ["CesiumMan.glb", "Fox.glb", "Stegosaurus.glb"] {
        let Some(mut m) = common::shared_model(name) else { continue };
        // Stegosaurus ships weld groups whose copies disagree: the closest point of either copy is
        // as right as the other, so weld them first.
        let ms = ModelSurface::new(&m);
        weld_groups(&mut m, &ms, WeldSource::Mean, &WeightRules::default(), &mut StrokeRecord::new("weld")).unwrap();
        let reference = densified(&m, 4);
        // The target starts with every vertex on one joint.
        let mut target = reference.clone();
        let ts = ModelSurface::new(&target);
        let all: Vec<u32> = (0..ts.len() as u32).collect();
        let root = ts.joint_nodes().len() as u16 - 1;
        apply_table_op(
            &mut target,
            &ts,
            &WeightRules::default(),
            &all,
            &TableOp::Paste(vec![(root, 1.0)]),
            &mut StrokeRecord::new("x"),
        )
        .unwrap();
        let ss = ModelSurface::new(&m);
        let plan = plan_transfer(&m, &ss, &target, &ts, &WeightRules::default(), &TransferOptions::default()).unwrap();
        let report =
            apply_transfer(&mut target, &ts, &WeightRules::default(), &plan, &mut StrokeRecord::new("t")).unwrap();
        let poses = skinlab::analysis::poses::random_poses(&reference, 5, 1, 45f64.to_radians());
        let d = skinlab::analysis::deformation::deformation_distance(&reference, &target, &poses);
        eprintln!(
            "{name} densified: {}; deformation distance max {:.2e}, mean {:.2e} of the diagonal",
            report.summary(),
            d.max,
            d.mean
        );
        assert!(d.max < 1e-3, "{name}: {}", d.max);
    }
}

#[test]
fn transfer_inpaints_what_lies_too_far_and_reports_unmatched_joints() {
    // The source: a two-bone cylinder; the target: the same cylinder, its far half pushed out of
    // reach, its joints renamed except the root.
    let source = rigs::two_bone_cylinder(21, 12);
    let mut target = source.clone();
    for p in &mut target.meshes[0].primitives[0].positions {
        if p.x > 1.5 {
            let r = Vec3::new(0.0, p.y, p.z);
            *p += r.normalize_or_zero() * 0.5;
        }
    }
    target.nodes.nodes[1].name = Some("elsewhere".into());
    let (ss, ts) = (ModelSurface::new(&source), ModelSurface::new(&target));
    let plan = plan_transfer(&source, &ss, &target, &ts, &WeightRules::default(), &TransferOptions::default()).unwrap();
    let r = &plan.report;
    assert_eq!(r.matched_by_position, 1, "the renamed joint sits where the source's does");
    assert!(r.unmatched_joints.is_empty());
    assert!(r.inpainted > 0 && r.matched > 0 && r.unreached == 0, "{r:?}");
    assert_eq!(r.matched + r.inpainted, ts.len(), "{r:?}");
    let mut m = target.clone();
    let out = apply_transfer(&mut m, &ts, &WeightRules::default(), &plan, &mut StrokeRecord::new("t")).unwrap();
    assert_eq!(out.inpainted, r.inpainted);
    // The inpainted far end keeps the child joint dominant (harmonic from the matched ring).
    let far = (0..ts.len() as u32).filter(|&g| ts.rest_positions()[g as usize].x > 1.9).collect::<Vec<_>>();
    for g in far {
        let w = ts.weights(&m, g);
        let child = w.iter().find(|p| p.0 == 1).map_or(0.0, |p| p.1);
        assert!(child > 0.9, "{g}: {w:?}");
    }
    // A source joint the target lacks entirely is reported.
    let mut lacking = source.clone();
    lacking.nodes.nodes[1].name = Some("tip".into());
    let shifted: Vec<_> =
        lacking.skins[0].joint_from_bind.iter().map(|m| *m * glam::DMat4::from_translation(DVec3::Y)).collect();
    lacking.skins[0].joint_from_bind[1] = shifted[1];
    let ls = ModelSurface::new(&lacking);
    let plan =
        plan_transfer(&lacking, &ls, &target, &ts, &WeightRules::default(), &TransferOptions::default()).unwrap();
    assert_eq!(plan.report.unmatched_joints, vec!["tip".to_string()]);
}

#[test]
fn the_cli_transfers_weights_and_fails_in_one_line() {
    let models = common::shared_models();
    let (cesium, fox) = (models.join("CesiumMan.glb"), models.join("Fox.glb"));
    if !cesium.exists() || !fox.exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.json");
    let run = cli_run::skinlab([
        "weights".as_ref(),
        "transfer".as_ref(),
        cesium.as_os_str(),
        cesium.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("matched by closest point, 0 inpainted"), "{stdout}");
    // The file applies to the model (and changes next to nothing: the same weights).
    let mut m = common::shared_model("CesiumMan.glb").unwrap();
    let before = all_weights(&m);
    skinlab::io::apply_weights_file(&out, &mut m).unwrap();
    for (a, b) in before.iter().zip(all_weights(&m)) {
        assert!(a.iter().zip(&b).all(|(p, q)| p.0 == q.0 && (p.1 - q.1).abs() < 1e-5));
    }
    let fail = |args: &[&std::ffi::OsStr], needles: &[&str]| {
        let o = cli_run::skinlab(args);
        cli_run::assert_one_error_line(&o, needles);
    };
    let missing = dir.path().join("missing.glb");
    let o = out.as_os_str();
    let (t, w, flag) = ("transfer".as_ref(), "weights".as_ref(), "--out".as_ref());
    fail(&[w, t, missing.as_os_str(), cesium.as_os_str(), flag, o], &["missing.glb"]);
    fail(&[w, t, fox.as_os_str(), cesium.as_os_str(), flag, o], &["CesiumMan.glb", "no joint"]);
    fail(
        &[w, t, cesium.as_os_str(), cesium.as_os_str(), flag, o, "--max-angle".as_ref(), "200".as_ref()],
        &["--max-angle"],
    );
    fail(
        &[w, t, cesium.as_os_str(), cesium.as_os_str(), flag, o, "--target-skin".as_ref(), "3".as_ref()],
        &["--target-skin", "1 skins"],
    );
    let nowhere = dir.path().join("no/such/dir/w.json");
    fail(&[w, t, cesium.as_os_str(), cesium.as_os_str(), flag, nowhere.as_os_str()], &["w.json"]);
}
