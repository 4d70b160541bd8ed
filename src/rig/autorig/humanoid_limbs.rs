//! The humanoid's limbs: legs from the horizontal slices below the crotch (hip socket, knee,
//! ankle, ball of the foot; legs that touch split at the notch between them), arms traced from
//! the hands toward the body through cross-sections (wrist at the narrowest section behind the
//! hand), the shoulder inside the torso where the arm's line meets it in the front view, the
//! elbow between. Markers, when given, fix the joint they name (wrist and elbow together need no
//! trace; a knee marker moves the leg's line through it); its depth is the middle of the inside
//! along the front view's ray, taken from the run nearest the limb.

use glam::DVec3;

use super::front_view::{arm_line, junction, shoulder_from_junction};
use super::rows::{leg_pieces, nearest, row_at, Blob};
use super::section::{trace, Trace, TraceSpec};
use super::solid::Solid;
use super::{AutorigError, Frame, Markers};

/// Hip sockets lie this far (share of the height) above the crotch.
pub const HIP_ABOVE_CROTCH: f64 = 0.01;
/// Ankles lie this far above the floor.
const ANKLE_HEIGHT: f64 = 0.045;
/// The knee's place from the hip to the ankle (by height).
const KNEE_AT: f64 = 0.5;
/// The elbow's place from the wrist to the shoulder.
const ELBOW_AT: f64 = 0.42;
/// The wrist is looked for this far from the fingertips (shares of the height).
const WRIST_FROM_TIP: (f64, f64) = (0.065, 0.14);

/// One side's leg joints.
#[derive(Clone, Copy, Debug)]
pub struct Leg {
    /// Hip socket.
    pub hip: DVec3,
    /// Knee.
    pub knee: DVec3,
    /// Ankle.
    pub ankle: DVec3,
    /// Ball of the foot (the toe joint).
    pub ball: DVec3,
    /// Tip of the toes.
    pub tip: DVec3,
}

/// One side's arm joints.
#[derive(Clone, Debug)]
pub struct Arm {
    /// Shoulder.
    pub shoulder: DVec3,
    /// Elbow.
    pub elbow: DVec3,
    /// Wrist.
    pub wrist: DVec3,
    /// Fingertips.
    pub tip: DVec3,
    /// What was estimated rather than found (for the plan's notes).
    pub note: Option<String>,
}

fn side_name(side: f64) -> &'static str {
    if side > 0.0 {
        "left"
    } else {
        "right"
    }
}

fn side_suffix(side: f64) -> &'static str {
    if side > 0.0 {
        "L"
    } else {
        "R"
    }
}

/// The middle of the inside along the front view's ray through (x, y): the middle of the run
/// nearest `near_z` (the run containing it when one does).
pub fn ray_depth(solid: &Solid, x: f64, y: f64, near_z: f64) -> Option<f64> {
    let runs = solid.runs_along_z(x, y);
    let distance = |r: &(f64, f64)| if near_z < r.0 { r.0 - near_z } else { (near_z - r.1).max(0.0) };
    runs.iter().min_by(|a, b| distance(a).total_cmp(&distance(b))).map(|r| 0.5 * (r.0 + r.1))
}

/// A marker's joint: its x and y, the depth from the mesh near `near_z`.
fn marker_joint(solid: &Solid, name: &str, p: DVec3, near_z: f64) -> Result<DVec3, AutorigError> {
    let z = ray_depth(solid, p.x, p.y, near_z).ok_or_else(|| {
        AutorigError::BadMarker(format!("{name} at ({:.3}, {:.3}) is off the character in the front view", p.x, p.y))
    })?;
    Ok(DVec3::new(p.x, p.y, z))
}

/// The crotch height and both legs' blobs row by row (left, right), from the slices.
pub struct LegSlices {
    /// The lowest row where the legs have merged (bind-space y).
    pub crotch_y: f64,
    /// Per side (left, right): `(row, blob)` from the floor up to the crotch.
    pub rows: [Vec<(usize, Blob)>; 2],
}

