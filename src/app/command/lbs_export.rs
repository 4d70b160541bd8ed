//! The Export for LBS runtimes window's commands.

use std::path::PathBuf;

use crate::app::emulate_job::LbsExportChoice;

/// An action of the Export for LBS runtimes window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LbsExportCommand {
    /// Fit helpers for the choice on a background thread.
    Fit(LbsExportChoice),
    /// Stop the running fit.
    Cancel,
    /// Show the fitted export in the left panel (split view beside the target, with the
    /// difference overlay) or the chosen method again.
    Preview(bool),
    /// Write the fitted export (`overwrite` confirms writing over the input file).
    Export {
        /// Where (the extension follows the choice's format).
        path: PathBuf,
        /// Confirmed to replace the model's input file.
        overwrite: bool,
    },
    /// Forget the fit (the window was closed).
    Discard,
}
