//! Fingers for the humanoid's hands, three joints each: across the hand's cross-section at the
//! fingers (the separate pieces when the fingers are apart, else four even bands across the
//! hand's width), and a thumb on the hand's front edge near the wrist.

use glam::DVec3;

use super::solid::Solid;
use super::Plan;
use crate::rig::joint_frame::Flex;

/// The four fingers' names (the thumb is `thumb`), index to little finger.
const FINGERS: [&str; 4] = ["index", "middle", "ring", "pinky"];

/// Inside samples of the plane through `at` normal to `d` within `radius`: their offsets along
/// `w`, grouped into pieces by gaps wider than two samples.
fn pieces_along(solid: &Solid, at: DVec3, d: DVec3, w: DVec3, radius: f64) -> Vec<(f64, f64)> {
    let v = d.cross(w);
    let step = 0.5 * solid.cell;
    let m = (radius / step).ceil() as i64;
    let mut hits: Vec<f64> = Vec::new();
    for i in -m..=m {
        let a = i as f64 * step;
        if (-m..=m).any(|j| solid.contains(at + w * a + v * (j as f64 * step))) {
            hits.push(a);
        }
    }
    let mut out: Vec<(f64, f64)> = Vec::new();
    for a in hits {
        match out.last_mut() {
            Some(last) if a - last.1 <= 2.5 * step => last.1 = a,
            _ => out.push((a, a)),
        }
    }
    out
}

/// Adds thumb and four fingers (three joints each) under hand joint `hand` of `plan` (`suffix`
/// "L" or "R").
pub fn add_fingers(plan: &mut Plan, solid: &Solid, hand: usize, suffix: &str) {
    let (wrist, tip) = (plan.joints[hand].head, plan.joints[hand].tail);
    let length = (tip - wrist).length();
    let Some(d) = (tip - wrist).try_normalize() else { return };
    // The hand's width runs across the arm, in the horizontal plane for a T-pose (along Z).
    let w = (DVec3::Z - d * d.z).try_normalize().unwrap_or(DVec3::Y);
    let at = wrist + d * (0.8 * length);
    let pieces = pieces_along(solid, at, d, w, 0.4 * length);
    let centres: Vec<f64> = if pieces.len() >= 4 {
        let mut widest: Vec<(f64, f64)> = pieces.clone();
        widest.sort_by(|a, b| (b.1 - b.0).total_cmp(&(a.1 - a.0)));
        let mut four: Vec<f64> = widest.iter().take(4).map(|p| 0.5 * (p.0 + p.1)).collect();
        four.sort_by(f64::total_cmp);
        four
    } else {
        let knuckles = pieces_along(solid, wrist + d * (0.5 * length), d, w, 0.4 * length);
        let (lo, hi) = knuckles.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p.0), h.max(p.1)));
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (-0.2 * length, 0.2 * length) };
        (0..4).map(|k| lo + (hi - lo) * (k as f64 + 0.5) / 4.0).collect()
    };
    let down = Flex::Down.direction();
    // Front (+Z) first: the index finger is on the thumb's side.
    for (name, &c) in FINGERS.iter().zip(centres.iter().rev()) {
        let base = wrist + w * c;
        let mut parent = hand;
        let stops = [0.5, 0.67, 0.83, 1.0];
        for k in 0..3 {
            let head = base + d * (stops[k] * length);
            let tail = base + d * (stops[k + 1] * length);
            parent = plan.add(&format!("{name}.{:02}.{suffix}", k + 1), Some(parent), head, tail, down);
        }
    }
    // The thumb leaves the hand near the wrist toward the front, angled out along the hand.
    let front = centres.last().copied().unwrap_or(0.2 * length) + 0.05 * length;
    let out = (d + w * (front.signum() * 0.6)).normalize_or(d);
    let base = wrist + d * (0.12 * length) + w * (0.6 * front);
    let mut parent = hand;
    let stops = [0.0, 0.2, 0.35, 0.5];
    for k in 0..3 {
        let head = base + out * (stops[k] * length);
        let tail = base + out * (stops[k + 1] * length);
        parent = plan.add(&format!("thumb.{:02}.{suffix}", k + 1), Some(parent), head, tail, down);
    }
}
