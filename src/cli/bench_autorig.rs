//! `skinlab bench --autorig`: automatic rigging measured. A rigged model is stripped to a plain
//! unrigged model of all its objects in the rest pose, rigged without markers and with markers
//! taken from the artist's joints; the landmark joints (shoulder, elbow, wrist, hip, knee, ankle
//! per side) are compared with the artist's as a share of the height, and all joints by the
//! joint-to-joint Chamfer distance in a unit box (CD-J2J, as the learned-rigging papers report).
//! An unrigged model is only timed (fit, then bind).

use std::fmt::Write as _;
use std::time::Instant;

use glam::DVec3;

use super::CliError;
use crate::bind::{bind_skin, BindOptions};
use crate::io::obj_import::parse_obj;
use crate::model::Model;
use crate::rig::autorig::build::{build_rig, source};
use crate::rig::autorig::{FitOptions, Markers, Plan, Template};
use crate::rig::Pose;
use crate::skinning::{Deformer, SkinningMethod};

/// Our landmark, its artist names per rig family (exact, case-insensitive), and the marker it
/// gives (if any).
const LANDMARKS: [(&str, &[&str], Option<&str>); 12] = [
    ("upperarm.L", &["arm_joint_L_1", "Skeleton_arm_joint_L__4_", "upperarm.l"], None),
    ("upperarm.R", &["arm_joint_R_1", "Skeleton_arm_joint_R", "upperarm.r"], None),
    ("forearm.L", &["arm_joint_L_2", "Skeleton_arm_joint_L__3_", "lowerarm.l"], Some("elbow.L")),
    ("forearm.R", &["arm_joint_R_2", "Skeleton_arm_joint_R__2_", "lowerarm.r"], Some("elbow.R")),
    ("hand.L", &["arm_joint_L_3", "Skeleton_arm_joint_L__2_", "wrist.l", "Fist.L"], Some("wrist.L")),
    ("hand.R", &["arm_joint_R_3", "Skeleton_arm_joint_R__3_", "wrist.r", "Fist.R"], Some("wrist.R")),
    ("thigh.L", &["leg_joint_L_1", "upperleg.l"], None),
    ("thigh.R", &["leg_joint_R_1", "upperleg.r"], None),
    ("shin.L", &["leg_joint_L_2", "lowerleg.l"], Some("knee.L")),
    ("shin.R", &["leg_joint_R_2", "lowerleg.r"], Some("knee.R")),
    ("foot.L", &["leg_joint_L_3", "foot.l"], None),
    ("foot.R", &["leg_joint_R_3", "foot.r"], None),
];
/// The artist's head joint names (the chin marker's height).
const HEADS: [&str; 3] = ["neck_joint_2", "Skeleton_neck_joint_2", "head"];

/// The model's rest pose as OBJ text (every skinned and rigid mesh, model space), the artist's
/// weighted joints (name, model-space position).
fn strip(model: &Model) -> (String, Vec<(String, DVec3)>) {
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(model, &Pose::rest(), SkinningMethod::Lbs, &mut out);
    let mut globals = Vec::new();
    crate::rig::fk::model_from_node(&model.nodes, &Pose::rest(), &mut globals);
    let mut text = String::new();
    let mut base = 1;
    // Each primitive an object named after its node (what the fit's notes call it).
    let mut object =
        |text: &mut String, name: &str, positions: &mut dyn Iterator<Item = DVec3>, triangles: &[[u32; 3]]| {
            let name: String = name.chars().map(|c| if c.is_whitespace() { '_' } else { c }).collect();
            let _ = writeln!(text, "o {name}");
            let mut n = 0;
            for p in positions {
                let _ = writeln!(text, "v {} {} {}", p.x, p.y, p.z);
                n += 1;
            }
            for t in triangles {
                let _ = writeln!(text, "f {} {} {}", t[0] as usize + base, t[1] as usize + base, t[2] as usize + base);
            }
            base += n;
        };
    for (inst, prims) in model.instances.iter().zip(&out) {
        for (prim, deformed) in model.meshes[inst.mesh].primitives.iter().zip(prims) {
            let name = model.nodes.key(inst.node);
            object(&mut text, &name, &mut deformed.positions.iter().map(|p| p.as_dvec3()), &prim.triangles);
        }
    }
    for &(node, mesh) in &model.rigid_instances {
        let g = globals[node];
        for prim in &model.meshes[mesh].primitives {
            let name = model.nodes.key(node);
            object(
                &mut text,
                &name,
                &mut prim.positions.iter().map(|p| g.transform_point3(p.as_dvec3())),
                &prim.triangles,
            );
        }
    }
    let mut weighted = vec![false; model.nodes.len()];
    for inst in &model.instances {
        let skin = &model.skins[inst.skin];
        for prim in &model.meshes[inst.mesh].primitives {
            let Some(inf) = &prim.influences else { continue };
            for v in 0..prim.positions.len() {
                for (j, w) in inf.vertex(v, &skin.sets) {
                    if let Some(&n) = skin.joints.get(usize::from(j)).filter(|_| w > 0.0) {
                        weighted[n] = true;
                    }
                }
            }
        }
    }
    let joints = (0..model.nodes.len())
        .filter(|&n| weighted[n])
        .map(|n| (model.nodes.key(n), globals[n].transform_point3(DVec3::ZERO)))
        .collect();
    (text, joints)
}

