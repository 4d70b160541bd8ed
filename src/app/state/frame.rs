//! What the editor computes from the document once per frame: the CPU deformations of the shown
//! methods and their difference colours, every node's matrix, the morphed unskinned meshes, the
//! revision and the changes the viewport uploads, the pick boxes, the deformers with their shading
//! normals, and the figures and stage times of the status line and frame-time overlay.

use glam::DMat4;

use super::picking::Picking;
use super::Stats;
use crate::app::frame_times::FrameTimes;
use crate::render::gpu_changes::GpuChanges;
use crate::skinning::rigid_morphs::RigidMorphs;
use crate::skinning::{DeformedPrimitive, Deformer};

/// The per-frame caches of the deformation.
pub struct FrameState {
    /// Deformations of the shown methods: `[left, right]`, each `[instance][primitive]`.
    pub deformed: [Vec<Vec<DeformedPrimitive>>; 2],
    /// Difference colours (`[instance][primitive][vertex]`) when the overlay is on.
    pub difference_colours: Vec<Vec<Vec<[u8; 4]>>>,
    /// The largest distance between the two methods (model units) when the overlay is on.
    pub max_difference: f32,
    /// Every node's `model_from_node` in the current pose.
    pub model_from_node: Vec<DMat4>,
    /// The morphed surfaces of unskinned mesh nodes with morph targets, in the current pose.
    pub rigid_morphs: RigidMorphs,
    /// Bumped whenever `deformed` changes (the viewport uploads when it sees a new value).
    pub frame_rev: u64,
    /// Status-line figures.
    pub stats: Stats,
    /// Per-stage times of the last frames.
    pub frame_times: FrameTimes,
    /// What changed in `deformed` and the colours since the viewport last uploaded them.
    pub(super) gpu_changes: GpuChanges,
    /// The panels' pick boxes, fitted when a pick needs them.
    pub(super) picking: Picking,
    /// The left (or only) panel's deformer.
    pub(super) deformer: Deformer,
    /// The right panel's deformer (also the difference overlay's compared method).
    pub(super) deformer_right: Deformer,
    /// The deformer of the fitted export shown "as exported" in the left panel.
    pub(super) deformer_exported: Deformer,
    /// The geometry revision, and which primitives had weights, that both deformers' shading
    /// normals were computed for.
    pub(super) shading_of: Option<(u64, Vec<bool>)>,
    /// The pose, the model or the view changed since the deformations were computed.
    pub(super) dirty: bool,
}

impl Default for FrameState {
    fn default() -> Self {
        Self {
            deformed: [Vec::new(), Vec::new()],
            difference_colours: Vec::new(),
            max_difference: 0.0,
            model_from_node: Vec::new(),
            rigid_morphs: RigidMorphs::default(),
            frame_rev: 0,
            stats: Stats::default(),
            frame_times: FrameTimes::default(),
            gpu_changes: GpuChanges::all(),
            picking: Picking::default(),
            deformer: Deformer::new(),
            deformer_right: Deformer::new(),
            deformer_exported: Deformer::new(),
            shading_of: None,
            dirty: true,
        }
    }
}
