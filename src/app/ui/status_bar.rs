//! The status line: method(s), vertex count, distinct / non-trivial joint sets, deformation time
//! per frame, and the last message (errors in red) on a row of its own that is always there.

use eframe::egui;

use crate::app::state::EditorState;

/// The status text (without the message).
#[must_use]
pub fn status_text(s: &EditorState) -> String {
    let methods = s.panel_labels();
    let strokes = s.unsaved_strokes();
    let mut edited = match strokes {
        0 => String::new(),
        1 => " • 1 unsaved weight edit".to_owned(),
        n => format!(" • {n} unsaved weight edits"),
    };
    if s.rig.unsaved_edits() > 0 {
        edited.push_str(&format!(" • {} unsaved skeleton or animation edits", s.rig.unsaved_edits()));
    }
    let mode = match s.mode {
        crate::app::state::Mode::Pose => "",
        crate::app::state::Mode::Paint => "Paint | ",
        crate::app::state::Mode::Rig => "Rig (bind pose) | ",
    };
    format!(
        "{mode}{}{edited} | {} | {} vertices | joint sets: {} distinct, {} non-trivial | deform {:.2} ms/frame",
        s.doc.model_name,
        methods.join(" vs "),
        s.frame.stats.vertices,
        s.frame.stats.distinct_sets,
        s.frame.stats.nontrivial_sets,
        s.frame.stats.deform_ms
    )
}

/// Draws the status line and, on a second row of fixed height, the last message: one line cut
/// at the window's edge (hover shows it whole; it can be selected, and Copy copies all of it), so
/// that a message never changes the viewport's height.
///
/// Without a message the second row shows `help` (the mouse map of the mode).
pub fn status_bar_ui(ui: &mut egui::Ui, s: &EditorState, help: &str) {
    ui.add(egui::Label::new(status_text(s)).truncate());
    let row = egui::vec2(ui.available_width(), ui.spacing().interact_size.y);
    ui.allocate_ui_with_layout(row, egui::Layout::left_to_right(egui::Align::Center), |ui| {
        ui.set_min_size(row);
        if let Some(m) = &s.message {
            if ui.small_button("Copy").on_hover_text("Copy the whole message").clicked() {
                ui.ctx().copy_text(m.text.clone());
            }
            let colour = if m.is_error { egui::Color32::from_rgb(255, 110, 100) } else { ui.visuals().text_color() };
            ui.add(egui::Label::new(egui::RichText::new(&m.text).color(colour)).truncate().selectable(true))
                .on_hover_text(&m.text);
        } else {
            ui.add(egui::Label::new(egui::RichText::new(help).weak()).truncate());
        }
    });
}
