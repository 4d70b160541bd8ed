//! The joint tree: every skeleton joint indented under its parent joint; clicking selects.

use eframe::egui;

use crate::app::command::Command;
use crate::app::state::EditorState;

/// Draws the joint tree and returns the selection command, if any.
pub fn outliner_ui(ui: &mut egui::Ui, s: &EditorState) -> Option<Command> {
    ui.heading("Joints");
    let mut cmd = None;
    if s.skeleton.joints.is_empty() {
        ui.weak("(this model has no skin)");
        return None;
    }
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        let mut depth = std::collections::HashMap::new();
        for &(node, parent) in &s.skeleton.joints {
            let d = parent.and_then(|p| depth.get(&p).copied()).map_or(0, |d: usize| d + 1);
            depth.insert(node, d);
            let name = s.model.nodes.key(node);
            let posed = s.pose.overrides.get(&node).is_some_and(|o| !o.is_empty());
            let label = if posed { format!("{name} •") } else { name };
            ui.horizontal(|ui| {
                ui.add_space(12.0 * d as f32);
                if ui.selectable_label(s.selected == Some(node), label).clicked() {
                    cmd = Some(Command::Select(Some(node)));
                }
            });
        }
    });
    cmd
}
