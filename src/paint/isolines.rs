//! Isolines of a weight over a triangle mesh: where the weight, interpolated linearly across each
//! triangle from its vertices (as the GPU blends the vertex colours), equals a level. Each triangle
//! the level crosses gives one segment between two of its edges (marching triangles); a vertex
//! exactly at the level counts as above it, so a line never doubles at a shared vertex.
//! [`retain_visible`] then drops the segments another surface hides (the picker's rays stand in
//! for the depth test, so nothing is read back from the GPU).

use glam::Vec3;

use super::pick::Ray;

/// How far in front of a segment (a share of its distance from the eye) a surface must lie to
/// hide it: less is the segment's own triangle or a neighbour met at its shared edge.
pub const HIDDEN_GAP: f32 = 2e-3;

/// Keeps the segments whose midpoint no surface hides: the ray from `eye(midpoint)` to the
/// midpoint (parameter 1 there) is given to `first_hit`, the ray parameter of the nearest surface
/// along it (a picker over the whole deformed model); a surface met before `1 - HIDDEN_GAP`
/// hides the segment. `eye` gives the eye for a point (the camera's eye in perspective, a point
/// far back along the view direction in an orthographic view).
pub fn retain_visible(
    segments: &mut Vec<[Vec3; 2]>,
    eye: impl Fn(Vec3) -> Vec3,
    mut first_hit: impl FnMut(&Ray) -> Option<f32>,
) {
    segments.retain(|[a, b]| {
        let mid = (*a + *b) * 0.5;
        let origin = eye(mid);
        let ray = Ray { origin, direction: mid - origin };
        first_hit(&ray).is_none_or(|t| t >= 1.0 - HIDDEN_GAP)
    });
}

