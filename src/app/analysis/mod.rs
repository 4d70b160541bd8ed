//! The editor's analysis views (state only; their panels are in `app/ui/`): the joint-sets view
//! (View ▸ Joint sets: what SBS computes per joint set, drawn in the viewport and listed in a
//! sortable table) and the sweep panel (stress sweeps of one joint, with a scrub that poses it).

pub mod joint_sets;
pub mod overlay;
pub mod sweep;

pub use joint_sets::{set_colour, JointSetsView, SetColumn, SetHover};
pub use sweep::{Scrub, SweepPanel, SweepResult};

/// Every analysis view's state (a field of `EditorState`).
#[derive(Default)]
pub struct AnalysisState {
    /// View ▸ Joint sets.
    pub sets: JointSetsView,
    /// The sweep panel.
    pub sweep: SweepPanel,
}
