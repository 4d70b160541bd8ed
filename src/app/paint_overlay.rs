//! What paint mode draws over the viewport: the brush circle at the cursor, the hovered vertex's
//! influences (non-zero ones), the isolines of the painted joint's weight, and the legend (the weight ramp of the selected joint, or every
//! joint's dominant colour in a scrolling list, the joints under the cursor first and in bold).

use eframe::egui;

use super::state::{EditorState, HoverInfo, WeightDisplay};
use crate::paint::display;
use crate::paint::joint_palette::{joint_palette, skin_parents};

fn colour(c: [f32; 3]) -> egui::Color32 {
    let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    egui::Color32::from_rgb(q(c[0]), q(c[1]), q(c[2]))
}

/// Draws the paint overlays into `rect`.
pub fn draw(painter: &egui::Painter, rect: egui::Rect, s: &EditorState, hover: Option<&(egui::Pos2, HoverInfo)>) {
    let font = egui::FontId::proportional(12.0);
    if let Some((p, h)) = hover {
        let r = h.radius_px.clamp(1.0, 4000.0);
        painter.circle_stroke(*p, r, egui::Stroke::new(2.5, egui::Color32::from_black_alpha(160)));
        painter.circle_stroke(*p, r, egui::Stroke::new(1.2, egui::Color32::WHITE));
        // The falloff's half-strength ring.
        painter.circle_stroke(*p, r * 0.5, egui::Stroke::new(1.0, egui::Color32::from_white_alpha(70)));
        // Numbered as in the file (the model's order may differ: `model::vertex_order`).
        let prim = s
            .doc
            .model
            .instances
            .get(h.target.instance)
            .and_then(|i| s.doc.model.meshes[i.mesh].primitives.get(h.target.prim));
        let vertex = prim.map_or(h.hit.vertex as usize, |p| p.order.file_index(h.hit.vertex as usize));
        let mut text = format!("vertex {vertex}");
        for (name, w) in h.influences.iter().take(6) {
            text.push_str(&format!("\n{name}: {w:.3}"));
        }
        let galley = painter.layout_no_wrap(text, font.clone(), egui::Color32::WHITE);
        let mut pos = *p + egui::vec2(r.min(60.0) + 14.0, 8.0);
        if pos.x + galley.size().x > rect.max.x - 4.0 {
            pos.x = p.x - r.min(60.0) - 14.0 - galley.size().x;
        }
        painter.rect_filled(
            egui::Rect::from_min_size(pos, galley.size()).expand(4.0),
            3.0,
            egui::Color32::from_black_alpha(180),
        );
        painter.galley(pos, galley, egui::Color32::WHITE);
    }
    if s.painting.settings.display == WeightDisplay::SelectedJoint {
        ramp_legend(painter, rect, s, &font);
    }
}

fn ramp_legend(painter: &egui::Painter, rect: egui::Rect, s: &EditorState, font: &egui::FontId) {
    let w = 240.0;
    let r = egui::Rect::from_min_size(rect.right_bottom() - egui::vec2(w + 12.0, 70.0), egui::vec2(w, 60.0));
    painter.rect_filled(r, 4.0, egui::Color32::from_black_alpha(170));
    let title = match s.selected {
        Some(n) => format!("weight of {}", s.doc.model.nodes.key(n)),
        None => "weight (select a joint)".to_owned(),
    };
    painter.text(r.min + egui::vec2(8.0, 6.0), egui::Align2::LEFT_TOP, title, font.clone(), egui::Color32::WHITE);
    let bar = egui::Rect::from_min_size(r.min + egui::vec2(8.0, 24.0), egui::vec2(w - 16.0, 12.0));
    let steps = 48;
    for k in 0..steps {
        let t = k as f32 / (steps - 1) as f32;
        let x0 = bar.min.x + bar.width() * k as f32 / steps as f32;
        let seg = egui::Rect::from_min_max(
            egui::pos2(x0, bar.min.y),
            egui::pos2(x0 + bar.width() / steps as f32 + 0.5, bar.max.y),
        );
        painter.rect_filled(seg, 0.0, colour(s.painting.settings.ramp.colour(t)));
    }
    for (t, _) in display::RAMP_STOPS {
        let x = bar.min.x + bar.width() * t;
        let align = if t == 0.0 {
            egui::Align2::LEFT_TOP
        } else if t == 1.0 {
            egui::Align2::RIGHT_TOP
        } else {
            egui::Align2::CENTER_TOP
        };
        painter.text(egui::pos2(x, bar.max.y + 4.0), align, format!("{t}"), font.clone(), egui::Color32::WHITE);
    }
}

/// Accessible label of the dominant-joint legend's list (tests find it by this).
pub const LEGEND_LABEL: &str = "dominant joint";

