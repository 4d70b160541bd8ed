//! A drag on the rotation gizmo: how far the pointer turned the grabbed ring, with Blender's
//! modifiers, and the rotation that gives.
//!
//! The angle follows the pointer around the ring on screen: the angle it sweeps about the ring's
//! projected centre, per frame, so several turns add up. A ring seen more than 45° from face-on
//! (its on-screen ellipse less than 0.7 as wide as long), grabbed near the centre, or running
//! towards the centre there would turn wildly that way (a straight drag past the centre of a thin
//! ellipse sweeps nearly 180°), so it takes the tangential drag along the ring's on-screen
//! direction at the grab point divided by the ring's on-screen radius instead (a pointer that
//! follows the ring turns it by the arc it covers). Either way a 50 px drag along a 100 px ring
//! turns it by about 45–57°, edge-on or face-on.
//!
//! Shift: fine — the increments made while Shift is held count a tenth (as in Blender, only from
//! when it was pressed). Ctrl: the total angle snaps to multiples of [`SNAP_DEG`]. The rotation is
//! always computed from the rotation at the start of the drag, and every frame of one drag carries
//! the same gesture id, so the whole drag is one undo step.

use glam::{DQuat, Vec2};

use super::gizmo::{nearest_on_ring, Gizmo, Handle, JointFrame, Orientation};
use crate::render::OrbitCamera;

/// Ctrl snaps the angle to multiples of this, degrees.
pub const SNAP_DEG: f64 = 5.0;
/// Shift scales the drag by this.
pub const FINE: f64 = 0.1;
/// Trackball turn per pixel of drag, radians.
pub const TRACKBALL_RAD_PER_PX: f32 = 0.01;

/// How pointer motion becomes an angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sweep {
    /// The angle swept about the ring's centre, times `sign` (+1 when positive rotation runs
    /// clockwise in screen coordinates, whose y points down).
    Around {
        /// ±1.
        sign: f32,
    },
    /// Motion along the ring's on-screen direction `dir` at the grab point over its radius.
    Along {
        /// Unit on-screen direction of positive rotation at the grab point.
        dir: Vec2,
        /// The ring's on-screen radius, pixels.
        radius_px: f32,
    },
}

impl Sweep {
    /// How a drag grabbing `point` on a ring with on-screen direction `dir` there (unit), centre
    /// `centre`, radius `radius_px` and half width `minor_px` (the ellipse's half minor axis) is
    /// measured.
    #[must_use]
    pub fn choose(centre: Vec2, point: Vec2, dir: Vec2, radius_px: f32, minor_px: f32) -> Self {
        let radial = point - centre;
        let far_enough = radial.length() >= 0.3 * radius_px;
        let face_on = minor_px >= 0.7 * radius_px;
        let across = radial.normalize_or_zero().perp_dot(dir);
        if face_on && far_enough && across.abs() >= 0.5 {
            Self::Around { sign: across.signum() }
        } else {
            let dir = if dir == Vec2::ZERO { radial.perp().normalize_or(Vec2::X) } else { dir };
            Self::Along { dir, radius_px: radius_px.max(1.0) }
        }
    }

    /// The angle (radians, positive about the ring's axis) of moving the pointer from `from` to
    /// `to` about `centre`.
    #[must_use]
    pub fn angle(&self, centre: Vec2, from: Vec2, to: Vec2) -> f64 {
        match *self {
            Self::Around { sign } => {
                let (a, b) = (from - centre, to - centre);
                if a.length() < 1.0 || b.length() < 1.0 {
                    return 0.0;
                }
                f64::from(sign * a.perp_dot(b).atan2(a.dot(b)))
            }
            Self::Along { dir, radius_px } => f64::from((to - from).dot(dir) / radius_px),
        }
    }
}

/// A drag on the gizmo in progress.
#[derive(Clone, Debug)]
pub struct RotateDrag {
    /// What it grabbed.
    pub handle: Handle,
    /// The joint it turns.
    pub node: usize,
    /// Its undo gesture id.
    pub gesture: u64,
    /// The orientation of the rings it grabbed.
    pub orientation: Orientation,
    /// The joint as the drag started.
    frame: JointFrame,
    centre: Vec2,
    sweep: Sweep,
    last: Vec2,
    /// Accumulated angle (fine increments scaled), radians.
    total_rad: f64,
    /// Accumulated trackball drag (fine increments scaled), pixels.
    trackball_px: Vec2,
    /// Whether Shift / Ctrl were held at the last update.
    fine: bool,
    snap: bool,
}

