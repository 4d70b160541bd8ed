//! The rotation gizmo: three rings about the selected joint's own axes (Local, the default) or
//! the world's (World), a fourth, larger ring about the bone axis for twist (the direction to the
//! child joint, `rig::bone_axis`), and a trackball disc inside them; drawn with egui over the
//! viewport and hit-tested on the CPU. Dragging is `gizmo_drag.rs`; the turn itself is
//! `rig::axis_rotation`, always from the rotation at the start of the drag.

use eframe::egui;
use glam::{DMat4, DQuat, DVec3, Vec2, Vec3};

use crate::model::Model;
use crate::render::OrbitCamera;
use crate::rig::axis_rotation::{
    joint_axis_in_model, parent_rotation, rotate_about_joint_axis, rotate_about_model_axis,
};
use crate::rig::bone_axis::{bone_axis, BoneAxis};
use crate::rig::Pose;

/// Radius of the axis rings on screen, pixels.
pub const RADIUS_PX: f32 = 70.0;
/// Radius of the twist ring relative to the axis rings.
pub const TWIST_SCALE: f32 = 1.25;
/// How close (pixels) the pointer must be to a ring to grab it.
pub const GRAB_PX: f32 = 9.0;
/// Colours of the X, Y, Z and twist rings.
pub const COLOURS: [egui::Color32; 4] = [
    egui::Color32::from_rgb(230, 70, 70),
    egui::Color32::from_rgb(90, 210, 90),
    egui::Color32::from_rgb(80, 130, 240),
    egui::Color32::from_rgb(245, 190, 40),
];

/// The frame the axis rings turn about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Orientation {
    /// The joint's own axes (what the rotation fields edit).
    #[default]
    Local,
    /// The world's (model space) X, Y and Z.
    World,
}

impl Orientation {
    /// Both, in menu order.
    pub const ALL: [Self; 2] = [Self::Local, Self::World];

    /// The name shown in the inspector and the drag read-out.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Local => "Local",
            Self::World => "World",
        }
    }

    /// The other one (the `,` key).
    #[must_use]
    pub fn toggled(self) -> Self {
        match self {
            Self::Local => Self::World,
            Self::World => Self::Local,
        }
    }
}

/// The gizmo's settings (kept in the editor state).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GizmoSettings {
    /// Local or world rings.
    pub orientation: Orientation,
}

/// What a drag grabbed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// The ring about axis 0 (X), 1 (Y) or 2 (Z) of the gizmo's orientation.
    Axis(usize),
    /// The twist ring about the bone axis.
    Twist,
    /// The trackball disc.
    Trackball,
}

impl Handle {
    /// The ring's index in [`Gizmo::rings`] (none for the trackball).
    #[must_use]
    pub fn ring(self) -> Option<usize> {
        match self {
            Self::Axis(i) => Some(i.min(2)),
            Self::Twist => Some(3),
            Self::Trackball => None,
        }
    }
}

/// The selected joint's frame: what the rings are drawn about and what a turn changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointFrame {
    /// The joint's node.
    pub node: usize,
    /// Its position in model space.
    pub position: DVec3,
    /// The model-space rotation of its parent frame.
    pub parent: DQuat,
    /// Its local rotation.
    pub local: DQuat,
    /// Its bone axis (the twist ring's).
    pub bone: BoneAxis,
}

impl JointFrame {
    /// The frame of `node` in `pose`, whose node matrices are `model_from_node`.
    #[must_use]
    pub fn of(model: &Model, pose: &Pose, model_from_node: &[DMat4], node: usize) -> Option<Self> {
        let position = model_from_node.get(node)?.w_axis.truncate();
        Some(Self {
            node,
            position,
            parent: parent_rotation(&model.nodes, model_from_node, node),
            local: pose.local_trs(&model.nodes, node).rotation.normalize(),
            bone: bone_axis(model, pose, node),
        })
    }

    /// The model-space axes of the X, Y, Z rings in `orientation` and of the twist ring.
    #[must_use]
    pub fn ring_axes(&self, orientation: Orientation) -> [DVec3; 4] {
        let axis = |i: usize| match orientation {
            Orientation::Local => joint_axis_in_model(self.parent, self.local, DVec3::AXES[i]),
            Orientation::World => DVec3::AXES[i],
        };
        [axis(0), axis(1), axis(2), joint_axis_in_model(self.parent, self.local, self.bone.axis)]
    }

    /// The local rotation after turning by `angle_rad` about `handle`'s ring (positive: counter-
    /// clockwise seen from the axis's tip), from the local rotation this frame holds.
    #[must_use]
    pub fn turned(&self, handle: Handle, orientation: Orientation, angle_rad: f64) -> DQuat {
        match (handle, orientation) {
            (Handle::Axis(i), Orientation::Local) => {
                rotate_about_joint_axis(self.local, DVec3::AXES[i.min(2)], angle_rad)
            }
            (Handle::Axis(i), Orientation::World) => {
                rotate_about_model_axis(self.parent, self.local, DVec3::AXES[i.min(2)], angle_rad)
            }
            (Handle::Twist, _) => rotate_about_joint_axis(self.local, self.bone.axis, angle_rad),
            (Handle::Trackball, _) => self.local,
        }
    }

