//! Paint-mode viewport input for the weight tools: box select (the Select tool, B), lasso select
//! (Ctrl+right drag, anywhere in Paint mode), the gradient drag (the Gradient tool), their
//! rubber bands, and the selection keys (A, Alt+A, Ctrl+I, H, Shift+H, Alt+H, Ctrl+numpad +/−).
//! Modifiers follow Blender: a box drag replaces the selection, Shift adds, Ctrl subtracts; a
//! lasso adds, Ctrl+Shift subtracts.

use eframe::egui;
use glam::Vec2;

use super::command::Command;
use super::command::{PaintTool, WeightToolCommand};
use super::state::EditorState;
use crate::paint::{Ray, SelectOp};

/// A drag in progress (panel-local pixels).
#[derive(Clone, Debug, Default)]
pub struct SelectInput {
    /// Box or gradient: where the drag started, its panel.
    start: Option<(egui::Pos2, usize)>,
    /// Lasso: the points so far (screen), its panel.
    lasso: Option<(Vec<egui::Pos2>, usize)>,
}

fn op_from(shift: bool, ctrl: bool) -> SelectOp {
    if ctrl {
        SelectOp::Subtract
    } else if shift {
        SelectOp::Add
    } else {
        SelectOp::Replace
    }
}

impl SelectInput {
    /// Handles the weight tools' drags; returns whether it used the pointer this frame (the
    /// brush then does nothing).
    #[allow(clippy::too_many_arguments)]
    pub fn input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        s: &mut EditorState,
        local: &dyn Fn(egui::Pos2) -> Vec2,
        panel_of: &dyn Fn(egui::Pos2) -> usize,
        ray_at: &dyn Fn(egui::Pos2) -> Ray,
        panel_size: Vec2,
    ) -> bool {
        let pointer = response.interact_pointer_pos().or_else(|| response.hover_pos());
        let (primary, secondary, pressed_secondary, ctrl, shift) = ui.input(|i| {
            (
                i.pointer.primary_down(),
                i.pointer.secondary_down(),
                i.pointer.button_pressed(egui::PointerButton::Secondary),
                i.modifiers.command,
                i.modifiers.shift,
            )
        });
        // Lasso: Ctrl+right drag.
        if let Some((points, panel)) = &mut self.lasso {
            if secondary {
                if let Some(p) = pointer.filter(|p| points.last().is_none_or(|q| q.distance(*p) >= 3.0)) {
                    points.push(p);
                }
                return true;
            }
            let points: Vec<Vec2> = points.iter().map(|&p| local(p)).collect();
            let op = if shift { SelectOp::Subtract } else { SelectOp::Add };
            let panel = *panel;
            self.lasso = None;
            s.apply(Command::WeightTools(WeightToolCommand::SelectLasso { points, size: panel_size, op, panel }));
            return true;
        }
        if pressed_secondary && ctrl && response.hovered() {
            if let Some(p) = pointer {
                self.lasso = Some((vec![p], panel_of(p)));
                return true;
            }
        }
        let tool = s.painting.weight_tools.tool;
        if tool == PaintTool::Brush {
            self.start = None;
            return false;
        }
        match (self.start, primary) {
            (None, true) if response.hovered() && ui.input(|i| i.pointer.primary_pressed()) => {
                self.start = pointer.map(|p| (p, panel_of(p)));
                true
            }
            (Some(_), true) => true,
            (Some((a, panel)), false) => {
                self.start = None;
                let Some(b) = pointer else { return true };
                let cmd = match tool {
                    PaintTool::Select => WeightToolCommand::SelectBox {
                        a: local(a),
                        b: local(b),
                        size: panel_size,
                        op: op_from(shift, ctrl),
                        panel,
                    },
                    _ => WeightToolCommand::Gradient { start: ray_at(a), end: ray_at(b), panel },
                };
                s.apply(Command::WeightTools(cmd));
                true
            }
            _ => false,
        }
    }

    /// Draws the box, the gradient line or the lasso in progress.
    pub fn draw(&self, painter: &egui::Painter, s: &EditorState, pointer: Option<egui::Pos2>) {
        let stroke = egui::Stroke::new(1.5, egui::Color32::from_rgb(255, 200, 60));
        if let (Some((a, _)), Some(b)) = (self.start, pointer) {
            match s.painting.weight_tools.tool {
                PaintTool::Select => {
                    painter.rect_stroke(egui::Rect::from_two_pos(a, b), 0.0, stroke, egui::StrokeKind::Middle);
                }
                PaintTool::Gradient => {
                    painter.line_segment([a, b], stroke);
                    let w = &s.painting.weight_tools;
                    painter.text(
                        a,
                        egui::Align2::RIGHT_BOTTOM,
                        format!("{:.2}", w.gradient_start),
                        egui::FontId::proportional(14.0),
                        stroke.color,
                    );
                    painter.text(
                        b,
                        egui::Align2::LEFT_TOP,
                        format!("{:.2}", w.gradient_end),
                        egui::FontId::proportional(14.0),
                        stroke.color,
                    );
                }
                PaintTool::Brush => {}
            }
        }
        if let Some((points, _)) = &self.lasso {
            if points.len() > 1 {
                let mut closed = points.clone();
                closed.push(points[0]);
                painter.add(egui::Shape::line(closed, stroke));
            }
        }
    }

    /// Whether a drag of the weight tools is in progress.
    #[must_use]
    pub fn active(&self) -> bool {
        self.start.is_some() || self.lasso.is_some()
    }
}

/// The selection keys of Paint mode (A, Alt+A, Ctrl+I, B, H, Shift+H, Alt+H, Ctrl+numpad +/−).
pub fn selection_keys(i: &mut egui::InputState) -> Vec<Command> {
    use egui::{Key, Modifiers};
    let mut out = Vec::new();
    let mut push = |c: WeightToolCommand| out.push(Command::WeightTools(c));
    // Modified keys first: a plain key's check would also match them logically.
    if i.consume_key(Modifiers::ALT, Key::A) {
        push(WeightToolCommand::SelectNone);
    } else if i.consume_key(Modifiers::NONE, Key::A) {
        push(WeightToolCommand::SelectAll);
    }
    if i.consume_key(Modifiers::COMMAND, Key::I) {
        push(WeightToolCommand::Invert);
    }
    if i.consume_key(Modifiers::ALT, Key::H) {
        push(WeightToolCommand::Reveal);
    } else if i.consume_key(Modifiers::SHIFT, Key::H) {
        push(WeightToolCommand::Hide { unselected: true });
    } else if i.consume_key(Modifiers::NONE, Key::H) {
        push(WeightToolCommand::Hide { unselected: false });
    }
    if i.consume_key(Modifiers::COMMAND, Key::Plus) || i.consume_key(Modifiers::COMMAND, Key::Equals) {
        push(WeightToolCommand::Grow);
    }
    if i.consume_key(Modifiers::COMMAND, Key::Minus) {
        push(WeightToolCommand::Shrink);
    }
    if i.consume_key(Modifiers::NONE, Key::B) {
        push(WeightToolCommand::SetTool(PaintTool::Select));
    }
    out
}
