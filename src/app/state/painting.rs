//! Painting's own state: the brush and weight-tool settings, the selection, the paint colours
//! and what they were computed from, the vertices edited since the last save, the brush caches
//! (welded surface, vertex mirrors) and their background build, and a stroke in progress with its
//! scratch buffers.

use super::paint_ops::SurfaceBuffers;
use super::refresh::PaintColoursKey;
use super::weight_tools_ops::WeightToolsState;
use super::PaintSettings;
use crate::app::topology_job::TopologyJob;
use crate::model::StrokeRecord;
use crate::paint::{EditedVertices, ModelTopology, SurfaceScratch, Touch};

/// The painting settings and caches.
#[derive(Default)]
pub struct PaintingState {
    /// Weight-painting settings.
    pub settings: PaintSettings,
    /// The weight tools: selection mask, gradient, table and transfer settings.
    pub weight_tools: WeightToolsState,
    /// Paint-mode colours (`[instance][primitive][vertex]`, sRGB).
    pub colours: Vec<Vec<Vec<[u8; 4]>>>,
    /// What the paint colours were last computed from in full (see `refresh`).
    pub(super) colours_of: Option<PaintColoursKey>,
    /// Whether anything was selected when the paint colours were last computed in full.
    pub(super) any_selected: bool,
    /// Vertices painted since the model was opened or last saved.
    pub edited: EditedVertices,
    /// Weld groups (coincident vertices) of the opened model whose weights disagree: the mesh
    /// cracks there when posed (Paint ▸ Weld Weights fixes them).
    pub weld_disagreements: usize,
    /// The brush caches: the welded surface, vertex and joint mirrors.
    pub(super) topology: ModelTopology,
    /// The background build of `topology` for a large model, while it runs.
    pub(super) topology_job: Option<TopologyJob>,
    /// The skeleton changed since `topology` was built (its joint mirrors are rebuilt before the
    /// next paint use).
    pub(super) topology_stale: bool,
    /// The deformed surface gathered for one dab.
    pub(super) surface_buffers: SurfaceBuffers,
    /// The stroke in progress.
    pub(super) stroke: Option<StrokeRecord>,
    /// The surface walk's scratch, kept across dabs.
    pub(super) scratch: SurfaceScratch,
    /// A dab's footprint, kept across dabs.
    pub(super) touches: Vec<Touch>,
}

impl PaintingState {
    /// Locks joint `node` against painting and tools, or unlocks it (Command::SetLocked).
    pub fn set_locked(&mut self, node: usize, locked: bool) {
        if locked {
            self.settings.locked.insert(node);
        } else {
            self.settings.locked.remove(&node);
        }
    }
}
