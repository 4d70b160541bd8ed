//! The figures the status line keeps current as the work goes on: the joint sets the vertices use
//! now (recounted after every stroke, tool, undo, redo, bind or skeleton edit, never during a
//! stroke or a joint drag) and how many weight edits (strokes and tool runs) are not saved.

use super::EditorState;
use crate::app::history::History;

/// What the counts were last taken from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::app) struct EditCounts {
    /// `(model_rev, history revision)` of the last joint-set count (`None`: never counted).
    counted: Option<(u64, u64)>,
    /// Paint steps on the undo stack at the last save or load.
    clean_paint_steps: usize,
    /// Strokes a restored recovery file held (unsaved until the next save or load).
    restored_strokes: usize,
}

impl EditCounts {
    /// The work was saved or a model loaded: nothing is unsaved.
    pub(in crate::app) fn saved(&mut self, history: &History) {
        self.clean_paint_steps = history.paint_steps();
        self.restored_strokes = 0;
    }

    /// A recovery file with `strokes` strokes was restored.
    pub(in crate::app) fn restored(&mut self, strokes: usize) {
        self.restored_strokes += strokes;
    }
}

impl EditorState {
    /// Weight edits (strokes and tool runs; undoing one takes it back) since the last save or
    /// load; at least 1 while any painted vertex differs from the saved weights.
    #[must_use]
    pub fn unsaved_strokes(&self) -> usize {
        if !self.painting.edited.is_dirty() {
            return 0;
        }
        let steps = self.doc.history.paint_steps().abs_diff(self.doc.counts.clean_paint_steps);
        (steps + self.doc.counts.restored_strokes).max(1)
    }

    /// Recounts the joint sets in use when the model or the history changed since the last count;
    /// not while a joint drag is open (moving a joint changes no weight, and at 1M vertices the
    /// count took about a millisecond of every frame of the drag): its end recounts.
    pub(super) fn refresh_set_counts(&mut self) {
        let key = (self.doc.model_rev, self.doc.history.revision());
        if self.doc.counts.counted == Some(key) || self.rig.dragging() {
            return;
        }
        self.doc.counts.counted = Some(key);
        (self.frame.stats.distinct_sets, self.frame.stats.nontrivial_sets) = self.doc.model.joint_set_counts();
    }
}
