//! Blend modes: how one dab changes one vertex's weights. Weights are sparse `(joint, weight)`
//! lists; the results are not normalised here (see [`super::normalize`]).
//!
//! Add, Subtract and Replace change only the painted joint; Smooth and Blur move the whole
//! weight vector towards a target (the mesh neighbours' mean, or the brush footprint's mean
//! weighted by surface distance), so they never favour one joint.

/// How a dab changes the weights under the brush.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BlendMode {
    /// `w_j + a` (a = strength × falloff).
    #[default]
    Add,
    /// `w_j − a`.
    Subtract,
    /// `w_j + (value − w_j) a`: paint a value.
    Replace,
    /// Every joint's weight moves towards the mean of the mesh neighbours' weights by `a`.
    Smooth,
    /// Every joint's weight moves towards the footprint's mean weight (each footprint vertex
    /// weighing by the falloff of its surface distance from the brush centre) by `a`.
    Blur,
}

impl BlendMode {
    /// Every mode, in menu order.
    pub const ALL: [Self; 5] = [Self::Add, Self::Subtract, Self::Replace, Self::Smooth, Self::Blur];

    /// The label shown in the editor.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Add => "Add",
            Self::Subtract => "Subtract",
            Self::Replace => "Replace",
            Self::Smooth => "Smooth",
            Self::Blur => "Blur",
        }
    }

    /// Whether the mode changes only the painted joint (Add, Subtract, Replace).
    #[must_use]
    pub fn paints_joint(self) -> bool {
        matches!(self, Self::Add | Self::Subtract | Self::Replace)
    }
}

/// The new weight of the painted joint for Add, Subtract and Replace (`amount` in [0, 1]),
/// clamped to [0, 1]; Smooth and Blur return `current`.
#[must_use]
pub fn blend_joint(mode: BlendMode, current: f32, amount: f32, value: f32) -> f32 {
    let a = if amount.is_finite() { amount.clamp(0.0, 1.0) } else { 0.0 };
    let c = if current.is_finite() { current.clamp(0.0, 1.0) } else { 0.0 };
    let v = if value.is_finite() { value.clamp(0.0, 1.0) } else { c };
    let out = match mode {
        BlendMode::Add => c + a,
        BlendMode::Subtract => c - a,
        BlendMode::Replace => c + (v - c) * a,
        BlendMode::Smooth | BlendMode::Blur => c,
    };
    out.clamp(0.0, 1.0)
}

/// The weight of `joint` in `weights` (0 when absent).
#[must_use]
pub fn weight_of(weights: &[(u16, f32)], joint: u16) -> f32 {
    weights.iter().find(|p| p.0 == joint).map_or(0.0, |p| p.1)
}

/// Sets the weight of `joint`, appending it when absent (zero values are kept; normalisation
/// drops them).
pub fn set_weight(weights: &mut Vec<(u16, f32)>, joint: u16, value: f32) {
    match weights.iter_mut().find(|p| p.0 == joint) {
        Some(p) => p.1 = value,
        None => weights.push((joint, value)),
    }
}

/// Adds `scale × weights` into the sparse accumulator `sum`.
pub fn accumulate(sum: &mut Vec<(u16, f32)>, weights: &[(u16, f32)], scale: f32) {
    for &(j, w) in weights {
        match sum.iter_mut().find(|p| p.0 == j) {
            Some(p) => p.1 += scale * w,
            None => sum.push((j, scale * w)),
        }
    }
}

/// `weights ← (1 − amount) weights + amount target`, joint by joint (joints of `target` missing
/// from `weights` are appended in `target` order).
pub fn blend_towards(weights: &mut Vec<(u16, f32)>, target: &[(u16, f32)], amount: f32) {
    let a = if amount.is_finite() { amount.clamp(0.0, 1.0) } else { 0.0 };
    for p in weights.iter_mut() {
        p.1 *= 1.0 - a;
    }
    accumulate(weights, target, a);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joint_modes() {
        assert_eq!(blend_joint(BlendMode::Add, 0.25, 0.5, 0.0), 0.75);
        assert_eq!(blend_joint(BlendMode::Add, 0.75, 0.5, 0.0), 1.0);
        assert_eq!(blend_joint(BlendMode::Subtract, 0.75, 0.5, 0.0), 0.25);
        assert_eq!(blend_joint(BlendMode::Subtract, 0.25, 0.5, 0.0), 0.0);
        assert_eq!(blend_joint(BlendMode::Replace, 0.0, 1.0, 0.3), 0.3);
        assert_eq!(blend_joint(BlendMode::Replace, 1.0, 0.5, 0.0), 0.5);
        assert_eq!(blend_joint(BlendMode::Smooth, 0.4, 1.0, 0.0), 0.4);
        assert_eq!(blend_joint(BlendMode::Add, f32::NAN, f32::NAN, 0.0), 0.0);
    }

    #[test]
    fn towards_mixes_every_joint() {
        let mut w = vec![(1, 1.0)];
        blend_towards(&mut w, &[(2, 1.0)], 0.25);
        assert_eq!(w, vec![(1, 0.75), (2, 0.25)]);
        set_weight(&mut w, 2, 0.5);
        set_weight(&mut w, 7, 0.1);
        assert_eq!(weight_of(&w, 2), 0.5);
        assert_eq!(weight_of(&w, 7), 0.1);
        assert_eq!(weight_of(&w, 3), 0.0);
    }
}
