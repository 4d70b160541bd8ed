//! Small vector helpers for the IK solvers that never divide by zero.

use glam::DVec3;

/// Lengths below this (relative to nothing: model units) count as zero directions.
pub const TINY: f64 = 1e-12;

/// `v` normalised, or `fallback` when `v` is (nearly) zero or not finite.
#[must_use]
pub fn unit_or(v: DVec3, fallback: DVec3) -> DVec3 {
    let len = v.length();
    if len > TINY && len.is_finite() {
        v / len
    } else {
        fallback
    }
}

/// The unit part of `v` perpendicular to the unit vector `axis`, or `None` when `v` is (nearly)
/// parallel to it.
#[must_use]
pub fn perpendicular_part(v: DVec3, axis: DVec3) -> Option<DVec3> {
    let p = v - v.dot(axis) * axis;
    let len = p.length();
    (len > 1e-9 * v.length().max(TINY) && len.is_finite()).then(|| p / len)
}
