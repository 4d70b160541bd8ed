//! The translate gizmo of Rig mode: three arrows along the world X, Y and Z axes from the selected
//! joint, three square plane handles between them (XY, YZ, ZX), a centre disc that moves in
//! the view plane, and a ring about the bone that turns the joint's roll, laid out in screen
//! pixels and hit-tested on the CPU. A drag follows the pointer exactly: along an axis, the point
//! of the axis nearest to the pointer's ray; on a plane or the view plane, where the ray meets it,
//! always relative to where the drag started. The roll ring turns as the rotation gizmo's rings
//! do (`gizmo_drag::Sweep`).

use glam::{Vec2, Vec3};

use super::gizmo::Ring;
use crate::render::OrbitCamera;

/// Arrow length on screen, pixels.
pub const ARROW_PX: f32 = 90.0;
/// How close (pixels) the pointer must be to an arrow to grab it.
pub const GRAB_PX: f32 = 8.0;
/// The plane handles span this share of the arrows, from `PLANE_FROM` to `PLANE_TO`.
const PLANE_FROM: f32 = 0.25;
const PLANE_TO: f32 = 0.45;
/// Plane handles smaller than this on screen (square pixels) are seen edge-on and left out.
const MIN_PLANE_AREA_PX: f32 = 40.0;
/// Radius of the centre disc, pixels.
pub const CENTRE_PX: f32 = 9.0;
/// Radius of the roll ring about the bone, pixels (outside the arrows).
pub const ROLL_PX: f32 = 115.0;

/// What a drag grabbed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// The arrow along world axis 0 (X), 1 (Y) or 2 (Z).
    Axis(usize),
    /// The square in the plane normal to world axis 0 (YZ), 1 (ZX) or 2 (XY).
    Plane(usize),
    /// The centre: moves in the plane facing the camera.
    Screen,
    /// The ring about the bone: turns the joint's roll.
    Roll,
}

/// The gizmo's screen geometry for one frame (panel pixels).
#[derive(Clone, Debug, PartialEq)]
pub struct TranslateGizmo {
    /// The joint on screen.
    pub centre: Vec2,
    /// Each arrow's tip, or `None` when the axis points at the viewer (too short to grab).
    pub tips: [Option<Vec2>; 3],
    /// Each plane handle's four corners, by normal axis.
    pub planes: [Option<[Vec2; 4]>; 3],
    /// Model units per pixel at the joint.
    pub world_per_px: f32,
    /// The ring about the bone that turns the roll (see [`TranslateGizmo::with_roll`]).
    pub roll: Option<Ring>,
}

impl TranslateGizmo {
    /// Lays the gizmo out around `joint` (model space) seen by `camera` in a panel of `size` px.
    #[must_use]
    pub fn new(camera: &OrbitCamera, joint: Vec3, size: Vec2) -> Option<Self> {
        let centre = camera.project(joint, size)?;
        let world_per_px = camera.world_per_px(joint, size.y);
        let len = ARROW_PX * world_per_px;
        let tips = [0, 1, 2]
            .map(|i| camera.project(joint + axis(i) * len, size).filter(|tip| tip.distance(centre) > ARROW_PX * 0.15));
        let planes = [0, 1, 2].map(|n| {
            let (u, v) = (axis((n + 1) % 3) * len, axis((n + 2) % 3) * len);
            let corner = |a: f32, b: f32| camera.project(joint + u * a + v * b, size);
            let q = [
                corner(PLANE_FROM, PLANE_FROM)?,
                corner(PLANE_TO, PLANE_FROM)?,
                corner(PLANE_TO, PLANE_TO)?,
                corner(PLANE_FROM, PLANE_TO)?,
            ];
            // A plane seen edge-on cannot be dragged in (and would hide an arrow).
            let area = 0.5 * (q[2] - q[0]).perp_dot(q[3] - q[1]).abs();
            (area >= MIN_PLANE_AREA_PX).then_some(q)
        });
        Some(Self { centre, tips, planes, world_per_px, roll: None })
    }

    /// The gizmo with its roll ring: [`ROLL_PX`] about the unit bone direction `axis` (model
    /// space) through `joint`.
    #[must_use]
    pub fn with_roll(self, camera: &OrbitCamera, joint: Vec3, axis: Vec3, size: Vec2) -> Self {
        let ring = Ring::about(camera, joint, axis, ROLL_PX * self.world_per_px, size);
        Self { roll: Some(ring), ..self }
    }

    /// The handle under the pointer `p` (panel pixels): the centre first, then arrows, then planes.
    #[must_use]
    pub fn hit(&self, p: Vec2) -> Option<Handle> {
        if p.distance(self.centre) <= CENTRE_PX {
            return Some(Handle::Screen);
        }
        let arrow = (0..3)
            .filter_map(|i| Some((distance_to_segment(p, self.centre, self.tips[i]?), i)))
            .filter(|(d, _)| *d < GRAB_PX)
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, i)) = arrow {
            return Some(Handle::Axis(i));
        }
        if self.roll.as_ref().is_some_and(|r| r.distance_px(p) < GRAB_PX) {
            return Some(Handle::Roll);
        }
        (0..3).find(|&n| self.planes[n].is_some_and(|q| inside_quad(p, &q))).map(Handle::Plane)
    }
}

fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    (a + ab * t).distance(p)
}

/// Whether `p` lies inside the convex quad `q` (either winding).
fn inside_quad(p: Vec2, q: &[Vec2; 4]) -> bool {
    let sides: Vec<f32> = (0..4).map(|k| (q[(k + 1) % 4] - q[k]).perp_dot(p - q[k])).collect();
    sides.iter().all(|&s| s >= 0.0) || sides.iter().all(|&s| s <= 0.0)
}

/// The point the pointer's ray (`origin`, `direction`, model space) grabs on `handle` of a gizmo
/// at `joint`: on an axis line, the point nearest to the ray; on a plane, where the ray meets it.
/// `None` when the ray runs parallel to what it should meet, and for the roll ring (it turns).
#[must_use]
pub fn grab_point(handle: Handle, camera: &OrbitCamera, joint: Vec3, origin: Vec3, direction: Vec3) -> Option<Vec3> {
    let on_plane = |normal: Vec3| {
        let denom = direction.dot(normal);
        if denom.abs() < 1e-9 * direction.length() {
            return None;
        }
        let t = (joint - origin).dot(normal) / denom;
        (t.is_finite() && t > 0.0).then(|| origin + direction * t)
    };
    match handle {
        Handle::Axis(i) => {
            let a = axis(i);
            let d = direction.normalize_or_zero();
            let w = joint - origin;
            let b = a.dot(d);
            let denom = 1.0 - b * b;
            if denom < 1e-6 {
                return None;
            }
            let s = (b * d.dot(w) - a.dot(w)) / denom;
            s.is_finite().then(|| joint + a * s)
        }
        Handle::Plane(n) => on_plane(axis(n)),
        Handle::Screen => on_plane(camera.back()),
        Handle::Roll => None,
    }
}

/// World axis 0 (X), 1 (Y) or 2 (Z).
fn axis(i: usize) -> Vec3 {
    Vec3::AXES[i.min(2)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera() -> OrbitCamera {
        let mut cam = OrbitCamera::default();
        (cam.yaw_rad, cam.pitch_rad) = crate::render::CameraPreset::ThreeQuarter.angles_rad();
        cam.frame(Vec3::splat(-1.0), Vec3::splat(1.0), 1.0);
        cam
    }

    #[test]
    fn arrows_planes_and_centre_are_hit_where_they_are_drawn() {
        let cam = camera();
        let g = TranslateGizmo::new(&cam, Vec3::ZERO, Vec2::new(400.0, 400.0)).unwrap();
        assert!(g.tips.iter().all(Option::is_some) && g.planes.iter().all(Option::is_some));
        assert_eq!(g.hit(g.centre), Some(Handle::Screen));
        for i in 0..3 {
            if let Some(tip) = g.tips[i] {
                assert_eq!(g.hit(g.centre + (tip - g.centre) * 0.8), Some(Handle::Axis(i)), "axis {i}");
            }
            if let Some(q) = g.planes[i] {
                let mid = (q[0] + q[1] + q[2] + q[3]) * 0.25;
                assert_eq!(g.hit(mid), Some(Handle::Plane(i)), "plane {i}");
            }
        }
        assert_eq!(g.hit(g.centre + Vec2::new(300.0, 300.0)), None);
        // Seen from the front, the YZ plane is edge-on: no handle.
        let mut front = OrbitCamera::default();
        front.frame(Vec3::splat(-1.0), Vec3::splat(1.0), 1.0);
        let g = TranslateGizmo::new(&front, Vec3::ZERO, Vec2::new(400.0, 400.0)).unwrap();
        assert_eq!(g.planes[0], None);
        assert!(g.planes[2].is_some());
    }

    #[test]
    fn an_axis_drag_follows_the_pointer_along_the_axis_only() {
        let cam = camera();
        let size = Vec2::new(400.0, 400.0);
        let joint = Vec3::new(0.2, 0.1, 0.0);
        // The pointer over the point 0.5 further along x: the grab is exactly there.
        let target = joint + Vec3::X * 0.5;
        let p = cam.project(target, size).unwrap();
        let (o, d) = cam.ray(p, size);
        let g = grab_point(Handle::Axis(0), &cam, joint, o, d).unwrap();
        assert!((g - target).length() < 1e-4, "{g}");
        // A pointer off the axis still moves along x only.
        let (o, d) = cam.ray(p + Vec2::new(0.0, -40.0), size);
        let g = grab_point(Handle::Axis(0), &cam, joint, o, d).unwrap();
        assert!((g.y - joint.y).abs() < 1e-6 && (g.z - joint.z).abs() < 1e-6, "{g}");
        // A plane drag stays in its plane and meets the ray.
        let g = grab_point(Handle::Plane(1), &cam, joint, o, d).unwrap();
        assert!((g.y - joint.y).abs() < 1e-5, "{g}");
        assert!((g - o).normalize().dot(d.normalize()) > 0.99999);
    }
}
