//! The editor's picks (brush hover, dabs, gradient and set read-outs, a new joint's place) go
//! through pick boxes (`paint::ModelPickBoxes`) per panel, fitted lazily to the deformation the
//! pick sees from its second pick on: at 1M vertices a pick tests a few runs of triangles instead
//! of all 2M (4–15 ms), fitting costs about one such pick, and a dab refits only the runs of the
//! vertices it re-skinned. Joints are picked by their projected positions (`pick_joint`).

use std::sync::Mutex;

use glam::Vec2;

use super::EditorState;
use crate::model::TouchedPrimitive;
use crate::paint::{pick_model, DabTarget, Hit, ModelPickBoxes, Ray};

/// What a panel's boxes were fitted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fitted {
    geometry_rev: u64,
    model_rev: u64,
    frame_rev: u64,
}

/// One panel's pick boxes and the deformation they fit.
#[derive(Debug, Default)]
struct PanelBoxes {
    fitted: Option<Fitted>,
    /// The deformation last picked by testing every triangle (its first pick).
    tried: Option<Fitted>,
    boxes: ModelPickBoxes,
}

/// Both panels' pick boxes (behind a lock: picks happen through `&EditorState`).
#[derive(Debug, Default)]
pub(super) struct Picking(Mutex<[PanelBoxes; 2]>);

impl EditorState {
    fn fitted_now(&self) -> Fitted {
        Fitted { geometry_rev: self.doc.geometry_rev, model_rev: self.doc.model_rev, frame_rev: self.frame.frame_rev }
    }

    /// The nearest hit of `ray` on the deformation `deformed` (0: left, 1: right panel's), as
    /// `paint::pick_model` finds it.
    #[must_use]
    pub fn pick_deformed(&self, ray: &Ray, deformed: usize) -> Option<(DabTarget, Hit)> {
        let out = self.frame.deformed.get(deformed)?;
        // A deformation picked once (a frame of playback under the brush) is tested whole, which
        // costs about what fitting does; from its second pick on (a stroke) the boxes pay.
        self.with_pick_boxes(deformed, false, |boxes| match boxes {
            Some(b) => b.pick(ray, &self.doc.model, out),
            None => pick_model(ray, &self.doc.model, out),
        })
    }

    /// Runs `f` with the pick boxes of the deformation `deformed`, fitted to it first if they are
    /// not; unless `fit_now`, the first pick of a deformation gets `None` (test every triangle),
    /// as does a poisoned lock.
    pub(super) fn with_pick_boxes<R>(
        &self,
        deformed: usize,
        fit_now: bool,
        f: impl FnOnce(Option<&ModelPickBoxes>) -> R,
    ) -> R {
        let (Some(out), Ok(mut panels)) = (self.frame.deformed.get(deformed), self.frame.picking.0.lock()) else {
            return f(None);
        };
        let panel = &mut panels[deformed.min(1)];
        let now = self.fitted_now();
        if panel.fitted != Some(now) {
            if !fit_now && panel.tried != Some(now) {
                panel.tried = Some(now);
                return f(None);
            }
            if panel.fitted.is_none_or(|f| (f.geometry_rev, f.model_rev) != (now.geometry_rev, now.model_rev)) {
                // Another model or an edit of it: nothing of the old boxes is kept.
                panel.boxes = ModelPickBoxes::default();
            }
            panel.boxes.fit(&self.doc.model, out);
            panel.fitted = Some(now);
        }
        f(Some(&panel.boxes))
    }

    /// After a dab re-skinned `parts` in place in the panels `reskinned` (and bumped the frame
    /// revision from `before`): boxes fitted to the deformation before it follow those vertices.
    pub(super) fn refit_picking(&mut self, before: u64, parts: &[TouchedPrimitive], reskinned: [bool; 2]) {
        let now = self.fitted_now();
        let was = Fitted { frame_rev: before, ..now };
        let Ok(mut panels) = self.frame.picking.0.lock() else { return };
        for (i, panel) in panels.iter_mut().enumerate() {
            if reskinned[i] && panel.fitted == Some(was) {
                panel.boxes.refit_vertices(&self.doc.model, &self.frame.deformed[i], parts);
                panel.fitted = Some(now);
            }
        }
    }

    /// The joint whose projected position in a panel of `size` pixels is nearest to `p` (within
    /// 14 px), on the CPU.
    #[must_use]
    pub fn pick_joint(&self, p: Vec2, size: Vec2) -> Option<usize> {
        self.doc
            .skeleton
            .joints
            .iter()
            .filter_map(|&(n, _)| {
                let q = self.view.camera.project(self.node_position(n)?, size)?;
                let d = q.distance(p);
                (d < 14.0).then_some((d, n))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| n)
    }
}
