//! Automatic rigging (`rig::autorig`) on synthetic characters with known joints: the humanoid from
//! its shape alone and from markers, as one object and as several; holding a sword and a shield
//! (set aside, named, bound to the hands); with a cape behind it; every object skinned after the
//! bind; a quadruped; a free chain; refusals that name the limb or the stance (a sword raised in
//! both hands).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/capsule_people.rs"]
mod capsule_people;
#[path = "common/capsules.rs"]
mod capsules;

use capsule_people::{humanoid_landmarks, humanoid_obj, HEIGHT};
use glam::DVec3;
use skinlab::bind::{bind_skin, BindOptions};
use skinlab::io::obj_import::parse_obj;
use skinlab::rig::autorig::build::{build_rig, source};
use skinlab::rig::autorig::chain::fit_chain;
use skinlab::rig::autorig::{fit, FitOptions, Markers, Plan, Template};

fn fit_obj(text: &str, options: &FitOptions) -> Result<Plan, String> {
    let model = parse_obj(text.as_bytes(), Some("test")).unwrap();
    let src = source(&model).unwrap();
    src.fit(options).map_err(|e| e.to_string())
}

/// The worst landmark error as a share of the height, printing each.
fn worst_error(plan: &Plan) -> f64 {
    let mut worst = 0.0_f64;
    for (name, truth) in humanoid_landmarks() {
        let got = plan.joint(&name).unwrap_or_else(|| panic!("no joint {name}")).head;
        let e = (got - truth).length() / HEIGHT;
        println!(
            "{name:12} {:6.2} %  got ({:.3}, {:.3}, {:.3}) want ({:.3}, {:.3}, {:.3})",
            e * 100.0,
            got.x,
            got.y,
            got.z,
            truth.x,
            truth.y,
            truth.z
        );
        worst = worst.max(e);
    }
    worst
}

#[test]
fn the_capsule_humanoid_is_fitted_from_its_shape_alone() {
    for split in [false, true] {
        let plan = fit_obj(&humanoid_obj(split), &FitOptions::default()).unwrap();
        let worst = worst_error(&plan);
        assert!(worst <= 0.02, "split {split}: worst landmark {:.2} % of the height", worst * 100.0);
    }
}

/// Markers from the known joints, each anywhere on its front-view ray (here 0.4 in front).
fn markers_from_truth() -> Markers {
    let truth: std::collections::HashMap<String, DVec3> = humanoid_landmarks().into_iter().collect();
    let ray = DVec3::new(0.0, 0.0, 0.4);
    let mut m = Markers::default();
    for (marker, joint) in [("chin", "head"), ("wrist.L", "hand.L"), ("elbow.L", "forearm.L"), ("knee.L", "shin.L")] {
        m.set(marker, truth[joint] + ray).unwrap();
    }
    // The right side comes mirrored; the groin sits at the crotch, below the hip sockets.
    let groin = truth["hips"] - DVec3::Y * (skinlab::rig::autorig::HIP_ABOVE_CROTCH * HEIGHT) - ray;
    m.set("groin", groin).unwrap();
    m
}

#[test]
fn markers_pin_the_joints_they_name_and_every_object_binds() {
    for split in [false, true] {
        let options = FitOptions { markers: markers_from_truth(), ..FitOptions::default() };
        let plan = fit_obj(&humanoid_obj(split), &options).unwrap();
        let worst = worst_error(&plan);
        assert!(worst <= 0.005, "split {split}: worst landmark {:.2} % of the height", worst * 100.0);
        // Built and bound: every object is skinned, every vertex weighted.
        let mut model = parse_obj(humanoid_obj(split).as_bytes(), Some("test")).unwrap();
        let src = source(&model).unwrap();
        let record = build_rig(&mut model, &plan, &src.mesh_nodes).unwrap();
        assert_eq!(model.instances.len(), if split { 6 } else { 1 });
        assert!(model.rigid_instances.is_empty());
        let result = bind_skin(&model, 0, &BindOptions::default(), &mut |_| {}).unwrap();
        assert_eq!(result.stats.meshes, model.instances.len());
        assert_eq!(result.stats.changed_vertices, src.positions.len());
        // One record undoes the whole build.
        let before = parse_obj(humanoid_obj(split).as_bytes(), Some("test")).unwrap();
        record.undo(&mut model);
        assert_eq!(format!("{:?}", model.nodes), format!("{:?}", before.nodes));
        assert!(model.skins.is_empty());
    }
}

