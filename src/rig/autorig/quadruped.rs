//! The quadruped template fitted to a solid standing Y up with its head toward +Z: four legs from
//! the slice at a tenth of the height (front pair by z, sides by x) followed up into the body,
//! the spine from the hind legs to the front legs, the head and neck traced from the snout back
//! to the body, a tail chain traced from the rearmost point when one sticks out.

use glam::DVec3;

use super::rows::{blob_near, blobs, row_at, Blob};
use super::section::{trace, TraceSpec};
use super::solid::Solid;
use super::{AutorigError, Frame, Plan};
use crate::rig::joint_frame::Flex;

/// Tail joints.
const TAIL_JOINTS: usize = 4;

/// A leg's blobs from the floor up to the body, and the body's underside there.
struct LegColumn {
    rows: Vec<Blob>,
    top_y: f64,
}

fn leg_column(solid: &Solid, frame: &Frame, start: &Blob, row: usize) -> LegColumn {
    let mut rows = vec![*start];
    let mut prev = *start;
    let mut top_y = start.centroid.y;
    for r in row + 1..solid.dims[1] {
        let Some(b) = blob_near(solid, r, prev.centroid, 0.08 * frame.height) else { break };
        if b.cells > 3 * start.cells.max(1) {
            break;
        }
        top_y = b.centroid.y;
        rows.push(b);
        prev = b;
    }
    let mut prev = *start;
    for r in (0..row).rev() {
        let Some(b) = blob_near(solid, r, prev.centroid, 0.08 * frame.height) else { break };
        rows.insert(0, b);
        prev = b;
    }
    LegColumn { rows, top_y }
}

fn at_height(col: &LegColumn, y: f64) -> DVec3 {
    col.rows
        .iter()
        .min_by(|a, b| (a.centroid.y - y).abs().total_cmp(&(b.centroid.y - y).abs()))
        .map_or(DVec3::new(0.0, y, 0.0), |b| DVec3::new(b.centroid.x, y, b.centroid.z))
}

/// How far the inside goes up from `p` (the first outside point above it).
fn body_top(solid: &Solid, p: DVec3, limit: f64) -> f64 {
    let mut y = p.y;
    while y < limit && solid.contains(DVec3::new(p.x, y, p.z)) {
        y += 0.5 * solid.cell;
    }
    y
}