    /// The local rotation after turning by the model-space rotation `delta` about the joint.
    #[must_use]
    pub fn turned_by(&self, delta: DQuat) -> DQuat {
        let (axis, angle) = delta.to_axis_angle();
        rotate_about_model_axis(self.parent, self.local, axis, angle)
    }
}

/// One ring on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Ring {
    /// Its axis in model space.
    pub axis: Vec3,
    /// A closed polyline in panel pixels, in the direction of positive rotation about `axis`,
    /// with whether each point faces the viewer.
    pub points: Vec<(Vec2, bool)>,
    /// Its radius on screen (pixels): the largest distance of a point from the centre.
    pub radius_px: f32,
}

impl Ring {
    /// The ring of radius `radius` (model units) about the unit `axis` through `joint`, seen by
    /// `camera` in a panel of `size` px.
    #[must_use]
    pub fn about(camera: &OrbitCamera, joint: Vec3, axis: Vec3, radius: f32, size: Vec2) -> Self {
        let centre = camera.project(joint, size).unwrap_or_default();
        let to_eye = (camera.eye() - joint).normalize_or_zero();
        let u = axis.any_orthonormal_vector();
        // v = a × u: increasing t turns u toward v, a positive rotation about a.
        let v = axis.cross(u);
        let points: Vec<(Vec2, bool)> = (0..=64)
            .filter_map(|k| {
                let t = k as f32 / 64.0 * std::f32::consts::TAU;
                let d = u * t.cos() + v * t.sin();
                camera.project(joint + d * radius, size).map(|p| (p, d.dot(to_eye) >= -0.05))
            })
            .collect();
        let radius_px = points.iter().map(|(p, _)| p.distance(centre)).fold(0.0, f32::max);
        Self { axis, points, radius_px }
    }

    /// The distance (pixels) from `p` to the ring's visible half.
    #[must_use]
    pub fn distance_px(&self, p: Vec2) -> f32 {
        self.points
            .windows(2)
            .filter(|w| w[0].1 || w[1].1)
            .map(|w| distance_to_segment(p, w[0].0, w[1].0))
            .fold(f32::MAX, f32::min)
    }

    /// Half the width of its on-screen ellipse about `centre` (pixels): the smallest distance of
    /// a point from the centre (0 edge-on, `radius_px` face-on).
    #[must_use]
    pub fn minor_px(&self, centre: Vec2) -> f32 {
        self.points.iter().map(|(p, _)| p.distance(centre)).fold(f32::MAX, f32::min).min(self.radius_px)
    }
}

/// The gizmo's screen geometry for one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Gizmo {
    /// The joint's position on screen (panel pixels).
    pub centre: Vec2,
    /// The X, Y, Z rings and the twist ring.
    pub rings: [Ring; 4],
    /// Where the bone axis leaves the twist ring on screen (the bone's direction is drawn to it).
    pub bone_tip: Vec2,
    /// The orientation the axis rings were laid out in.
    pub orientation: Orientation,
}

impl Gizmo {
    /// Lays the gizmo out around `joint` (model space) with rings about `axes` (model space: X, Y,
    /// Z, twist), seen by `camera` in a panel of `size` px.
    #[must_use]
    pub fn new(
        camera: &OrbitCamera,
        joint: Vec3,
        axes: [Vec3; 4],
        orientation: Orientation,
        size: Vec2,
    ) -> Option<Self> {
        let centre = camera.project(joint, size)?;
        let world_per_px = camera.world_per_px(joint, size.y);
        let ring = |i: usize| {
            let a = axes[i].try_normalize().unwrap_or(Vec3::AXES[i.min(2)]);
            let r = RADIUS_PX * world_per_px * if i == 3 { TWIST_SCALE } else { 1.0 };
            Ring::about(camera, joint, a, r, size)
        };
        let rings = [ring(0), ring(1), ring(2), ring(3)];
        let tip = joint + rings[3].axis * RADIUS_PX * TWIST_SCALE * world_per_px;
        let bone_tip = camera.project(tip, size).unwrap_or(centre);
        Some(Self { centre, rings, bone_tip, orientation })
    }

