//! The weight tools in the paint panel: the drag tool (Brush, Select, Gradient), the selection
//! mask (counts, All / None / Invert / Grow / Shrink / Hide / Reveal, Restrict to selection), the
//! gradient's end values, the weight table of the selected vertices (editable cells, Set, Scale,
//! Normalize, Copy / Paste) and Transfer weights (from a file or another skin, with its report).

use eframe::egui;

use crate::app::command::Command;
use crate::app::command::{PaintTool, TransferSource, WeightToolCommand};
use crate::app::dialogs::FileRequest;
use crate::app::file_menu::Files;
use crate::app::state::EditorState;
use crate::paint::{weight_table, TableOp};

/// Rows the table shows at most (the operations still apply to the whole selection).
const TABLE_ROWS: usize = 64;

fn tool(c: WeightToolCommand) -> Command {
    Command::WeightTools(c)
}

/// Draws the weight tools; settings are edited in place, the rest returns commands.
pub fn weight_tools_ui(ui: &mut egui::Ui, s: &mut EditorState, files: &mut Files) -> Vec<Command> {
    let mut cmds = Vec::new();
    ui.separator();
    ui.heading("Selection");
    ui.horizontal(|ui| {
        for t in PaintTool::ALL {
            if ui.selectable_label(s.painting.weight_tools.tool == t, t.label()).clicked() {
                cmds.push(tool(WeightToolCommand::SetTool(t)));
            }
        }
    });
    let summary = s.selection_summary(TABLE_ROWS).clone();
    ui.label(format!("selected: {} vertices, hidden: {}", summary.selected, summary.hidden));
    let mut restrict = s.painting.weight_tools.restrict;
    if ui
        .checkbox(&mut restrict, "Restrict to selection")
        .on_hover_text("dabs and tools change only the selection")
        .changed()
    {
        cmds.push(tool(WeightToolCommand::SetRestrict(restrict)));
    }
    ui.horizontal_wrapped(|ui| {
        for (label, hint, c) in [
            ("All", "A", WeightToolCommand::SelectAll),
            ("None", "Alt+A", WeightToolCommand::SelectNone),
            ("Invert", "Ctrl+I", WeightToolCommand::Invert),
            ("Grow", "Ctrl+numpad +", WeightToolCommand::Grow),
            ("Shrink", "Ctrl+numpad -", WeightToolCommand::Shrink),
            ("Hide", "H (Shift+H: the unselected)", WeightToolCommand::Hide { unselected: false }),
            ("Reveal", "Alt+H", WeightToolCommand::Reveal),
        ] {
            if ui.button(label).on_hover_text(hint).clicked() {
                cmds.push(tool(c));
            }
        }
    });
    ui.weak("Select tool (B): drag a box, Shift adds, Ctrl subtracts; Ctrl+right drag: lasso (Ctrl+Shift removes).");
    ui.separator();
    ui.heading("Gradient");
    egui::Grid::new("gradient").num_columns(2).show(ui, |ui| {
        let l = ui.label("Start weight");
        ui.add(egui::Slider::new(&mut s.painting.weight_tools.gradient_start, 0.0..=1.0)).labelled_by(l.id);
        ui.end_row();
        let l = ui.label("End weight");
        ui.add(egui::Slider::new(&mut s.painting.weight_tools.gradient_end, 0.0..=1.0)).labelled_by(l.id);
        ui.end_row();
    });
    ui.weak("Gradient tool: drag from A to B on the mesh; the selected joint's weight follows the surface distance.");
    ui.separator();
    table_ui(ui, s, &summary.first, summary.selected, &mut cmds);
    ui.separator();
    transfer_ui(ui, s, files, &mut cmds);
    cmds
}

