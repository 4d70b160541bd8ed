//! The status line: method(s), vertex count, distinct / non-trivial joint sets, deformation time
//! per frame, and the last message (errors in red).

use eframe::egui;

use crate::app::state::EditorState;

/// The status text (without the message).
#[must_use]
pub fn status_text(s: &EditorState) -> String {
    let methods: Vec<&str> = s.view.shown_methods().iter().map(|m| m.label()).collect();
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

/// Draws the status line; the message below it wraps (never clipped at the window edge), can be
/// selected, and has a Copy button for the whole text.
pub fn status_bar_ui(ui: &mut egui::Ui, s: &EditorState) {
    ui.add(egui::Label::new(status_text(s)).truncate());
    if let Some(m) = &s.message {
        ui.horizontal(|ui| {
            if ui.small_button("Copy").on_hover_text("Copy the whole message").clicked() {
                ui.ctx().copy_text(m.text.clone());
            }
            let colour = if m.is_error { egui::Color32::from_rgb(255, 110, 100) } else { ui.visuals().text_color() };
            ui.add(egui::Label::new(egui::RichText::new(&m.text).color(colour)).wrap().selectable(true));
        });
    }
}
