//! Cross-sections of the solid and limbs traced through them: a plane's inside samples around a
//! point (their centre and area), and a limb followed from its tip toward the body, one section
//! every step, the direction following the sections' centres, until the section grows into the
//! body.

use glam::DVec3;

use super::solid::Solid;

/// One cross-section.
#[derive(Clone, Copy, Debug)]
pub struct Section {
    /// The centroid of the inside samples (bind space).
    pub centre: DVec3,
    /// Their area.
    pub area: f64,
    /// Whether inside samples reach the sampled disk's rim (the section is wider than the disk).
    pub at_rim: bool,
}

/// The section of `solid` in the plane through `at` normal to `normal`: the inside samples within
/// `radius` of `at` that are connected (in the plane) to the inside sample nearest `at`. `None`
/// when no sample within half the radius is inside.
#[must_use]
pub fn section(solid: &Solid, at: DVec3, normal: DVec3, radius: f64) -> Option<Section> {
    let n = normal.try_normalize()?;
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    let step = solid.cell * 0.75;
    let m = (radius / step).ceil() as i64;
    let side = (2 * m + 1) as usize;
    let idx = |i: i64, j: i64| ((j + m) as usize) * side + (i + m) as usize;
    let point = |i: i64, j: i64| at + u * (i as f64 * step) + v * (j as f64 * step);
    let mut inside = vec![false; side * side];
    let mut seed: Option<(i64, i64, i64)> = None;
    for j in -m..=m {
        for i in -m..=m {
            let d2 = i * i + j * j;
            if (d2 as f64) * step * step <= radius * radius && solid.contains(point(i, j)) {
                inside[idx(i, j)] = true;
                if (d2 as f64) * step * step <= 0.25 * radius * radius && seed.is_none_or(|s| d2 < s.2) {
                    seed = Some((i, j, d2));
                }
            }
        }
    }
    let (si, sj, _) = seed?;
    let mut seen = vec![false; side * side];
    let mut stack = vec![(si, sj)];
    seen[idx(si, sj)] = true;
    let (mut sum, mut count, mut at_rim) = (DVec3::ZERO, 0usize, false);
    let rim = (radius - 1.5 * step).max(0.0);
    while let Some((i, j)) = stack.pop() {
        sum += point(i, j);
        count += 1;
        if ((i * i + j * j) as f64).sqrt() * step >= rim {
            at_rim = true;
        }
        for (a, b) in [(i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)] {
            if a.abs() <= m && b.abs() <= m && inside[idx(a, b)] && !seen[idx(a, b)] {
                seen[idx(a, b)] = true;
                stack.push((a, b));
            }
        }
    }
    Some(Section { centre: sum / count as f64, area: count as f64 * step * step, at_rim })
}

/// A limb followed from its tip: the sections' centres from the tip inward.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Section centres, tip first.
    pub centres: Vec<DVec3>,
    /// Section areas, alike.
    pub areas: Vec<f64>,
    /// Whether the trace ended by growing into the body (else it ran out of mesh or length).
    pub reached_body: bool,
}

impl Trace {
    /// The arc length from the first centre to each centre.
    #[must_use]
    pub fn lengths(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.centres.len());
        let mut total = 0.0;
        for (k, c) in self.centres.iter().enumerate() {
            if k > 0 {
                total += (*c - self.centres[k - 1]).length();
            }
            out.push(total);
        }
        out
    }

    /// The point at arc length `s` from the first centre (clamped to the ends).
    #[must_use]
    pub fn at_length(&self, s: f64) -> DVec3 {
        let lengths = self.lengths();
        for k in 1..self.centres.len() {
            if lengths[k] >= s {
                let span = (lengths[k] - lengths[k - 1]).max(f64::MIN_POSITIVE);
                let t = ((s - lengths[k - 1]) / span).clamp(0.0, 1.0);
                return self.centres[k - 1].lerp(self.centres[k], t);
            }
        }
        self.centres.last().copied().unwrap_or(DVec3::ZERO)
    }

    /// The total arc length.
    #[must_use]
    pub fn length(&self) -> f64 {
        self.lengths().last().copied().unwrap_or(0.0)
    }
}

/// How a limb is traced.
#[derive(Clone, Copy, Debug)]
pub struct TraceSpec {
    /// Where to start (near the tip, inside or at the surface).
    pub start: DVec3,
    /// The first direction (toward the body).
    pub direction: DVec3,
    /// Distance between sections.
    pub step: f64,
    /// The sampled disk's radius.
    pub radius: f64,
    /// The longest trace.
    pub max_length: f64,
    /// Sections whose area exceeds this many times the median of those so far end the trace
    /// (the plane has entered the body); they are not kept.
    pub growth: f64,
    /// The first sections not tested for growth (a hand or a foot wider than the limb).
    pub settle: usize,
}

/// Follows a limb (see [`TraceSpec`]).
#[must_use]
pub fn trace(solid: &Solid, spec: &TraceSpec) -> Trace {
    let mut out = Trace::default();
    let Some(mut dir) = spec.direction.try_normalize() else {
        return out;
    };
    let mut at = spec.start;
    let mut travelled = 0.0;
    while travelled <= spec.max_length {
        let Some(s) = section(solid, at, dir, spec.radius) else {
            break;
        };
        let mut sorted = out.areas.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(s.area);
        if out.centres.len() >= spec.settle && (s.at_rim || s.area > spec.growth * median) {
            out.reached_body = true;
            break;
        }
        out.centres.push(s.centre);
        out.areas.push(s.area);
        let k = out.centres.len();
        if k >= 4 {
            if let Some(d) = (out.centres[k - 1] - out.centres[k - 4]).try_normalize() {
                dir = (dir * 0.5 + d * 0.5).normalize_or(dir);
            }
        }
        at = s.centre + dir * spec.step;
        travelled += spec.step;
    }
    out
}
