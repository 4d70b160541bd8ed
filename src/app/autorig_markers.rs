//! The Auto-rig markers in the viewport: each placed marker as a filled dot with its name (left
//! side blue, right side red, the middle yellow), and for a humanoid side placed alone the mirror
//! image the fit will use as a hollow dot; drawn with the egui painter over every panel, the labels
//! placed apart (beside their dots, else stepped up or down, with a thin line back to the dot) so
//! that markers close together stay readable.

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

/// Radius of a marker's dot, pixels.
const DOT_PX: f32 = 6.0;
/// The margin of a label's dark background, pixels.
const LABEL_MARGIN: f32 = 2.0;

/// A marker as drawn in one panel: its dot, its label's rectangle (the text; its background is
/// [`LABEL_MARGIN`] larger) and what [`shown`] gives.
pub struct Placed {
    /// The dot's centre on screen.
    pub dot: egui::Pos2,
    /// The label's text rectangle on screen.
    pub label: egui::Rect,
    /// The label's text.
    pub text: String,
    /// The side's colour.
    pub colour: egui::Color32,
    /// A mirror image (hollow dot).
    pub mirrored: bool,
}

/// Places the labels of `sizes` beside the dots at `dots` so that no two labels (with their
/// backgrounds) overlap and none covers a dot: above right of its dot, else above left, below
/// right, below left, else the nearest free slot stepping up and down from there; a label that
/// found none keeps the first place.
#[must_use]
pub fn place_labels(dots: &[egui::Pos2], sizes: &[egui::Vec2]) -> Vec<egui::Rect> {
    let gap = DOT_PX + 3.0;
    let dot_rects: Vec<egui::Rect> =
        dots.iter().map(|&d| egui::Rect::from_center_size(d, egui::Vec2::splat(2.0 * DOT_PX))).collect();
    let mut placed: Vec<egui::Rect> = Vec::with_capacity(dots.len());
    for (&at, &size) in dots.iter().zip(sizes) {
        let corners = [
            at + egui::vec2(gap, -size.y - 2.0),
            at + egui::vec2(-gap - size.x, -size.y - 2.0),
            at + egui::vec2(gap, 2.0),
            at + egui::vec2(-gap - size.x, 2.0),
        ];
        let step = size.y + 2.0 * LABEL_MARGIN + 1.0;
        let shifts = (0..=12).flat_map(|k| {
            let k = k as f32;
            [k, -k]
        });
        let free = |r: egui::Rect| {
            let bg = r.expand(LABEL_MARGIN);
            placed.iter().all(|p| !p.expand(LABEL_MARGIN).intersects(bg)) && dot_rects.iter().all(|d| !d.intersects(bg))
        };
        let first = egui::Rect::from_min_size(corners[0], size);
        let found = shifts
            .flat_map(|k| corners.iter().map(move |&c| egui::Rect::from_min_size(c + egui::vec2(0.0, k * step), size)))
            .find(|&r| free(r));
        placed.push(found.unwrap_or(first));
    }
    placed
}

/// The markers of the open Auto-rig window as drawn over the viewport `rect` (`panels` wide),
/// per panel, with their labels placed apart ([`place_labels`]); `painter` lays the text out.
#[must_use]
pub fn placed(painter: &egui::Painter, rect: egui::Rect, panels: usize, s: &EditorState) -> Vec<Vec<Placed>> {
    let Some(setup) = &s.rig.autorig else { return Vec::new() };
    let centre_x = 0.5 * (s.doc.model_bounds.0.x + s.doc.model_bounds.1.x);
    let markers = shown(setup, centre_x);
    let panel_w = rect.width() / panels.max(1) as f32;
    let size = Vec2::new(panel_w, rect.height());
    let font = egui::FontId::proportional(13.0);
    (0..panels.max(1))
        .map(|panel| {
            let origin = rect.min + egui::vec2(panel_w * panel as f32, 0.0);
            let on_screen: Vec<(egui::Pos2, &Shown)> = markers
                .iter()
                .filter_map(|m| s.view.camera.project(m.0, size).map(|q| (origin + egui::vec2(q.x, q.y), m)))
                .collect();
            let dots: Vec<egui::Pos2> = on_screen.iter().map(|(d, _)| *d).collect();
            let sizes: Vec<egui::Vec2> =
                on_screen.iter().map(|(_, m)| painter.layout_no_wrap(m.1.clone(), font.clone(), m.2).size()).collect();
            let labels = place_labels(&dots, &sizes);
            on_screen
                .iter()
                .zip(labels)
                .map(|((dot, m), label)| Placed { dot: *dot, label, text: m.1.clone(), colour: m.2, mirrored: m.3 })
                .collect()
        })
        .collect()
}

/// Draws the markers of the open Auto-rig window over the viewport `rect` (`panels` wide): each
/// dot, its label on a dark background, and a thin line to a label moved away from its dot.
pub fn draw(painter: &egui::Painter, rect: egui::Rect, panels: usize, s: &EditorState) {
    let panel_w = rect.width() / panels.max(1) as f32;
    for (panel, markers) in placed(painter, rect, panels, s).iter().enumerate() {
        let origin = rect.min + egui::vec2(panel_w * panel as f32, 0.0);
        let painter = painter.with_clip_rect(egui::Rect::from_min_size(origin, egui::vec2(panel_w, rect.height())));
        for m in markers {
            let near = m.label.expand(DOT_PX + 4.0).contains(m.dot);
            if !near {
                let to = m.label.expand(LABEL_MARGIN).clamp(m.dot);
                painter.line_segment([m.dot, to], egui::Stroke::new(1.0, m.colour.gamma_multiply(0.7)));
            }
            if m.mirrored {
                painter.circle_stroke(m.dot, DOT_PX, egui::Stroke::new(2.0, m.colour));
            } else {
                painter.circle(m.dot, DOT_PX, m.colour, egui::Stroke::new(1.5, egui::Color32::BLACK));
            }
            painter.rect_filled(m.label.expand(LABEL_MARGIN), 3.0, egui::Color32::from_black_alpha(160));
            painter.text(m.label.min, egui::Align2::LEFT_TOP, &m.text, egui::FontId::proportional(13.0), m.colour);
        }
    }
}
