//! The IK section of the Pose-mode inspector: IK dragging on or off (Ctrl+I), the chain length,
//! pinning the selected joint (P) and clearing the pins, and what a drag of the selected joint
//! would move.

use eframe::egui;

use crate::app::command::Command;
use crate::app::command::{IkCommand, MAX_CHAIN};
use crate::app::state::EditorState;

/// Draws the IK section and returns the commands it issued.
pub fn ik_panel_ui(ui: &mut egui::Ui, s: &EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    ui.heading("IK");
    let mut on = s.posing.ik.enabled;
    if ui
        .checkbox(&mut on, "IK drag (Ctrl+I)")
        .on_hover_text(
            "drag a hand or a foot in the viewport and the chain above it follows; Esc or a right click cancels",
        )
        .changed()
    {
        cmds.push(Command::Ik(IkCommand::SetEnabled(on)));
    }
    ui.horizontal(|ui| {
        let l = ui.label("Chain length");
        let mut chain = s.posing.ik.chain;
        if ui
            .add(egui::DragValue::new(&mut chain).range(1..=MAX_CHAIN).speed(0.05))
            .labelled_by(l.id)
            .on_hover_text("bones that follow the dragged joint (2: upper arm and forearm)")
            .changed()
        {
            cmds.push(Command::Ik(IkCommand::SetChain(chain)));
        }
    });
    ui.horizontal(|ui| {
        if let Some(node) = s.selected {
            let mut pinned = s.posing.ik.pinned.contains(&node);
            if ui.checkbox(&mut pinned, "Pin joint (P)").on_hover_text("IK drags keep this joint in place").changed() {
                cmds.push(Command::Ik(IkCommand::TogglePin(node)));
            }
        }
        let pins = s.posing.ik.pinned.len();
        if ui.add_enabled(pins > 0, egui::Button::new(format!("Clear pins ({pins})"))).clicked() {
            cmds.push(Command::Ik(IkCommand::ClearPins));
        }
    });
    if s.posing.ik.enabled {
        match s.selected.map(|n| s.ik_chain(n)) {
            Some(Ok(chain)) => {
                let names: Vec<String> = chain.iter().map(|&n| s.doc.model.nodes.key(n)).collect();
                let pole = if chain.len() == 3 { "; drag the diamond to turn the bend plane" } else { "" };
                ui.weak(format!("drag moves {}{pole}", names.join(" > ")));
            }
            Some(Err(e)) => {
                ui.weak(format!("{e}"));
            }
            None => {
                ui.weak("drag a joint in the viewport");
            }
        }
    }
    cmds
}

/// IK's keys in Pose mode: Ctrl+I toggles IK dragging, P pins or unpins the selected joint.
pub fn ik_shortcuts(i: &mut egui::InputState, s: &EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    if i.consume_key(egui::Modifiers::COMMAND, egui::Key::I) {
        cmds.push(Command::Ik(IkCommand::SetEnabled(!s.posing.ik.enabled)));
    }
    if let Some(node) = s.selected {
        if i.consume_key(egui::Modifiers::NONE, egui::Key::P) {
            cmds.push(Command::Ik(IkCommand::TogglePin(node)));
        }
    }
    cmds
}
