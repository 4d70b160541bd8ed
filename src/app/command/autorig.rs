//! Rig ▸ Auto-rig's commands: open the window, place the active marker where a click's ray meets
//! the character, run the fit and bind on a background thread, cancel a running job.

use crate::paint::Ray;

/// An Auto-rig command.
#[derive(Clone, Debug, PartialEq)]
pub enum AutorigCommand {
    /// Open the Auto-rig window (switching to Rig mode).
    Open,
    /// Place the active marker in the middle of the volume under `ray` (viewport panel `panel`).
    PlaceMarker {
        /// The click's ray, model space.
        ray: Ray,
        /// The viewport panel clicked.
        panel: usize,
    },
    /// Fit, build and bind on a background thread; the result is one undo step.
    Run,
    /// Stop the running background job (Auto-rig or Bind) and forget its result.
    Cancel,
}
