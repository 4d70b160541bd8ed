//! Props held in the hands (a sword, a shield), set aside before the humanoid is fitted: the
//! arms are traced from their outermost point, and a prop held out beyond the hand would be
//! taken for the arm's end. They are told apart by object and, within the objects kept, by
//! connected piece of the surface (vertices welded by position). A candidate lies wholly on one
//! side of the centre line, away from the body (its inner end farther out than [`INNER`] of the
//! height) and off the floor, reaches the outer half of that side's span, is longer than any hand
//! ([`LONGER_THAN`]) and is not shaped like an arm: an arm is long and thin ([`THIN`]) along a
//! line in the front view that is not upright, while a sword held forward runs along z and a
//! shield is as wide across as it is long. A candidate is a prop when it is held at the arm's end
//! (the outermost [`END`] of what is not a candidate) and reaches out across the arm beyond that
//! end's section: an ear or a big cartoon hand does not. Set aside from the fit only: every
//! object stays in the skin and is bound with the rest (props follow the hand).

use std::collections::HashMap;

use glam::DVec3;

use super::{Frame, Object};
use crate::maths::DisjointSets;

/// A prop's inner end lies farther than this share of the height from the centre line (an arm
/// object or piece starts at the torso, nearer than this).
const INNER: f64 = 0.1;
/// A prop is off the floor by more than this share of the height (legs stand on it).
const OFF_FLOOR: f64 = 0.1;
/// A prop is longer than any hand (a cartoon's big hand included): this share of the height.
const LONGER_THAN: f64 = 0.25;
/// The arm's end section: the points within this share of the height of the arm's outermost.
const END: f64 = 0.1;
/// An arm's width across its long axis is at most this share of its length.
const THIN: f64 = 0.5;

/// What was set aside.
#[derive(Clone, Debug, Default)]
pub struct SetAside {
    /// Per triangle, whether it belongs to a prop.
    pub triangle: Vec<bool>,
    /// The props' names: the object's name, or the object's name and "piece N" for a piece of
    /// an object otherwise kept.
    pub names: Vec<String>,
}

