//! The status line: method(s), vertex count, distinct / non-trivial joint sets, deformation time
//! per frame, and the last message (errors in red).

use eframe::egui;

use crate::app::state::EditorState;

/// The status text (without the message).
#[must_use]
pub fn status_text(s: &EditorState) -> String {
    let methods: Vec<&str> = s.shown_methods().iter().map(|m| m.label()).collect();
    let mut edited =
        if s.edited.is_dirty() { format!(" • {} unsaved weight edits", s.edited.len()) } else { String::new() };
    if s.rig.unsaved_edits() > 0 {
        edited.push_str(&format!(" • {} unsaved skeleton edits", s.rig.unsaved_edits()));
    }
    let mode = match s.mode {
        crate::app::state::Mode::Pose => "",
        crate::app::state::Mode::Paint => "Paint | ",
        crate::app::state::Mode::Rig => "Rig (bind pose) | ",
    };
    format!(
        "{mode}{}{edited} | {} | {} vertices | joint sets: {} distinct, {} non-trivial | deform {:.2} ms/frame",
        s.model_name,
        methods.join(" vs "),
        s.stats.vertices,
        s.stats.distinct_sets,
        s.stats.nontrivial_sets,
        s.stats.deform_ms
    )
}

/// Draws the status line.
pub fn status_bar_ui(ui: &mut egui::Ui, s: &EditorState) {
    ui.horizontal(|ui| {
        ui.label(status_text(s));
        if let Some(m) = &s.message {
            ui.separator();
            let colour = if m.is_error { egui::Color32::from_rgb(255, 110, 100) } else { ui.visuals().text_color() };
            ui.colored_label(colour, &m.text);
        }
    });
}
