//! Undo/redo for pose edits: snapshots of the whole pose (a few overrides, cheap to copy). A
//! continuous edit (a gizmo or field drag) records one step for the whole gesture.

use crate::rig::Pose;

/// Undo and redo stacks of poses.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: Vec<Pose>,
    redo: Vec<Pose>,
    /// The gesture the last recorded step belongs to, if it may be extended.
    open_gesture: Option<u64>,
}

impl History {
    /// Records `before` as the state to go back to; `gesture` lets consecutive edits of one
    /// gesture share a single step (the first edit of a gesture records, the rest do not).
    pub fn record(&mut self, before: &Pose, gesture: Option<u64>) {
        if gesture.is_some() && gesture == self.open_gesture {
            return;
        }
        self.undo.push(before.clone());
        self.redo.clear();
        self.open_gesture = gesture;
    }

    /// Ends any open gesture, so the next edit records a new step.
    pub fn close_gesture(&mut self) {
        self.open_gesture = None;
    }

    /// Steps back: returns the pose to show, given the current one.
    pub fn undo(&mut self, current: &Pose) -> Option<Pose> {
        let p = self.undo.pop()?;
        self.redo.push(current.clone());
        self.open_gesture = None;
        Some(p)
    }

    /// Steps forward again.
    pub fn redo(&mut self, current: &Pose) -> Option<Pose> {
        let p = self.redo.pop()?;
        self.undo.push(current.clone());
        self.open_gesture = None;
        Some(p)
    }

    /// Whether there is something to undo.
    #[must_use]
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Whether there is something to redo.
    #[must_use]
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Forgets everything (a new model was loaded).
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    fn pose(angle: f64) -> Pose {
        let mut p = Pose::rest();
        p.set_rotation(1, DQuat::from_rotation_z(angle));
        p
    }

    #[test]
    fn a_gesture_is_one_step_and_redo_is_cleared_by_a_new_edit() {
        let mut h = History::default();
        h.record(&pose(0.0), Some(7));
        h.record(&pose(0.1), Some(7));
        h.record(&pose(0.2), Some(7));
        assert_eq!(h.undo(&pose(0.3)), Some(pose(0.0)));
        assert!(!h.can_undo());
        assert_eq!(h.redo(&pose(0.0)), Some(pose(0.3)));
        h.undo(&pose(0.3));
        h.record(&pose(0.0), None);
        assert!(!h.can_redo());
    }
}
