//! Brush settings and falloff curves. Everything here works in model units: a radius given in
//! screen pixels is converted by the caller (the editor knows the camera) before a dab.

use super::blend::BlendMode;

/// How a dab's strength falls off from the brush centre (`t` = distance / radius).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Falloff {
    /// `1 − (3t² − 2t³)`: smoothstep, flat at the centre and at the rim.
    #[default]
    Smooth,
    /// `1 − t`.
    Linear,
    /// `(1 − t)²`: strong at the centre, quickly weaker.
    Sharp,
    /// `1` everywhere inside the radius.
    Constant,
}

impl Falloff {
    /// Every falloff, in menu order.
    pub const ALL: [Self; 4] = [Self::Smooth, Self::Linear, Self::Sharp, Self::Constant];

    /// The falloff factor at `t` = distance / radius: in [0, 1] for `t` in [0, 1] and 0 beyond
    /// (negative `t` counts as 0, NaN gives 0).
    #[must_use]
    pub fn weight(self, t: f32) -> f32 {
        if t.is_nan() || t > 1.0 {
            return 0.0;
        }
        let t = t.max(0.0);
        match self {
            Self::Smooth => 1.0 - t * t * (3.0 - 2.0 * t),
            Self::Linear => 1.0 - t,
            Self::Sharp => (1.0 - t) * (1.0 - t),
            Self::Constant => 1.0,
        }
    }

    /// The label shown in the editor.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Smooth => "Smooth",
            Self::Linear => "Linear",
            Self::Sharp => "Sharp",
            Self::Constant => "Constant",
        }
    }
}

/// The unit of [`BrushSettings::radius`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RadiusUnit {
    /// Screen pixels (converted to model units at the hit point by the editor).
    #[default]
    Screen,
    /// Model units.
    Model,
}

/// Smallest brush radius in either unit.
pub const MIN_RADIUS: f32 = 1e-4;
/// Factor one key press or wheel notch scales the radius by.
pub const RADIUS_STEP: f32 = 1.1;
/// Amount one key press or wheel notch changes the strength by.
pub const STRENGTH_STEP: f32 = 0.05;

/// Everything the artist sets on the brush.
#[derive(Clone, Debug, PartialEq)]
pub struct BrushSettings {
    /// Radius in [`BrushSettings::radius_unit`]s.
    pub radius: f32,
    /// Whether `radius` is in screen pixels or model units.
    pub radius_unit: RadiusUnit,
    /// Strength in [0, 1]: the largest change one dab makes.
    pub strength: f32,
    /// Falloff from the centre.
    pub falloff: Falloff,
    /// Blend mode.
    pub mode: BlendMode,
    /// The weight [`BlendMode::Replace`] paints.
    pub value: f32,
    /// Only vertices whose deformed normal faces the viewer are painted.
    pub front_faces_only: bool,
    /// Every vertex within the radius (a sphere through the volume) rather than the surface
    /// connected to the hit point.
    pub whole_volume: bool,
    /// Also paint the mirrored joint on the mirrored vertices (across x = 0).
    pub mirror_x: bool,
}

impl Default for BrushSettings {
    fn default() -> Self {
        Self {
            radius: 40.0,
            radius_unit: RadiusUnit::Screen,
            strength: 0.5,
            falloff: Falloff::Smooth,
            mode: BlendMode::Add,
            value: 1.0,
            front_faces_only: true,
            whole_volume: false,
            mirror_x: false,
        }
    }
}

impl BrushSettings {
    /// The radius in model units, given how many model units one screen pixel spans at the hit
    /// point (ignored when the radius is already in model units).
    #[must_use]
    pub fn radius_model(&self, model_units_per_px: f32) -> f32 {
        match self.radius_unit {
            RadiusUnit::Model => self.radius,
            RadiusUnit::Screen => self.radius * model_units_per_px,
        }
    }

    /// Grows (`steps` > 0) or shrinks the radius by [`RADIUS_STEP`] per step, as `]`/`[` or the
    /// wheel do in common 3D tools.
    pub fn step_radius(&mut self, steps: i32) {
        let r = self.radius * RADIUS_STEP.powi(steps);
        self.radius = if r.is_finite() { r.max(MIN_RADIUS) } else { self.radius };
    }

