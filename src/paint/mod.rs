//! Weight painting below the GUI: brush settings and falloffs, CPU picking on the deformed mesh,
//! brush footprints over the surface or the volume, blend modes, the weight rules (locks,
//! normalisation over unlocked joints, influence limit, Clean), x-mirror painting, whole-model
//! tools, the selection mask, gradient fill, the weight table and weight transfer (their undo
//! records are `model::StrokeRecord`s). No GUI crate is used here.
//!
//! Invariant: every vertex a dab or tool writes satisfies the `Influences` invariants (finite,
//! non-negative weights summing to 1 over at least one joint, at most the influence limit), and
//! every change is recorded in a [`crate::model::StrokeRecord`] that restores it bit for bit.
//!
//! One dab, as the editor drives it:
//! 1. [`pick_model`] the ray against every instance's deformed positions → [`Hit`];
//! 2. [`footprint()`] around the hit over the whole [`ModelSurface`] (radius in model units, across
//!    primitives and seams) → [`Touch`]es;
//! 3. [`apply_surface_dab`] → [`DabOutcome`] (weights written to every weld copy, new joint sets
//!    interned, undo recorded);
//! 4. `Deformer::prepare_new_sets` and `Deformer::deform_vertices` for the touched vertices
//!    (a full prepare when the layout changed). [`reskin_after_dab`] does step 4.

pub mod adjacency;
pub mod blend;
pub mod brush;
pub mod dab;
pub mod display;
pub mod edited;
pub mod error;
pub mod footprint;
pub mod gradient;
pub mod mirror;
pub mod mirror_match;
pub mod mirror_weights;
pub mod model_surface;
pub mod normalize;
pub mod pick;
pub mod pick_boxes;
pub mod selection;
pub mod surface;
pub mod target;
pub mod tools;
pub mod topology;
pub mod transfer;
pub mod volume_pick;
pub mod weight_table;
pub mod weld;
pub mod writable;

pub use adjacency::Adjacency;
pub use blend::BlendMode;
pub use brush::{BrushSettings, Falloff, RadiusUnit};
pub use dab::{apply_dab, apply_surface_dab, Dab, DabOutcome};
pub use edited::EditedVertices;
pub use error::PaintError;
pub use footprint::{footprint, FootprintOptions, Touch, View};
pub use gradient::{gradient_fill, Gradient, SurfacePoint};
pub use mirror::MirrorMap;
pub use model_surface::ModelSurface;
pub use normalize::{WeightRules, DEFAULT_LIMIT};
pub use pick::{pick, pick_model, Hit, Ray};
pub use pick_boxes::{ModelPickBoxes, PickBoxes};
pub use selection::{ScreenProjection, SelectOp, Selection};
pub use surface::SurfaceScratch;
pub use target::DabTarget;
pub use topology::ModelTopology;
pub use transfer::{apply_transfer, plan_transfer, TransferOptions, TransferReport};
pub use weight_table::{apply_table_op, weight_table, TableOp, WeightTable};
pub use weld::{disagreeing_groups, weld_groups, WeldSource};

use crate::model::Model;
use crate::skinning::{DeformedPrimitive, Deformer};

/// Re-skins after a dab: prepares the joint sets the dab added and deforms only the changed
/// vertices (`outcome.parts`) into `out[instance][prim]` for every instance drawing a changed
/// mesh. When the layout changed or a frame is stale, prepares `pose` again with the deformer's
/// method and deforms everything. `out` is indexed like `Deformer::deform_all`'s output.
pub fn reskin_after_dab(
    deformer: &mut Deformer,
    model: &Model,
    pose: &crate::rig::Pose,
    outcome: &DabOutcome,
    out: &mut Vec<Vec<DeformedPrimitive>>,
) {
    let method = deformer.method().unwrap_or(crate::skinning::SkinningMethod::Lbs);
    if outcome.layout_changed || out.len() != model.instances.len() {
        deformer.deform_all(model, pose, method, out);
        return;
    }
    deformer.prepare_new_sets(model);
    let mut current = true;
    for part in &outcome.parts {
        for (i, inst) in model.instances.iter().enumerate().filter(|(_, inst)| inst.mesh == part.mesh) {
            if let Some(buf) = out.get_mut(i).and_then(|v| v.get_mut(part.prim)) {
                current &= deformer.deform_vertices(model, inst, part.prim, &part.vertices, buf);
            }
        }
    }
    if !current {
        deformer.deform_all(model, pose, method, out);
    }
}
