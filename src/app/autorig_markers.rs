//! The Auto-rig markers in the viewport: each placed marker as a filled dot with its name (left
//! side blue, right side red, the middle yellow), and for a humanoid side placed alone the mirror
//! image the fit will use as a hollow dot; drawn with the egui painter over every panel.

use eframe::egui;
use glam::{Vec2, Vec3};

use super::autorig_setup::{AutorigSetup, TemplateChoice};
use super::state::EditorState;
use crate::rig::symmetry::mirror_name;

/// A marker to draw: model-space position, label, colour, whether it is the mirror image.
type Shown = (Vec3, String, egui::Color32, bool);

fn colour(name: &str) -> egui::Color32 {
    if name.ends_with(".L") {
        egui::Color32::from_rgb(80, 150, 255)
    } else if name.ends_with(".R") {
        egui::Color32::from_rgb(255, 90, 90)
    } else {
        egui::Color32::from_rgb(250, 210, 60)
    }
}

/// The markers to draw: every placed one, and for a humanoid the mirror image (across the
/// vertical plane through the model's centre) of each side placed alone.
#[must_use]
pub fn shown(setup: &AutorigSetup, centre_x: f32) -> Vec<Shown> {
    let mut out: Vec<Shown> =
        setup.markers.iter().map(|&(n, p)| (p.as_vec3(), n.to_owned(), colour(n), false)).collect();
    if setup.template == TemplateChoice::Humanoid {
        for &(name, p) in &setup.markers {
            let Some(other) = mirror_name(name).filter(|o| setup.marker(o).is_none()) else { continue };
            let q = Vec3::new(2.0 * centre_x - p.x as f32, p.y as f32, p.z as f32);
            out.push((q, format!("{other} (mirrored)"), colour(&other), true));
        }
    }
    out
}

/// Draws the markers of the open Auto-rig window over the viewport `rect` (`panels` wide).
pub fn draw(painter: &egui::Painter, rect: egui::Rect, panels: usize, s: &EditorState) {
    let Some(setup) = &s.rig.autorig else { return };
    let centre_x = 0.5 * (s.doc.model_bounds.0.x + s.doc.model_bounds.1.x);
    let markers = shown(setup, centre_x);
    let panel_w = rect.width() / panels.max(1) as f32;
    let size = Vec2::new(panel_w, rect.height());
    for panel in 0..panels.max(1) {
        let origin = rect.min + egui::vec2(panel_w * panel as f32, 0.0);
        let painter = painter.with_clip_rect(egui::Rect::from_min_size(origin, egui::vec2(panel_w, rect.height())));
        for (p, label, c, mirrored) in &markers {
            let Some(q) = s.view.camera.project(*p, size) else { continue };
            let at = origin + egui::vec2(q.x, q.y);
            if *mirrored {
                painter.circle_stroke(at, 6.0, egui::Stroke::new(2.0, *c));
            } else {
                painter.circle(at, 6.0, *c, egui::Stroke::new(1.5, egui::Color32::BLACK));
            }
            let galley = painter.layout_no_wrap(label.clone(), egui::FontId::proportional(13.0), *c);
            let pos = at + egui::vec2(9.0, -galley.size().y - 2.0);
            painter.rect_filled(
                egui::Rect::from_min_size(pos, galley.size()).expand(2.0),
                3.0,
                egui::Color32::from_black_alpha(160),
            );
            painter.galley(pos, galley, *c);
        }
    }
}
