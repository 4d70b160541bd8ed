//! The Rig ▸ Auto-rig window: the template (detect, humanoid, quadruped, chain), fingers or the
//! chain's joint count, the markers to click onto the character (the active one is placed by the
//! next click in the viewport; a humanoid's side placed alone is mirrored), the front view, and
//! Rig and bind with the running job's progress and Cancel.

use eframe::egui;

use crate::app::autorig_setup::TemplateChoice;
use crate::app::command::{AutorigCommand, Command};
use crate::app::state::EditorState;
use crate::app::view_keys::ViewAxis;

/// The window's title.
pub const TITLE: &str = "Auto-rig";
/// The button that starts the job.
pub const RUN_LABEL: &str = "Rig and bind";

/// Draws the window while it is open; returns the commands it issued.
pub fn autorig_window(ctx: &egui::Context, s: &mut EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    if s.rig.autorig.is_none() {
        return cmds;
    }
    let mut open = true;
    egui::Window::new(TITLE).open(&mut open).resizable(false).default_width(300.0).show(ctx, |ui| {
        if let Some((label, progress)) = s.rig.job_progress() {
            ui.label(format!("{label}…"));
            ui.add(egui::ProgressBar::new(progress).show_percentage().animate(true));
            if ui.button("Cancel").clicked() {
                cmds.push(Command::Autorig(AutorigCommand::Cancel));
            }
            return;
        }
        let refusal = s.autorig_refusal();
        let Some(setup) = s.rig.autorig.as_mut() else { return };
        ui.label("Template");
        ui.horizontal_wrapped(|ui| {
            for choice in TemplateChoice::ALL {
                if ui.radio_value(&mut setup.template, choice, choice.label()).changed() {
                    setup.keep_template_markers();
                }
            }
        });
        match setup.template {
            TemplateChoice::Humanoid => {
                ui.checkbox(&mut setup.fingers, "Fingers (three joints each)");
            }
            TemplateChoice::Chain => {
                ui.horizontal(|ui| {
                    let l = ui.label("Joints");
                    ui.add(egui::DragValue::new(&mut setup.chain_joints).range(1..=64)).labelled_by(l.id);
                });
            }
            TemplateChoice::Detect | TemplateChoice::Quadruped => {
                ui.weak("Fitted from the shape alone: standing Y up, facing +Z.");
            }
        }
        let names = setup.template.markers();
        if !names.is_empty() {
            ui.separator();
            ui.label(if setup.template == TemplateChoice::Chain {
                "Markers: click one, then click on the model where the chain starts or ends."
            } else {
                "Markers (optional): click one, then click on the character in the front view; \
                 one side placed alone is mirrored to the other."
            });
            egui::Grid::new("autorig_markers").num_columns(3).show(ui, |ui| {
                for &name in names {
                    let on = setup.active == Some(name);
                    if ui.selectable_label(on, name).on_hover_text("the next click on the model places it").clicked() {
                        setup.active = Some(name);
                    }
                    match setup.marker(name) {
                        Some(p) => ui.label(format!("({:.2}, {:.2}, {:.2})", p.x, p.y, p.z)),
                        None => ui.weak("not placed"),
                    };
                    if ui.add_enabled(setup.marker(name).is_some(), egui::Button::new("Clear")).clicked() {
                        setup.markers.retain(|(n, _)| *n != name);
                    }
                    ui.end_row();
                }
            });
            ui.horizontal(|ui| {
                if ui.button("Front view").on_hover_text("look along −Z at the character (keypad 1)").clicked() {
                    ViewAxis::Front.apply(&mut s.view.camera);
                    s.view.camera.orthographic = true;
                }
                if ui.button("Clear markers").clicked() {
                    if let Some(setup) = s.rig.autorig.as_mut() {
                        setup.markers.clear();
                        setup.keep_template_markers();
                    }
                }
            });
        }
        ui.separator();
        if let Some(why) = &refusal {
            ui.colored_label(ui.visuals().error_fg_color, why);
        }
        let run = ui
            .add_enabled(refusal.is_none(), egui::Button::new(RUN_LABEL))
            .on_hover_text("fit the skeleton, give every mesh one skin and bind it: one undo step");
        if run.clicked() {
            cmds.push(Command::Autorig(AutorigCommand::Run));
        }
    });
    if !open {
        if let Some(job) = s.rig.job_progress().map(|(l, _)| l.to_owned()) {
            if job == crate::app::state::AUTORIG_LABEL {
                cmds.push(Command::Autorig(AutorigCommand::Cancel));
            }
        }
        s.close_autorig();
    }
    cmds
}
