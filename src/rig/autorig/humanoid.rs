//! The humanoid template fitted to a solid: the stance checked (Y up, facing +Z), legs and arms
//! from `humanoid_limbs.rs` (arms found from the shape alone must mirror each other, and no
//! shoulder may lie outside the torso, else the fit is refused by name), the spine along the
//! torso's slice centroids between the hips and the neck (the narrowest slice above the
//! shoulders), the clavicles from the neck's base to the shoulders, optional fingers; then the
//! plan with the landmark names and each joint's flexion side.

use glam::DVec3;

use super::humanoid_limbs::{arm, leg, leg_slices, ray_depth, Arm, Leg};
use super::rows::{blob_near, row_at};
use super::solid::Solid;
use super::{AutorigError, FitOptions, Frame, Plan};
use crate::rig::joint_frame::Flex;

/// The spine joint's place from the hips to the neck (by height), and the chest's.
const SPINE_AT: f64 = 0.3;
const CHEST_AT: f64 = 0.65;
/// The neck joint's place from the shoulders to the neck's narrowest slice.
const NECK_AT: f64 = 0.4;

/// Refuses a character that is clearly not standing Y up facing ±Z.
fn check_stance(frame: &Frame) -> Result<(), AutorigError> {
    let ext = frame.hi - frame.lo;
    if ext.z > 1.15 * ext.y && ext.z >= 0.9 * ext.x {
        return Err(AutorigError::NotUpright(format!(
            "the character looks Z-up (it measures {:.3} along Z but {:.3} along Y); turn it Y up (−90° about X)",
            ext.z, ext.y
        )));
    }
    if ext.x > 1.6 * ext.y && ext.x > 2.0 * ext.z {
        return Err(AutorigError::NotUpright(format!(
            "the character seems to lie along X (it measures {:.3} along X but {:.3} along Y); stand it Y up",
            ext.x, ext.y
        )));
    }
    if ext.z > 1.2 * ext.x {
        return Err(AutorigError::NotUpright(format!(
            "the character seems to face ±X (it measures {:.3} along Z but {:.3} along X); turn it to face +Z (90° about Y)",
            ext.z, ext.x
        )));
    }
    Ok(())
}

/// Arms found from the shape alone are mirror images of each other; when their shoulders or
/// wrists differ by more than this share of the height, something else was taken for an arm.
const ARMS_MIRROR: f64 = 0.06;

/// Refuses arms found from the shape alone that are far from mirror images (a shield or a sword
/// held out in one hand is taken for the arm's end), rather than return a wrong rig.
fn check_arms_mirror(arms: &[Arm; 2], cx: f64, h: f64, markers: &super::Markers) -> Result<(), AutorigError> {
    if markers.get("wrist.L").is_some() || markers.get("wrist.R").is_some() {
        return Ok(());
    }
    let mirror = |p: DVec3| DVec3::new(2.0 * cx - p.x, p.y, p.z);
    let off =
        (arms[0].shoulder - mirror(arms[1].shoulder)).length().max((arms[0].wrist - mirror(arms[1].wrist)).length());
    if off > ARMS_MIRROR * h {
        return Err(AutorigError::LimbNotFound {
            limb: "the arms".into(),
            why: format!(
                "the left and right arm differ by {:.0} % of the height (a prop in a hand?); place the wrist and elbow markers",
                100.0 * off / h
            ),
        });
    }
    Ok(())
}

