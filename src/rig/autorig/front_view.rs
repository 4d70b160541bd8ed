//! The front view's silhouette (the solid seen along z): the arm's line from its tip, and the
//! shoulder. A sheet only a cell or two deep (a cape hanging behind the body) is left out of the
//! torso's silhouette: it would widen the torso and push the shoulder out. Walking along the arm's line toward the body, the arm's
//! silhouette below the line keeps about its thickness until the line enters the torso, where
//! it jumps (the torso reaches far below the armpit; a head close above the arm is not looked
//! at). The shoulder joint lies inside
//! the torso on the arm's line, at [`SHOULDER_SHARE`] of that junction's distance from the
//! centre line: a share that holds for realistic and stylised characters alike, where a fixed
//! share of the height does not (a chibi's torso is narrow against its height).

use glam::DVec3;

use super::solid::Solid;

/// The shoulder's distance from the centre line as a share of the junction's.
pub const SHOULDER_SHARE: f64 = 0.65;
/// The silhouette across the line is this many times the arm's median thickness so far at the
/// torso.
const JUMP: f64 = 3.0;

/// A column of the front view with fewer inside cells along z than this is a sheet (a cape
/// behind the body, a strap): the torso's and the arms' silhouettes leave it out.
const SHEET: usize = 3;

/// Whether the front view shows the solid at (x, y): some inside cell along z.
fn shows(solid: &Solid, x: f64, y: f64) -> bool {
    depth(solid, x, y) > 0
}

/// The inside cells along z of the front view's column at (x, y).
fn depth(solid: &Solid, x: f64, y: f64) -> usize {
    solid.cell_of(DVec3::new(x, y, solid.origin.z + 0.5 * solid.cell)).map_or(0, |c| {
        let [cx, cy, _] = c;
        (0..solid.dims[2]).filter(|&z| solid.at(cx, cy, z)).count()
    })
}

/// The silhouette's reach from `p` along the front-view unit vector `across`, up to `limit` (0
/// when `p` is off the silhouette); sheets ([`SHEET`]) are not counted.
fn thickness(solid: &Solid, p: DVec3, across: DVec3, limit: f64) -> f64 {
    let solid_at = |x: f64, y: f64| depth(solid, x, y) >= SHEET;
    if !solid_at(p.x, p.y) {
        return 0.0;
    }
    let step = 0.5 * solid.cell;
    let mut t = step;
    while t < limit && solid_at(p.x + across.x * t, p.y + across.y * t) {
        t += step;
    }
    t
}

/// Where the arm's line from `from` along `inward` (its x and y are used) enters the torso in
/// the front view, before it reaches the centre line x = `cx`; `None` when the silhouette ends
/// first or no jump is seen.
#[must_use]
pub fn junction(solid: &Solid, from: DVec3, inward: DVec3, cx: f64, height: f64) -> Option<DVec3> {
    let dir = DVec3::new(inward.x, inward.y, 0.0).try_normalize()?;
    // Across the line toward the floor: below the armpit the torso goes on, while a big head
    // close above the arm does not count.
    let across = DVec3::new(-dir.y, dir.x, 0.0);
    let across = if across.y > 0.0 { -across } else { across };
    let step = solid.cell;
    let side = (from.x - cx).signum();
    let mut seen: Vec<f64> = Vec::new();
    let mut p = from;
    while side * (p.x - cx) > 0.0 {
        let mut sorted = seen.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted.get(sorted.len() / 2).copied();
        let limit = median.map_or(0.3 * height, |m| (2.0 * JUMP * m).min(0.6 * height));
        let t = thickness(solid, p, across, limit);
        if t == 0.0 {
            return None;
        }
        if let Some(m) = median.filter(|_| seen.len() >= 3) {
            if t > JUMP * m {
                return Some(p);
            }
        }
        seen.push(t);
        p += dir * step;
    }
    None
}

/// The shoulder on the arm's line through `junction` along `inward` (front view), at
/// [`SHOULDER_SHARE`] of the junction's distance from the centre line x = `cx`; its depth is
/// `z`.
#[must_use]
pub fn shoulder_from_junction(junction: DVec3, inward: DVec3, cx: f64, z: f64) -> DVec3 {
    let dir = DVec3::new(inward.x, inward.y, 0.0).normalize_or(DVec3::X * (cx - junction.x).signum());
    let gap = (junction.x - cx).abs() * (1.0 - SHOULDER_SHARE);
    let along = if dir.x.abs() > 0.2 { gap / dir.x.abs() } else { gap };
    let p = junction + dir * along;
    DVec3::new(p.x, p.y, z)
}

/// The arm's direction in the front view from its tip `tip` toward the body (`side` +1 left, −1
/// right): the middles of the silhouette's vertical runs column by column over `length` inward
/// from the tip, each run the one through the last middle; from the first middle to the last.
#[must_use]
pub fn arm_line(solid: &Solid, tip: DVec3, side: f64, length: f64) -> Option<DVec3> {
    let step = solid.cell;
    let mut y = tip.y;
    let mut first = None;
    let mut last = None;
    let mut x = tip.x - side * step;
    while side * (tip.x - x) <= length {
        if !shows(solid, x, y) {
            // The run may have moved by a cell or two since the last column.
            let Some(dy) = [1.0, -1.0, 2.0, -2.0].into_iter().map(|k| k * step).find(|dy| shows(solid, x, y + dy))
            else {
                break;
            };
            y += dy;
        }
        let (mut lo, mut hi) = (y, y);
        while hi - y < length && shows(solid, x, hi + 0.5 * step) {
            hi += 0.5 * step;
        }
        while y - lo < length && shows(solid, x, lo - 0.5 * step) {
            lo -= 0.5 * step;
        }
        y = 0.5 * (lo + hi);
        let p = DVec3::new(x, y, tip.z);
        first.get_or_insert(p);
        last = Some(p);
        x -= side * step;
    }
    (last? - first?).try_normalize()
}
