//! The timeline: choose one of the model's animations, play / pause, scrub.

use eframe::egui;

use crate::app::command::Command;
use crate::app::state::EditorState;

/// Draws the timeline and returns the commands it issued.
pub fn timeline_ui(ui: &mut egui::Ui, s: &EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    ui.horizontal(|ui| {
        let name = |i: usize| s.model.clips[i].name.clone().unwrap_or_else(|| format!("#{i}"));
        let current = s.clip.map_or_else(|| "(no animation)".to_owned(), name);
        let l = ui.label("Animation");
        egui::ComboBox::from_id_salt("clip")
            .selected_text(current)
            .show_ui(ui, |ui| {
                if ui.selectable_label(s.clip.is_none(), "(no animation)").clicked() {
                    cmds.push(Command::SelectClip(None));
                }
                for i in 0..s.model.clips.len() {
                    if ui.selectable_label(s.clip == Some(i), name(i)).clicked() {
                        cmds.push(Command::SelectClip(Some(i)));
                    }
                }
            })
            .response
            .labelled_by(l.id);
        let Some(clip) = s.clip.and_then(|c| s.model.clips.get(c)) else {
            ui.weak(if s.model.clips.is_empty() {
                "this model has no animations"
            } else {
                "choose an animation to scrub"
            });
            return;
        };
        if ui.button(if s.playing { "Pause" } else { "Play" }).clicked() {
            cmds.push(Command::Play(!s.playing));
        }
        let (a, b) = clip.range();
        let mut t = s.time_secs;
        ui.spacing_mut().slider_width = (ui.available_width() - 120.0).max(100.0);
        let l = ui.label("Time (s)");
        let r = ui.add(egui::Slider::new(&mut t, a..=b.max(a + 1e-6)).fixed_decimals(2)).labelled_by(l.id);
        if r.changed() {
            cmds.push(Command::SetTime(t));
        }
    });
    cmds
}
