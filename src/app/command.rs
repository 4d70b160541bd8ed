//! Everything the user can do to the editor, as data: the panels emit commands and
//! [`super::state::EditorState::apply`] carries them out (recording pose edits for undo).

use std::path::PathBuf;

use glam::DQuat;

use crate::skinning::SkinningMethod;

/// One user action.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Select a joint node (or nothing).
    Select(Option<usize>),
    /// Set a node's local rotation; edits with the same `gesture` id form one undo step.
    SetRotation {
        /// The node.
        node: usize,
        /// Its new local rotation.
        rotation: DQuat,
        /// The drag this edit belongs to, if any.
        gesture: Option<u64>,
    },
    /// Put one node back to its rest rotation/translation/scale.
    ResetJoint(usize),
    /// Put every node back to rest.
    ResetPose,
    /// Undo the last pose edit.
    Undo,
    /// Redo the last undone pose edit.
    Redo,
    /// Choose the skinning method (of the left panel in split view).
    SetMethod(SkinningMethod),
    /// Show the split view.
    SetSplit(bool),
    /// Choose the method of the right panel.
    SetCompare(SkinningMethod),
    /// Colour the skin by the distance between the two methods.
    SetDifference(bool),
    /// Open a model file (the current one stays on failure).
    OpenModel(PathBuf),
    /// Load a pose file onto the current model.
    LoadPose(PathBuf),
    /// Save the current pose.
    SavePose(PathBuf),
    /// Choose the animation clip on the timeline.
    SelectClip(Option<usize>),
    /// Move the timeline to a time and pose the model from the clip.
    SetTime(f64),
    /// Start or stop playback.
    Play(bool),
    /// Aim the camera at the selection (or the whole model).
    FrameSelected,
}
