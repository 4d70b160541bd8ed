//! Bringing the CPU deformation up to date once per frame: FK and preparation, the per-vertex
//! pass of every shown method (and the comparison method for the difference overlay), the
//! overlay and paint colours; each stage's time goes to [`super::FrameTimes`] and everything
//! deformed is noted for upload.

use std::sync::Arc;
use std::time::Instant;

use super::{EditorState, Mode, Stage};
use crate::model::Model;
use crate::render::gpu_changes::{Changed, GpuChanges};
use crate::render::overlays::difference_overlay;
use crate::rig::Pose;
use crate::skinning::shading::ShadingNormals;
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

/// The difference overlay's scale never goes below this fraction of the model's diagonal: two
/// methods closer than that agree within f32 rounding, and a full ramp over rounding noise would
/// read as a large difference.
pub const DIFFERENCE_FLOOR: f32 = 1e-4;

impl EditorState {
    /// The smallest distance the difference overlay's ramp spans (model units):
    /// [`DIFFERENCE_FLOOR`] of the model's diagonal. Below it the methods are identical within
    /// rounding.
    #[must_use]
    pub fn difference_floor(&self) -> f32 {
        let (lo, hi) = self.doc.model_bounds;
        ((hi - lo).length() * DIFFERENCE_FLOOR).max(1e-9)
    }

    /// Recomputes the deformation(s) if anything they depend on changed.
    pub fn refresh(&mut self) {
        self.refresh_set_counts();
        if !self.frame.dirty {
            return;
        }
        self.frame.dirty = false;
        self.refresh_topology();
        let started = Instant::now();
        let model = Arc::clone(&self.doc.model);
        let methods = self.view.shown_methods();
        let rest = Pose::rest();
        // Rig mode shows the bind pose (rest = bind); the pose comes back with the other modes.
        let pose = if self.mode == Mode::Rig { &rest } else { &self.doc.pose };
        // Skeleton and weight edits keep the rest normals (at 1M vertices they took ~20 ms); a
        // new geometry, or a mesh bound for the first time, computes them again.
        let weighted = model.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.influences.is_some()).collect();
        let shading_of = Some((self.doc.geometry_rev, weighted));
        if self.frame.shading_of != shading_of {
            // Primitives without normals are shaded by their rest normals, deformed with them.
            let shading = Some(Arc::new(ShadingNormals::of(&model)));
            self.frame.deformer.set_shading_normals(shading.clone());
            self.frame.deformer_exported.set_shading_normals(shading.clone());
            self.frame.deformer_right.set_shading_normals(shading);
            self.frame.shading_of = shading_of;
        }
        // The fitted export under LBS instead of the left panel's method ("as exported"); its
        // helper nodes come after the document's, whose matrices the skeleton overlay takes.
        let exported = self
            .shows_export()
            .then(|| self.lbs_export.current(self.lbs_model_key()))
            .flatten()
            .map(|f| (Arc::clone(&f.exported), self.exported_pose(f)));
        let [left, right] = &mut self.frame.deformed;
        let mut prepare = match &exported {
            Some((m, p)) => {
                self.frame.deformer_exported.deform_all(m, p, SkinningMethod::Lbs, left);
                self.frame.deformer_exported.stats.prepare_secs
            }
            None => {
                self.frame.deformer.deform_all(&model, pose, methods[0], left);
                self.frame.deformer.stats.prepare_secs
            }
        };
        let left_secs = started.elapsed().as_secs_f64();
        self.frame.frame_times.add(Stage::DeformLeft, left_secs - prepare);
        let deform_right = |deformer: &mut Deformer, method, out: &mut Vec<Vec<DeformedPrimitive>>| {
            let t = Instant::now();
            deformer.deform_all(&model, pose, method, out);
            (t.elapsed().as_secs_f64(), deformer.stats.prepare_secs)
        };
        let mut right_secs = None;
        if let Some(&m) = methods.get(1) {
            right_secs = Some(deform_right(&mut self.frame.deformer_right, m, right));
        } else if self.view.difference {
            right_secs = Some(deform_right(&mut self.frame.deformer_right, self.view.compare, right));
        }
        if let Some((secs, prep)) = right_secs {
            prepare += prep;
            self.frame.frame_times.add(Stage::DeformRight, secs - prep);
        }
        self.frame.frame_times.add(Stage::Prepare, prepare);
        self.frame.stats.deform_ms = started.elapsed().as_secs_f64() * 1e3;
        self.frame.model_from_node.clear();
        let nodes = match exported {
            Some(_) => &self.frame.deformer_exported.model_from_node()[..model.nodes.len()],
            None => self.frame.deformer.model_from_node(),
        };
        self.frame.model_from_node.extend_from_slice(nodes);
        self.frame.rigid_morphs.update(&model, pose);
        let colours_started = Instant::now();
        if self.view.difference {
            let [left, right] = &self.frame.deformed;
            let floor = self.difference_floor();
            self.frame.max_difference = difference_overlay(left, right, floor, &mut self.frame.difference_colours);
        }
        // The paint colours do not depend on the pose: a new pose only (a joint rotated, a clip
        // played) keeps them, and they are not sent again (at 1M vertices, 10 ms to compute and
        // 32 MB to send in split view, every frame of posing in paint mode).
        let recoloured = self.mode == Mode::Paint && self.painting.colours_of != Some(self.paint_colours_key());
        if recoloured {
            self.update_paint_colours_now();
        }
        self.frame.frame_times.add(Stage::Colours, colours_started.elapsed().as_secs_f64());
        let colours = if recoloured || self.view.difference { Changed::All } else { Changed::Nothing };
        self.frame.gpu_changes.merge(GpuChanges { deformed: [Changed::All, Changed::All], colours });
        self.frame.frame_rev += 1;
    }

    /// What the paint colours depend on besides the brush's own changes and the settings that
    /// recolour at once (display, selection): the model and its in-place edits, the joint shown,
    /// the mode and the brush caches' surface.
    fn paint_colours_key(&self) -> PaintColoursKey {
        PaintColoursKey {
            model: (self.doc.model_rev, self.doc.model_edits),
            selected: self.selected,
            paint: self.mode == Mode::Paint,
            surface: self.painting.topology.surface.len(),
        }
    }

    /// Computes the paint colours in full and notes what from.
    pub(super) fn update_paint_colours_now(&mut self) {
        self.update_paint_colours();
        self.painting.colours_of = Some(self.paint_colours_key());
    }
}

/// What a full computation of the paint colours was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PaintColoursKey {
    model: (u64, u64),
    selected: Option<usize>,
    paint: bool,
    surface: usize,
}

/// `model` made unique for an edit in place, counted in `edits` (`DocumentState::model_edits`).
pub(super) fn edit_model<'a>(model: &'a mut Arc<Model>, edits: &mut u64) -> &'a mut Model {
    *edits += 1;
    Arc::make_mut(model)
}
