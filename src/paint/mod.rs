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
//!
//! In detail: picking (`pick.rs`: every triangle, on large meshes after one pass noting each vertex's
//! side of two planes through the ray (eight vertices at a time through `skinning::lanes` where the CPU
//! has AVX2, the same bits as one by one), so that triangles clearly on one side are skipped;
//! `pick_boxes.rs`: boxes around runs of 64 triangles and groups of 64 runs, fitted to a deformation
//! and refitted at a dab's vertices, the same hit at 1M vertices in 0.02–0.07 ms instead of 4–15, and
//! every crossing for `volume_pick.rs`'s joint placement), brush (falloff, radius units), blend modes,
//! weight rules (locks, limit, clean), mirror (joint names, vertex map), `model_surface.rs` (every
//! skinned primitive as one surface: one vertex and joint numbering, welded adjacency across primitives
//! and seams), `weld.rs` (writing a weld group through a `GroupWriter` that keeps its buffers across a
//! dab's groups, finding and welding groups that disagree), `mirror_match.rs` (joints by mirrored bind
//! position, closest-point vertex mirrors: the triangles around the eight vertices nearest each mirror
//! image, searched ring by ring on a fine grid first, stopping once the eighth nearest lies within the
//! rings seen, and on the coarse one where the fine cannot be sure; both keep only points nearer than
//! the eighth so far), `mirror_weights.rs` (the Mirror Weights operator), adjacency and surface
//! distance (`surface.rs`: Dijkstra bounded by the radius, generation-stamped scratch so a dab touches
//! only what it reaches, each group's neighbour list prefetched when the walk first reaches it),
//! picking, footprint, dabs, tools (their undo records are `model::StrokeRecord`: each vertex's
//! first and last state, their significant weights in one pool), weight display; `selection.rs` (the vertex selection
//! mask: box/lasso by projected deformed positions, grow/shrink, hide/reveal; `editable_mask` goes into
//! `WeightRules::mask`, which every writer checks; a stamp new on every edit, which keeps the panel's
//! counts (`EditorState::selection_summary`) from being recounted every frame), `gradient.rs` (gradient
//! fill by surface distance), `isolines.rs` (where a weight crosses chosen levels, for the weight display), `weight_table.rs` (the table of the selected vertices and its ops;
//! `set_joint_held`), `transfer.rs` (weight transfer: joints by name/position, closest point through
//! `bind::TriangleBvh`, inpainting through `bind::inpaint`).
//!
//! Invariants: GUI-free; every dab leaves valid `Influences`; every copy in a weld group holds the same
//! weights bit for bit after any dab or tool; nothing outside `WeightRules::mask` is written.

pub mod adjacency;
pub mod blend;
pub mod brush;
pub mod dab;
pub mod display;
pub mod edited;
pub mod error;
pub mod footprint;
pub mod gradient;
pub mod isolines;
pub mod joint_palette;
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