#[test]
fn a_quadruped_gets_four_legs_a_head_and_a_tail() {
    let (caps, tops) = capsule_people::quadruped_capsules();
    let text = capsules::obj_text(&caps, &["animal"], 16);
    let plan = fit_obj(&text, &FitOptions { template: Template::Quadruped, ..FitOptions::default() }).unwrap();
    for (name, top) in ["upperarm.L", "upperarm.R", "thigh.L", "thigh.R"].iter().zip(tops) {
        let j = plan.joint(name).unwrap().head;
        let flat = |p: DVec3| DVec3::new(p.x, 0.0, p.z);
        assert!((flat(j) - flat(top)).length() < 0.06, "{name} at {j}, leg top {top}");
        assert!(j.y > 0.7 && j.y < 1.2, "{name} at {j}");
    }
    let head = plan.joint("head").unwrap().head;
    assert!(head.z > 0.8 && head.y > 1.2, "head at {head}");
    let tail: Vec<DVec3> = plan.joints.iter().filter(|j| j.name.starts_with("tail.")).map(|j| j.head).collect();
    assert_eq!(tail.len(), 4);
    assert!(tail.windows(2).all(|w| w[1].z < w[0].z) && tail[0].z < -0.6, "{tail:?}");
}

#[test]
fn a_free_chain_follows_a_bent_tube() {
    let text = capsules::obj_text(&capsule_people::bent_tube(), &["tube"], 12);
    let model = parse_obj(text.as_bytes(), Some("tube")).unwrap();
    let src = source(&model).unwrap();
    let plan = fit_chain(&src.positions, &src.triangles, DVec3::X, DVec3::Y, 5, "tentacle").unwrap();
    assert_eq!(plan.joints.len(), 5);
    for j in &plan.joints {
        assert!((j.head.length() - 1.0).abs() < 0.03 && j.head.z.abs() < 0.03, "{} at {}", j.name, j.head);
    }
    // Even spacing along the arc: each bone about a fifth of the quarter circle.
    let arc = std::f64::consts::FRAC_PI_2 / 5.0;
    for j in &plan.joints {
        assert!(((j.tail - j.head).length() - arc).abs() < 0.05, "{}", j.name);
    }
}

#[test]
fn stances_the_fit_cannot_use_are_refused_by_name() {
    let turn = |text: &str, f: &dyn Fn(f64, f64, f64) -> (f64, f64, f64)| -> String {
        text.lines()
            .map(|l| match l.strip_prefix("v ") {
                Some(rest) => {
                    let v: Vec<f64> = rest.split_whitespace().map(|t| t.parse().unwrap()).collect();
                    let (x, y, z) = f(v[0], v[1], v[2]);
                    format!("v {x} {y} {z}\n")
                }
                None => format!("{l}\n"),
            })
            .collect()
    };
    let text = humanoid_obj(false);
    let z_up = fit_obj(&turn(&text, &|x, y, z| (x, -z, y)), &FitOptions::default()).unwrap_err();
    assert!(z_up.contains("Z-up"), "{z_up}");
    let sideways = fit_obj(&turn(&text, &|x, y, z| (z, y, -x)), &FitOptions::default()).unwrap_err();
    assert!(sideways.contains("face ±X"), "{sideways}");
    let back = fit_obj(&turn(&text, &|x, y, z| (-x, y, -z)), &FitOptions::default()).unwrap_err();
    assert!(back.contains("face −Z"), "{back}");
    // Arms down at the sides: no arm reaches out.
    let (mut caps, names) = capsule_people::humanoid_capsules(false);
    caps.retain(|c| c.a.y < 1.3 || c.a.x.abs() < 0.09);
    let armless = fit_obj(&capsules::obj_text(&caps, &names, 12), &FitOptions::default()).unwrap_err();
    assert!(armless.contains("could not find the left arm"), "{armless}");
}

