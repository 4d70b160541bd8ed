//! FABRIK (Aristidou & Lasenby 2011, "FABRIK: a fast, iterative solver for the inverse kinematics
//! problem") on world joint positions: alternate passes from the end (placed on the target) and
//! from the root (put back), each joint kept at its bone length from its neighbour. An
//! unreachable target stretches the chain straight toward it (the nearest pose); a chain lying
//! on one line is bent slightly toward `bend` first, as a straight chain cannot fold otherwise.

use glam::DVec3;

use super::geometry::{perpendicular_part, unit_or};

/// How a FABRIK solve ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FabrikReport {
    /// Forward-and-backward iterations run.
    pub iterations: usize,
    /// Distance from the end joint to the target at the end.
    pub distance: f64,
}

/// Moves `points` (root first, end last; the root stays) so that the end reaches `target` within
/// `tolerance`, in at most `max_iterations` iterations. `bend` is the preferred bending direction
/// for a straight chain.
pub fn fabrik(points: &mut [DVec3], target: DVec3, bend: DVec3, tolerance: f64, max_iterations: usize) -> FabrikReport {
    let n = points.len();
    if n < 2 {
        return FabrikReport { iterations: 0, distance: points.first().map_or(0.0, |p| p.distance(target)) };
    }
    let lengths: Vec<f64> = points.windows(2).map(|w| w[1].distance(w[0])).collect();
    let total: f64 = lengths.iter().sum();
    let root = points[0];
    let reach = target - root;
    if reach.length() >= total {
        // Out of reach: the straight chain toward the target is the nearest pose.
        let dir = unit_or(reach, unit_or(points[n - 1] - root, DVec3::Y));
        let mut along = 0.0;
        for (i, len) in lengths.iter().enumerate() {
            along += len;
            points[i + 1] = root + along * dir;
        }
        return FabrikReport { iterations: 0, distance: points[n - 1].distance(target) };
    }
    bend_if_straight(points, &lengths, target, bend);
    let mut iterations = 0;
    let mut distance = points[n - 1].distance(target);
    while distance > tolerance && iterations < max_iterations {
        // Backward: end on the target, each joint pulled to its bone length from the next.
        points[n - 1] = target;
        for i in (0..n - 1).rev() {
            let fallback = unit_or(points[i] - points[i + 1].lerp(root, 0.5), DVec3::Y);
            let dir = unit_or(points[i] - points[i + 1], fallback);
            points[i] = points[i + 1] + lengths[i] * dir;
        }
        // Forward: the root back in place, each joint pushed to its bone length from the previous.
        points[0] = root;
        for i in 0..n - 1 {
            let fallback = unit_or(target - points[i], DVec3::Y);
            let dir = unit_or(points[i + 1] - points[i], fallback);
            points[i + 1] = points[i] + lengths[i] * dir;
        }
        iterations += 1;
        distance = points[n - 1].distance(target);
    }
    FabrikReport { iterations, distance }
}

/// Bends a chain whose joints all lie on one line (within 1e-6 of its length), so that passes
/// along that line can fold it: interior joints move off the line toward `bend` by a small arc.
fn bend_if_straight(points: &mut [DVec3], lengths: &[f64], target: DVec3, bend: DVec3) {
    let n = points.len();
    let total: f64 = lengths.iter().sum();
    let root = points[0];
    let axis = unit_or(points[n - 1] - root, unit_or(target - root, DVec3::Y));
    let off_line = points.iter().map(|p| (*p - root - (*p - root).dot(axis) * axis).length()).fold(0.0, f64::max);
    if n < 3 || off_line > 1e-6 * total {
        return;
    }
    let side = perpendicular_part(bend, axis).unwrap_or_else(|| axis.any_orthonormal_vector());
    // Turn each bone by a small angle away from the line: a shallow arc bulging toward `side`.
    let step = 0.2 / (n - 1) as f64;
    let mut angle: f64 = 0.1;
    for i in 0..n - 1 {
        let dir = (angle.cos() * axis + angle.sin() * side).normalize();
        points[i + 1] = points[i] + lengths[i] * dir;
        angle -= step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_chain_folds_to_a_near_target() {
        let mut points: Vec<DVec3> = (0..5).map(|i| DVec3::new(f64::from(i), 0.0, 0.0)).collect();
        let target = DVec3::new(1.5, 0.0, 0.0);
        let r = fabrik(&mut points, target, DVec3::Y, 1e-9, 500);
        assert!(r.distance < 1e-9, "{r:?}");
        assert!(points.iter().all(|p| p.is_finite()));
        assert_eq!(points[0], DVec3::ZERO);
    }
}
