//! Weight-tool commands: the left drag's tool, selection, restriction, gradient, the weight
//! table and transfer.

use std::path::PathBuf;

use glam::Vec2;

use crate::paint::{Ray, SelectOp, TableOp};

/// What a left drag does in Paint mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PaintTool {
    /// Paints with the brush.
    #[default]
    Brush,
    /// Draws a selection box (B).
    Select,
    /// Drags a gradient from where the drag starts to where it ends.
    Gradient,
}

impl PaintTool {
    /// Every tool, in toolbar order.
    pub const ALL: [Self; 3] = [Self::Brush, Self::Select, Self::Gradient];

    /// The label in the paint panel.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Brush => "Brush",
            Self::Select => "Select",
            Self::Gradient => "Gradient",
        }
    }
}

/// Where a transfer reads weights from.
#[derive(Clone, Debug, PartialEq)]
pub enum TransferSource {
    /// Another model file (its skins onto the whole model, or onto `to_skin`).
    File(PathBuf),
    /// Skin `from` of this model onto skin `to` (both drawn with their own primitives).
    Skin {
        /// Source skin.
        from: usize,
        /// Target skin.
        to: usize,
    },
}

/// One weight-tool action.
#[derive(Clone, Debug, PartialEq)]
pub enum WeightToolCommand {
    /// Choose what a left drag does.
    SetTool(PaintTool),
    /// Box select in viewport panel `panel` (`size` pixels) between two panel-local pixels.
    SelectBox {
        /// One corner (panel pixels).
        a: Vec2,
        /// The opposite corner.
        b: Vec2,
        /// The panel's size in pixels.
        size: Vec2,
        /// Replace, add (Shift) or subtract (Ctrl).
        op: SelectOp,
        /// The panel (0 left, 1 right in split view).
        panel: usize,
    },
    /// Lasso select: the closed polygon `points` (panel pixels).
    SelectLasso {
        /// The lasso (panel pixels).
        points: Vec<Vec2>,
        /// The panel's size in pixels.
        size: Vec2,
        /// Replace, add or subtract.
        op: SelectOp,
        /// The panel.
        panel: usize,
    },
    /// Select every visible vertex (A).
    SelectAll,
    /// Deselect everything (Alt+A).
    SelectNone,
    /// Invert the selection (Ctrl+I).
    Invert,
    /// Grow the selection by one ring (Ctrl+numpad +).
    Grow,
    /// Shrink the selection by one ring (Ctrl+numpad −).
    Shrink,
    /// Hide the selected (H) or the unselected (Shift+H) vertices.
    Hide {
        /// Hide the unselected ones instead.
        unselected: bool,
    },
    /// Reveal every hidden vertex, selected (Alt+H).
    Reveal,
    /// Paint and run tools only on the selection.
    SetRestrict(bool),
    /// Gradient of the selected joint from where `start` meets the mesh (its start value) to
    /// where `end` does (its end value).
    Gradient {
        /// Ray through the drag's start.
        start: Ray,
        /// Ray through the drag's end.
        end: Ray,
        /// The panel.
        panel: usize,
    },
    /// A weight-table operation on the selected vertices (or only on `group`).
    Table {
        /// The operation.
        op: TableOp,
        /// One weld group (a table cell's row) instead of the selection.
        group: Option<u32>,
    },
    /// Copy a vertex's weights (its weld group) for Paste.
    Copy(u32),
    /// Transfer weights (one undo step).
    Transfer(TransferSource),
}