fn find<'a>(joints: &'a [(String, DVec3)], names: &[&str]) -> Option<&'a DVec3> {
    joints.iter().find(|(k, _)| names.iter().any(|n| n.eq_ignore_ascii_case(k.trim_matches('"')))).map(|j| &j.1)
}

/// Symmetric joint-to-joint Chamfer distance, both sets scaled by `box_size`.
fn cd_j2j(a: &[DVec3], b: &[DVec3], box_size: f64) -> f64 {
    let one = |x: &[DVec3], y: &[DVec3]| {
        x.iter().map(|p| y.iter().map(|q| (*p - *q).length()).fold(f64::INFINITY, f64::min)).sum::<f64>()
            / x.len().max(1) as f64
    };
    0.5 * (one(a, b) + one(b, a)) / box_size
}

/// One fit measured: mean and worst landmark error (share of the height, with the worst's name)
/// and CD-J2J; or the fit's error.
fn measure(
    plan: &Plan,
    artist: &[(String, DVec3)],
    ours_of: &dyn Fn(&str) -> Option<DVec3>,
    height: f64,
    box_size: f64,
) -> String {
    let mut errors: Vec<(f64, &str)> = Vec::new();
    for (name, names, _) in LANDMARKS {
        if let (Some(got), Some(want)) =
            (plan.joint(name).map(|j| j.head), ours_of(name).or_else(|| find(artist, names).copied()))
        {
            errors.push(((got - want).length() / height, name));
        }
    }
    let ours: Vec<DVec3> = plan.joints.iter().map(|j| j.head).collect();
    let theirs: Vec<DVec3> = artist.iter().map(|j| j.1).collect();
    let cd = cd_j2j(&ours, &theirs, box_size);
    if errors.is_empty() {
        return format!("CD-J2J {cd:.3}");
    }
    let mean = errors.iter().map(|e| e.0).sum::<f64>() / errors.len() as f64;
    let worst = errors.iter().copied().fold((0.0, ""), |a, b| if b.0 > a.0 { b } else { a });
    let each: Vec<String> = errors.iter().map(|(e, n)| format!("{n} {:.1}", e * 100.0)).collect();
    let at = |p: DVec3| format!("({:.3}, {:.3}, {:.3})", p.x, p.y, p.z);
    let positions: Vec<String> = LANDMARKS
        .iter()
        .filter_map(|(name, names, _)| {
            let got = plan.joint(name)?.head;
            let want = ours_of(name).or_else(|| find(artist, names).copied())?;
            Some(format!("{name} {} artist {}", at(got), at(want)))
        })
        .collect();
    let notes: String = plan.notes.iter().map(|n| format!("\n    note: {n}")).collect();
    format!(
        "landmarks mean {:.1} %, worst {:.1} % ({}), CD-J2J {cd:.3}\n    per landmark (%): {}\n    joints: {}{notes}",
        mean * 100.0,
        worst.0 * 100.0,
        worst.1,
        each.join(", "),
        positions.join("; ")
    )
}

