//! Isolines of a weight over a triangle mesh: where the weight, interpolated linearly across each
//! triangle from its vertices (as the GPU blends the vertex colours), equals a level. Each triangle
//! the level crosses gives one segment between two of its edges (marching triangles); a vertex
//! exactly at the level counts as above it, so a line never doubles at a shared vertex.

use glam::Vec3;

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
}
