//! The demo's first look: `skinlab open` without a model shows the demo arm where the methods
//! differ, not in its rest pose (where every method draws the same mesh): the wrist twisted 150°
//! by the "twist" clip (paused), LBS on the left beside SBS on the right, and a line on the status
//! bar saying what to look at. `skinlab open --rest` (or any option that sets the view) starts
//! at rest instead.

use super::command::Command;
use super::state::{EditorState, Message};
use crate::skinning::SkinningMethod;

/// The clip the first look plays.
pub const CLIP: &str = "twist";
/// The wrist's twist shown (degrees of the clip's 180°).
pub const TWIST_DEG: f64 = 150.0;

/// Poses the demo arm `s` for the first look (nothing happens if it has no "twist" clip).
pub fn show(s: &mut EditorState) {
    let Some(clip) = s.doc.model.find_clip(CLIP) else { return };
    let Some((start, end)) = s.doc.model.clips.get(clip).map(crate::model::Clip::range) else { return };
    s.apply(Command::SelectClip(Some(clip)));
    s.apply(Command::SetTime(start + (end - start) * TWIST_DEG / 180.0));
    s.apply(Command::SetMethod(SkinningMethod::Lbs));
    s.apply(Command::SetCompare(SkinningMethod::Sbs));
    s.apply(Command::SetSplit(true));
    s.message = Some(Message {
        text: format!(
            "The demo arm, wrist twisted {TWIST_DEG}°: LBS (left) pinches the forearm into a candy wrapper, \
             SBS (right) keeps its volume. Scrub the timeline or pick other methods; `skinlab open --rest` starts at rest."
        ),
        is_error: false,
    });
}