/// Refuses a shoulder placed outside the torso: farther from the centre line x = `cx` than the
/// torso's side reaches anywhere between the crotch and the armpit (the torso's slice piece
/// nearest the centre line, row by row). Such a shoulder means the arm's line met something
/// beside the body rather than the torso.
fn check_shoulders_inside(
    solid: &Solid,
    frame: &Frame,
    cx: f64,
    arms: &[Arm; 2],
    crotch_y: f64,
) -> Result<(), AutorigError> {
    let h = frame.height;
    let z = 0.5 * (frame.lo.z + frame.hi.z);
    for (arm, side) in arms.iter().zip([1.0, -1.0]) {
        let mut reach = f64::NEG_INFINITY;
        let mut y = crotch_y + 0.02 * h;
        while y < arm.shoulder.y - 0.05 * h {
            if let Some(b) = blob_near(solid, row_at(solid, y), DVec3::new(cx, y, z), 0.05 * h) {
                reach = reach.max(if side > 0.0 { b.hi.x - cx } else { cx - b.lo.x });
            }
            y += solid.cell;
        }
        let out = side * (arm.shoulder.x - cx) - reach;
        if reach.is_finite() && out > solid.cell {
            return Err(AutorigError::LimbNotFound {
                limb: format!("the {} shoulder", if side > 0.0 { "left" } else { "right" }),
                why: format!(
                    "it would lie {:.1} % of the height outside the torso (the arm's line met something beside the body); place the wrist and elbow markers",
                    100.0 * out / h
                ),
            });
        }
    }
    Ok(())
}

/// The torso's centroid at height `y` (the slice piece nearest the centre line), or the centre
/// line itself when the slice is empty there.
fn torso_at(solid: &Solid, frame: &Frame, cx: f64, y: f64, z: f64) -> DVec3 {
    let near = DVec3::new(cx, y, z);
    blob_near(solid, row_at(solid, y), near, 0.05 * frame.height).map_or(near, |b| DVec3::new(cx, y, b.centroid.z))
}

