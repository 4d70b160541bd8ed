//! How a vertex looks in paint mode: the painted joint's weight on the rainbow or the greyscale
//! ramp (zero weights in the ramp's colour or black, as Blender's "Show Zero Weights: Active"), or
//! the colour of its dominant joint from a palette that keeps neighbouring joints apart
//! (`paint::joint_palette`).

use super::modes::{PaintSettings, WeightDisplay};
use crate::model::{Influences, JointSetTable, Model, Skin};
use crate::paint::display::{self, WeightRamp};
use crate::paint::joint_palette::{joint_palette, skin_parents};

/// Colour of vertices without any influence in paint mode (sRGB).
pub const UNWEIGHTED: [u8; 4] = [90, 90, 100, 255];

/// Colour of zero weights when they are shown black (sRGB).
pub const ZERO_BLACK: [u8; 4] = [0, 0, 0, 255];

/// The colouring of one skin's vertices.
#[derive(Clone, Debug)]
pub struct WeightLook {
    display: WeightDisplay,
    ramp: WeightRamp,
    zero_black: bool,
    palette: Vec<[f32; 3]>,
}

impl WeightLook {
    /// The look `settings` give the vertices of `skin` (a joint of `model`'s skeleton).
    #[must_use]
    pub fn of(settings: &PaintSettings, model: &Model, skin: &Skin) -> Self {
        let palette = match settings.display {
            WeightDisplay::Dominant => joint_palette(&skin_parents(model, skin)),
            WeightDisplay::SelectedJoint => Vec::new(),
        };
        Self { display: settings.display, ramp: settings.ramp, zero_black: settings.zero_black, palette }
    }

    /// The colour of vertex `v` with the painted joint `joint` (sRGB).
    #[must_use]
    pub fn colour(&self, inf: &Influences, sets: &JointSetTable, v: usize, joint: Option<u16>) -> [u8; 4] {
        match self.display {
            WeightDisplay::SelectedJoint => {
                let w = joint.map_or(0.0, |j| display::joint_weight(inf, sets, v, j));
                if self.zero_black && w <= 0.0 {
                    ZERO_BLACK
                } else {
                    to_srgb8(self.ramp.colour(w))
                }
            }
            WeightDisplay::Dominant => display::dominant_joint(inf, sets, v)
                .map_or(UNWEIGHTED, |j| to_srgb8(self.palette.get(usize::from(j)).copied().unwrap_or([0.5; 3]))),
        }
    }
}

/// A linear colour as sRGB bytes (opaque).
#[must_use]
pub fn to_srgb8(c: [f32; 3]) -> [u8; 4] {
    let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    [q(c[0]), q(c[1]), q(c[2]), 255]
}
