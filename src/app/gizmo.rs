//! The rotation gizmo: three rings about the world X, Y and Z axes through the selected joint and
//! a trackball disc around them, drawn with egui over the viewport and hit-tested on the CPU.
//! Dragging a ring rotates about its axis by the angle swept around the joint on screen; dragging
//! inside the disc rotates about the screen axis perpendicular to the drag. The result is turned
//! into the joint's local rotation, always from the rotation at the start of the drag.

use glam::{DQuat, DVec3, Vec2, Vec3};

use crate::render::OrbitCamera;

/// Ring radius on screen, pixels.
pub const RADIUS_PX: f32 = 70.0;
/// How close (pixels) the pointer must be to a ring to grab it.
pub const GRAB_PX: f32 = 9.0;

/// What a drag grabbed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// The ring about world axis 0 (X), 1 (Y) or 2 (Z).
    Axis(usize),
    /// The trackball disc.
    Trackball,
}

/// The gizmo's screen geometry for one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Gizmo {
    /// The joint's position on screen (panel pixels).
    pub centre: Vec2,
    /// Each ring as a closed polyline in panel pixels, with whether each point faces the viewer.
    pub rings: [Vec<(Vec2, bool)>; 3],
}

/// A world axis.
#[must_use]
pub fn axis(i: usize) -> Vec3 {
    match i {
        0 => Vec3::X,
        1 => Vec3::Y,
        _ => Vec3::Z,
    }
}

impl Gizmo {
    /// Lays the gizmo out around `joint` (model space) seen by `camera` in a panel of `size` px.
    #[must_use]
    pub fn new(camera: &OrbitCamera, joint: Vec3, size: Vec2) -> Option<Self> {
        let centre = camera.project(joint, size)?;
        let depth = (joint - camera.eye()).length().max(1e-6);
        let world_per_px = 2.0 * depth * (camera.fov_y_rad * 0.5).tan() / size.y.max(1.0);
        let r = RADIUS_PX * world_per_px;
        let to_eye = (camera.eye() - joint).normalize_or_zero();
        let ring = |i: usize| {
            let a = axis(i);
            let u = a.any_orthonormal_vector();
            let v = a.cross(u);
            (0..=64)
                .filter_map(|k| {
                    let t = k as f32 / 64.0 * std::f32::consts::TAU;
                    let d = u * t.cos() + v * t.sin();
                    camera.project(joint + d * r, size).map(|p| (p, d.dot(to_eye) >= -0.05))
                })
                .collect::<Vec<_>>()
        };
        Some(Self { centre, rings: [ring(0), ring(1), ring(2)] })
    }

    /// The handle under the pointer `p` (panel pixels), preferring rings over the disc.
    #[must_use]
    pub fn hit(&self, p: Vec2) -> Option<Handle> {
        let mut best: Option<(f32, usize)> = None;
        for (i, ring) in self.rings.iter().enumerate() {
            for w in ring.windows(2) {
                let ((a, fa), (b, fb)) = (w[0], w[1]);
                if !(fa || fb) {
                    continue;
                }
                let d = distance_to_segment(p, a, b);
                if d < GRAB_PX && best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, i));
                }
            }
        }
        if let Some((_, i)) = best {
            return Some(Handle::Axis(i));
        }
        ((p - self.centre).length() <= RADIUS_PX * 1.1).then_some(Handle::Trackball)
    }
}

fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    (a + ab * t).distance(p)
}

/// The world-space rotation a drag from `start` to `now` (panel pixels) applies with `handle`.
#[must_use]
pub fn drag_rotation(handle: Handle, camera: &OrbitCamera, centre: Vec2, start: Vec2, now: Vec2) -> DQuat {
    match handle {
        Handle::Axis(i) => {
            let (a0, a1) = ((start - centre), (now - centre));
            if a0.length() < 1.0 || a1.length() < 1.0 {
                return DQuat::IDENTITY;
            }
            let swept = a0.perp_dot(a1).atan2(a0.dot(a1));
            let ax = axis(i);
            let facing = if ax.dot(camera.back()) >= 0.0 { 1.0 } else { -1.0 };
            DQuat::from_axis_angle(ax.as_dvec3(), f64::from(-swept * facing))
        }
        Handle::Trackball => {
            let d = now - start;
            let (right, up) = camera.right_up();
            let ax = (up * d.x + right * d.y).normalize_or_zero();
            if ax == Vec3::ZERO {
                return DQuat::IDENTITY;
            }
            DQuat::from_axis_angle(ax.as_dvec3(), f64::from(d.length() * 0.01))
        }
    }
}

/// The local rotation that applies `world_delta` (about the joint) to a joint whose parent has
/// world rotation `parent` and whose local rotation was `local`.
#[must_use]
pub fn local_after(parent: DQuat, world_delta: DQuat, local: DQuat) -> DQuat {
    (parent.inverse() * world_delta * parent * local).normalize()
}

/// The rotation part of a node's `model_from_node`.
#[must_use]
pub fn world_rotation(m: &glam::DMat4) -> DQuat {
    let (_, r, _) = m.to_scale_rotation_translation();
    if r.is_finite() {
        r.normalize()
    } else {
        DQuat::IDENTITY
    }
}

/// Convenience: the rotation of `v` by `q`, for checks.
#[must_use]
pub fn rotate(q: DQuat, v: DVec3) -> DVec3 {
    q * v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeping_a_quarter_turn_around_the_facing_z_ring_rotates_ninety_degrees() {
        let cam = OrbitCamera { distance: 5.0, ..OrbitCamera::default() };
        let c = Vec2::new(100.0, 100.0);
        // Screen y points down: from the right (+x) to the top (-y) is counter-clockwise as seen.
        let q = drag_rotation(Handle::Axis(2), &cam, c, c + Vec2::new(50.0, 0.0), c + Vec2::new(0.0, -50.0));
        let v = rotate(q, DVec3::X);
        assert!((v - DVec3::Y).length() < 1e-6, "{v}");
    }

    #[test]
    fn local_after_keeps_the_world_delta_under_a_rotated_parent() {
        let parent = DQuat::from_rotation_z(0.7);
        let local = DQuat::from_rotation_x(0.3);
        let delta = DQuat::from_rotation_y(0.5);
        let new_local = local_after(parent, delta, local);
        let world_before = parent * local;
        let world_after = parent * new_local;
        assert!(
            (world_after - delta * world_before).length() < 1e-9
                || (world_after + delta * world_before).length() < 1e-9
        );
    }

    #[test]
    fn rings_are_hit_near_their_outline_and_the_disc_inside() {
        let mut cam = OrbitCamera::default();
        cam.frame(Vec3::splat(-1.0), Vec3::splat(1.0), 1.0);
        let g = Gizmo::new(&cam, Vec3::ZERO, Vec2::new(400.0, 400.0)).unwrap();
        // Seen from the front, the Z ring is a circle of RADIUS_PX around the centre.
        assert_eq!(
            g.hit(
                g.centre
                    + Vec2::new(
                        RADIUS_PX * std::f32::consts::FRAC_1_SQRT_2,
                        RADIUS_PX * std::f32::consts::FRAC_1_SQRT_2
                    )
            ),
            Some(Handle::Axis(2))
        );
        assert_eq!(g.hit(g.centre + Vec2::new(20.0, 30.0)), Some(Handle::Trackball));
        assert_eq!(g.hit(g.centre + Vec2::new(150.0, 150.0)), None);
    }
}
