//! Synthetic characters from capsules with known joints: a humanoid in a T-pose (Y up, facing
//! +Z), a quadruped and a bent tube, as OBJ text with one object or several.
#![allow(dead_code)]

use glam::DVec3;

use super::capsules::{obj_text, Capsule};

/// Height of the humanoid (floor at 0).
pub const HEIGHT: f64 = 1.8;

/// The humanoid's known landmark joints (the left side; the right is mirrored in x).
pub fn humanoid_joints() -> Vec<(&'static str, DVec3)> {
    let h = HEIGHT;
    let hip = DVec3::new(0.09, 0.85 + skinlab::rig::autorig::HIP_ABOVE_CROTCH * h, 0.0);
    let ankle = DVec3::new(0.09, 0.045 * h, 0.0);
    let knee = ankle.lerp(hip, 0.5);
    // The shoulder lies inside the torso, about 0.65 of the way out to where the arm meets it
    // (x = 0.154); the elbow 53 % of the way from there to the wrist.
    let shoulder = DVec3::new(0.154 - 0.03 * h, 1.42, 0.0);
    let wrist = DVec3::new(0.7, 1.42, 0.0);
    let elbow = DVec3::new(0.154, 1.42, 0.0).lerp(wrist, 0.53);
    let hips = DVec3::new(0.0, hip.y, 0.0);
    let neck = DVec3::new(0.0, 1.448, 0.0);
    let head = DVec3::new(0.0, 1.51, 0.0);
    vec![
        ("hips", hips),
        ("spine", hips.lerp(neck, 0.3)),
        ("chest", hips.lerp(neck, 0.65)),
        ("neck", neck),
        ("head", head),
        ("upperarm.L", shoulder),
        ("forearm.L", elbow),
        ("hand.L", wrist),
        ("thigh.L", hip),
        ("shin.L", knee),
        ("foot.L", ankle),
        ("toe.L", DVec3::new(0.09, 0.045, -0.095 + 0.72 * 0.3)),
    ]
}

/// Every landmark with both sides.
pub fn humanoid_landmarks() -> Vec<(String, DVec3)> {
    let mut out = Vec::new();
    for (name, p) in humanoid_joints() {
        if let Some(base) = name.strip_suffix(".L") {
            out.push((name.to_owned(), p));
            out.push((format!("{base}.R"), DVec3::new(-p.x, p.y, p.z)));
        } else {
            out.push((name.to_owned(), p));
        }
    }
    out
}

/// The humanoid's capsules; `split` puts head, each arm, each leg and the torso in objects of
/// their own (six), else everything in one.
pub fn humanoid_capsules(split: bool) -> (Vec<Capsule>, Vec<&'static str>) {
    let j = |n: &str| humanoid_joints().into_iter().find(|(k, _)| *k == n).unwrap().1;
    let (wrist, elbow, knee, ankle, hip) = (j("hand.L"), j("forearm.L"), j("shin.L"), j("foot.L"), j("thigh.L"));
    let x = DVec3::X;
    let c = |a: DVec3, b: DVec3, radius: f64, object: usize| Capsule {
        a,
        b,
        radius,
        object: if split { object } else { 0 },
    };
    let mut caps = vec![
        c(DVec3::new(0.0, 1.0, 0.0), DVec3::new(0.0, 1.35, 0.0), 0.15, 0),
        c(DVec3::new(0.0, 1.35, 0.0), DVec3::new(0.0, 1.6, 0.0), 0.05, 1),
        c(DVec3::new(0.0, 1.62, 0.0), DVec3::new(0.0, 1.7, 0.0), 0.1, 1),
    ];
    for (side, (arm_o, leg_o)) in [(1.0, (2, 4)), (-1.0, (3, 5))] {
        let m = |p: DVec3| DVec3::new(side * p.x, p.y, p.z);
        caps.push(c(m(DVec3::new(0.1, 1.42, 0.0)), m(elbow), 0.045, arm_o));
        caps.push(c(m(elbow), m(wrist - x * 0.045), 0.04, arm_o));
        caps.push(c(m(wrist - x * 0.03), m(wrist + x * 0.03), 0.025, arm_o));
        caps.push(c(m(wrist + x * 0.05), m(wrist + x * 0.11), 0.045, arm_o));
        caps.push(c(m(hip), m(knee), 0.065, leg_o));
        caps.push(c(m(knee), m(ankle), 0.05, leg_o));
        caps.push(c(m(DVec3::new(0.09, 0.045, -0.05)), m(DVec3::new(0.09, 0.045, 0.16)), 0.045, leg_o));
    }
    let names = if split { vec!["torso_obj", "head_obj", "arm_l", "arm_r", "leg_l", "leg_r"] } else { vec!["body"] };
    (caps, names)
}