/// Fits the quadruped (see the module docs).
pub fn fit(solid: &Solid, frame: &Frame) -> Result<Plan, AutorigError> {
    let ext = frame.hi - frame.lo;
    if ext.x > 1.2 * ext.z {
        return Err(AutorigError::NotUpright(format!(
            "the animal seems to face ±X (it measures {:.3} along X but {:.3} along Z); turn it to face +Z",
            ext.x, ext.z
        )));
    }
    let h = frame.height;
    let cx = frame.centre_x;
    let row = row_at(solid, frame.floor + 0.1 * h);
    let mut legs: Vec<Blob> = blobs(solid, row).into_iter().filter(|b| b.cells >= 4).take(4).collect();
    if legs.len() < 4 {
        return Err(AutorigError::LimbNotFound {
            limb: "the legs".into(),
            why: format!("{} pieces stand at a tenth of the height (four legs expected)", legs.len()),
        });
    }
    legs.sort_by(|a, b| b.centroid.z.total_cmp(&a.centroid.z));
    let mut plan = Plan::default();
    let (fwd, back, down) = (Flex::Forward.direction(), Flex::Backward.direction(), Flex::Down.direction());
    let column = |b: &Blob| leg_column(solid, frame, b, row);
    let pair = |a: Blob, b: Blob| if a.centroid.x >= b.centroid.x { [a, b] } else { [b, a] };
    let front = pair(legs[0], legs[1]).map(|b| column(&b));
    let hind = pair(legs[2], legs[3]).map(|b| column(&b));
    let socket = |col: &LegColumn| {
        let top = at_height(col, col.top_y);
        let body = body_top(solid, DVec3::new(top.x, col.top_y, top.z), frame.hi.y + solid.cell);
        DVec3::new(top.x, col.top_y + 0.35 * (body - col.top_y), top.z)
    };
    let hind_sockets = [socket(&hind[0]), socket(&hind[1])];
    let front_sockets = [socket(&front[0]), socket(&front[1])];
    let mid = |a: DVec3, b: DVec3| DVec3::new(cx, 0.5 * (a.y + b.y), 0.5 * (a.z + b.z));
    let hips = mid(hind_sockets[0], hind_sockets[1]);
    let chest = mid(front_sockets[0], front_sockets[1]);
    let spine = hips.lerp(chest, 0.5);
    // Head and neck: traced from the snout back toward the chest.
    let snout =
        solid.points().filter(|p| p.y > chest.y - 0.1 * h).max_by(|a, b| a.z.total_cmp(&b.z)).ok_or_else(|| {
            AutorigError::LimbNotFound { limb: "the head".into(), why: "nothing lies ahead of the front legs".into() }
        })?;
    let spec = TraceSpec {
        start: snout - DVec3::Z * solid.cell,
        direction: chest - snout,
        step: 0.01 * h,
        radius: 0.25 * h,
        max_length: (chest - snout).length(),
        growth: 2.5,
        settle: 3,
    };
    let t = trace(solid, &spec);
    let neck_base = t.centres.last().copied().filter(|_| t.reached_body).unwrap_or_else(|| chest.lerp(snout, 0.3));
    let head = neck_base.lerp(snout, 0.55);
    let hips_i = plan.add("hips", None, hips, spine, fwd);
    let spine_i = plan.add("spine", Some(hips_i), spine, chest, fwd);
    let chest_i = plan.add("chest", Some(spine_i), chest, neck_base, fwd);
    let neck_i = plan.add("neck", Some(chest_i), neck_base, head, fwd);
    plan.add("head", Some(neck_i), head, snout, fwd);
    // The tail, when the rear sticks out beyond the hips.
    let rear = solid.points().filter(|p| p.y > frame.floor + 0.2 * h).min_by(|a, b| a.z.total_cmp(&b.z));
    if let Some(rear) = rear.filter(|r| hips.z - r.z > 0.15 * (chest.z - hips.z).abs()) {
        let spec = TraceSpec {
            start: rear + DVec3::Z * solid.cell,
            direction: hips - rear,
            step: 0.01 * h,
            radius: 0.15 * h,
            max_length: (hips - rear).length() * 1.5,
            growth: 2.5,
            settle: 3,
        };
        let t = trace(solid, &spec);
        let base = t.centres.last().copied().unwrap_or(hips);
        let mut parent = hips_i;
        for k in 0..TAIL_JOINTS {
            let a = base.lerp(rear, k as f64 / TAIL_JOINTS as f64);
            let b = base.lerp(rear, (k + 1) as f64 / TAIL_JOINTS as f64);
            parent = plan.add(&format!("tail.{:02}", k + 1), Some(parent), a, b, down);
        }
    }
    for (k, suffix) in ["L", "R"].into_iter().enumerate() {
        let (col, s) = (&hind[k], hind_sockets[k]);
        let (floor, height) = (frame.floor, s.y - frame.floor);
        let knee = at_height(col, floor + 0.6 * height);
        let ankle = at_height(col, floor + 0.3 * height);
        let ball = at_height(col, floor + 0.05 * height);
        let tip = DVec3::new(ball.x, ball.y, col.rows.iter().map(|b| b.hi.z).fold(ball.z, f64::max));
        let thigh = plan.add(&format!("thigh.{suffix}"), Some(hips_i), s, knee, back);
        let shin = plan.add(&format!("shin.{suffix}"), Some(thigh), knee, ankle, fwd);
        let foot = plan.add(&format!("foot.{suffix}"), Some(shin), ankle, ball, back);
        plan.add(&format!("toe.{suffix}"), Some(foot), ball, tip, down);
        let (col, s) = (&front[k], front_sockets[k]);
        let height = s.y - floor;
        let elbow = at_height(col, floor + 0.6 * height);
        let wrist = at_height(col, floor + 0.25 * height);
        let paw = at_height(col, floor + 0.03 * height);
        let upper = plan.add(&format!("upperarm.{suffix}"), Some(chest_i), s, elbow, fwd);
        let fore = plan.add(&format!("forearm.{suffix}"), Some(upper), elbow, wrist, back);
        plan.add(&format!("hand.{suffix}"), Some(fore), wrist, paw, fwd);
    }
    Ok(plan)
}
