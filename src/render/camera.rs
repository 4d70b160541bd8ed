//! The orbit camera shared by the editor and `skinlab render`: a target point, yaw, pitch and
//! distance (glam, so picking can project on the CPU), turned into a three-d camera per frame.
//! Yaw 0 / pitch 0 looks from +Z towards -Z with Y up ("front"). Perspective, or orthographic:
//! then the view is as tall as the perspective view is at the target (`2 · distance · tan(fov/2)`),
//! so zoom, pan and framing work alike, and every picking ray runs along the view direction.

use std::f32::consts::FRAC_PI_2;
use std::str::FromStr;

use glam::{Mat4, Vec2, Vec3, Vec4Swizzles as _};

/// A named viewpoint for `skinlab render --camera`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraPreset {
    /// From +Z, slightly above.
    Front,
    /// From -Z.
    Back,
    /// From +X.
    Side,
    /// From -X.
    Left,
    /// From +Y (looking down).
    Top,
    /// From the front right, slightly above.
    ThreeQuarter,
}

impl CameraPreset {
    /// Every preset with its command-line name.
    pub const NAMES: [(&'static str, Self); 6] = [
        ("front", Self::Front),
        ("back", Self::Back),
        ("side", Self::Side),
        ("left", Self::Left),
        ("top", Self::Top),
        ("three-quarter", Self::ThreeQuarter),
    ];

    /// (yaw, pitch) in radians.
    #[must_use]
    pub fn angles_rad(self) -> (f32, f32) {
        match self {
            Self::Front => (0.0, 12f32.to_radians()),
            Self::Back => (std::f32::consts::PI, 12f32.to_radians()),
            Self::Side => (FRAC_PI_2, 12f32.to_radians()),
            Self::Left => (-FRAC_PI_2, 12f32.to_radians()),
            Self::Top => (0.0, FRAC_PI_2 - 1e-3),
            Self::ThreeQuarter => (30f32.to_radians(), 18f32.to_radians()),
        }
    }
}

impl FromStr for CameraPreset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::NAMES.iter().find(|(n, _)| *n == s).map(|(_, p)| *p).ok_or_else(|| {
            let names: Vec<&str> = Self::NAMES.iter().map(|(n, _)| *n).collect();
            format!("unknown camera {s:?} (expected one of {})", names.join(", "))
        })
    }
}

/// An orbit camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point orbited around and looked at.
    pub target: Vec3,
    /// Rotation about +Y, radians.
    pub yaw_rad: f32,
    /// Elevation, radians (clamped short of the poles).
    pub pitch_rad: f32,
    /// Distance from the target to the eye (model units).
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y_rad: f32,
    /// An orthographic projection instead of a perspective one.
    pub orthographic: bool,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            yaw_rad: 0.0,
            pitch_rad: 0.0,
            distance: 5.0,
            fov_y_rad: 40f32.to_radians(),
            orthographic: false,
        }
    }
}

impl OrbitCamera {
    /// The unit vector from the target towards the eye.
    #[must_use]
    pub fn back(&self) -> Vec3 {
        let (sy, cy) = self.yaw_rad.sin_cos();
        let (sp, cp) = self.pitch_rad.sin_cos();
        Vec3::new(cp * sy, sp, cp * cy)
    }

    /// The eye position.
    #[must_use]
    pub fn eye(&self) -> Vec3 {
        self.target + self.back() * self.distance
    }

    /// The camera's right and up unit vectors.
    #[must_use]
    pub fn right_up(&self) -> (Vec3, Vec3) {
        let back = self.back();
        let right = Vec3::Y.cross(back).try_normalize().unwrap_or(Vec3::X);
        (right, back.cross(right))
    }

    /// Half the height of the view at the target (model units); in an orthographic view, at every
    /// depth.
    #[must_use]
    pub fn half_height(&self) -> f32 {
        self.distance * (self.fov_y_rad * 0.5).tan()
    }

    /// Model units per pixel at point `p` in a view `height_px` tall (at `p`'s depth in
    /// perspective, everywhere the same in an orthographic view).
    #[must_use]
    pub fn world_per_px(&self, p: Vec3, height_px: f32) -> f32 {
        let depth = if self.orthographic { self.distance } else { (p - self.eye()).length().max(1e-6) };
        2.0 * depth * (self.fov_y_rad * 0.5).tan() / height_px.max(1.0)
    }

    /// Near and far clip distances.
    #[must_use]
    pub fn near_far(&self) -> (f32, f32) {
        (self.distance * 0.01, self.distance * 20.0)
    }

    /// Orbits by a pointer drag of `delta_px` pixels.
    pub fn orbit(&mut self, delta_px: Vec2) {
        self.yaw_rad -= delta_px.x * 0.01;
        self.pitch_rad = (self.pitch_rad + delta_px.y * 0.01).clamp(-FRAC_PI_2 + 0.01, FRAC_PI_2 - 0.01);
    }

    /// Pans so that the scene follows a drag of `delta_px` pixels in a view `height_px` tall.
    pub fn pan(&mut self, delta_px: Vec2, height_px: f32) {
        let per_px = 2.0 * self.distance * (self.fov_y_rad * 0.5).tan() / height_px.max(1.0);
        let (right, up) = self.right_up();
        self.target += (-right * delta_px.x + up * delta_px.y) * per_px;
    }

    /// Zooms by a scroll amount (positive moves closer).
    pub fn zoom(&mut self, scroll: f32) {
        self.distance = (self.distance * (-scroll * 0.002).exp()).clamp(1e-4, 1e7);
    }