/// How the child joint of `joint` moves under a positive Bend A of 0.3 rad (rest pose).
fn bend_a_moves_child(model: &skinlab::model::Model, joint: usize) -> DVec3 {
    let mut globals = Vec::new();
    skinlab::rig::fk::model_from_node(&model.nodes, &skinlab::rig::Pose::rest(), &mut globals);
    let child = model.nodes.nodes[joint].children[0];
    let c = globals[child].transform_point3(DVec3::ZERO);
    let g = globals[joint];
    let axes = skinlab::rig::twist_bend::BendAxes::new(g.inverse().transform_point3(c));
    let turned = g * glam::DMat4::from_axis_angle(axes.a, 0.3) * g.inverse();
    turned.transform_point3(c) - c
}

fn check_flexion(model: &skinlab::model::Model, when: &str) {
    for (name, forward) in [("forearm.L", true), ("forearm.R", true), ("shin.L", false), ("shin.R", false)] {
        let node = model.nodes.find(name).unwrap();
        let moved = bend_a_moves_child(model, node);
        let along = if forward { moved.z } else { -moved.z };
        assert!(along > 0.9 * moved.length() && along > 0.01, "{when}: {name} moves {moved}");
    }
}

#[test]
fn a_positive_bend_a_flexes_every_elbow_and_knee_the_natural_way() {
    use skinlab::rig::skeleton_edit::{orient_joint, symmetrize};
    let mut model = parse_obj(humanoid_obj(false).as_bytes(), Some("test")).unwrap();
    let src = source(&model).unwrap();
    let plan = fit(&src.positions, &src.triangles, &FitOptions::default()).unwrap();
    build_rig(&mut model, &plan, &src.mesh_nodes).unwrap();
    check_flexion(&model, "template");
    for limb in ["upperarm.L", "thigh.L"] {
        let node = model.nodes.find(limb).unwrap();
        symmetrize(&mut model, node).unwrap();
    }
    check_flexion(&model, "after Symmetrize");
    for name in ["forearm.L", "forearm.R", "shin.L", "shin.R"] {
        let node = model.nodes.find(name).unwrap();
        orient_joint(&mut model, node).unwrap();
    }
    check_flexion(&model, "after Orient to child");
}

/// The worst error over the chibi's landmarks (both sides) as a share of its height.
fn chibi_worst(plan: &Plan, joints: &[(&str, DVec3)]) -> f64 {
    let mut worst = 0.0_f64;
    for (name, p) in joints {
        for (name, truth) in [(name.to_string(), *p), (name.replace(".L", ".R"), DVec3::new(-p.x, p.y, p.z))] {
            let got = plan.joint(&name).unwrap_or_else(|| panic!("no joint {name}")).head;
            let e = (got - truth).length() / 0.99;
            println!("{name:12} {:6.2} %  got {got:.3} want {truth:.3}", e * 100.0);
            worst = worst.max(e);
        }
    }
    worst
}

#[test]
fn a_chibi_with_touching_legs_and_a_big_head_is_fitted_with_and_without_markers() {
    let (text, joints) = capsule_people::chibi();
    let plan = fit_obj(&text, &FitOptions::default()).unwrap();
    let worst = chibi_worst(&plan, &joints);
    assert!(worst <= 0.02, "no markers: worst landmark {:.2} % of the height", worst * 100.0);
    // Markers anywhere on their front-view rays pin the joints they name.
    let truth: std::collections::HashMap<&str, DVec3> = joints.iter().copied().collect();
    let ray = DVec3::new(0.0, 0.0, 0.3);
    let mut m = Markers::default();
    for (marker, joint) in [("wrist.L", "hand.L"), ("elbow.L", "forearm.L"), ("knee.L", "shin.L")] {
        m.set(marker, truth[joint] + ray).unwrap();
    }
    m.set("chin", DVec3::new(0.0, 0.5, 0.3)).unwrap();
    let hip = truth["thigh.L"];
    m.set("groin", DVec3::new(0.0, hip.y - skinlab::rig::autorig::HIP_ABOVE_CROTCH * 0.99, -0.3)).unwrap();
    let plan = fit_obj(&text, &FitOptions { markers: m, ..FitOptions::default() }).unwrap();
    let worst = chibi_worst(&plan, &joints);
    assert!(worst <= 0.01, "markers: worst landmark {:.2} % of the height", worst * 100.0);
}