/// The vertices of `triangles`, each once.
fn vertices_of(triangles: &[[u32; 3]]) -> Vec<u32> {
    let mut v: Vec<u32> = triangles.iter().flatten().copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The side (+1 left, −1 right) of the points `points` when they may be a prop: wholly on one
/// side of the centre line away from the body, off the floor, reaching the outer half of the
/// side's span (`extremes`: the outermost x left and right), longer than any hand and not shaped
/// like an arm (see the module docs).
fn candidate(points: &[DVec3], frame: &Frame, extremes: [f64; 2]) -> Option<f64> {
    let (h, cx) = (frame.height, frame.centre_x);
    let (lo, hi) = bounds(points)?;
    let (side, inner, outer, extreme) = if lo.x > cx {
        (1.0, lo.x, hi.x, extremes[0])
    } else if hi.x < cx {
        (-1.0, hi.x, lo.x, extremes[1])
    } else {
        return None;
    };
    if side * (inner - cx) <= INNER * h
        || lo.y <= frame.floor + OFF_FLOOR * h
        || side * (outer - cx) <= 0.5 * side * (extreme - cx)
    {
        return None;
    }
    // The long axis: from the point farthest from the middle to the point farthest from that.
    let mid = 0.5 * (lo + hi);
    let far = |from: DVec3| {
        points.iter().copied().max_by(|a, b| (*a - from).length_squared().total_cmp(&(*b - from).length_squared()))
    };
    let a = far(mid)?;
    let b = far(a)?;
    let length = (b - a).length();
    let d = (b - a).try_normalize()?;
    if length <= LONGER_THAN * h {
        return None;
    }
    let width = 2.0 * points.iter().map(|p| (*p - a).reject_from_normalized(d).length()).fold(0.0, f64::max);
    let arm_like = width <= THIN * length && d.z.abs() < 0.5 && d.x.abs() > 0.3;
    (!arm_like).then_some(side)
}

/// The box of `points`, `None` when empty.
fn bounds(points: &[DVec3]) -> Option<(DVec3, DVec3)> {
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in points {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    (lo.x <= hi.x).then_some((lo, hi))
}

/// The arm's cross-section where it ends on side `side`: the box of the points kept (`kept`)
/// within [`END`] of the height inside the outermost of them.
fn arm_end(kept: &[DVec3], side: f64, frame: &Frame) -> Option<(DVec3, DVec3)> {
    let (cx, reach) = (frame.centre_x, END * frame.height);
    let outer = kept.iter().map(|p| side * (p.x - cx)).fold(f64::NEG_INFINITY, f64::max);
    let end: Vec<DVec3> = kept.iter().copied().filter(|p| side * (p.x - cx) >= (outer - reach).max(0.0)).collect();
    bounds(&end)
}

/// Whether the box `lo`–`hi` is held at the arm's end (it overlaps the end section `end`, grown
/// by [`END`] of the height) and reaches out beyond it across the arm (in y or z) by more than
/// half the section's own size there.
fn held_and_beyond((lo, hi): (DVec3, DVec3), (end_lo, end_hi): (DVec3, DVec3), frame: &Frame) -> bool {
    let grow = DVec3::splat(END * frame.height);
    let (near_lo, near_hi) = (end_lo - grow, end_hi + grow);
    let held = lo.cmple(near_hi).all() && hi.cmpge(near_lo).all();
    let size = end_hi - end_lo;
    let margin = |s: f64| (0.5 * s).max(0.01 * frame.height);
    held && (lo.y < end_lo.y - margin(size.y)
        || hi.y > end_hi.y + margin(size.y)
        || lo.z < end_lo.z - margin(size.z)
        || hi.z > end_hi.z + margin(size.z))
}

/// Connected pieces of the surface of `triangles` (indices into `all`), vertices welded by
/// position: each piece's triangle indices (into `all`).
fn pieces(positions: &[DVec3], all: &[[u32; 3]], triangles: &[usize]) -> Vec<Vec<usize>> {
    let mut welded: HashMap<[u64; 3], u32> = HashMap::new();
    let mut sets = DisjointSets::default();
    let mut first = Vec::with_capacity(triangles.len());
    for &t in triangles {
        let ids = all[t].map(|v| {
            let p = positions.get(v as usize).copied().unwrap_or(DVec3::NAN);
            *welded.entry([p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]).or_insert_with(|| sets.push())
        });
        sets.union(ids[0], ids[1]);
        sets.union(ids[0], ids[2]);
        first.push(ids[0]);
    }
    let label = sets.labels();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (&t, &id) in triangles.iter().zip(&first) {
        let k = label[id as usize] as usize;
        if k == out.len() {
            out.push(Vec::new());
        }
        out[k].push(t);
    }
    out
}

/// An object, or a piece of one, looked at.
struct Unit {
    name: String,
    triangles: Vec<usize>,
    points: Vec<DVec3>,
    side: Option<f64>,
}

/// Finds the props among `objects` of the triangles `triangles` over `positions` (see the
/// module docs).
#[must_use]
pub fn set_aside(positions: &[DVec3], triangles: &[[u32; 3]], objects: &[Object], frame: &Frame) -> SetAside {
    let cx = frame.centre_x;
    let mut extremes = [cx, cx];
    for p in positions.iter().filter(|p| p.is_finite()) {
        extremes[0] = extremes[0].max(p.x);
        extremes[1] = extremes[1].min(p.x);
    }
    let points_of = |ts: &[usize]| -> Vec<DVec3> {
        let tris: Vec<[u32; 3]> = ts.iter().filter_map(|&t| triangles.get(t).copied()).collect();
        vertices_of(&tris)
            .iter()
            .filter_map(|&v| positions.get(v as usize).copied())
            .filter(|p| p.is_finite())
            .collect()
    };
    let mut units: Vec<Unit> = Vec::new();
    for object in objects {
        let all: Vec<usize> =
            (object.triangles.start.min(triangles.len())..object.triangles.end.min(triangles.len())).collect();
        let points = points_of(&all);
        if let Some(side) = candidate(&points, frame, extremes) {
            units.push(Unit { name: object.name.clone(), triangles: all, points, side: Some(side) });
            continue;
        }
        let pieces = pieces(positions, triangles, &all);
        if pieces.len() < 2 {
            units.push(Unit { name: object.name.clone(), triangles: all, points, side: None });
            continue;
        }
        for (k, piece) in pieces.into_iter().enumerate() {
            let points = points_of(&piece);
            let side = candidate(&points, frame, extremes);
            units.push(Unit { name: format!("{} (piece {})", object.name, k + 1), triangles: piece, points, side });
        }
    }
    let kept: Vec<DVec3> = units.iter().filter(|u| u.side.is_none()).flat_map(|u| u.points.iter().copied()).collect();
    let ends = [arm_end(&kept, 1.0, frame), arm_end(&kept, -1.0, frame)];
    let mut out = SetAside { triangle: vec![false; triangles.len()], names: Vec::new() };
    for u in &units {
        let (Some(side), Some(b)) = (u.side, bounds(&u.points)) else { continue };
        let Some(end) = (if side > 0.0 { ends[0] } else { ends[1] }) else { continue };
        if held_and_beyond(b, end, frame) {
            for &t in &u.triangles {
                out.triangle[t] = true;
            }
            out.names.push(u.name.clone());
        }
    }
    out
}
