//! Bone names in the viewport (View ▸ Names, as Blender's armature "Names"): every joint's name
//! beside its head in every panel, and, whatever the toggle, the name of the bone under the
//! pointer (its head within the joint pick distance, else its segment from head to child within
//! [`SEGMENT_PX`]), drawn with the egui painter over the 3D panels.

use eframe::egui;
use glam::Vec2;

use super::state::EditorState;

/// How near (pixels) the pointer must be to a bone's segment to name it.
pub const SEGMENT_PX: f32 = 6.0;

/// The bone under `pointer` (panel pixels) in a panel of `size` pixels: the joint whose head is
/// nearest within the pick distance, else the joint whose segment to a child passes nearest
/// within [`SEGMENT_PX`].
#[must_use]
pub fn hovered_bone(s: &EditorState, pointer: Vec2, size: Vec2) -> Option<usize> {
    if let Some(n) = s.pick_joint(pointer, size) {
        return Some(n);
    }
    let at = |n: usize| s.view.camera.project(s.node_position(n)?, size);
    s.doc
        .skeleton
        .joints
        .iter()
        .filter_map(|&(child, parent)| {
            let parent = parent?;
            let (a, b) = (at(parent)?, at(child)?);
            let ab = b - a;
            let t = if ab.length_squared() > 0.0 {
                ((pointer - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let d = (a + ab * t).distance(pointer);
            (d < SEGMENT_PX).then_some((d, parent))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// The labels of one panel of `size` pixels: `(where, name, hovered)` in panel pixels, every
/// joint's when `all`, and the hovered bone's (at `pointer`) in any case.
#[must_use]
pub fn labels(s: &EditorState, size: Vec2, pointer: Option<Vec2>, all: bool) -> Vec<(Vec2, String, bool)> {
    let hovered = pointer.and_then(|p| hovered_bone(s, p, size));
    s.doc
        .skeleton
        .joints
        .iter()
        .filter(|&&(n, _)| all || Some(n) == hovered)
        .filter_map(|&(n, _)| {
            let p = s.view.camera.project(s.node_position(n)?, size)?;
            Some((p, s.doc.model.nodes.key(n), Some(n) == hovered))
        })
        .collect()
}

/// Draws the labels of panel `panel` of the viewport `rect` (`panels` wide) with the pointer at
/// `pointer` (screen points).
pub fn draw(painter: &egui::Painter, rect: egui::Rect, panels: usize, s: &EditorState, pointer: Option<egui::Pos2>) {
    let panel_w = rect.width() / panels.max(1) as f32;
    let size = Vec2::new(panel_w, rect.height());
    for panel in 0..panels.max(1) {
        let origin = rect.min + egui::vec2(panel_w * panel as f32, 0.0);
        let clip = egui::Rect::from_min_size(origin, egui::vec2(panel_w, rect.height()));
        let local = pointer.filter(|p| clip.contains(*p)).map(|p| Vec2::new(p.x - origin.x, p.y - origin.y));
        let painter = painter.with_clip_rect(clip);
        for (p, name, hovered) in labels(s, size, local, s.view.bone_names) {
            let (size_pt, colour) =
                if hovered { (14.0, egui::Color32::WHITE) } else { (12.0, egui::Color32::from_gray(225)) };
            let galley = painter.layout_no_wrap(name, egui::FontId::proportional(size_pt), colour);
            let pos = origin + egui::vec2(p.x + 8.0, p.y - galley.size().y - 4.0);
            let alpha = if hovered { 200 } else { 130 };
            painter.rect_filled(
                egui::Rect::from_min_size(pos, galley.size()).expand(3.0),
                3.0,
                egui::Color32::from_black_alpha(alpha),
            );
            painter.galley(pos, galley, colour);
        }
    }
}
