//! Rig mode's own state besides the model: a joint drag still growing (one undo step from press
//! to release), the running automatic-weights job, the Assign Automatic option and the Auto-rig
//! window's choices.

use crate::app::autorig_setup::AutorigSetup;
use crate::app::bind_job::BindJob;
use crate::rig::skeleton_edit::SkeletonRecord;
use crate::rig::Pose;

/// An edit still growing (a gizmo or field drag): its moves so far as one record, and the pose
/// before it.
pub(super) struct OpenEdit {
    pub(super) gesture: u64,
    pub(super) record: Option<SkeletonRecord>,
    pub(super) pose: Pose,
}

/// Rig mode's state besides the model: the open drag and the running automatic-weights job.
#[derive(Default)]
pub struct RigState {
    pub(super) open: Option<OpenEdit>,
    pub(super) job: Option<BindJob>,
    /// Assign Automatic also recomputes the selected joint's descendants.
    pub with_children: bool,
    /// Bind binds small loose parts far from every bone rigidly to the nearest joint.
    pub rigid_parts: bool,
    /// Model edits (skeleton edits, binds, key edits, their undos and redos) since the last save.
    pub(super) unsaved: usize,
    /// Rig ▸ Auto-rig's choices while its window is open.
    pub autorig: Option<AutorigSetup>,
}

impl RigState {
    /// The running automatic-weights job's name and progress (0 to 1), if one runs.
    #[must_use]
    pub fn job_progress(&self) -> Option<(&str, f32)> {
        self.job.as_ref().map(|j| (j.label(), j.progress()))
    }

    /// Model edits (skeleton edits, binds, key edits, their undos and redos) since the last save.
    #[must_use]
    pub fn unsaved_edits(&self) -> usize {
        self.unsaved
    }

    /// The marker the next click on the character places, while the Auto-rig window is open.
    #[must_use]
    pub fn placing_marker(&self) -> Option<&'static str> {
        self.autorig.as_ref().and_then(|a| a.active).filter(|_| self.job.is_none())
    }

    /// Whether a joint drag is open (its edits become one undo step when it ends).
    #[must_use]
    pub fn dragging(&self) -> bool {
        self.open.is_some()
    }
}
