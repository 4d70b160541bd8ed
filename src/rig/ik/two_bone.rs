//! The analytic two-bone solver (Maya's RP solver, Blender's two-bone IK) on world positions:
//! the root stays, the end goes to the target or, when the target lies outside the reachable
//! shell `|a − b| ≤ r ≤ a + b`, to the shell point nearest the target; the middle joint lies in
//! the plane through the root, the target and the pole direction, on the pole's side.

use glam::DVec3;

use super::geometry::{perpendicular_part, unit_or};

/// World positions of the root, middle and end joints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBone {
    /// The chain's root (stays put).
    pub root: DVec3,
    /// The middle joint (knee, elbow).
    pub mid: DVec3,
    /// The end joint (foot, hand).
    pub end: DVec3,
}

/// Solves for new middle and end positions. `pole` is a direction from the root toward which the
/// middle joint bends; `fallback_bend` is used where the pole lies along the root-target line.
/// Never produces NaN: a target at the root keeps the current root-to-end direction.
#[must_use]
pub fn solve_two_bone(chain: TwoBone, target: DVec3, pole: DVec3, fallback_bend: DVec3) -> TwoBone {
    let a = chain.mid.distance(chain.root);
    let b = chain.end.distance(chain.mid);
    let to_target = target - chain.root;
    let current_reach = unit_or(chain.end - chain.root, unit_or(chain.mid - chain.root, DVec3::Y));
    let dir = unit_or(to_target, current_reach);
    let d = to_target.length().clamp((a - b).abs(), a + b);
    // Law of cosines for the angle at the root between the reach and the first bone.
    let cos_root = if a > 0.0 && d > 0.0 { ((a * a + d * d - b * b) / (2.0 * a * d)).clamp(-1.0, 1.0) } else { 1.0 };
    let sin_root = (1.0 - cos_root * cos_root).max(0.0).sqrt();
    let bend = perpendicular_part(pole, dir)
        .or_else(|| perpendicular_part(fallback_bend, dir))
        .unwrap_or_else(|| dir.any_orthonormal_vector());
    let mid = chain.root + a * (cos_root * dir + sin_root * bend);
    TwoBone { root: chain.root, mid, end: chain.root + d * dir }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn right_angle_elbow() {
        let chain = TwoBone { root: DVec3::ZERO, mid: DVec3::X, end: DVec3::new(2.0, 0.0, 0.0) };
        let target = DVec3::new(1.0, 1.0, 0.0);
        let s = solve_two_bone(chain, target, DVec3::new(1.0, -1.0, 0.0), DVec3::Z);
        assert!(s.end.distance(target) < 1e-12);
        assert!(s.mid.distance(DVec3::X) < 1e-12, "{}", s.mid);
    }
}