impl RotateDrag {
    /// Starts a drag of `handle` at `pointer` (panel pixels) on gizmo `g` turning the joint `frame`.
    #[must_use]
    pub fn start(g: &Gizmo, handle: Handle, pointer: Vec2, frame: JointFrame, gesture: u64) -> Self {
        let sweep = match g.ring(handle) {
            Some(ring) => {
                let (point, dir) = nearest_on_ring(ring, pointer);
                Sweep::choose(g.centre, point, dir, ring.radius_px, ring.minor_px(g.centre))
            }
            None => Sweep::Around { sign: 1.0 },
        };
        Self {
            handle,
            node: frame.node,
            gesture,
            orientation: g.orientation,
            frame,
            centre: g.centre,
            sweep,
            last: pointer,
            total_rad: 0.0,
            trackball_px: Vec2::ZERO,
            fine: false,
            snap: false,
        }
    }

    /// Moves the pointer to `pointer` with Shift (`fine`) and Ctrl (`snap`) as held now; returns
    /// the joint's new local rotation.
    pub fn update(&mut self, pointer: Vec2, fine: bool, snap: bool, camera: &OrbitCamera) -> DQuat {
        let scale = if fine { FINE } else { 1.0 };
        (self.fine, self.snap) = (fine, snap);
        if self.handle == Handle::Trackball {
            self.trackball_px += (pointer - self.last) * scale as f32;
            self.last = pointer;
            let d = self.trackball_px;
            let (right, up) = camera.right_up();
            let Some(axis) = (up * d.x + right * d.y).try_normalize() else { return self.frame.local };
            let delta = DQuat::from_axis_angle(axis.as_dvec3(), f64::from(d.length() * TRACKBALL_RAD_PER_PX));
            return self.frame.turned_by(delta);
        }
        self.total_rad += self.sweep.angle(self.centre, self.last, pointer) * scale;
        self.last = pointer;
        self.frame.turned(self.handle, self.orientation, self.angle_rad())
    }

    /// The angle applied now (radians; snapped when Ctrl was held).
    #[must_use]
    pub fn angle_rad(&self) -> f64 {
        if self.handle == Handle::Trackball {
            return f64::from(self.trackball_px.length() * TRACKBALL_RAD_PER_PX);
        }
        if self.snap {
            let step = SNAP_DEG.to_radians();
            (self.total_rad / step).round() * step
        } else {
            self.total_rad
        }
    }

    /// The read-out shown while dragging (Blender shows it in the header), e.g.
    /// "Rotate about local X: 35.0°  (Ctrl: snap 5°)".
    #[must_use]
    pub fn readout(&self) -> String {
        let what = match self.handle {
            Handle::Axis(i) => {
                format!("Rotate about {} {}", self.orientation.label().to_lowercase(), ["X", "Y", "Z"][i.min(2)])
            }
            Handle::Twist => "Twist about the bone".to_owned(),
            Handle::Trackball => "Trackball".to_owned(),
        };
        let mut text = format!("{what}: {:.1}°", self.angle_rad().to_degrees());
        if self.snap && self.handle != Handle::Trackball {
            text.push_str(&format!("   snap {SNAP_DEG}°"));
        }
        if self.fine {
            text.push_str("   fine ×0.1");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ring of radius 50 px (100 px across) seen face-on, positive rotation counter-clockwise
    /// on screen: a 50 px drag along it from its rightmost point.
    #[test]
    fn a_fifty_pixel_drag_along_a_hundred_pixel_ring_turns_it_thirty_to_sixty_degrees() {
        let c = Vec2::new(200.0, 200.0);
        let start = c + Vec2::new(50.0, 0.0);
        let up = Vec2::new(0.0, -1.0);
        let around = Sweep::choose(c, start, up, 50.0, 50.0);
        assert_eq!(around, Sweep::Around { sign: -1.0 });
        // A straight 50 px drag up, in ten frames.
        let mut total = 0.0;
        for k in 0..10 {
            total += around.angle(c, start + up * 5.0 * k as f32, start + up * 5.0 * (k + 1) as f32);
        }
        let deg = total.to_degrees();
        assert!((30.0..=60.0).contains(&deg), "{deg}");
        assert!((deg - 45.0).abs() < 1e-3, "atan(50/50) = 45°: {deg}");
        // Edge-on: the ring is a vertical line through the centre; grabbed near the centre.
        let along = Sweep::choose(c, c + Vec2::new(0.0, -5.0), up, 50.0, 0.0);
        assert_eq!(along, Sweep::Along { dir: up, radius_px: 50.0 });
        let deg = along.angle(c, c, c + up * 50.0).to_degrees();
        assert!((30.0..=60.0).contains(&deg) && (deg - 57.2958).abs() < 1e-3, "{deg}");
        // A drag across the edge-on ring's centre no longer flips it by 180°.
        let deg = along.angle(c, c + Vec2::new(0.0, -5.0), c + Vec2::new(0.0, 45.0)).to_degrees();
        assert!((deg + 57.2958).abs() < 1e-3, "{deg}");
    }
}
