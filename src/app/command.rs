//! Everything the user can do to the editor, as data: the panels emit commands and
//! [`super::state::EditorState::apply`] carries them out (recording pose edits for undo).

mod autorig;
mod ik;
mod lbs_export;
mod pose_library;
mod weight_tools;

use std::path::PathBuf;

use glam::{DQuat, DVec3};

use super::state::Mode;
use crate::io::WeightsFormat;
use crate::paint::Ray;
use crate::skinning::SkinningMethod;

pub use autorig::AutorigCommand;
pub use ik::{IkCommand, MAX_CHAIN};
pub use lbs_export::LbsExportCommand;
pub use pose_library::PoseLibraryCommand;
pub use weight_tools::{PaintTool, TransferSource, WeightToolCommand};

/// The pattern of every skeleton edit (Rig mode: add, delete, move, reparent, rename, symmetrize,
/// orient, roll), for the matches that treat them alike; each match stays exhaustive over [`Command`].
macro_rules! skeleton_edit {
    () => {
        Command::AddJoint { .. }
            | Command::DeleteJoint(_)
            | Command::MoveJoint { .. }
            | Command::ReparentJoint { .. }
            | Command::RenameJoint { .. }
            | Command::Symmetrize(_)
            | Command::OrientJoint(_)
            | Command::SetRoll { .. }
    };
}
pub(crate) use skeleton_edit;

/// A whole-model weight tool (see `crate::paint::tools`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightTool {
    /// Normalise every vertex over its unlocked joints.
    NormalizeAll,
    /// Drop the smallest influences beyond the limit.
    LimitTotal,
    /// Remove unlocked weights below the Clean threshold.
    Clean,
    /// Smooth every vertex towards its neighbours.
    SmoothAll,
    /// Give every weld group whose coincident copies disagree one set of weights.
    Weld(crate::paint::WeldSource),
    /// Copy weights across the mirror plane: every joint, or only the selected joint and its
    /// mirror.
    MirrorWeights {
        /// Which side is copied onto which.
        direction: crate::paint::mirror_weights::MirrorDirection,
        /// Every joint (`true`) or the selected one.
        all_joints: bool,
    },
}

impl WeightTool {
    /// The button label (also the undo step's name).
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::NormalizeAll => "Normalize All",
            Self::LimitTotal => "Limit Total",
            Self::Clean => "Clean",
            Self::SmoothAll => "Smooth All",
            Self::Weld(crate::paint::WeldSource::Mean) => "Weld Weights (mean)",
            Self::Weld(crate::paint::WeldSource::LargerSide) => "Weld Weights (larger side)",
            Self::MirrorWeights { all_joints: true, .. } => "Mirror Weights (all joints)",
            Self::MirrorWeights { all_joints: false, .. } => "Mirror Weights (selected joint)",
        }
    }
}

/// What File ▸ Export writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportChoice {
    /// `.glb` (true) or `.gltf` with an embedded buffer (false).
    pub glb: bool,
    /// Re-encode every skinned primitive's weights in this format (`None`: floats for the painted
    /// primitives, the others kept as in the source).
    pub weights: Option<WeightsFormat>,
    /// Bake the current pose with the current method into static meshes.
    pub bake: bool,
}

impl Default for ExportChoice {
    fn default() -> Self {
        Self { glb: true, weights: None, bake: false }
    }
}