/// Appends to `out` the segments where `weights` (one per vertex) cross `level` on `triangles`
/// over `positions`; with `eye`, only on triangles whose front (counter-clockwise) side faces it.
pub fn crossings(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    weights: &[f32],
    level: f32,
    eye: Option<Vec3>,
    out: &mut Vec<[Vec3; 2]>,
) {
    for t in triangles {
        let [a, b, c] = t.map(|i| i as usize);
        let (Some(&pa), Some(&pb), Some(&pc)) = (positions.get(a), positions.get(b), positions.get(c)) else {
            continue;
        };
        let (Some(&wa), Some(&wb), Some(&wc)) = (weights.get(a), weights.get(b), weights.get(c)) else { continue };
        let above = [wa >= level, wb >= level, wc >= level];
        if above[0] == above[1] && above[1] == above[2] {
            continue;
        }
        if let Some(eye) = eye {
            if (pb - pa).cross(pc - pa).dot(eye - pa) <= 0.0 {
                continue;
            }
        }
        let corners = [(pa, wa), (pb, wb), (pc, wc)];
        let mut ends = [Vec3::ZERO; 2];
        let mut n = 0;
        for (i, j) in [(0, 1), (1, 2), (2, 0)] {
            if above[i] != above[j] && n < 2 {
                let ((p, w), (q, v)) = (corners[i], corners[j]);
                let s = if v == w { 0.5 } else { ((level - w) / (v - w)).clamp(0.0, 1.0) };
                ends[n] = p + (q - p) * s;
                n += 1;
            }
        }
        if n == 2 {
            out.push(ends);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_crosses_a_triangle_once_where_the_weight_equals_it() {
        // Weight 0 at the origin, 1 at x = 2 and at y = 2: the 0.5 line joins (1, 0) and (0, 1).
        let positions = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)];
        let triangles = [[0, 1, 2]];
        let weights = [0.0, 1.0, 1.0];
        let mut out = Vec::new();
        crossings(&positions, &triangles, &weights, 0.5, None, &mut out);
        assert_eq!(out.len(), 1);
        let mut ends = out[0];
        ends.sort_by(|p, q| p.x.total_cmp(&q.x));
        assert!(ends[0].distance(Vec3::new(0.0, 1.0, 0.0)) < 1e-6 && ends[1].distance(Vec3::new(1.0, 0.0, 0.0)) < 1e-6);
        // A level nothing reaches gives no line; the back of the triangle shows none.
        out.clear();
        crossings(&positions, &triangles, &weights, 1.5, None, &mut out);
        assert!(out.is_empty());
        crossings(&positions, &triangles, &weights, 0.25, Some(Vec3::new(0.0, 0.0, -5.0)), &mut out);
        assert!(out.is_empty(), "seen from behind");
        crossings(&positions, &triangles, &weights, 0.25, Some(Vec3::new(0.0, 0.0, 5.0)), &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn a_line_through_a_strip_is_continuous() {
        // Two triangles sharing an edge, the weight rising along x: one segment each, meeting.
        let positions = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
        let triangles = [[0, 1, 2], [0, 2, 3]];
        let weights = [0.0, 1.0, 1.0, 0.0];
        let mut out = Vec::new();
        crossings(&positions, &triangles, &weights, 0.3, None, &mut out);
        assert_eq!(out.len(), 2);
        for s in &out {
            assert!(s.iter().all(|p| (p.x - 0.3).abs() < 1e-6), "on x = 0.3: {s:?}");
        }
        let shared = out[0].iter().any(|p| out[1].iter().any(|q| p.distance(*q) < 1e-6));
        assert!(shared, "the segments meet on the shared edge");
    }

    #[test]
    fn a_segment_behind_another_surface_is_dropped() {
        // The 0.5 line of a sheet at z = 0 (weight rising along x), and a second sheet at z = 1
        // covering y > 0 only: seen from z = 5, the line's upper half is hidden.
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        let mut weights = Vec::new();
        let n = 8;
        for (z, y0, y1) in [(0.0, -1.0, 1.0), (1.0, 0.0, 2.0)] {
            let first = positions.len() as u32;
            for r in 0..=n {
                for c in 0..=n {
                    let (u, v) = (c as f32 / n as f32, r as f32 / n as f32);
                    positions.push(Vec3::new(-1.0 + 2.0 * u, y0 + (y1 - y0) * v, z));
                    weights.push(if z == 0.0 { u } else { 0.0 });
                }
            }
            let at = |r: u32, c: u32| first + r * (n + 1) + c;
            for r in 0..n {
                for c in 0..n {
                    triangles.push([at(r, c), at(r, c + 1), at(r + 1, c + 1)]);
                    triangles.push([at(r, c), at(r + 1, c + 1), at(r + 1, c)]);
                }
            }
        }
        let eye = Vec3::new(0.0, 0.0, 5.0);
        let mut segments = Vec::new();
        crossings(&positions, &triangles, &weights, 0.5, Some(eye), &mut segments);
        let before = segments.len();
        assert!(before >= 2 * n as usize, "the line runs the sheet's height: {before}");
        let first_hit = |ray: &Ray| crate::paint::pick(ray, &positions, &triangles).map(|h| h.t);
        retain_visible(&mut segments, |_| eye, first_hit);
        assert!(!segments.is_empty() && segments.len() < before, "{} of {before} kept", segments.len());
        for [a, b] in &segments {
            // Seen from the eye, the cover's lower edge (y = 0 at z = 1) hides y > 0 · 4/5 at z = 0.
            assert!((a.y + b.y) * 0.5 < 0.0, "a hidden segment was kept: {a} {b}");
        }
        // Nothing in front: every segment stays.
        let mut all = Vec::new();
        crossings(&positions, &triangles, &weights, 0.5, Some(eye), &mut all);
        let sheet = &triangles[..2 * (n * n) as usize];
        retain_visible(&mut all, |_| eye, |ray| crate::paint::pick(ray, &positions, sheet).map(|h| h.t));
        assert_eq!(all.len(), before);
    }
}
