//! The editor's keyboard shortcuts: keys that work whatever widget has focus, except while typing
//! in a text field.

use eframe::egui;

use super::command::Command;
use super::state::Mode;
use super::{select_input, ui, view_keys, SkinlabApp};
use crate::skinning::SkinningMethod;

impl SkinlabApp {
    /// The editor's keyboard shortcuts this frame, as commands.
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) -> Vec<Command> {
        use egui::{Key, KeyboardShortcut, Modifiers};
        let mut cmds = Vec::new();
        let mut save = false;
        // Editor keys work whatever widget has focus (a menu, a button, a panel), except while
        // typing in a text field; egui's own Tab focus navigation is switched off for this frame.
        let typing = ctx.text_edit_focused();
        if !typing && ctx.input(|i| i.key_pressed(Key::Tab) && !i.modifiers.any()) {
            ctx.memory_mut(|m| {
                m.move_focus(egui::FocusDirection::None);
                if let Some(id) = m.focused() {
                    m.surrender_focus(id);
                }
            });
        }
        ctx.input_mut(|i| {
            if i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z))
                || i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::Y))
            {
                cmds.push(Command::Redo);
            }
            if i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::Z)) {
                cmds.push(Command::Undo);
            }
            if i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::S)) {
                save = true;
            }
        });
        if save {
            cmds.extend(self.save_command());
        }
        if !typing {
            if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Tab)) {
                cmds.push(Command::SetMode(self.state.mode.next()));
            }
            ctx.input_mut(|i| {
                let digits = self.preferences.keypad_digits;
                if let Some(view) = view_keys::keypad_view(i, digits) {
                    view.apply(&mut self.state.view.camera);
                }
                // With the digits turning the view, the methods are Alt + digit.
                let method_keys = if digits { Modifiers::ALT } else { Modifiers::NONE };
                for (key, m) in [
                    (Key::Num1, SkinningMethod::Lbs),
                    (Key::Num2, SkinningMethod::Dqs),
                    (Key::Num3, SkinningMethod::Sbs),
                    (Key::Num4, SkinningMethod::SbsC),
                ] {
                    if i.consume_key(method_keys, key) {
                        cmds.push(Command::SetMethod(m));
                    }
                }
                if i.consume_key(Modifiers::NONE, Key::F) {
                    cmds.push(Command::FrameSelected);
                }
                if self.state.mode == Mode::Pose {
                    cmds.extend(ui::ik_panel::ik_shortcuts(i, &self.state));
                    cmds.extend(ui::timeline::key_shortcuts(i));
                    // Blender's orientation key: Local ⇄ World rings.
                    if i.consume_key(Modifiers::NONE, Key::Comma) {
                        let g = &mut self.state.posing.gizmo;
                        g.orientation = g.orientation.toggled();
                    }
                }
                if self.state.mode == Mode::Rig {
                    if let Some(node) = self.state.selected {
                        if i.consume_key(Modifiers::NONE, Key::Delete) || i.consume_key(Modifiers::NONE, Key::X) {
                            cmds.push(Command::DeleteJoint(node));
                        }
                        if i.consume_key(Modifiers::NONE, Key::F2) {
                            self.outliner.start_rename(node, &self.state);
                        }
                    }
                }
                if self.state.mode == Mode::Paint {
                    cmds.extend(select_input::selection_keys(i));
                    let brush = &mut self.state.painting.settings.brush;
                    for (key, radius, strength) in
                        [(Key::OpenBracket, -1, 0), (Key::CloseBracket, 1, 0), (Key::Minus, 0, -1), (Key::Equals, 0, 1)]
                    {
                        if i.consume_key(Modifiers::NONE, key) {
                            brush.step_radius(radius);
                            brush.step_strength(strength);
                        }
                    }
                }
            });
        }
        cmds
    }
}
