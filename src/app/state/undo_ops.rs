//! Undo and redo: the history's next step crossed on the model (made unique only when the step
//! changes it), the pose and the pose library, and a message naming the step.

use super::{recovery_ops, EditorState};
use crate::app::history::{Edit, Undone};

impl EditorState {
    /// Undoes (`undo`) or redoes the history's next step and says which.
    pub(super) fn undo_redo(&mut self, undo: bool) {
        self.end_stroke();
        self.end_gesture();
        // Only a step that changes the model makes it unique (copies it while shared).
        let shared = &mut self.doc.model;
        let edits = &mut self.doc.model_edits;
        let edited = &mut self.painting.edited;
        let mut restore_step = false;
        let mut label = None;
        let apply = |e: Edit<'_>| {
            e.apply(super::refresh::edit_model(shared, edits), undo);
            match e {
                Edit::Paint(r) => edited.note(r),
                Edit::Model(m) => restore_step = m.label() == recovery_ops::RESTORE_STEP,
                Edit::Skeleton(_) => {}
            }
            label = Some(e.label().to_owned());
        };
        let library = &mut self.posing.poses.library;
        let step = if undo {
            self.doc.history.undo(&self.doc.pose, library, apply)
        } else {
            self.doc.history.redo(&self.doc.pose, library, apply)
        };
        let verb = if undo { "Undo" } else { "Redo" };
        let Some(step) = step else {
            self.set_info(format!("nothing to {}", verb.to_lowercase()));
            return;
        };
        match step {
            Undone::Library(name) => {
                self.set_info(format!("{verb}: {name}"));
                // A failed write is the message shown instead.
                self.write_library();
                return;
            }
            Undone::Pose(p) => {
                self.doc.pose = p;
                self.posing.playing = false;
                self.frame.dirty = true;
            }
            Undone::Paint => {
                self.recount_welds();
                self.frame.dirty = true;
            }
            Undone::Model(p) => {
                self.doc.pose = p;
                self.posing.playing = false;
                // Undoing an added clip (New Clip, Add ROM clip) leaves no clip to show.
                self.posing.clip = self.posing.clip.filter(|&c| c < self.doc.model.clips.len());
                // A restored recovery file changed weights, not the skeleton.
                if restore_step {
                    self.model_changed();
                } else {
                    self.model_edited();
                }
            }
        }
        self.set_info(format!("{verb}: {}", label.as_deref().unwrap_or("pose change")));
    }
}
