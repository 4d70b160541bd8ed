//! One undo/redo history for pose edits and weight painting: each step is either a snapshot of
//! the whole pose (a few overrides, cheap to copy) or a paint record (a stroke or a weight tool,
//! which restores the touched vertices bit for bit). A continuous pose edit (a gizmo or field
//! drag) records one step for the whole gesture; a paint stroke is one step from press to release.

use crate::paint::StrokeRecord;
use crate::rig::Pose;

/// One undoable step.
#[derive(Clone, Debug)]
pub enum Step {
    /// The pose to go back (or forward) to.
    Pose(Pose),
    /// A stroke or tool run: undo restores its `before` states, redo its `after` states.
    Paint(StrokeRecord),
}

/// What an undo or redo did.
#[derive(Clone, Debug, PartialEq)]
pub enum Undone {
    /// Show this pose.
    Pose(Pose),
    /// A paint step was undone or redone on the model.
    Paint,
}

/// Undo and redo stacks of steps.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: Vec<Step>,
    redo: Vec<Step>,
    /// The gesture the last recorded step belongs to, if it may be extended.
    open_gesture: Option<u64>,
    /// Bumped by every change of the history (never reset, so a saved revision stays comparable).
    revision: u64,
}

impl History {
    /// Records `before` as the state to go back to; `gesture` lets consecutive edits of one
    /// gesture share a single step (the first edit of a gesture records, the rest do not).
    pub fn record(&mut self, before: &Pose, gesture: Option<u64>) {
        if gesture.is_some() && gesture == self.open_gesture {
            return;
        }
        self.undo.push(Step::Pose(before.clone()));
        self.redo.clear();
        self.open_gesture = gesture;
        self.revision += 1;
    }

    /// Records a finished stroke or tool run (empty records are not kept).
    pub fn record_paint(&mut self, record: StrokeRecord) {
        self.open_gesture = None;
        if record.is_empty() {
            return;
        }
        self.undo.push(Step::Paint(record));
        self.redo.clear();
        self.revision += 1;
    }

    /// Ends any open gesture, so the next edit records a new step.
    pub fn close_gesture(&mut self) {
        self.open_gesture = None;
    }

    /// Steps back. A pose step returns the pose to show (the current one goes to redo); a paint
    /// step is handed to `paint` (which undoes it on the model) and moved to redo.
    pub fn undo(&mut self, current: &Pose, paint: impl FnOnce(&StrokeRecord)) -> Option<Undone> {
        let step = self.undo.pop()?;
        self.open_gesture = None;
        self.revision += 1;
        Some(match step {
            Step::Pose(p) => {
                self.redo.push(Step::Pose(current.clone()));
                Undone::Pose(p)
            }
            Step::Paint(r) => {
                paint(&r);
                self.redo.push(Step::Paint(r));
                Undone::Paint
            }
        })
    }

    /// Steps forward again (as [`History::undo`], the other way; `paint` redoes a paint step).
    pub fn redo(&mut self, current: &Pose, paint: impl FnOnce(&StrokeRecord)) -> Option<Undone> {
        let step = self.redo.pop()?;
        self.open_gesture = None;
        self.revision += 1;
        Some(match step {
            Step::Pose(p) => {
                self.undo.push(Step::Pose(current.clone()));
                Undone::Pose(p)
            }
            Step::Paint(r) => {
                paint(&r);
                self.undo.push(Step::Paint(r));
                Undone::Paint
            }
        })
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
        let revision = self.revision + 1;
        *self = Self { revision, ..Self::default() };
    }

    /// Changes with every recorded, undone or redone step and every [`History::clear`]: equal
    /// revisions mean the same edits (what autosave and the unsaved-work check compare).
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Paint strokes and tool runs that can be undone (what "unsaved strokes" counts).
    #[must_use]
    pub fn paint_steps(&self) -> usize {
        self.undo.iter().filter(|s| matches!(s, Step::Paint(_))).count()
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
        assert_eq!(h.undo(&pose(0.3), |_| ()), Some(Undone::Pose(pose(0.0))));
        assert!(!h.can_undo());
        assert_eq!(h.redo(&pose(0.0), |_| ()), Some(Undone::Pose(pose(0.3))));
        h.undo(&pose(0.3), |_| ());
        h.record(&pose(0.0), None);
        assert!(!h.can_redo());
    }

    #[test]
    fn pose_and_paint_steps_share_one_history() {
        let mut h = History::default();
        h.record(&pose(0.0), None);
        h.record_paint(StrokeRecord::new("empty"));
        assert!(h.can_undo());
        let mut r = StrokeRecord::new("Paint Add");
        let mut table = crate::model::JointSetTable::new(4);
        let verts = [crate::model::influences::VertexInfluences { pairs: vec![(0, 1.0)] }];
        let snap = crate::model::Influences::from_vertices(&verts, &mut table).unwrap().snapshot(0);
        r.record(0, 0, 3, snap, snap);
        h.record_paint(r);
        let mut seen = Vec::new();
        assert_eq!(h.undo(&pose(0.5), |r| seen.push(r.label().to_owned())), Some(Undone::Paint));
        assert_eq!(seen, ["Paint Add"]);
        assert_eq!(h.undo(&pose(0.5), |_| panic!("not a paint step")), Some(Undone::Pose(pose(0.0))));
        assert!(!h.can_undo());
        assert_eq!(h.redo(&pose(0.0), |_| ()), Some(Undone::Pose(pose(0.5))));
        assert_eq!(h.redo(&pose(0.5), |r| seen.push(r.label().to_owned())), Some(Undone::Paint));
        assert_eq!(seen, ["Paint Add", "Paint Add"]);
    }
}
