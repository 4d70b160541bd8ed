//! Paint mode's input in the viewport: strokes of dabs, weight sampling, orbit, pan, zoom and the
//! brush's size and strength on the wheel, and the brush's hover read-out.

use eframe::egui;
use glam::Vec2;

use super::{wheel_notches, Viewport};
use crate::app::command::Command;
use crate::app::state::EditorState;

impl Viewport {
    /// Paint-mode input: the primary button paints (Ctrl+click samples the weight under the
    /// cursor; under the Maya mouse map Alt+left is the camera's, claimed before this runs); the
    /// wheel zooms toward the cursor, Ctrl+wheel sizes the brush and Shift+wheel changes its
    /// strength. Camera drags are the mouse map's (`navigation.rs`).
    pub(super) fn paint_input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        s: &mut EditorState,
        local: &dyn Fn(egui::Pos2) -> Vec2,
        panel_of: &dyn Fn(egui::Pos2) -> usize,
        panel_size: Vec2,
    ) {
        let preview = || {
            let node = s.selected?;
            let p = s.view.camera.project(s.node_position(node)?, panel_size)?;
            Some(response.rect.min + egui::vec2(p.x, p.y))
        };
        let pointer = if self.preview_brush {
            preview()
        } else {
            response.hover_pos().or_else(|| response.interact_pointer_pos())
        };
        let (pressed, down, ctrl, shift) = ui
            .input(|i| (i.pointer.primary_pressed(), i.pointer.primary_down(), i.modifiers.command, i.modifiers.shift));
        let camera = s.view.camera;
        let ray_at = |p: egui::Pos2| {
            let (origin, direction) = camera.ray(local(p), panel_size);
            crate::paint::Ray { origin, direction }
        };
        let height = panel_size.y;
        if !self.painting && self.select.input(ui, response, s, local, panel_of, &ray_at, panel_size) {
            self.hover = None;
            return;
        }
        let brush = s.painting.weight_tools.tool == crate::app::command::PaintTool::Brush;
        if pressed && response.hovered() && brush {
            if let Some(p) = pointer {
                if ctrl {
                    s.apply(Command::SampleWeight { ray: ray_at(p), panel: panel_of(p) });
                } else {
                    self.painting = true;
                    s.apply(Command::BeginStroke);
                    s.apply(Command::Dab { ray: ray_at(p), viewport_height_px: height, panel: panel_of(p) });
                    self.last_dab = Some(p);
                }
            }
        } else if self.painting && down {
            if let Some(p) = pointer {
                let spacing = self.hover.as_ref().map_or(4.0, |h| (h.1.radius_px * 0.2).max(1.0));
                if self.last_dab.is_none_or(|q| q.distance(p) >= spacing) {
                    s.apply(Command::Dab { ray: ray_at(p), viewport_height_px: height, panel: panel_of(p) });
                    self.last_dab = Some(p);
                }
            }
        }
        if self.painting && !down {
            self.painting = false;
            self.last_dab = None;
            s.apply(Command::EndStroke);
        }
        if response.hovered() {
            let steps = ui.input(|i| wheel_notches(&i.raw.events));
            if ctrl {
                s.painting.settings.brush.step_radius(steps);
            } else if shift {
                s.painting.settings.brush.step_strength(steps);
            } else {
                let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                if let Some(p) = pointer.filter(|_| scroll != 0.0) {
                    s.zoom_toward(scroll, local(p), panel_of(p), panel_size);
                }
            }
        }
        self.hover = pointer
            .filter(|_| response.hovered() || self.painting || self.preview_brush)
            .and_then(|p| s.hover(&ray_at(p), height, panel_of(p)).map(|h| (p, h)));
    }
}
