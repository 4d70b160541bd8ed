//! The numeric weight table of the selected vertices (Maya's Component Editor, Blender's Vertex
//! Weights panel): one row per selected weld group, one column per joint that influences any of
//! them, and the operations on the selection: set a joint's weight to a value, scale it,
//! normalise, copy one vertex's weights and paste them onto the selection.
//!
//! Every operation is one undo record, writes whole weld groups, keeps locked joints, holds the
//! edited joint at its new value while the other unlocked joints share the rest, and applies the
//! influence limit. Lowering a vertex's only free influence moves the removed weight to the
//! nearest joint in the hierarchy (as Subtract does) instead of normalising it straight back.

use super::blend::{set_weight, weight_of};
use super::dab::fallback_joint;
use super::error::PaintError;
use super::model_surface::ModelSurface;
use super::normalize::{apply_rules, WeightRules};
use super::tools::{write_groups, ToolOutcome};
use super::writable::ensure_all_influences;
use crate::model::Model;
use crate::model::StrokeRecord;

/// The table: joints (surface joints, ascending) and one row of weights per weld group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeightTable {
    /// The columns: every surface joint with weight on some row, ascending.
    pub joints: Vec<u16>,
    /// `(weld group representative, weight per column)`.
    pub rows: Vec<(u32, Vec<f32>)>,
}

/// The table of weld groups `groups` (representatives).
#[must_use]
pub fn weight_table(model: &Model, surface: &ModelSurface, groups: &[u32]) -> WeightTable {
    let weights: Vec<Vec<(u16, f32)>> = groups.iter().map(|&g| surface.weights(model, g)).collect();
    let mut joints: Vec<u16> = weights.iter().flatten().filter(|p| p.1 > 0.0).map(|p| p.0).collect();
    joints.sort_unstable();
    joints.dedup();
    let rows =
        groups.iter().zip(&weights).map(|(&g, w)| (g, joints.iter().map(|&j| weight_of(w, j)).collect())).collect();
    WeightTable { joints, rows }
}

/// One operation on the selected weld groups.
#[derive(Clone, Debug, PartialEq)]
pub enum TableOp {
    /// The joint's weight becomes the value (clamped to [0, 1]).
    Set {
        /// Surface joint.
        joint: u16,
        /// New weight.
        value: f32,
    },
    /// The joint's weight is multiplied by the factor (then clamped to [0, 1]).
    Scale {
        /// Surface joint.
        joint: u16,
        /// Factor (≥ 0).
        factor: f32,
    },
    /// Normalised over the unlocked joints, then held to the influence limit.
    Normalize,
    /// These weights (copied from one vertex, surface joints) replace the unlocked weights.
    Paste(Vec<(u16, f32)>),
}

impl TableOp {
    /// The undo step's name.
    #[must_use]
    pub fn label(&self) -> &'static str {
        match self {
            Self::Set { .. } => "Set Weight",
            Self::Scale { .. } => "Scale Weight",
            Self::Normalize => "Normalize Selected",
            Self::Paste(_) => "Paste Weights",
        }
    }
}

/// Sets `joint` to `value` in `w` (a vertex's weights, `old` before the edit) and applies the rules
/// holding that joint. When the vertex has no other free influence and the value drops, the
/// removed weight goes to `fallback` (when it is free). Returns whether the fallback took weight.
pub fn set_joint_held(
    w: &mut Vec<(u16, f32)>,
    old: &[(u16, f32)],
    joint: u16,
    value: f32,
    rules: &WeightRules,
    fallback: Option<u16>,
) -> bool {
    let value = if value.is_finite() { value.clamp(0.0, 1.0) } else { 0.0 };
    let current = weight_of(old, joint);
    set_weight(w, joint, value);
    let free_others: f32 = old.iter().filter(|p| p.0 != joint && !rules.is_locked(p.0)).map(|p| p.1).sum();
    let fallback = fallback.filter(|&f| f != joint && !rules.is_locked(f));
    let moved = match fallback {
        Some(f) if value < current && free_others == 0.0 => {
            set_weight(w, f, weight_of(old, f) + (current - value));
            true
        }
        _ => false,
    };
    apply_rules(w, rules, Some(joint), old);
    moved
}

/// What a table operation changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableOutcome {
    /// Vertices changed and whether the layout changed.
    pub tool: ToolOutcome,
    /// Vertices whose only free influence was lowered: their weight went to the nearest joint.
    pub moved_to_fallback: usize,
}

/// Applies `op` to every weld group in `groups` (representatives) the rules let change, as one
/// undo record. A locked joint cannot be set or scaled.
pub fn apply_table_op(
    model: &mut Model,
    surface: &ModelSurface,
    rules: &WeightRules,
    groups: &[u32],
    op: &TableOp,
    record: &mut StrokeRecord,
) -> Result<TableOutcome, PaintError> {
    let joints = surface.joint_nodes().len();
    if let TableOp::Set { joint, .. } | TableOp::Scale { joint, .. } = *op {
        if joint as usize >= joints {
            return Err(PaintError::JointOutOfRange { joint, joints });
        }
        if rules.is_locked(joint) {
            return Err(PaintError::JointLocked(joint));
        }
    }
    let added = ensure_all_influences(model, surface)?;
    let fallback = match *op {
        TableOp::Set { joint, .. } | TableOp::Scale { joint, .. } => fallback_joint(model, surface, joint),
        _ => None,
    };
    let mut moved = 0usize;
    let tool = write_groups(model, surface, rules, groups, record, |_, old| {
        let mut w = old.to_vec();
        match op {
            TableOp::Set { joint, value } => {
                moved += usize::from(set_joint_held(&mut w, old, *joint, *value, rules, fallback))
            }
            TableOp::Scale { joint, factor } => {
                if old.is_empty() {
                    return Vec::new();
                }
                let value = weight_of(old, *joint) * factor.max(0.0);
                moved += usize::from(set_joint_held(&mut w, old, *joint, value, rules, fallback));
            }
            TableOp::Normalize => {
                if old.is_empty() {
                    return Vec::new();
                }
                apply_rules(&mut w, rules, None, old);
            }
            TableOp::Paste(pairs) => {
                w = pairs.iter().copied().filter(|p| p.1 > 0.0 && p.1.is_finite() && !rules.is_locked(p.0)).collect();
                w.extend(old.iter().copied().filter(|p| rules.is_locked(p.0)));
                apply_rules(&mut w, rules, None, old);
            }
        }
        w
    })?;
    Ok(TableOutcome {
        tool: ToolOutcome { layout_changed: tool.layout_changed || added, ..tool },
        moved_to_fallback: moved,
    })
}
