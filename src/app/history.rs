//! One undo/redo history for pose edits, weight painting and rigging: each step is a snapshot of
//! the whole pose (a few overrides, cheap to copy), a paint record (a stroke or a weight tool,
//! which restores the touched vertices bit for bit), a skeleton edit (its skeleton-sized record)
//! or a model edit (a bind, key edits, a restored recovery file), the last two with the pose shown
//! on the other side of them, or a change of the pose library (the library on its other side). A continuous pose edit (a gizmo or field drag)
//! records one step for the whole gesture; a paint stroke is one step from press to release; a
//! joint dragged with the translate gizmo is one step from press to release.

use crate::io::pose_library::PoseLibrary;
use crate::model::ModelEdit;
use crate::model::StrokeRecord;
use crate::rig::skeleton_edit::SkeletonRecord;
use crate::rig::Pose;

/// One undoable step.
#[derive(Clone, Debug)]
pub enum Step {
    /// The pose to go back (or forward) to.
    Pose(Pose),
    /// A stroke or tool run: undo restores its `before` states, redo its `after` states.
    Paint(StrokeRecord),
    /// A model edit (a bind, key edits) and the pose to show on the other side of it.
    Model(Box<ModelEdit>, Pose),
    /// A skeleton edit and the pose to show on the other side of it.
    Skeleton(Box<SkeletonRecord>, Pose),
    /// A change of the pose library (add, rename, delete a pose): its name and the library on
    /// the other side of it.
    Library(&'static str, Box<PoseLibrary>),
}

/// A step that changes the model, handed to the caller of undo / redo to apply.
#[derive(Clone, Copy, Debug)]
pub enum Edit<'a> {
    /// A paint record.
    Paint(&'a StrokeRecord),
    /// A model edit.
    Model(&'a ModelEdit),
    /// A skeleton edit.
    Skeleton(&'a SkeletonRecord),
}

impl Edit<'_> {
    /// The step's name ("Paint Add", "Delete Joint", ...).
    #[must_use]
    pub fn label(&self) -> &str {
        match self {
            Edit::Paint(r) => r.label(),
            Edit::Model(m) => m.label(),
            Edit::Skeleton(r) => r.label(),
        }
    }

    /// Undoes (`undo`) or redoes the step on `model`, bit for bit.
    pub fn apply(&self, model: &mut crate::model::Model, undo: bool) {
        match (self, undo) {
            (Edit::Paint(r), true) => {
                r.undo(model);
            }
            (Edit::Paint(r), false) => {
                r.redo(model);
            }
            (Edit::Model(m), true) => m.undo(model),
            (Edit::Model(m), false) => m.redo(model),
            (Edit::Skeleton(r), true) => r.undo(model),
            (Edit::Skeleton(r), false) => r.redo(model),
        }
    }
}

/// What an undo or redo did.
#[derive(Clone, Debug, PartialEq)]
pub enum Undone {
    /// Show this pose.
    Pose(Pose),
    /// A paint step was undone or redone on the model.
    Paint,
    /// A model or skeleton edit was undone or redone; show this pose.
    Model(Pose),
    /// A pose-library change was undone or redone (the library swapped in place); its name.
    Library(&'static str),
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

    /// Records a finished model edit; `pose` is the pose shown before it (restored by undo).
    pub fn record_model(&mut self, edit: ModelEdit, pose: &Pose) {
        self.open_gesture = None;
        self.undo.push(Step::Model(Box::new(edit), pose.clone()));
        self.redo.clear();
        self.revision += 1;
    }

    /// Records a finished skeleton edit; `pose` is the pose shown before it (restored by undo).
    pub fn record_skeleton(&mut self, edit: SkeletonRecord, pose: &Pose) {
        self.open_gesture = None;
        self.undo.push(Step::Skeleton(Box::new(edit), pose.clone()));
        self.redo.clear();
        self.revision += 1;
    }

    /// Records a change of the pose library; `before` is the library before it (restored by
    /// undo).
    pub fn record_library(&mut self, label: &'static str, before: PoseLibrary) {
        self.open_gesture = None;
        self.undo.push(Step::Library(label, Box::new(before)));
        self.redo.clear();
        self.revision += 1;
    }

    /// Whether the step the next undo (`undo`) or redo would cross changes mesh data beyond a
    /// skeleton edit's weights: a paint record, or a model edit that replaced primitives (a bind).
    #[must_use]
    pub fn next_changes_meshes(&self, undo: bool) -> bool {
        let stack = if undo { &self.undo } else { &self.redo };
        match stack.last() {
            Some(Step::Paint(_)) => true,
            Some(Step::Model(e, _)) => e.touches_primitives(),
            Some(Step::Pose(_) | Step::Skeleton(..) | Step::Library(..)) | None => false,
        }
    }

    /// Ends any open gesture, so the next edit records a new step.
    pub fn close_gesture(&mut self) {
        self.open_gesture = None;
    }

    /// Steps back. A pose step returns the pose to show (the current one goes to redo); a paint
    /// or model step is handed to `model` (which undoes it on the model) and moved to redo; a
    /// library step swaps `library` with the one it holds.
    pub fn undo(&mut self, current: &Pose, library: &mut PoseLibrary, model: impl FnOnce(Edit<'_>)) -> Option<Undone> {
        let step = self.undo.pop()?;
        self.open_gesture = None;
        self.revision += 1;
        let (step, undone) = Self::traverse(step, current, library, model);
        self.redo.push(step);
        Some(undone)
    }

    /// Steps forward again (as [`History::undo`], the other way; `model` redoes a paint or model
    /// step).
    pub fn redo(&mut self, current: &Pose, library: &mut PoseLibrary, model: impl FnOnce(Edit<'_>)) -> Option<Undone> {
        let step = self.redo.pop()?;
        self.open_gesture = None;
        self.revision += 1;
        let (step, undone) = Self::traverse(step, current, library, model);
        self.undo.push(step);
        Some(undone)
    }

    /// Crosses one step: returns the step for the other stack and what to show.
    fn traverse(step: Step, current: &Pose, library: &mut PoseLibrary, model: impl FnOnce(Edit<'_>)) -> (Step, Undone) {
        match step {
            Step::Library(label, other) => {
                let now = std::mem::replace(library, *other);
                (Step::Library(label, Box::new(now)), Undone::Library(label))
            }
            Step::Pose(p) => (Step::Pose(current.clone()), Undone::Pose(p)),
            Step::Paint(r) => {
                model(Edit::Paint(&r));
                (Step::Paint(r), Undone::Paint)
            }
            Step::Model(e, p) => {
                model(Edit::Model(&e));
                (Step::Model(e, current.clone()), Undone::Model(p))
            }
            Step::Skeleton(e, p) => {
                model(Edit::Skeleton(&e));
                (Step::Skeleton(e, current.clone()), Undone::Model(p))
            }
        }
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
        let mut lib = PoseLibrary::default();
        h.record(&pose(0.0), Some(7));
        h.record(&pose(0.1), Some(7));
        h.record(&pose(0.2), Some(7));
        assert_eq!(h.undo(&pose(0.3), &mut lib, |_| ()), Some(Undone::Pose(pose(0.0))));
        assert!(!h.can_undo());
        assert_eq!(h.redo(&pose(0.0), &mut lib, |_| ()), Some(Undone::Pose(pose(0.3))));
        h.undo(&pose(0.3), &mut lib, |_| ());
        h.record(&pose(0.0), None);
        assert!(!h.can_redo());
    }

    #[test]
    fn pose_and_paint_steps_share_one_history() {
        let mut h = History::default();
        let mut lib = PoseLibrary::default();
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
        let label = |e: Edit<'_>| e.label().to_owned();
        assert_eq!(h.undo(&pose(0.5), &mut lib, |r| seen.push(label(r))), Some(Undone::Paint));
        assert_eq!(seen, ["Paint Add"]);
        assert_eq!(h.undo(&pose(0.5), &mut lib, |_| panic!("not a paint step")), Some(Undone::Pose(pose(0.0))));
        assert!(!h.can_undo());
        assert_eq!(h.redo(&pose(0.0), &mut lib, |_| ()), Some(Undone::Pose(pose(0.5))));
        assert_eq!(h.redo(&pose(0.5), &mut lib, |r| seen.push(label(r))), Some(Undone::Paint));
        assert_eq!(seen, ["Paint Add", "Paint Add"]);
    }

    #[test]
    fn a_library_step_swaps_the_library_both_ways() {
        let mut h = History::default();
        let before = PoseLibrary::default();
        let entry =
            crate::io::pose_library::LibraryPose { name: "a".into(), pose: pose(0.1), thumbnail_png: Vec::new() };
        let mut lib = PoseLibrary { poses: vec![entry] };
        h.record_library("Add Pose", before.clone());
        let after = lib.clone();
        assert_eq!(h.undo(&pose(0.0), &mut lib, |_| panic!("no model edit")), Some(Undone::Library("Add Pose")));
        assert_eq!(lib, before);
        assert_eq!(h.redo(&pose(0.0), &mut lib, |_| ()), Some(Undone::Library("Add Pose")));
        assert_eq!(lib, after);
        assert!(!h.next_changes_meshes(true));
    }
}
