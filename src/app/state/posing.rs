//! Posing's own state: the IK settings and drag, the pose library, the rotation gizmo's and
//! fields' settings, the copied pose, the timeline (clip, time, playback, display) and the mesh whose
//! morph targets the sliders show. The pose itself is
//! the editor's (every concern reads it); this is what only posing changes.

use super::ik_ops::IkState;
use super::pose_library_ops::PoseLibraryState;
use super::pose_tools::CopiedPose;
use super::rotation_fields::RotationFields;
use crate::app::gizmo::GizmoSettings;

/// The posing settings and the timeline.
#[derive(Clone, Debug, Default)]
pub struct PosingState {
    /// The pose last copied (Copy Pose), for Paste and Paste Flipped.
    pub clipboard: Option<CopiedPose>,
    /// IK dragging (Pose mode): on/off, chain length, pins, the drag in progress.
    pub ik: IkState,
    /// The model's pose library (read lazily, see `EditorState::sync_pose_library`).
    pub poses: PoseLibraryState,
    /// The rotation gizmo's settings (Local / World rings).
    pub gizmo: GizmoSettings,
    /// The rotation fields' Euler order and the values typed into them.
    pub rotation_fields: RotationFields,
    /// The clip on the timeline.
    pub clip: Option<usize>,
    /// Timeline position, seconds.
    pub time_secs: f64,
    /// Whether the clip is playing.
    pub playing: bool,
    /// How the timeline shows time and curves.
    pub timeline: TimelineView,
    /// The mesh node whose morph-target sliders the panel shows (`None`: the first morphed one).
    pub morph_node: Option<usize>,
}

/// The timeline's display settings (no undo: they change no data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimelineView {
    /// Time in seconds instead of frames at the clip's frame rate.
    pub seconds: bool,
    /// The interpolation menu sets only the keys at the current time (else every key of the
    /// selected joint, or of the clip with none selected).
    pub keys_here: bool,
    /// The curve view of the selected joint's rotation is open.
    pub curves: bool,
    /// The curves show Euler angles (in the rotation fields' order) instead of Twist / Bend A /
    /// Bend B.
    pub euler_curves: bool,
}

impl PosingState {
    /// Starts or stops playback (it starts only with a clip on the timeline).
    pub fn play(&mut self, on: bool) {
        self.playing = on && self.clip.is_some();
    }

    /// Forgets what belonged to the previous model (IK pins and drag, the timeline's clip);
    /// the settings stay.
    pub fn model_replaced(&mut self) {
        self.ik.model_replaced();
        self.clip = None;
        self.time_secs = 0.0;
        self.playing = false;
        self.morph_node = None;
    }
}
