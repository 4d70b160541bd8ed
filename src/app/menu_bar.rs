//! The menu bar (File, Edit with Undo, Redo, Reset pose, Select All / None, Copy / Paste Pose and
//! Preferences; Rig with Symmetrize and Auto-rig…; the mode switch; Undo and Redo) and the
//! right-hand panel of each mode.

use eframe::egui;

use super::command::{self, Command};
use super::state::Mode;
use super::{ui, SkinlabApp};

impl SkinlabApp {
    /// The menu bar; returns the commands it issued.
    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) -> Vec<Command> {
        let mut cmds = Vec::new();
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                cmds.extend(self.files.menu_ui(ui, &self.state, &mut self.export_window, &mut self.lbs_window));
            });
            ui.menu_button("Edit", |ui| {
                if ui.add_enabled(self.state.doc.history.can_undo(), egui::Button::new("Undo")).clicked() {
                    cmds.push(Command::Undo);
                    ui.close();
                }
                if ui.add_enabled(self.state.doc.history.can_redo(), egui::Button::new("Redo")).clicked() {
                    cmds.push(Command::Redo);
                    ui.close();
                }
                if ui.button("Reset pose").clicked() {
                    cmds.push(Command::ResetPose);
                    ui.close();
                }
                ui.separator();
                cmds.extend(self.edit_selection_ui(ui));
                ui.separator();
                if ui.button("Preferences…").clicked() {
                    self.preferences_open = true;
                    ui.close();
                }
            });
            ui.menu_button("Rig", |ui| cmds.extend(self.rig_menu_ui(ui)));
            ui.separator();
            for mode in Mode::ALL {
                let on = self.state.mode == mode;
                if ui.selectable_label(on, mode.label()).on_hover_text("Tab cycles Pose, Paint, Rig").clicked() && !on {
                    cmds.push(Command::SetMode(mode));
                }
            }
            ui.separator();
            if ui.add_enabled(self.state.doc.history.can_undo(), egui::Button::new("Undo")).clicked() {
                cmds.push(Command::Undo);
            }
            if ui.add_enabled(self.state.doc.history.can_redo(), egui::Button::new("Redo")).clicked() {
                cmds.push(Command::Redo);
            }
        });
        cmds
    }

    /// Rig ▸ Symmetrize (the selected joint's subtree) and Auto-rig… (the window).
    fn rig_menu_ui(&mut self, ui: &mut egui::Ui) -> Vec<Command> {
        let mut cmds = Vec::new();
        let joint = self.state.selected.filter(|&n| self.state.doc.skeleton.joints.iter().any(|j| j.0 == n));
        let symmetrize = ui
            .add_enabled(joint.is_some(), egui::Button::new("Symmetrize"))
            .on_hover_text(ui::rig_panel::SYMMETRIZE_HINT)
            .on_disabled_hover_text("select a joint first");
        if let (true, Some(node)) = (symmetrize.clicked(), joint) {
            if self.state.mode != Mode::Rig {
                cmds.push(Command::SetMode(Mode::Rig));
            }
            cmds.push(Command::Symmetrize(node));
            ui.close();
        }
        let autorig = ui
            .button("Auto-rig…")
            .on_hover_text("fit a humanoid, quadruped or chain skeleton to an unrigged model and bind it");
        if autorig.clicked() {
            cmds.push(Command::Autorig(command::AutorigCommand::Open));
            ui.close();
        }
        cmds
    }

    /// Edit ▸ Select All / None (the vertex selection in Paint mode, the joints' selection
    /// otherwise: the root joint, or none) and Copy / Paste Pose.
    fn edit_selection_ui(&mut self, ui: &mut egui::Ui) -> Vec<Command> {
        use command::WeightToolCommand;
        let mut cmds = Vec::new();
        let paint = self.state.mode == Mode::Paint;
        let (all, none) = if paint {
            (Command::WeightTools(WeightToolCommand::SelectAll), Command::WeightTools(WeightToolCommand::SelectNone))
        } else {
            (Command::Select(self.state.doc.skeleton.joints.first().map(|j| j.0)), Command::Select(None))
        };
        let what = if paint { "vertices (A, Alt+A)" } else { "joint: the root, or none" };
        for (label, cmd) in [("Select All", all), ("Select None", none)] {
            if ui.button(label).on_hover_text(format!("select {what}")).clicked() {
                cmds.push(cmd);
                ui.close();
            }
        }
        if ui.button("Copy Pose").clicked() {
            cmds.push(Command::CopyPose);
            ui.close();
        }
        let has = self.state.posing.clipboard.is_some();
        if ui.add_enabled(has, egui::Button::new("Paste Pose")).clicked() {
            cmds.push(Command::PastePose { flipped: false });
            ui.close();
        }
        cmds
    }

    /// The right-hand panel of the mode: the inspector and its tools.
    pub(super) fn inspector_ui(&mut self, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
        match self.state.mode {
            Mode::Paint => {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    cmds.extend(ui::inspector::skinning_ui(ui, &self.state));
                    ui.separator();
                    cmds.extend(ui::paint_panel::paint_panel_ui(ui, &mut self.state));
                    cmds.extend(ui::weight_tools_panel::weight_tools_ui(ui, &mut self.state, &mut self.files));
                    ui.separator();
                    cmds.extend(ui::inspector::view_ui(ui, &mut self.state));
                });
            }
            Mode::Rig => {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    cmds.extend(ui::rig_panel::rig_panel_ui(ui, &mut self.state, &mut self.field_gesture));
                });
            }
            Mode::Pose => {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    cmds.extend(ui::inspector::inspector_ui(ui, &mut self.state, &mut self.field_gesture));
                    ui.separator();
                    if ui::morph_panel::morph_panel_ui(ui, &mut self.state, &mut self.field_gesture, cmds) {
                        ui.separator();
                    }
                    cmds.extend(ui::ik_panel::ik_panel_ui(ui, &self.state));
                    ui.separator();
                    cmds.extend(ui::pose_library_panel::pose_library_ui(ui, &mut self.state));
                });
            }
        }
    }
}
