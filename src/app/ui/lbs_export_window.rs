//! File ▸ Export for LBS runtimes…: the window that fits helper joints so that any glTF player,
//! playing the skin as LBS, shows the chosen method. The choices (target method, helpers per
//! joint, clips, exact morph targets, format), the fit's progress with Cancel, the measured
//! distances per clip, the "as exported" preview beside the target and the export itself.

use eframe::egui;

use crate::app::command::{Command, LbsExportCommand};
use crate::app::dialogs::FileRequest;
use crate::app::emulate_job::LbsExportChoice;
use crate::app::file_menu::Files;
use crate::app::state::{fit_summary, EditorState};
use crate::skinning::SkinningMethod;

/// Shows the window while `window` holds its choices; closing it forgets the fit.
pub fn show(
    ctx: &egui::Context,
    s: &EditorState,
    files: &mut Files,
    window: &mut Option<LbsExportChoice>,
) -> Vec<Command> {
    let Some(choice) = window.as_mut() else { return Vec::new() };
    let mut cmds = Vec::new();
    let mut open = true;
    let mut ask_file = false;
    egui::Window::new("Export for LBS runtimes").collapsible(false).resizable(false).show(ctx, |ui| {
        ui.label("Helper joints, keyed in every fitted clip, make a plain glTF skin look like the chosen method in any player.");
        choices_ui(ui, s, choice);
        ui.separator();
        let current = s.lbs_export.current(s.lbs_model_key());
        if let Some(job) = &s.lbs_export.job {
            let (done, line) = job.status();
            ui.add(egui::ProgressBar::new(done).show_percentage().text(line));
            ui.horizontal(|ui| {
                if job.cancelling() {
                    ui.weak("cancelling at the next stage…");
                } else if ui.button("Cancel").clicked() {
                    cmds.push(Command::LbsExport(LbsExportCommand::Cancel));
                }
            });
        } else if ui.button("Fit and preview").on_hover_text("fits on a background thread; the editor stays usable").clicked() {
            cmds.push(Command::LbsExport(LbsExportCommand::Fit(choice.clone())));
        }
        if let Some(fitted) = current {
            ui.separator();
            ui.label(fit_summary(fitted));
            egui::Grid::new("lbs_export_clips").striped(true).show(ui, |ui| {
                ui.strong("Clip");
                ui.strong("LBS RMS");
                ui.strong("as exported");
                ui.strong("worst vertex");
                ui.end_row();
                for c in &fitted.emulation.clips {
                    let d = &c.distances;
                    ui.label(&c.name);
                    ui.label(format!("{:.3} %", 100.0 * d.plain.rms));
                    ui.label(format!("{:.3} %", 100.0 * d.emulated.rms));
                    ui.label(format!("{:.2} % -> {:.2} %", 100.0 * d.plain.worst, 100.0 * d.emulated.worst));
                    ui.end_row();
                }
            });
            ui.weak("shares of the model's diagonal");
            if fitted.morphs.is_some() {
                ui.weak("The preview shows the helpers; the exact morph targets land every key on the target.");
            }
            let mut preview = s.lbs_export.preview;
            if ui.checkbox(&mut preview, "Preview: as exported (left) beside the target (right)").changed() {
                cmds.push(Command::LbsExport(LbsExportCommand::Preview(preview)));
            }
            if ui.button("Export to…").clicked() {
                ask_file = true;
            }
        } else if s.lbs_export.fitted.is_some() && s.lbs_export.job.is_none() {
            ui.colored_label(ui.visuals().warn_fg_color, "The model changed since the fit: fit again.");
        }
        if ui.button("Close").clicked() {
            open = false;
        }
    });
    if ask_file {
        let glb = s.lbs_export.fitted.as_ref().map_or(choice.glb, |f| f.choice.glb);
        cmds.extend(files.ask(FileRequest::ExportForLbs(glb), s));
    }
    if !open {
        *window = None;
        cmds.push(Command::LbsExport(LbsExportCommand::Discard));
    }
    cmds
}

/// The target method, helpers, clips, exact targets and format.
fn choices_ui(ui: &mut egui::Ui, s: &EditorState, choice: &mut LbsExportChoice) {
    ui.horizontal(|ui| {
        ui.label("Look like");
        for m in SkinningMethod::MENU.into_iter().filter(|&m| m != SkinningMethod::Lbs) {
            ui.selectable_value(&mut choice.method, m, m.label());
        }
    });
    ui.horizontal(|ui| {
        let l = ui.label("Helpers per joint (at most)");
        ui.add(egui::DragValue::new(&mut choice.helpers).range(1..=16)).labelled_by(l.id);
    });
    let clips = &s.doc.model.clips;
    if clips.is_empty() {
        ui.weak("The model has no clip: the helpers are fitted over a range-of-motion clip, added to the export.");
    } else {
        ui.label(if choice.clips.is_empty() { "Clips (none ticked: every clip)" } else { "Clips" });
        egui::ScrollArea::vertical().max_height(120.0).id_salt("lbs_export_clip_list").show(ui, |ui| {
            for (c, clip) in clips.iter().enumerate() {
                let mut on = choice.clips.contains(&c);
                let name = clip.name.clone().unwrap_or_else(|| format!("#{c}"));
                if ui.checkbox(&mut on, name).changed() {
                    choice.clips.retain(|&k| k != c);
                    if on {
                        choice.clips.push(c);
                        choice.clips.sort_unstable();
                    }
                }
            }
        });
    }
    ui.checkbox(&mut choice.exact, "Exact at every key (one morph target per key; a larger file)");
    ui.horizontal(|ui| {
        ui.label("Format");
        ui.selectable_value(&mut choice.glb, true, ".glb");
        ui.selectable_value(&mut choice.glb, false, ".gltf");
    });
}