    /// Zooms by a scroll amount (positive moves closer) toward `pivot` (model space): the camera
    /// is scaled about the pivot, so the pivot keeps its place on screen (zoom to the cursor).
    pub fn zoom_about(&mut self, scroll: f32, pivot: Vec3) {
        let before = self.distance;
        self.zoom(scroll);
        let k = self.distance / before;
        self.target = pivot + (self.target - pivot) * k;
    }

    /// The point of the plane through the target facing the camera that pixel `p` of a `size`
    /// pixel view shows (the target itself when the ray runs along the plane).
    #[must_use]
    pub fn on_target_plane(&self, p: Vec2, size: Vec2) -> Vec3 {
        let (eye, dir) = self.ray(p, size);
        let facing = -dir.dot(self.back());
        if facing <= 1e-6 {
            return self.target;
        }
        eye + dir * (self.distance / facing)
    }

    /// Looks at the box `lo..hi` so that it fills a view of aspect `aspect` (width / height).
    pub fn frame(&mut self, lo: Vec3, hi: Vec3, aspect: f32) {
        self.target = (lo + hi) * 0.5;
        let (right, up) = self.right_up();
        let back = self.back();
        // Half extents of the box along the view axes.
        let half = (hi - lo).max(Vec3::splat(1e-4)) * 0.5;
        let extent = |axis: Vec3| half.x * axis.x.abs() + half.y * axis.y.abs() + half.z * axis.z.abs();
        let (w, h, d) = (extent(right), extent(up), extent(back));
        let tan_y = (self.fov_y_rad * 0.5).tan();
        let tan_x = tan_y * aspect.max(0.1);
        // A margin of 8 % around the box; the near face sits `d` in front of the target.
        self.distance = (w / tan_x).max(h / tan_y) * 1.08 + d;
    }

    /// The view matrix (world → eye).
    #[must_use]
    pub fn view(&self) -> Mat4 {
        let (_, up) = self.right_up();
        Mat4::look_at_rh(self.eye(), self.target, up)
    }

    /// The OpenGL projection matrix for a view of aspect `aspect`.
    #[must_use]
    pub fn projection(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.near_far();
        if self.orthographic {
            let (h, w) = (self.half_height(), self.half_height() * aspect.max(1e-3));
            return Mat4::orthographic_rh_gl(-w, w, -h, h, near, far);
        }
        Mat4::perspective_rh_gl(self.fov_y_rad, aspect.max(1e-3), near, far)
    }

    /// Projects a world point into a `size` pixel view (origin top-left, y down); `None` when it
    /// is behind the eye.
    #[must_use]
    pub fn project(&self, p: Vec3, size: Vec2) -> Option<Vec2> {
        let clip = self.projection(size.x / size.y.max(1.0)) * self.view() * p.extend(1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let ndc = clip.xy() / clip.w;
        Some(Vec2::new((ndc.x + 1.0) * 0.5 * size.x, (1.0 - ndc.y) * 0.5 * size.y))
    }

    /// The picking ray through pixel `p` of a `size` pixel view (origin top-left, y down): the
    /// eye (orthographic: the point of the eye's plane facing the view behind `p`) and the (unit)
    /// direction into the scene, in model space.
    #[must_use]
    pub fn ray(&self, p: Vec2, size: Vec2) -> (Vec3, Vec3) {
        let ndc = Vec2::new(2.0 * p.x / size.x.max(1.0) - 1.0, 1.0 - 2.0 * p.y / size.y.max(1.0));
        if self.orthographic {
            let (right, up) = self.right_up();
            let h = self.half_height();
            let w = h * size.x / size.y.max(1.0);
            return (self.eye() + right * (ndc.x * w) + up * (ndc.y * h), -self.back());
        }
        let inv = (self.projection(size.x / size.y.max(1.0)) * self.view()).inverse();
        let far = inv.project_point3(ndc.extend(1.0));
        let eye = self.eye();
        (eye, (far - eye).try_normalize().unwrap_or(-self.back()))
    }

    /// The three-d camera for a viewport.
    #[must_use]
    pub fn to_three_d(&self, viewport: three_d::Viewport) -> three_d::Camera {
        use super::gl_convert::v3;
        let (near, far) = self.near_far();
        let (_, up) = self.right_up();
        if self.orthographic {
            return three_d::Camera::new_orthographic(
                viewport,
                v3(self.eye()),
                v3(self.target),
                v3(up),
                // three-d scales the height by the eye's distance from the target.
                2.0 * (self.fov_y_rad * 0.5).tan(),
                near,
                far,
            );
        }
        three_d::Camera::new_perspective(
            viewport,
            v3(self.eye()),
            v3(self.target),
            v3(up),
            three_d::radians(self.fov_y_rad),
            near,
            far,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_camera_projects_target_to_centre_and_x_to_the_right() {
        let mut c = OrbitCamera::default();
        c.frame(Vec3::splat(-1.0), Vec3::splat(1.0), 1.0);
        let size = Vec2::new(200.0, 100.0);
        let centre = c.project(Vec3::ZERO, size).unwrap();
        assert!((centre - Vec2::new(100.0, 50.0)).length() < 1e-3);
        let right = c.project(Vec3::X, size).unwrap();
        assert!(right.x > 100.0 && (right.y - 50.0).abs() < 1e-3);
        let up = c.project(Vec3::Y, size).unwrap();
        assert!(up.y < 50.0);
        // The ray through a projected point passes through the point.
        let p = Vec3::new(0.3, -0.2, 0.4);
        let (o, d) = c.ray(c.project(p, size).unwrap(), size);
        let t = (p - o).dot(d);
        assert!((o + d * t - p).length() < 1e-4);
    }
}