    /// Changes the strength by [`STRENGTH_STEP`] per step, kept in [0, 1].
    pub fn step_strength(&mut self, steps: i32) {
        let s = self.strength + STRENGTH_STEP * steps as f32;
        self.strength = if s.is_finite() { s.clamp(0.0, 1.0) } else { self.strength };
    }

    /// The change a dab makes at distance `distance` from the centre of a brush of radius
    /// `radius_model`: strength × falloff, in [0, 1].
    #[must_use]
    pub fn amount(&self, distance: f32, radius_model: f32) -> f32 {
        if radius_model.is_nan() || radius_model <= 0.0 {
            return 0.0;
        }
        (self.strength.clamp(0.0, 1.0) * self.falloff.weight(distance / radius_model)).clamp(0.0, 1.0)
    }
}

/// Model units spanned by one screen pixel at `depth` (distance along the view axis) for a
/// perspective camera with vertical field of view `fov_y_rad` and a viewport `viewport_height_px`
/// tall; multiply a radius in pixels by it (see [`BrushSettings::radius_model`]).
#[must_use]
pub fn model_units_per_px(fov_y_rad: f32, viewport_height_px: f32, depth: f32) -> f32 {
    if viewport_height_px.is_nan() || viewport_height_px <= 0.0 || !depth.is_finite() {
        return 0.0;
    }
    2.0 * depth.abs() * (0.5 * fov_y_rad).tan() / viewport_height_px
}

/// Model units spanned by one screen pixel for an orthographic camera showing `view_height`
/// model units over `viewport_height_px` pixels.
#[must_use]
pub fn model_units_per_px_ortho(view_height: f32, viewport_height_px: f32) -> f32 {
    if viewport_height_px.is_nan() || viewport_height_px <= 0.0 || !view_height.is_finite() {
        return 0.0;
    }
    view_height.abs() / viewport_height_px
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn falloff_shapes() {
        for f in Falloff::ALL {
            assert_eq!(f.weight(0.0), 1.0, "{f:?} is 1 at the centre");
            assert_eq!(f.weight(1.5), 0.0, "{f:?} is 0 outside");
            assert_eq!(f.weight(f32::NAN), 0.0);
            assert_eq!(f.weight(-0.5), 1.0);
        }
        assert_eq!(Falloff::Smooth.weight(0.5), 0.5);
        assert_eq!(Falloff::Smooth.weight(1.0), 0.0);
        assert!((Falloff::Smooth.weight(0.25) - 0.84375).abs() < 1e-6);
        assert_eq!(Falloff::Linear.weight(0.25), 0.75);
        assert_eq!(Falloff::Sharp.weight(0.5), 0.25);
        assert_eq!(Falloff::Constant.weight(0.99), 1.0);
        assert_eq!(Falloff::Constant.weight(1.0), 1.0);
        // Monotone non-increasing.
        for f in Falloff::ALL {
            let mut prev = 1.0;
            for i in 0..=100 {
                let w = f.weight(i as f32 / 100.0);
                assert!(w <= prev + 1e-7 && (0.0..=1.0).contains(&w), "{f:?} at {i}");
                prev = w;
            }
        }
    }

    #[test]
    fn radius_and_strength_steps() {
        let mut b = BrushSettings { radius: 10.0, strength: 0.98, ..BrushSettings::default() };
        b.step_radius(1);
        assert!((b.radius - 11.0).abs() < 1e-5);
        b.step_radius(-1);
        assert!((b.radius - 10.0).abs() < 1e-5);
        b.step_strength(1);
        assert_eq!(b.strength, 1.0);
        b.step_strength(-30);
        assert_eq!(b.strength, 0.0);
        assert_eq!(b.radius_model(0.5), 5.0);
        b.radius_unit = RadiusUnit::Model;
        assert_eq!(b.radius_model(0.5), 10.0);
        b.strength = 0.5;
        assert_eq!(b.amount(0.0, 2.0), 0.5);
        assert_eq!(b.amount(3.0, 2.0), 0.0);
        assert_eq!(b.amount(0.0, 0.0), 0.0);
        let per_px = model_units_per_px(std::f32::consts::FRAC_PI_2, 100.0, 5.0);
        assert!((per_px - 0.1).abs() < 1e-6);
        assert_eq!(model_units_per_px(1.0, 0.0, 5.0), 0.0);
        assert_eq!(model_units_per_px_ortho(4.0, 400.0), 0.01);
    }
}