/// Finds both legs in the slices: a piece on each side of the centre at shin height, followed up
/// to where they merge and down to the floor.
pub fn leg_slices(solid: &Solid, frame: &Frame, markers: &Markers) -> Result<LegSlices, AutorigError> {
    let h = frame.height;
    let cx = markers.get("groin").map_or(frame.centre_x, |g| g.x);
    let spans = |b: &Blob| b.lo.x < cx - 0.02 * h && b.hi.x > cx + 0.02 * h && b.cells > 20;
    let on = |side: f64| move |b: &&Blob| side * (b.centroid.x - cx) > 0.01 * h;
    // The lowest slice (above the soles) where a piece stands on each side and none spans both.
    let first = row_at(solid, frame.floor + 0.03 * h);
    let last = row_at(solid, frame.floor + 0.5 * h);
    let found = (first..=last).map(|r| (r, leg_pieces(solid, r, cx))).find(|(_, pieces)| {
        pieces.iter().any(|b| on(1.0)(&b)) && pieces.iter().any(|b| on(-1.0)(&b)) && !pieces.iter().any(spans)
    });
    let (start, pieces) = match found {
        Some(found) => found,
        None => {
            let (r, pieces) = (first, leg_pieces(solid, first, cx));
            if let Some(b) = pieces.iter().find(|b| spans(b)).filter(|_| markers.get("groin").is_none()) {
                return Err(AutorigError::LimbNotFound {
                    limb: "the legs".into(),
                    why: format!(
                        "one piece spans both sides from the floor up (x {:.3} to {:.3}: a robe or a long coat?); place the groin and knee markers",
                        b.lo.x, b.hi.x
                    ),
                });
            }
            (r, pieces)
        }
    };
    let mut rows: [Vec<(usize, Blob)>; 2] = [Vec::new(), Vec::new()];
    let mut crotch_rows = [usize::MAX; 2];
    for (k, side) in [1.0_f64, -1.0].into_iter().enumerate() {
        // The piece nearest the centre on this side (a hand hanging beside the thigh lies farther out).
        let leg = pieces.iter().filter(on(side)).filter(|b| b.cells >= 4).min_by(|a, b| (side * a.centroid.x).total_cmp(&(side * b.centroid.x))).ok_or_else(|| {
            AutorigError::LimbNotFound {
                limb: format!("the {} leg", side_name(side)),
                why: format!(
                    "nothing stands on the character's {} ({}X) above the floor; the character must stand Y up facing +Z",
                    side_name(side),
                    if side > 0.0 { "+" } else { "−" }
                ),
            }
        })?;
        let mut up = vec![(start, *leg)];
        let mut prev = *leg;
        for row in start + 1..solid.dims[1] {
            let Some(b) = nearest(leg_pieces(solid, row, cx), prev.centroid, 0.05 * h) else { break };
            if b.lo.x < cx && b.hi.x > cx || b.cells > 4 * prev.cells.max(1) {
                crotch_rows[k] = row;
                break;
            }
            up.push((row, b));
            prev = b;
        }
        let mut down = Vec::new();
        let mut prev = *leg;
        for row in (0..start).rev() {
            let Some(b) = nearest(leg_pieces(solid, row, cx), prev.centroid, 0.05 * h) else { break };
            down.push((row, b));
            prev = b;
        }
        down.reverse();
        down.extend(up);
        rows[k] = down;
    }
    let crotch_row = crotch_rows[0].min(crotch_rows[1]);
    let crotch_y = match markers.get("groin") {
        Some(g) => g.y,
        None if crotch_row == usize::MAX => {
            return Err(AutorigError::LimbNotFound {
                limb: "the crotch".into(),
                why: "the legs never meet going up".into(),
            })
        }
        None => solid.centre(0, crotch_row, 0).y - 0.5 * solid.cell,
    };
    let share = (crotch_y - frame.floor) / h;
    if !(0.1..=0.75).contains(&share) {
        return Err(AutorigError::LimbNotFound {
            limb: "the legs".into(),
            why: format!("they meet at {:.0} % of the height (expected 10 to 75 %)", share * 100.0),
        });
    }
    for rows in &mut rows {
        rows.retain(|(_, b)| b.centroid.y < crotch_y);
    }
    Ok(LegSlices { crotch_y, rows })
}

/// The centroid of a leg's blob at height `y` (the nearest row it has).
fn leg_at(rows: &[(usize, Blob)], y: f64) -> Option<DVec3> {
    rows.iter().min_by(|a, b| (a.1.centroid.y - y).abs().total_cmp(&(b.1.centroid.y - y).abs())).map(|r| r.1.centroid)
}