/// Fits the humanoid (see the module docs).
pub fn fit(solid: &Solid, frame: &Frame, options: &FitOptions) -> Result<Plan, AutorigError> {
    check_stance(frame)?;
    let h = frame.height;
    let markers = &options.markers;
    let cx = markers.get("groin").map_or(frame.centre_x, |g| g.x);
    let slices = leg_slices(solid, frame, markers)?;
    let legs: [Leg; 2] = [leg(solid, frame, &slices, 0, markers)?, leg(solid, frame, &slices, 1, markers)?];
    let arms: [Arm; 2] =
        [arm(solid, frame, 1.0, slices.crotch_y, markers)?, arm(solid, frame, -1.0, slices.crotch_y, markers)?];
    check_arms_mirror(&arms, cx, h, markers)?;
    check_shoulders_inside(solid, frame, cx, &arms, slices.crotch_y)?;
    let mid_z = 0.5 * (legs[0].hip.z + legs[1].hip.z);
    let hips = torso_at(solid, frame, cx, 0.5 * (legs[0].hip.y + legs[1].hip.y), mid_z);
    let shoulder_y = 0.5 * (arms[0].shoulder.y + arms[1].shoulder.y);
    // The neck: the narrowest slice between the shoulders and the top of the head.
    let width_at = |y: f64| {
        blob_near(solid, row_at(solid, y), DVec3::new(cx, y, hips.z), 0.05 * h)
            .map_or(f64::INFINITY, |b| b.hi.x - b.lo.x)
    };
    let top = frame.hi.y;
    let (mut neck_y, mut narrowest) = (shoulder_y + 0.5 * (top - shoulder_y), f64::INFINITY);
    let mut y = shoulder_y + 0.02 * h;
    while y < top - 0.06 * h {
        let w = width_at(y);
        if w < narrowest {
            (narrowest, neck_y) = (w, y);
        }
        y += 0.5 * solid.cell;
    }
    if !narrowest.is_finite() || top - shoulder_y < 0.06 * h {
        return Err(AutorigError::LimbNotFound {
            limb: "the head".into(),
            why: "nothing stands above the shoulders".into(),
        });
    }
    let head_y = match markers.get("chin") {
        Some(chin) => chin.y,
        None => neck_y + 0.01 * h,
    };
    let neck_base_y = shoulder_y + NECK_AT * (neck_y - shoulder_y);
    let neck = torso_at(solid, frame, cx, neck_base_y, hips.z);
    let head = {
        let z = ray_depth(solid, cx, head_y, neck.z).unwrap_or(neck.z);
        DVec3::new(cx, head_y, z)
    };
    let spine = torso_at(solid, frame, cx, hips.y + SPINE_AT * (neck.y - hips.y), hips.z);
    let chest = torso_at(solid, frame, cx, hips.y + CHEST_AT * (neck.y - hips.y), hips.z);
    let head_top = DVec3::new(cx, top, head.z);

    let mut plan = Plan::default();
    plan.notes.extend(arms.iter().filter_map(|a| a.note.clone()));
    let (fwd, back, down) = (Flex::Forward.direction(), Flex::Backward.direction(), Flex::Down.direction());
    let hips_i = plan.add("hips", None, hips, spine, fwd);
    let spine_i = plan.add("spine", Some(hips_i), spine, chest, fwd);
    let chest_i = plan.add("chest", Some(spine_i), chest, neck, fwd);
    let neck_i = plan.add("neck", Some(chest_i), neck, head, fwd);
    plan.add("head", Some(neck_i), head, head_top, fwd);
    for (k, suffix) in ["L", "R"].into_iter().enumerate() {
        let side = if k == 0 { 1.0 } else { -1.0 };
        let a = &arms[k];
        let clav_head = DVec3::new(cx + side * 0.02 * h, a.shoulder.y, 0.5 * (a.shoulder.z + chest.z) + 0.01 * h);
        let clav = plan.add(&format!("clavicle.{suffix}"), Some(chest_i), clav_head, a.shoulder, fwd);
        let upper = plan.add(&format!("upperarm.{suffix}"), Some(clav), a.shoulder, a.elbow, fwd);
        let fore = plan.add(&format!("forearm.{suffix}"), Some(upper), a.elbow, a.wrist, fwd);
        let hand = plan.add(&format!("hand.{suffix}"), Some(fore), a.wrist, a.tip, fwd);
        if options.fingers {
            super::fingers::add_fingers(&mut plan, solid, hand, suffix);
        }
        let l = &legs[k];
        let thigh = plan.add(&format!("thigh.{suffix}"), Some(hips_i), l.hip, l.knee, back);
        let shin = plan.add(&format!("shin.{suffix}"), Some(thigh), l.knee, l.ankle, back);
        let foot = plan.add(&format!("foot.{suffix}"), Some(shin), l.ankle, l.ball, down);
        plan.add(&format!("toe.{suffix}"), Some(foot), l.ball, l.tip, down);
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box from `lo` to `hi` as triangles.
    fn box_mesh(lo: DVec3, hi: DVec3) -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let p = (0..8)
            .map(|i| {
                DVec3::new(
                    if i & 1 == 0 { lo.x } else { hi.x },
                    if i & 2 == 0 { lo.y } else { hi.y },
                    if i & 4 == 0 { lo.z } else { hi.z },
                )
            })
            .collect();
        let quads = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]];
        (p, quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect())
    }

    #[test]
    fn a_shoulder_outside_the_torso_is_refused_by_name() {
        let (p, t) = box_mesh(DVec3::new(-0.15, 0.0, -0.1), DVec3::new(0.15, 1.6, 0.1));
        let solid = Solid::build(&p, &t).unwrap();
        let frame = Frame::of(&solid).unwrap();
        let arm = |x: f64| Arm {
            shoulder: DVec3::new(x, 1.4, 0.0),
            elbow: DVec3::new(x + 0.2, 1.4, 0.0),
            wrist: DVec3::new(x + 0.4, 1.4, 0.0),
            tip: DVec3::new(x + 0.5, 1.4, 0.0),
            note: None,
        };
        let mirrored = |a: Arm| Arm {
            shoulder: a.shoulder * DVec3::new(-1.0, 1.0, 1.0),
            elbow: a.elbow * DVec3::new(-1.0, 1.0, 1.0),
            wrist: a.wrist * DVec3::new(-1.0, 1.0, 1.0),
            tip: a.tip * DVec3::new(-1.0, 1.0, 1.0),
            note: None,
        };
        let inside = [arm(0.1), mirrored(arm(0.1))];
        assert!(check_shoulders_inside(&solid, &frame, 0.0, &inside, 0.8).is_ok());
        let outside = [arm(0.1), mirrored(arm(0.3))];
        let e = check_shoulders_inside(&solid, &frame, 0.0, &outside, 0.8).unwrap_err().to_string();
        assert!(e.starts_with("could not find the right shoulder: it would lie") && !e.contains('\n'), "{e}");
    }
}