/// The humanoid as OBJ text.
pub fn humanoid_obj(split: bool) -> String {
    let (caps, names) = humanoid_capsules(split);
    obj_text(&caps, &names, 16)
}

/// A quadruped standing Y up, head toward +Z: body, four legs, neck, head, tail. Returns the
/// capsules and the known leg tops (left front, right front, left hind, right hind).
pub fn quadruped_capsules() -> (Vec<Capsule>, [DVec3; 4]) {
    let c = |a: [f64; 3], b: [f64; 3], radius: f64| Capsule { a: a.into(), b: b.into(), radius, object: 0 };
    let mut caps = vec![
        c([0.0, 1.0, -0.6], [0.0, 1.0, 0.6], 0.3),
        c([0.0, 1.1, 0.7], [0.0, 1.5, 1.0], 0.12),
        c([0.0, 1.5, 1.0], [0.0, 1.5, 1.3], 0.15),
        c([0.0, 1.1, -0.8], [0.0, 0.9, -1.6], 0.06),
    ];
    let tops = [[0.2, 0.9, 0.5], [-0.2, 0.9, 0.5], [0.2, 0.9, -0.5], [-0.2, 0.9, -0.5]];
    for t in tops {
        caps.push(c(t, [t[0], 0.08, t[2]], 0.08));
    }
    (caps, tops.map(DVec3::from))
}

/// A tube bent along a quarter circle of radius 1 about the origin in the xy plane, from (1, 0)
/// to (0, 1).
pub fn bent_tube() -> Vec<Capsule> {
    (0..8)
        .map(|k| {
            let at = |k: usize| {
                let t = std::f64::consts::FRAC_PI_2 * k as f64 / 8.0;
                DVec3::new(t.cos(), t.sin(), 0.0)
            };
            Capsule { a: at(k), b: at(k + 1), radius: 0.1, object: 0 }
        })
        .collect()
}

