//! Where the model came from and goes to: its source document and file, the save path, the
//! history revision last saved, and a command waiting for the user's confirmation (writing over
//! the input file, or opening another model over unsaved weight edits).

use std::path::PathBuf;
use std::sync::Arc;

use crate::app::command::Command;
use crate::io::SourceDocument;

/// A command waiting for the user's confirmation: writing over the model's input file, or
/// opening another model over unsaved weight edits.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingOverwrite {
    /// The file that would be overwritten (or opened, when `discard`).
    pub path: PathBuf,
    /// The question is whether to discard unsaved weight edits (not whether to overwrite).
    pub discard: bool,
    /// The command to run (with `overwrite` set) when confirmed.
    pub command: Command,
}

/// The model's files and what was saved.
#[derive(Clone, Debug, Default)]
pub struct FilesState {
    /// The glTF document the model came from (`None` for models that are not glTF).
    pub source: Option<Arc<SourceDocument>>,
    /// Where File ▸ Save writes (set by the first save).
    pub save_path: Option<PathBuf>,
    /// The file the model was opened from (`None`: the built-in demo or a new scene).
    pub model_path: Option<PathBuf>,
    /// The history revision last saved or loaded (`None`: restored work that was never saved).
    pub(super) clean_revision: Option<u64>,
    /// A command waiting for confirmation (overwrite the input file, discard unsaved edits).
    pub pending_overwrite: Option<PendingOverwrite>,
    /// The next Open may discard unsaved edits: the user just confirmed it.
    pub(super) discard_confirmed: bool,
}

impl FilesState {
    /// Another model replaced the last one, with the history at `revision`: nothing is saved
    /// anywhere yet and no question waits. The source document is the caller's to set.
    pub fn model_replaced(&mut self, revision: u64) {
        self.save_path = None;
        self.model_path = None;
        self.pending_overwrite = None;
        self.clean_revision = Some(revision);
    }

    /// Answers the waiting question (Command::ConfirmOverwrite): with `yes`, the command to run
    /// now (a discard it asked about is then confirmed); otherwise the line saying what was not
    /// done. `None` when nothing waits.
    pub fn answer(&mut self, yes: bool) -> Option<Result<Command, String>> {
        let p = self.pending_overwrite.take()?;
        Some(if yes {
            self.discard_confirmed = p.discard;
            Ok(p.command)
        } else if p.discard {
            Err(format!("{} was not opened", p.path.display()))
        } else {
            Err(format!("{} was not overwritten", p.path.display()))
        })
    }
}
