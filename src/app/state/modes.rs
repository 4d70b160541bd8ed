//! The editor's modes (Pose, Paint, Rig), how weights are shown, and the weight-painting settings.

use std::collections::BTreeSet;

use crate::paint::display::WeightRamp;
use crate::paint::BrushSettings;

/// How painted weights are shown on the mesh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightDisplay {
    /// The selected joint's weight as a colour ramp.
    #[default]
    SelectedJoint,
    /// Every vertex in the colour of its dominant joint.
    Dominant,
}

/// What the editor is doing: posing the skeleton, painting weights, or building the skeleton.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Rotate joints with the gizmo; the mesh deforms in the current pose.
    #[default]
    Pose,
    /// Paint the selected joint's weights with the brush.
    Paint,
    /// Edit the skeleton in the bind pose: add, delete, move, reparent, rename, symmetrize and
    /// orient joints, and bind the mesh with automatic weights.
    Rig,
}

impl Mode {
    /// Every mode, in the order of the menu-bar switch and of Tab.
    pub const ALL: [Self; 3] = [Self::Pose, Self::Paint, Self::Rig];

    /// The switch's label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Pose => "Pose",
            Self::Paint => "Paint",
            Self::Rig => "Rig",
        }
    }

    /// The mode Tab switches to.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::Pose => Self::Paint,
            Self::Paint => Self::Rig,
            Self::Rig => Self::Pose,
        }
    }
}

/// The weight-painting settings (edited directly by the paint panel, like the view options).
#[derive(Clone, Debug, PartialEq)]
pub struct PaintSettings {
    /// What the mesh colours show.
    pub display: WeightDisplay,
    /// The ramp of the painted joint's weight.
    pub ramp: WeightRamp,
    /// Zero weights of the painted joint shown black, not in the ramp's colour for 0.
    pub zero_black: bool,
    /// Isolines of the painted joint's weight drawn on the skin.
    pub isolines: bool,
    /// The weights the isolines are drawn at (each in 0..1).
    pub isoline_levels: Vec<f32>,
    /// The brush.
    pub brush: BrushSettings,
    /// Locked joints (node indices).
    pub locked: BTreeSet<usize>,
    /// Most influences per vertex.
    pub limit: usize,
    /// Weights below this are removed by Clean.
    pub clean_threshold: f32,
    /// Strength of one Smooth All round.
    pub smooth_strength: f32,
    /// Rounds of Smooth All.
    pub smooth_iterations: usize,
}

impl Default for PaintSettings {
    fn default() -> Self {
        Self {
            display: WeightDisplay::SelectedJoint,
            ramp: WeightRamp::Rainbow,
            zero_black: false,
            isolines: false,
            isoline_levels: vec![0.25, 0.5, 0.75],
            brush: BrushSettings::default(),
            locked: BTreeSet::new(),
            limit: crate::paint::DEFAULT_LIMIT,
            clean_threshold: 0.01,
            smooth_strength: 0.5,
            smooth_iterations: 1,
        }
    }
}