/// The dominant joint's name of each vertex of mesh node `node_name` after the bind.
fn dominant_joints(model: &skinlab::model::Model, node_name: &str) -> Vec<String> {
    let node = model.nodes.find(node_name).unwrap();
    let inst = model.instances.iter().find(|i| i.node == node).unwrap();
    let skin = &model.skins[inst.skin];
    let mut out = Vec::new();
    for prim in &model.meshes[inst.mesh].primitives {
        let inf = prim.influences.as_ref().unwrap();
        for v in 0..prim.positions.len() {
            let (j, _) = inf.vertex(v, &skin.sets).fold((0, -1.0), |a, b| if b.1 > a.1 { b } else { a });
            out.push(model.nodes.key(skin.joints[usize::from(j)]));
        }
    }
    out
}

#[test]
fn props_held_in_the_hands_are_set_aside_named_and_bound_with_the_hands() {
    for separate in [true, false] {
        let (text, _, _) = capsule_people::humanoid_with_props(separate);
        let plan = fit_obj(&text, &FitOptions::default()).unwrap_or_else(|e| panic!("separate {separate}: {e}"));
        let worst = worst_error(&plan);
        assert!(worst <= 0.02, "separate {separate}: worst landmark {:.2} % of the height", worst * 100.0);
        let note = plan.notes.iter().find(|n| n.starts_with("set aside: ")).expect("a note naming the props");
        if separate {
            assert!(note.contains("sword") && note.contains("shield"), "{note}");
        } else {
            assert_eq!(note.matches("body (piece").count(), 2, "{note}");
        }
        // Built and bound: every vertex weighted, the props on their hands.
        let mut model = parse_obj(text.as_bytes(), Some("test")).unwrap();
        let src = source(&model).unwrap();
        build_rig(&mut model, &plan, &src.mesh_nodes).unwrap();
        let result =
            bind_skin(&model, 0, &BindOptions { rigid_parts: true, ..BindOptions::default() }, &mut |_| {}).unwrap();
        assert_eq!(result.stats.changed_vertices, src.positions.len(), "separate {separate}");
        if separate {
            result.apply(&mut model).unwrap();
            for (prop, hand) in [("sword", "hand.L"), ("shield", "hand.R")] {
                let joints = dominant_joints(&model, prop);
                let on_hand = joints.iter().filter(|j| *j == hand).count();
                assert!(on_hand * 10 >= joints.len() * 9, "{prop}: {on_hand} of {} vertices on {hand}", joints.len());
            }
        }
    }
}

#[test]
fn a_sword_raised_in_both_hands_is_refused_in_one_line() {
    // Both arms up beside the head, the hands together above it, holding a sword upright.
    let (caps, _) = capsule_people::humanoid_capsules(false);
    let mut caps: Vec<capsules::Capsule> = caps.into_iter().filter(|c| c.a.y < 1.3 || c.a.x.abs() < 0.09).collect();
    let c = |a: [f64; 3], b: [f64; 3], radius: f64| capsules::Capsule { a: a.into(), b: b.into(), radius, object: 0 };
    for side in [1.0, -1.0] {
        caps.push(c([side * 0.1, 1.42, 0.0], [side * 0.2, 1.75, 0.0], 0.045));
        caps.push(c([side * 0.2, 1.75, 0.0], [side * 0.04, 1.95, 0.0], 0.04));
    }
    caps.push(c([0.0, 1.9, 0.0], [0.0, 2.6, 0.0], 0.02));
    let why = fit_obj(&capsules::obj_text(&caps, &["raised"], 12), &FitOptions::default()).unwrap_err();
    assert!(!why.contains('\n') && why.contains("could not find the left arm"), "{why}");
}

#[test]
fn a_cape_behind_the_body_does_not_push_the_shoulders_out() {
    // A sheet hanging behind the torso, wider than it, up to the arms: in the front view it
    // would make the torso look as wide as the cape.
    let mut text = humanoid_obj(false);
    let base = text.lines().filter(|l| l.starts_with("v ")).count() + 1;
    text += "o cape\n";
    for (x, y) in [(-0.3, 0.95), (0.3, 0.95), (0.3, 1.45), (-0.3, 1.45)] {
        text += &format!("v {x} {y} -0.17\n");
    }
    text += &format!("f {} {} {}\nf {} {} {}\n", base, base + 1, base + 2, base, base + 2, base + 3);
    let plan = fit_obj(&text, &FitOptions::default()).unwrap();
    let worst = worst_error(&plan);
    assert!(worst <= 0.02, "worst landmark {:.2} % of the height", worst * 100.0);
}