    /// The handle under the pointer `p` (panel pixels): the nearest ring within [`GRAB_PX`] (its
    /// visible half), else the disc.
    #[must_use]
    pub fn hit(&self, p: Vec2) -> Option<Handle> {
        let mut best: Option<(f32, usize)> = None;
        for (i, ring) in self.rings.iter().enumerate() {
            let d = ring.distance_px(p);
            if d < GRAB_PX && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, i));
            }
        }
        match best {
            Some((_, 3)) => Some(Handle::Twist),
            Some((_, i)) => Some(Handle::Axis(i)),
            None => ((p - self.centre).length() <= RADIUS_PX * 1.1).then_some(Handle::Trackball),
        }
    }

    /// The ring a handle grabs.
    #[must_use]
    pub fn ring(&self, handle: Handle) -> Option<&Ring> {
        handle.ring().and_then(|i| self.rings.get(i))
    }
}

/// The point of `ring` nearest to `p` and the ring's on-screen direction of positive rotation
/// there (unit; zero where the ring is seen end-on).
#[must_use]
pub fn nearest_on_ring(ring: &Ring, p: Vec2) -> (Vec2, Vec2) {
    let mut best = (f32::MAX, p, Vec2::ZERO);
    for w in ring.points.windows(2) {
        let (a, b) = (w[0].0, w[1].0);
        let ab = b - a;
        let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
        let q = a + ab * t;
        let d = q.distance(p);
        if d < best.0 {
            best = (d, q, ab.normalize_or_zero());
        }
    }
    (best.1, best.2)
}

fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    (a + ab * t).distance(p)
}

/// Draws the gizmo at panel origin `origin`, the `active` handle thicker.
pub fn draw(painter: &egui::Painter, origin: egui::Pos2, g: &Gizmo, active: Option<Handle>) {
    let at = |v: Vec2| origin + egui::vec2(v.x, v.y);
    let centre = at(g.centre);
    let disc = if active == Some(Handle::Trackball) { 140 } else { 90 };
    painter.circle_stroke(centre, RADIUS_PX * 1.1, egui::Stroke::new(1.5, egui::Color32::from_white_alpha(disc)));
    // The bone axis, dashed from the joint to the twist ring.
    let dashes = 6;
    for k in 0..dashes {
        let t0 = k as f32 / dashes as f32;
        let t1 = t0 + 0.5 / dashes as f32;
        let p = |t: f32| at(g.centre + (g.bone_tip - g.centre) * t);
        painter.line_segment([p(t0), p(t1)], egui::Stroke::new(1.5, COLOURS[3]));
    }
    for (i, ring) in g.rings.iter().enumerate() {
        let is_active = active.and_then(Handle::ring) == Some(i);
        let width = if is_active { 4.0 } else { 2.0 };
        for w in ring.points.windows(2) {
            let ((a, fa), (b, fb)) = (w[0], w[1]);
            let c = if fa && fb { COLOURS[i] } else { COLOURS[i].gamma_multiply(0.3) };
            painter.line_segment([at(a), at(b)], egui::Stroke::new(width, c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front_gizmo(axes: [Vec3; 4]) -> Gizmo {
        let mut cam = OrbitCamera::default();
        cam.frame(Vec3::splat(-1.0), Vec3::splat(1.0), 1.0);
        (cam.yaw_rad, cam.pitch_rad) = (0.0, 0.0);
        Gizmo::new(&cam, Vec3::ZERO, axes, Orientation::World, Vec2::new(400.0, 400.0)).unwrap()
    }

    #[test]
    fn rings_are_hit_near_their_outline_and_the_disc_inside() {
        let g = front_gizmo([Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, 0.0, 1.0).normalize()]);
        // Seen from the front, the Z ring is a circle of RADIUS_PX around the centre.
        assert!((g.rings[2].radius_px - RADIUS_PX).abs() < 0.5, "{}", g.rings[2].radius_px);
        let diagonal = Vec2::new(1.0, 1.0).normalize();
        assert_eq!(g.hit(g.centre + diagonal * RADIUS_PX), Some(Handle::Axis(2)));
        assert_eq!(g.hit(g.centre + Vec2::new(20.0, 30.0)), Some(Handle::Trackball));
        assert_eq!(g.hit(g.centre + Vec2::new(150.0, 150.0)), None);
        // The twist ring (about a bone leaning towards the viewer) is outside the others, at the
        // top of the screen (its axis has no vertical part, so its top point is at full radius).
        assert!(g.rings[3].radius_px > RADIUS_PX * 1.2);
        assert_eq!(g.hit(g.centre - Vec2::Y * RADIUS_PX * TWIST_SCALE), Some(Handle::Twist));
    }

    #[test]
    fn polylines_run_in_the_direction_of_positive_rotation() {
        // Z faces the viewer: positive rotation about it is counter-clockwise on screen, which
        // with y pointing down is a negative perp-dot of the radius and the direction.
        let g = front_gizmo([Vec3::X, Vec3::Y, Vec3::Z, Vec3::Z]);
        let (q, dir) = nearest_on_ring(&g.rings[2], g.centre + Vec2::new(RADIUS_PX, 0.0));
        assert!((q - g.centre - Vec2::new(RADIUS_PX, 0.0)).length() < 1.0);
        assert!(dir.y < -0.99, "{dir}");
    }
}