/// The dominant-joint legend over the viewport's bottom-right corner: every joint of the first
/// skin with its colour, in a list that scrolls (mouse wheel over it) when it is taller than a
/// third of the viewport; the joints of the vertex under the brush come first, in bold.
pub fn legend_ui(ui: &egui::Ui, rect: egui::Rect, s: &EditorState, hover: Option<&(egui::Pos2, HoverInfo)>) {
    if s.painting.settings.display != WeightDisplay::Dominant {
        return;
    }
    let Some(skin) = s.doc.model.skins.first() else { return };
    let palette = joint_palette(&skin_parents(&s.doc.model, skin));
    let near: Vec<&str> =
        hover.map(|(_, h)| h.influences.iter().map(|(n, _)| n.as_str()).collect()).unwrap_or_default();
    let mut rows: Vec<(u16, String)> =
        skin.joints.iter().enumerate().map(|(j, &node)| (j as u16, s.doc.model.nodes.key(node))).collect();
    // Joints under the cursor first (in the read-out's order), the rest in skin order.
    rows.sort_by_key(|(_, name)| near.iter().position(|n| n == name).unwrap_or(usize::MAX));
    let width = 200.0;
    let max_height = (rect.height() / 3.0).max(80.0);
    egui::Area::new(egui::Id::unique("dominant_joint_legend"))
        .order(egui::Order::Foreground)
        .pivot(egui::Align2::RIGHT_BOTTOM)
        .fixed_pos(rect.right_bottom() - egui::vec2(12.0, 10.0))
        .show(ui.ctx(), |ui| {
            egui::Frame::NONE.fill(egui::Color32::from_black_alpha(170)).corner_radius(4.0).inner_margin(8.0).show(
                ui,
                |ui| {
                    ui.set_width(width);
                    ui.label(egui::RichText::new(LEGEND_LABEL).color(egui::Color32::WHITE));
                    egui::ScrollArea::vertical().max_height(max_height).auto_shrink([false, true]).show(ui, |ui| {
                        for (j, name) in &rows {
                            ui.horizontal(|ui| {
                                let (swatch, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
                                let c = palette.get(usize::from(*j)).copied().unwrap_or([0.5; 3]);
                                ui.painter().rect_filled(swatch, 2.0, colour(c));
                                let mut text = egui::RichText::new(name).color(egui::Color32::WHITE);
                                if near.contains(&name.as_str()) {
                                    text = text.strong();
                                }
                                ui.label(text);
                            });
                        }
                    });
                },
            );
        });
}

/// Draws the isolines of the painted joint's weight (Paint mode, joint-weight display, Isolines
/// on) over the viewport `rect` (`panels` wide): [`isoline_lines`], in black over a white halo so
/// they read on every colour of the ramp.
pub fn draw_isolines(painter: &egui::Painter, rect: egui::Rect, panels: usize, s: &EditorState) {
    let panel_w = rect.width() / panels.max(1) as f32;
    for (panel, lines) in isoline_lines(rect, panels, s).iter().enumerate() {
        let origin = rect.min + egui::vec2(panel_w * panel as f32, 0.0);
        let painter = painter.with_clip_rect(egui::Rect::from_min_size(origin, egui::vec2(panel_w, rect.height())));
        for (width, colour) in [(3.0, egui::Color32::from_white_alpha(150)), (1.4, egui::Color32::BLACK)] {
            for l in lines {
                painter.line_segment(*l, egui::Stroke::new(width, colour));
            }
        }
    }
}

/// The isolines of the painted joint's weight as screen segments, one list per panel of the
/// viewport `rect` (`panels` wide; empty unless Paint mode shows them): the segments
/// `paint::isolines::crossings` finds on the triangles facing the camera, less those another
/// surface of the panel's deformation hides (`paint::isolines::retain_visible`, through the
/// panel's picker), so a line on a face behind the model never shows through it.
#[must_use]
pub fn isoline_lines(rect: egui::Rect, panels: usize, s: &EditorState) -> Vec<Vec<[egui::Pos2; 2]>> {
    let settings = &s.painting.settings;
    if !settings.isolines || settings.display != WeightDisplay::SelectedJoint || settings.isoline_levels.is_empty() {
        return Vec::new();
    }
    let Some(node) = s.selected else { return Vec::new() };
    let panel_w = rect.width() / panels.max(1) as f32;
    let size = glam::Vec2::new(panel_w, rect.height());
    let camera = &s.view.camera;
    // An orthographic view's rays run along its direction from the eye's plane (as `ray` gives
    // them); for the faces' sides, an eye far back stands in for it.
    let back = camera.back();
    let eye = if camera.orthographic { camera.target + back * camera.distance * 1e3 } else { camera.eye() };
    let eye_of = |p: glam::Vec3| {
        if camera.orthographic {
            p + back * (camera.eye() - p).dot(back)
        } else {
            eye
        }
    };
    let (mut weights, mut segments) = (Vec::new(), Vec::new());
    let mut out = Vec::new();
    for panel in 0..panels.clamp(1, 2) {
        let origin = rect.min + egui::vec2(panel_w * panel as f32, 0.0);
        segments.clear();
        for (i, inst) in s.doc.model.instances.iter().enumerate() {
            let (Some(mesh), Some(skin)) = (s.doc.model.meshes.get(inst.mesh), s.doc.model.skins.get(inst.skin)) else {
                continue;
            };
            let Some(joint) = skin.joints.iter().position(|&j| j == node) else { continue };
            for (p, prim) in mesh.primitives.iter().enumerate() {
                let Some(inf) = prim.influences.as_ref() else { continue };
                let Some(deformed) = s.frame.deformed[panel].get(i).and_then(|d| d.get(p)) else { continue };
                display::joint_weights(inf, &skin.sets, joint as u16, &mut weights);
                for &level in &settings.isoline_levels {
                    crate::paint::isolines::crossings(
                        &deformed.positions,
                        &prim.triangles,
                        &weights,
                        level,
                        Some(eye),
                        &mut segments,
                    );
                }
            }
        }
        crate::paint::isolines::retain_visible(&mut segments, eye_of, |ray| {
            s.pick_deformed(ray, panel).map(|(_, h)| h.t)
        });
        let to_screen = |p: glam::Vec3| camera.project(p, size).map(|q| origin + egui::vec2(q.x, q.y));
        out.push(segments.iter().filter_map(|[a, b]| Some([to_screen(*a)?, to_screen(*b)?])).collect());
    }
    out
}