/// One leg's joints from its slices (`k` 0 left, 1 right).
pub fn leg(solid: &Solid, frame: &Frame, slices: &LegSlices, k: usize, markers: &Markers) -> Result<Leg, AutorigError> {
    let h = frame.height;
    let side = if k == 0 { 1.0 } else { -1.0 };
    let rows = &slices.rows[k];
    let limb = || format!("the {} leg", side_name(side));
    let missing = |what: &str| AutorigError::LimbNotFound { limb: limb(), why: format!("no slice {what}") };
    let top = leg_at(rows, slices.crotch_y - 0.03 * h).ok_or_else(|| missing("below the crotch"))?;
    let mut hip = DVec3::new(top.x, slices.crotch_y + HIP_ABOVE_CROTCH * h, top.z);
    let ankle_y = frame.floor + ANKLE_HEIGHT * h;
    let shin = leg_at(rows, ankle_y + 0.05 * h).ok_or_else(|| missing("above the ankle"))?;
    let mut ankle = DVec3::new(shin.x, ankle_y, shin.z);
    let cx = markers.get("groin").map_or(frame.centre_x, |g| g.x);
    let knee = match markers.side(&format!("knee.{}", side_suffix(side)), cx) {
        Some(m) => {
            let centre = leg_at(rows, m.y);
            let knee = marker_joint(solid, &format!("knee.{}", side_suffix(side)), m, centre.map_or(hip.z, |c| c.z))?;
            // The marker is a hard constraint: the leg's line moves sideways to pass through it.
            let dx = centre.map_or(0.0, |c| knee.x - c.x);
            hip.x += dx;
            ankle.x += dx;
            knee
        }
        None => {
            let y = ankle.y + KNEE_AT * (hip.y - ankle.y);
            let c = leg_at(rows, y).ok_or_else(|| missing("at the knee"))?;
            DVec3::new(c.x, y, c.z)
        }
    };
    // The foot: the rows below the ankle, from heel to toe tip.
    let foot: Vec<&Blob> = rows.iter().filter(|(_, b)| b.centroid.y <= ankle_y).map(|(_, b)| b).collect();
    let (heel, tip_z) =
        foot.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), b| (lo.min(b.lo.z), hi.max(b.hi.z)));
    if !heel.is_finite() {
        return Err(missing("at the foot"));
    }
    if tip_z - ankle.z < ankle.z - heel {
        return Err(AutorigError::NotUpright(format!(
            "the character seems to face −Z (its {} foot points back); turn it 180° about Y to face +Z",
            side_name(side)
        )));
    }
    let tip_x = foot.iter().max_by(|a, b| a.hi.z.total_cmp(&b.hi.z)).map_or(ankle.x, |b| b.centroid.x);
    let ball_z = heel + 0.72 * (tip_z - heel);
    let toe_y = frame.floor + 0.025 * h;
    let ball = DVec3::new(ankle.x + 0.7 * (tip_x - ankle.x), toe_y, ball_z);
    let tip = DVec3::new(tip_x, toe_y, tip_z);
    Ok(Leg { hip, knee, ankle, ball, tip })
}

/// The inside point farthest toward `side` (+1 left, −1 right) above `above_y`.
fn extreme_x(solid: &Solid, side: f64, above_y: f64) -> Option<DVec3> {
    solid.points().filter(|p| p.y > above_y).max_by(|a, b| (side * a.x).total_cmp(&(side * b.x)))
}

/// The trace's point of smallest section between arc lengths `from` and `to`: the smallest of
/// the local minima there (where the section narrows and widens again, or stays within 5 %),
/// else the smallest.
fn narrowest(t: &Trace, from: f64, to: f64) -> Option<DVec3> {
    let lengths = t.lengths();
    let a = &t.areas;
    let within: Vec<usize> = (0..t.centres.len()).filter(|&k| lengths[k] >= from && lengths[k] <= to).collect();
    let local = |k: &usize| *k > 0 && *k + 1 < a.len() && a[*k] <= a[*k - 1] && a[*k] <= 1.05 * a[*k + 1];
    let smallest = |ks: &mut dyn Iterator<Item = usize>| ks.min_by(|&x, &y| a[x].total_cmp(&a[y]));
    smallest(&mut within.iter().copied().filter(local))
        .or_else(|| smallest(&mut within.iter().copied()))
        .map(|k| t.centres[k])
}

