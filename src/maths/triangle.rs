//! Closest point of a triangle to a point (Ericson, Real-Time Collision Detection 5.1.5), shared
//! by the bone-visibility BVH, weight transfer and the mirror's closest-point match.

use glam::DVec3;

/// Closest point of triangle (a, b, c) to p, as barycentric weights (Ericson, Real-Time Collision
/// Detection 5.1.5); a corner equal to `p` gives exactly 1 on that corner.
#[must_use]
pub fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> [f64; 3] {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return [1.0 - v, v, 0.0];
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return [1.0 - w, 0.0, w];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - w, w];
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    if !(v.is_finite() && w.is_finite()) {
        return [1.0, 0.0, 0.0];
    }
    [1.0 - v - w, v, w]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_point_regions() {
        let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
        assert_eq!(closest_on_triangle(DVec3::new(-1.0, -1.0, 0.0), a, b, c), [1.0, 0.0, 0.0]);
        assert_eq!(closest_on_triangle(DVec3::new(2.0, 0.0, 1.0), a, b, c), [0.0, 1.0, 0.0]);
        let e = closest_on_triangle(DVec3::new(0.5, -1.0, 0.0), a, b, c);
        assert!((e[0] - 0.5).abs() < 1e-12 && (e[1] - 0.5).abs() < 1e-12 && e[2] == 0.0);
        let inside = closest_on_triangle(DVec3::new(0.25, 0.25, 3.0), a, b, c);
        assert!(
            (inside[0] - 0.5).abs() < 1e-12 && (inside[1] - 0.25).abs() < 1e-12 && (inside[2] - 0.25).abs() < 1e-12
        );
    }
}