/// A chibi character (big head, short legs side by side that touch, the head close above the
/// arms) in a T-pose, one object, and its known landmark joints (left side), placed by the
/// fit's rules: hip sockets 1 % of the height above the crotch, knees halfway to the ankles,
/// shoulders inside the torso at 0.65 of the arm's junction's distance from the centre line,
/// elbows 0.42 of the way from the wrist to the shoulder.
pub fn chibi() -> (String, Vec<(&'static str, DVec3)>) {
    let h = 0.99;
    let hip = DVec3::new(0.07, 0.2 + skinlab::rig::autorig::HIP_ABOVE_CROTCH * h, 0.0);
    let ankle = DVec3::new(0.07, 0.045 * h, 0.0);
    let knee = ankle.lerp(hip, 0.5);
    let shoulder = DVec3::new(0.65 * 0.13, 0.43, 0.0);
    let wrist = DVec3::new(0.36, 0.43, 0.0);
    let elbow = wrist.lerp(shoulder, 0.42);
    let c = |a: DVec3, b: DVec3, radius: f64| Capsule { a, b, radius, object: 0 };
    let mut caps = vec![
        c(DVec3::new(0.0, 0.33, 0.0), DVec3::new(0.0, 0.42, 0.0), 0.13),
        c(DVec3::new(0.0, 0.42, 0.0), DVec3::new(0.0, 0.5, 0.0), 0.06),
        c(DVec3::new(0.0, 0.72, 0.0), DVec3::new(0.0, 0.73, 0.0), 0.26),
    ];
    for side in [1.0, -1.0] {
        let m = |p: DVec3| DVec3::new(side * p.x, p.y, p.z);
        caps.push(c(m(DVec3::new(0.1, 0.43, 0.0)), m(elbow), 0.04));
        caps.push(c(m(elbow), m(wrist - DVec3::X * 0.03), 0.035));
        caps.push(c(m(wrist - DVec3::X * 0.015), m(wrist + DVec3::X * 0.015), 0.022));
        caps.push(c(m(wrist + DVec3::X * 0.03), m(wrist + DVec3::X * 0.07), 0.04));
        caps.push(c(m(DVec3::new(0.07, 0.27, 0.0)), m(knee), 0.072));
        caps.push(c(m(knee), m(DVec3::new(0.07, 0.06, 0.0)), 0.066));
        caps.push(c(m(DVec3::new(0.07, 0.03, -0.03)), m(DVec3::new(0.07, 0.03, 0.09)), 0.03));
    }
    let joints = vec![
        ("upperarm.L", shoulder),
        ("forearm.L", elbow),
        ("hand.L", wrist),
        ("thigh.L", hip),
        ("shin.L", knee),
        ("foot.L", ankle),
    ];
    (obj_text(&caps, &["chibi"], 16), joints)
}

/// A closed flat cylinder (a round shield): centre `centre`, axis `normal`, radius `radius`,
/// thickness `thickness`, `around` vertices per rim; positions and 0-based triangles.
pub fn disc(centre: DVec3, normal: DVec3, radius: f64, thickness: f64, around: usize) -> (Vec<DVec3>, Vec<[usize; 3]>) {
    let n = normal.normalize();
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    let half = n * (0.5 * thickness);
    let mut positions = vec![centre - half, centre + half];
    for face in [-1.0, 1.0] {
        for i in 0..around {
            let phi = std::f64::consts::TAU * i as f64 / around as f64;
            positions.push(centre + half * face + (u * phi.cos() + v * phi.sin()) * radius);
        }
    }
    let rim = |face: usize, i: usize| 2 + face * around + i % around;
    let mut triangles = Vec::new();
    for i in 0..around {
        triangles.push([0, rim(0, i + 1), rim(0, i)]);
        triangles.push([1, rim(1, i), rim(1, i + 1)]);
        triangles.push([rim(0, i), rim(0, i + 1), rim(1, i + 1)]);
        triangles.push([rim(0, i), rim(1, i + 1), rim(1, i)]);
    }
    (positions, triangles)
}

/// The humanoid holding a sword (a long capsule pointing forward and out of the left hand) and
/// a round shield (a flat disc facing forward in the right hand, reaching past the hand), as OBJ
/// text: `separate` puts the sword and the shield in objects of their own (`sword`, `shield`),
/// else everything is one object. Returns the text and the number of vertices of each prop.
pub fn humanoid_with_props(separate: bool) -> (String, usize, usize) {
    let (mut caps, _) = humanoid_capsules(false);
    let grip = |side: f64| DVec3::new(side * 0.78, 1.42, 0.0);
    let sword = Capsule {
        a: grip(1.0) + DVec3::new(-0.03, 0.0, -0.1),
        b: DVec3::new(0.95, 1.42, 0.55),
        radius: 0.02,
        object: 1,
    };
    caps.push(sword);
    let (names, sword_object): (Vec<&str>, usize) =
        if separate { (vec!["body", "sword"], 1) } else { (vec!["body"], 0) };
    caps.last_mut().unwrap().object = sword_object;
    let mut text = obj_text(&caps, &names, 16);
    let (positions, triangles) = disc(grip(-1.0) - DVec3::X * 0.12, DVec3::Z, 0.25, 0.03, 24);
    let base = text.lines().filter(|l| l.starts_with("v ")).count() + 1;
    if separate {
        text += "o shield\n";
    }
    for p in &positions {
        text += &format!("v {:.6} {:.6} {:.6}\n", p.x, p.y, p.z);
    }
    for t in &triangles {
        text += &format!("f {} {} {}\n", t[0] + base, t[1] + base, t[2] + base);
    }
    let sword_vertices = {
        let body_rings = ((sword.b - sword.a).length() / (sword.radius * 0.5)).ceil().max(2.0) as usize;
        super::capsules::capsule_mesh(&sword, 16, 4, body_rings).0.len()
    };
    (text, sword_vertices, positions.len())
}