/// A key operation on the timeline's clip (see `app::state::key_ops`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyCommand {
    /// Key the pose at the current time: the selected joint, or every joint (`whole_pose`, or
    /// nothing selected), on the chosen clip or a new one.
    Set {
        /// Key every joint of the skins.
        whole_pose: bool,
    },
    /// Delete the keys at the current time: the selected joint's, or every joint's.
    Delete {
        /// Every joint's keys.
        whole_pose: bool,
    },
    /// Move every key at `from_secs` to `to_secs`.
    Move {
        /// Where the keys are.
        from_secs: f64,
        /// Where they go.
        to_secs: f64,
    },
    /// Key a mesh node's morph-target weights at the current time (a weights channel), on the
    /// chosen clip or a new one.
    SetMorph {
        /// The mesh node.
        node: usize,
    },
    /// Start a new, empty clip ("Action") and choose it.
    NewClip,
    /// Set the interpolation of the selected joint's keys (every joint's with none selected):
    /// all of them, or only those at the current time (`here_only`).
    Interpolation {
        /// Step, linear or cubic spline.
        mode: crate::model::Interpolation,
        /// Only the keys at the current time.
        here_only: bool,
    },
    /// A key dragged in the curve view: `node`'s keys at `from_secs` move to `to_secs` and its
    /// rotation key there becomes `rotation` (local).
    EditRotationKey {
        /// The joint.
        node: usize,
        /// Where the key was.
        from_secs: f64,
        /// Where it goes.
        to_secs: f64,
        /// Its new local rotation.
        rotation: DQuat,
    },
}

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
    /// Set one morph target's weight on a mesh node; edits with the same `gesture` id form one
    /// undo step.
    SetMorphWeight {
        /// The mesh node.
        node: usize,
        /// The target's index in the mesh.
        target: usize,
        /// Its new weight.
        weight: f32,
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
    /// A key operation on the timeline's clip.
    Key(KeyCommand),
    /// Copy the pose of the selected joint and those below it (every joint with none selected).
    CopyPose,
    /// Paste the copied pose (one undo step); `flipped` pastes it across the symmetry plane.
    PastePose {
        /// Onto the mirror partners, reflected.
        flipped: bool,
    },
    /// Aim the camera at the selection (or the whole model).
    FrameSelected,
    /// IK dragging: settings, pins, a drag of an end joint or a pole handle.
    Ik(IkCommand),
    /// The model's pose library: add, apply (flipped), rename, delete.
    PoseLibrary(PoseLibraryCommand),
    /// Add the range-of-motion clip of `joints` (`analysis::rom`) and show it on the timeline
    /// (one undo step).
    AddRomClip {
        /// Joint nodes, in clip order.
        joints: Vec<usize>,
        /// The largest angle of each motion, radians.
        max_angle_rad: f64,
        /// Seconds per motion.
        seconds_per_motion: f64,
    },
    /// Switch between posing, weight painting and rigging.
    SetMode(Mode),
    /// Start a brush stroke (one undo step until [`Command::EndStroke`]).
    BeginStroke,
    /// One dab of the brush where `ray` meets the mesh as deformed in viewport panel `panel`
    /// (0 left, 1 right in split view), `viewport_height_px` pixels tall (for radii in pixels).
    Dab {
        /// The picking ray (model space).
        ray: Ray,
        /// Height of the viewport panel in pixels.
        viewport_height_px: f32,
        /// The panel under the cursor.
        panel: usize,
    },
    /// Finish the stroke and record it for undo.
    EndStroke,
    /// Set the Replace value from the selected joint's weight under `ray` in panel `panel`.
    SampleWeight {
        /// The picking ray (model space).
        ray: Ray,
        /// The panel under the cursor.
        panel: usize,
    },
    /// Selection mask, gradient, weight table and transfer (Paint mode; edits are one undo step).
    WeightTools(WeightToolCommand),
    /// File ▸ Export for LBS runtimes: fit, preview, export.
    LbsExport(LbsExportCommand),
    /// Run a weight tool on every skin (one undo step).
    Tool(WeightTool),
    /// Lock or unlock a joint (node index) against painting and tools.
    SetLocked {
        /// The joint's node.
        node: usize,
        /// Locked or not.
        locked: bool,
    },
    /// Write the model with its painted weights as glTF (`overwrite` confirms writing over the
    /// file the model was opened from).
    SaveModel {
        /// Where.
        path: PathBuf,
        /// Writing over the input file was confirmed.
        overwrite: bool,
    },
    /// Write the painted weights to a weights file.
    SaveWeights(PathBuf),
    /// Export the model (`overwrite` confirms writing over the input file).
    Export {
        /// Where.
        path: PathBuf,
        /// What to write.
        choice: ExportChoice,
        /// Writing over the input file was confirmed.
        overwrite: bool,
    },
    /// Answer the pending overwrite question (yes: write, no: drop it).
    ConfirmOverwrite(bool),
    /// Rig mode: add a joint as a child of the selected one (or, on a model without a skeleton,
    /// its root) where `ray` (model space, seen in viewport panel `panel`) meets the mesh: in the
    /// middle of the volume under the cursor (the midpoint of the ray's first entry and exit),
    /// or, when the ray misses, on the plane through the selected joint facing the camera.
    AddJoint {
        /// The picking ray (model space).
        ray: Ray,
        /// The panel under the cursor.
        panel: usize,
    },
    /// Rig mode: delete a joint (its children go to its parent, its weights to its parent).
    DeleteJoint(usize),
    /// Rig mode: move a joint's bind position to `position` (model space); edits with the same
    /// `gesture` id (one gizmo or field drag) form one undo step.
    MoveJoint {
        /// The joint's node.
        node: usize,
        /// Its new bind position, model space.
        position: DVec3,
        /// The drag this edit belongs to, if any.
        gesture: Option<u64>,
    },
    /// Rig mode: make `parent` the parent of `node` (keeping its bind position).
    ReparentJoint {
        /// The joint to move in the tree.
        node: usize,
        /// Its new parent joint.
        parent: usize,
    },
    /// Rig mode: rename a joint.
    RenameJoint {
        /// The joint's node.
        node: usize,
        /// The new name.
        name: String,
    },
    /// Rig mode: mirror this joint's subtree across the model's symmetry plane, with mirrored
    /// names (Rig ▸ Symmetrize).
    Symmetrize(usize),
    /// Rig mode: rotate a joint's frame to aim at its child (the mesh and children stay put).
    OrientJoint(usize),
    /// Rig mode: set a joint's roll about its bone (Blender's), keeping the bone's direction.
    SetRoll {
        /// The joint's node.
        node: usize,
        /// The roll in radians.
        roll: f64,
        /// The drag this edit belongs to, if any.
        gesture: Option<u64>,
    },
    /// Rig ▸ Auto-rig: its window, markers, the job.
    Autorig(AutorigCommand),
    /// Compute automatic weights on a background thread: for every joint (Bind), or for the
    /// selected joint and its descendants only (Assign Automatic), keeping the other weights.
    Bind {
        /// Only the selected joint's chain (Assign Automatic).
        selected_only: bool,
    },
}
