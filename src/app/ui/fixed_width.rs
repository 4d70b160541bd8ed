//! Side-panel contents that never widen their panel: a long joint name or message is clipped at
//! the panel's edge instead of pushing the viewport aside (the viewport keeps its rectangle, so a
//! click aimed at the model lands where it was aimed). The user still sizes the panel by its edge.

use eframe::egui;

/// Runs `add` in the space left in `ui`, clipped to it, and takes exactly that space.
pub fn show<R>(ui: &mut egui::Ui, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    let rect = ui.available_rect_before_wrap();
    let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect).layout(*ui.layout()));
    child.shrink_clip_rect(rect);
    let out = add(&mut child);
    ui.allocate_rect(rect, egui::Sense::hover());
    out
}