/// The table of the first selected weld groups `shown` (of `selected` in all).
fn table_ui(ui: &mut egui::Ui, s: &mut EditorState, shown: &[u32], selected: usize, cmds: &mut Vec<Command>) {
    ui.heading("Weight table");
    if selected == 0 {
        ui.weak("Select vertices to list their weights.");
        return;
    }
    let surface = &s.topology().surface;
    let table = weight_table(&s.doc.model, surface, shown);
    let names: Vec<String> = table.joints.iter().map(|&j| s.surface_joint_name(j)).collect();
    egui::ScrollArea::both().id_salt("weight_table").max_height(260.0).show(ui, |ui| {
        egui::Grid::new("weight_table_grid").striped(true).show(ui, |ui| {
            ui.strong("vertex");
            for n in &names {
                ui.strong(n);
            }
            ui.label("");
            ui.end_row();
            for (g, row) in &table.rows {
                let row_label = ui.label(surface.file_number(&s.doc.model, *g).to_string());
                for (&joint, &w) in table.joints.iter().zip(row) {
                    let mut value = w;
                    let r = ui
                        .add(egui::DragValue::new(&mut value).speed(0.005).range(0.0..=1.0).fixed_decimals(3))
                        .labelled_by(row_label.id);
                    if r.changed() && value != w {
                        cmds.push(tool(WeightToolCommand::Table {
                            op: TableOp::Set { joint, value },
                            group: Some(*g),
                        }));
                    }
                }
                if ui.small_button("copy").on_hover_text("copy this vertex's weights").clicked() {
                    cmds.push(tool(WeightToolCommand::Copy(*g)));
                }
                ui.end_row();
            }
        });
    });
    if selected > shown.len() {
        ui.weak(format!("showing {} of {selected} vertices", shown.len()));
    }
    let joint = s.selected_surface_joint();
    let name = joint.map_or_else(|| "(select a joint)".to_owned(), |j| s.surface_joint_name(j));
    let on = ui.label(format!("On the selection, joint {name}:"));
    let w = &mut s.painting.weight_tools;
    ui.horizontal(|ui| {
        ui.add(egui::DragValue::new(&mut w.set_value).speed(0.01).range(0.0..=1.0).fixed_decimals(3))
            .labelled_by(on.id);
        if ui.add_enabled(joint.is_some(), egui::Button::new("Set")).clicked() {
            if let Some(joint) = joint {
                cmds.push(tool(WeightToolCommand::Table {
                    op: TableOp::Set { joint, value: w.set_value },
                    group: None,
                }));
            }
        }
        ui.add(egui::DragValue::new(&mut w.scale_factor).speed(0.01).range(0.0..=10.0).prefix("×")).labelled_by(on.id);
        if ui.add_enabled(joint.is_some(), egui::Button::new("Scale")).clicked() {
            if let Some(joint) = joint {
                let op = TableOp::Scale { joint, factor: w.scale_factor };
                cmds.push(tool(WeightToolCommand::Table { op, group: None }));
            }
        }
    });
    ui.horizontal(|ui| {
        if ui.button("Normalize").clicked() {
            cmds.push(tool(WeightToolCommand::Table { op: TableOp::Normalize, group: None }));
        }
        let paste = ui
            .add_enabled(w.clipboard.is_some(), egui::Button::new("Paste"))
            .on_hover_text("the copied vertex's weights onto the selection");
        if paste.clicked() {
            if let Some(c) = w.clipboard.clone() {
                cmds.push(tool(WeightToolCommand::Table { op: TableOp::Paste(c), group: None }));
            }
        }
    });
}

fn transfer_ui(ui: &mut egui::Ui, s: &mut EditorState, files: &mut Files, cmds: &mut Vec<Command>) {
    ui.heading("Transfer weights");
    let t = &mut s.painting.weight_tools.transfer;
    egui::Grid::new("transfer").num_columns(2).show(ui, |ui| {
        let l = ui.label("Max distance");
        ui.add(egui::DragValue::new(&mut t.max_distance).speed(0.001).range(0.0..=1.0).suffix(" × diagonal"))
            .labelled_by(l.id);
        ui.end_row();
        let l = ui.label("Max normal angle");
        ui.add(egui::DragValue::new(&mut t.max_angle_deg).speed(0.5).range(0.0..=180.0).suffix("°")).labelled_by(l.id);
        ui.end_row();
    });
    if ui.button("From a model file…").on_hover_text("closest point on its surface, the rest inpainted").clicked() {
        cmds.extend(files.ask(FileRequest::TransferSource, s));
    }
    let skins = s.doc.model.skins.len();
    if skins > 1 {
        let id = ui.make_persistent_id("transfer_skins");
        let (mut from, mut to): (usize, usize) = ui.data(|d| d.get_temp(id)).unwrap_or((0, 1));
        ui.horizontal(|ui| {
            let l = ui.label("Skin");
            ui.add(egui::DragValue::new(&mut from).range(0..=skins - 1)).labelled_by(l.id);
            let l = ui.label("onto skin");
            ui.add(egui::DragValue::new(&mut to).range(0..=skins - 1)).labelled_by(l.id);
            if ui.add_enabled(from != to, egui::Button::new("Transfer")).clicked() {
                cmds.push(tool(WeightToolCommand::Transfer(TransferSource::Skin { from, to })));
            }
        });
        ui.data_mut(|d| d.insert_temp(id, (from, to)));
    }
    if let Some(r) = &s.painting.weight_tools.last_transfer {
        ui.label(format!("last: {} matched, {} inpainted, {} unreached", r.matched, r.inpainted, r.unreached));
        if !r.unmatched_joints.is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("unmatched joints: {}", r.unmatched_joints.join(", ")),
            );
        }
    }
}
