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
    let hip = DVec3::new(0.09, 0.85 + 0.04 * h, 0.0);
    let ankle = DVec3::new(0.09, 0.045 * h, 0.0);
    let knee = ankle.lerp(hip, 0.5);
    let shoulder = DVec3::new(0.135, 1.42, 0.0);
    let wrist = DVec3::new(0.7, 1.42, 0.0);
    let elbow = shoulder.lerp(wrist, 0.53);
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
    let c = |a: DVec3, b: DVec3, radius: f64, object: usize| Capsule { a, b, radius, object: if split { object } else { 0 } };
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
