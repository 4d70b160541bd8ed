//! The joint-sets view in the viewport (egui painter over the 3D panels): each listed set's centre
//! of rotation as a dot in its colour with lines to its member joints, in every panel; the set
//! chosen in the table and the set under the pointer highlighted; and, while the pointer is over
//! the mesh, the set of the vertex under it with its members and centre (CPU picking on the
//! deformed positions of the panel under the pointer, as paint mode's read-out does).

use eframe::egui;
use glam::{Vec2, Vec3};

use super::joint_sets::SetHover;
use crate::app::state::EditorState;
use crate::paint::Ray;

/// The set of the vertex under `pointer` (screen points) in the viewport `rect` of `panels` panels.
#[must_use]
pub fn hover_at(s: &EditorState, rect: egui::Rect, panels: usize, pointer: egui::Pos2) -> Option<SetHover> {
    if !rect.contains(pointer) {
        return None;
    }
    let panel_w = rect.width() / panels.max(1) as f32;
    let panel = (((pointer.x - rect.min.x) / panel_w).floor().max(0.0) as usize).min(panels.max(1) - 1);
    let size = Vec2::new(panel_w, rect.height());
    let local = Vec2::new(pointer.x - rect.min.x - panel_w * panel as f32, pointer.y - rect.min.y);
    let (origin, direction) = s.view.camera.ray(local, size);
    let (target, hit) = s.pick_deformed(&Ray { origin, direction }, s.view.deformation_of_panel(panel))?;
    let inst = s.doc.model.instances.get(target.instance)?;
    let inf = s.doc.model.meshes.get(inst.mesh)?.primitives.get(target.prim)?.influences.as_ref()?;
    let set = (hit.vertex as usize) < inf.len();
    set.then(|| SetHover { skin: inst.skin, set: inf.set_of(hit.vertex as usize), pointer })
}

/// Draws the centres, their member lines and the hover read-out over the viewport.
pub fn draw(painter: &egui::Painter, rect: egui::Rect, panels: usize, s: &EditorState) {
    let view = &s.analysis.sets;
    let Some(table) = view.table() else { return };
    let panel_w = rect.width() / panels.max(1) as f32;
    let size = Vec2::new(panel_w, rect.height());
    let hovered = view.hover.as_ref().filter(|h| h.skin == view.skin).map(|h| h.set);
    for panel in 0..panels.max(1) {
        let origin = rect.min + egui::vec2(panel_w * panel as f32, 0.0);
        let clip = egui::Rect::from_min_size(origin, egui::vec2(panel_w, rect.height()));
        let painter = painter.with_clip_rect(clip);
        let at = |p: Vec3| s.view.camera.project(p, size).map(|q| origin + egui::vec2(q.x, q.y));
        // Highlighted sets last, so they are drawn on top.
        let mut rows: Vec<_> = table.rows.iter().collect();
        rows.sort_by_key(|r| Some(r.set) == view.chosen || Some(r.set) == hovered);
        let quiet = view.chosen.is_some() || hovered.is_some();
        for row in rows {
            let strong = Some(row.set) == view.chosen || Some(row.set) == hovered;
            let c = super::set_colour(view.skin, row.set, row.members.len());
            let alpha = if strong {
                255
            } else if quiet {
                70
            } else {
                170
            };
            let colour = egui::Color32::from_rgba_unmultiplied(c[0], c[1], c[2], alpha);
            let centre = Vec3::from(row.centre_model.map(|v| v as f32));
            let Some(cp) = centre.is_finite().then(|| at(centre)).flatten() else { continue };
            for &node in &row.nodes {
                if let Some(jp) = s.node_position(node).and_then(at) {
                    painter.line_segment([cp, jp], egui::Stroke::new(if strong { 2.0 } else { 1.0 }, colour));
                }
            }
            let outline = if strong { egui::Color32::WHITE } else { egui::Color32::from_black_alpha(alpha) };
            painter.circle(cp, if strong { 6.5 } else { 3.5 }, colour, egui::Stroke::new(1.5, outline));
        }
    }
    if let Some(h) = view.hover.as_ref() {
        hover_label(painter, s, h);
    }
}

fn hover_label(painter: &egui::Painter, s: &EditorState, h: &SetHover) {
    let view = &s.analysis.sets;
    let members = s.doc.model.skins.get(h.skin).map(|skin| {
        skin.sets
            .joints(h.set)
            .iter()
            .filter_map(|&j| skin.joints.get(usize::from(j)))
            .map(|&n| s.doc.model.nodes.key(n))
            .collect::<Vec<_>>()
    });
    let members = members.unwrap_or_default();
    let row = (h.skin == view.skin).then(|| view.row(h.set)).flatten();
    let centre = match row {
        Some(r) => {
            let c = r.centre_model;
            format!(
                "centre ({:.3}, {:.3}, {:.3}), {:.2} extents{}",
                c[0],
                c[1],
                c[2],
                r.centre_distance,
                r.warning.map_or(String::new(), |w| format!(" ! {}", w.text()))
            )
        }
        None if members.len() < 2 => "one joint: rigid, no centre".to_owned(),
        None => "(another skin)".to_owned(),
    };
    let text = format!("set {}: {}\n{centre}", h.set, members.join(", "));
    let font = egui::FontId::proportional(13.0);
    let galley = painter.layout_no_wrap(text, font, egui::Color32::WHITE);
    let pos = h.pointer + egui::vec2(16.0, 16.0);
    painter.rect_filled(
        egui::Rect::from_min_size(pos, galley.size()).expand(5.0),
        4.0,
        egui::Color32::from_black_alpha(190),
    );
    painter.galley(pos, galley, egui::Color32::WHITE);
}