/// Measures automatic rigging on `model` (see the module docs).
pub fn report(model: &Model, title: &str, template: Template) -> Result<(), CliError> {
    if model.skins.is_empty() {
        return time_unrigged(model, title, template);
    }
    let (text, mut artist) = strip(model);
    let plain = parse_obj(text.as_bytes(), Some("stripped")).map_err(|e| format!("{title}: {e}"))?;
    let mut src = source(&plain).map_err(|e| format!("{title}: {e}"))?;
    // A character facing −Z is turned 180° about Y first, as the fit's refusal asks.
    let options = FitOptions { template, ..FitOptions::default() };
    let mut turned = false;
    if let Err(crate::rig::autorig::AutorigError::NotUpright(why)) = src.fit(&options) {
        if why.contains("face −Z") {
            let turn = |p: &mut DVec3| *p = DVec3::new(-p.x, p.y, -p.z);
            src.positions.iter_mut().for_each(turn);
            artist.iter_mut().for_each(|j| turn(&mut j.1));
            turned = true;
            crate::outln!("{title}: faces −Z, turned 180° about Y");
        }
    }
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in &src.positions {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let height = hi.y - lo.y;
    let box_size = (hi - lo).max_element();
    // Our .L is the character's left (+X); pair the artist's sides by where they are.
    let centre = 0.5 * (lo.x + hi.x);
    let swapped = find(&artist, LANDMARKS[0].1).is_some_and(|p| p.x < centre);
    let ours_of = |name: &str| {
        let name = if swapped {
            crate::rig::symmetry::mirror_name(name).unwrap_or_else(|| name.to_owned())
        } else {
            name.to_owned()
        };
        LANDMARKS.iter().find(|l| l.0 == name).and_then(|l| find(&artist, l.1).copied())
    };
    crate::outln!("{title}: {} vertices, {} artist joints, height {height:.3}", src.positions.len(), artist.len());
    let t0 = Instant::now();
    let plain_fit = src.fit(&FitOptions { template, ..FitOptions::default() });
    let fit_secs = t0.elapsed().as_secs_f64();
    match &plain_fit {
        Ok(plan) => {
            crate::outln!("  no markers: {} ({fit_secs:.2} s)", measure(plan, &artist, &ours_of, height, box_size))
        }
        Err(e) => crate::outln!("  no markers: failed: {e}"),
    }
    if template == Template::Humanoid {
        let mut markers = Markers::default();
        let depth = DVec3::Z * (0.3 * height);
        for (name, _, marker) in LANDMARKS {
            if let (Some(marker), Some(p)) = (marker, ours_of(name)) {
                let marker = crate::rig::autorig::MARKER_NAMES.iter().find(|m| **m == marker).copied();
                if let Some(m) = marker {
                    let _ = markers.set(m, p + depth);
                }
            }
        }
        if let Some(head) = find(&artist, &HEADS) {
            let _ = markers.set("chin", *head + depth);
        }
        if let (Some(a), Some(b)) = (ours_of("thigh.L"), ours_of("thigh.R")) {
            let groin = 0.5 * (a + b) - DVec3::Y * (crate::rig::autorig::HIP_ABOVE_CROTCH * height);
            let _ = markers.set("groin", groin + depth);
        }
        match src.fit(&FitOptions { markers, ..FitOptions::default() }) {
            Ok(plan) => crate::outln!("  markers:    {}", measure(&plan, &artist, &ours_of, height, box_size)),
            Err(e) => crate::outln!("  markers:    failed: {e}"),
        }
    }
    if let Ok(plan) = plain_fit {
        let mut rigged = plain;
        let t0 = Instant::now();
        // The bind runs on the stripped model as the fit saw it (turned when it was).
        if turned {
            for p in rigged.meshes.iter_mut().flat_map(|m| m.primitives.iter_mut()).flat_map(|p| p.positions.iter_mut())
            {
                *p = glam::Vec3::new(-p.x, p.y, -p.z);
            }
        }
        build_rig(&mut rigged, &plan, &src.mesh_nodes).map_err(|e| format!("{title}: {e}"))?;
        let result = bind_skin(&rigged, 0, &BindOptions { rigid_parts: true, ..BindOptions::default() }, &mut |_| {})?;
        crate::outln!(
            "  bind: {} meshes, {} vertices in {:.2} s",
            result.stats.meshes,
            result.stats.vertices,
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Times fit and bind of an unrigged model.
fn time_unrigged(model: &Model, title: &str, template: Template) -> Result<(), CliError> {
    let t0 = Instant::now();
    let src = source(model).map_err(|e| format!("{title}: {e}"))?;
    let plan = src.fit(&FitOptions { template, ..FitOptions::default() }).map_err(|e| format!("{title}: {e}"))?;
    let fit_secs = t0.elapsed().as_secs_f64();
    let mut rigged = model.clone();
    build_rig(&mut rigged, &plan, &src.mesh_nodes).map_err(|e| format!("{title}: {e}"))?;
    let result = bind_skin(&rigged, 0, &BindOptions { rigid_parts: true, ..BindOptions::default() }, &mut |_| {})?;
    crate::outln!(
        "{title}: {} vertices, {} meshes: fit {fit_secs:.2} s, fit and bind {:.2} s",
        result.stats.vertices,
        result.stats.meshes,
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