/// One arm (`side` +1 left, −1 right) traced from the hand (or the wrist marker) to the torso.
pub fn arm(solid: &Solid, frame: &Frame, side: f64, crotch_y: f64, markers: &Markers) -> Result<Arm, AutorigError> {
    let h = frame.height;
    let cx = markers.get("groin").map_or(frame.centre_x, |g| g.x);
    let limb = format!("the {} arm", side_name(side));
    let suffix = side_suffix(side);
    let tip = extreme_x(solid, side, crotch_y + 0.1 * h).filter(|p| side * (p.x - cx) > 0.2 * h).ok_or_else(|| {
        AutorigError::LimbNotFound {
            limb: limb.clone(),
            why: format!(
                "nothing reaches out to the {} above the hips; the arms must be in a T- or A-pose",
                side_name(side)
            ),
        }
    })?;
    let wrist_marker = markers.side(&format!("wrist.{suffix}"), cx);
    let elbow_marker = markers.side(&format!("elbow.{suffix}"), cx);
    if let (Some(w), Some(e)) = (wrist_marker, elbow_marker) {
        let elbow = marker_joint(solid, &format!("elbow.{suffix}"), e, 0.5 * (frame.lo.z + frame.hi.z))?;
        let mut wrist = marker_joint(solid, &format!("wrist.{suffix}"), w, elbow.z)?;
        wrist.z = in_line_depth(solid, wrist, elbow);
        return Ok(arm_from_markers(solid, frame, side, cx, [wrist, elbow, tip]));
    }
    // The trace starts along the arm's line in the front view (a fixed aim misses the arms of
    // characters whose shoulders sit far from the usual share of the height).
    let line = arm_line(solid, tip, side, WRIST_FROM_TIP.1 * h).unwrap_or(DVec3::X * -side);
    let start = match wrist_marker {
        Some(w) => marker_joint(solid, &format!("wrist.{suffix}"), w, tip.z)?,
        None => tip + line * solid.cell,
    };
    let settle = if wrist_marker.is_some() { 2 } else { (WRIST_FROM_TIP.1 * h / (0.01 * h)).ceil() as usize };
    let spec = TraceSpec {
        start,
        direction: line,
        step: 0.01 * h,
        radius: 0.09 * h,
        max_length: 0.7 * h,
        growth: 2.5,
        settle,
    };
    let t = trace(solid, &spec);
    let wrist = match wrist_marker {
        Some(_) => start,
        None => {
            narrowest(&t, WRIST_FROM_TIP.0 * h, WRIST_FROM_TIP.1 * h).ok_or_else(|| AutorigError::LimbNotFound {
                limb: limb.clone(),
                why: "its trace from the hand lost the mesh within a hand's length".into(),
            })?
        }
    };
    let last = t.centres.last().copied().filter(|c| (*c - wrist).length() > 2.0 * solid.cell);
    let inward = last.map_or(line, |c| DVec3::new(c.x - wrist.x, c.y - wrist.y, 0.0).normalize_or(line));
    let meets = junction(solid, wrist, inward, cx, h).ok_or_else(|| AutorigError::LimbNotFound {
        limb: limb.clone(),
        why: "its line from the hand never meets the torso in the front view".into(),
    })?;
    let shoulder_z = ray_depth(solid, meets.x, meets.y, wrist.z).unwrap_or(wrist.z);
    let shoulder = shoulder_from_junction(meets, inward, cx, shoulder_z);
    let elbow = match elbow_marker {
        Some(e) => marker_joint(solid, &format!("elbow.{suffix}"), e, 0.5 * (wrist.z + shoulder.z))?,
        None => {
            let p = wrist.lerp(shoulder, ELBOW_AT);
            DVec3::new(p.x, p.y, ray_depth(solid, p.x, p.y, p.z).unwrap_or(p.z))
        }
    };
    Ok(Arm { shoulder, elbow, wrist, tip, note: None })
}

/// The wrist's depth when its front-view ray also runs through a prop held in the hand (a sword
/// along z): the run through the wrist is then much longer than the elbow's, and the wrist is
/// kept level with the elbow inside it.
fn in_line_depth(solid: &Solid, wrist: DVec3, elbow: DVec3) -> f64 {
    let run_of = |p: DVec3| {
        solid.runs_along_z(p.x, p.y).into_iter().find(|r| r.0 <= p.z + solid.cell && p.z - solid.cell <= r.1)
    };
    match (run_of(wrist), run_of(elbow)) {
        (Some(w), Some(e)) if w.1 - w.0 > 2.0 * (e.1 - e.0) => {
            let half = 0.5 * (e.1 - e.0);
            elbow.z.clamp(w.0 + half, (w.1 - half).max(w.0 + half))
        }
        _ => wrist.z,
    }
}

/// The shoulder of an arm whose wrist and elbow are pinned by markers: the forearm is not
/// traced; the forearm's line is followed from the elbow in the front view until it enters the
/// torso (`front_view.rs`). Where it finds no torso, the upper arm is taken as long as the
/// forearm and the plan says so.
fn arm_from_markers(solid: &Solid, frame: &Frame, side: f64, cx: f64, [wrist, elbow, tip]: [DVec3; 3]) -> Arm {
    let h = frame.height;
    let fore = elbow - wrist;
    let inward = DVec3::new(fore.x, fore.y, 0.0).normalize_or(DVec3::X * -side);
    let found = junction(solid, elbow, inward, cx, h).map(|j| {
        let z = ray_depth(solid, j.x, j.y, elbow.z).unwrap_or(elbow.z);
        shoulder_from_junction(j, inward, cx, z)
    });
    let (mut shoulder, mut note) = match found {
        Some(s) => (s, None),
        None => (
            elbow + fore,
            Some(format!(
                "the {} arm never meets the torso in the front view: shoulder placed one forearm's length beyond the elbow",
                side_name(side)
            )),
        ),
    };
    // A shoulder never crosses the centre line.
    if side * (shoulder.x - cx) < 0.02 * h {
        shoulder.x = cx + side * 0.02 * h;
        note.get_or_insert_with(|| format!("the {} shoulder was held off the centre line", side_name(side)));
    }
    Arm { shoulder, elbow, wrist, tip, note }
}
