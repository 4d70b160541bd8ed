//! The rig panel (right side in Rig mode): the selected joint's bind position as typed
//! coordinates, its roll, its parent, the joint operations (orient to child, symmetrize, delete), and
//! automatic weights (Bind, Assign Automatic) with the running job's progress bar.

use eframe::egui;
use glam::DVec3;

use crate::app::command::Command;
use crate::app::state::EditorState;
use crate::rig::skeleton_edit;

/// Accessible labels of the position fields (tests find the fields by these).
pub const POSITION_LABELS: [&str; 3] = ["Position X", "Position Y", "Position Z"];

/// Accessible label of the roll field.
pub const ROLL_LABEL: &str = "Roll";

/// What Symmetrize does, for its button and menu entry.
pub const SYMMETRIZE_HINT: &str =
    "mirror this joint and every joint below it to the other side, adding side names (.L/.R, _l/_r, Left/Right)";

/// Draws the rig panel; returns the commands it issued. `gesture` numbers field drags (one undo
/// step per drag).
pub fn rig_panel_ui(ui: &mut egui::Ui, s: &mut EditorState, gesture: &mut u64) -> Vec<Command> {
    let mut cmds = Vec::new();
    ui.heading("Rig");
    ui.weak("The mesh is shown in its bind pose.");
    ui.checkbox(&mut s.view.options.wireframe, "Wireframe");
    ui.checkbox(&mut s.view.options.bones, "Bones");
    ui.separator();
    ui.heading("Joint");
    match s.selected {
        Some(node) => joint_ui(ui, s, node, gesture, &mut cmds),
        None if s.doc.model.skins.is_empty() => {
            ui.label("Ctrl+click on the mesh to place the root joint.");
        }
        None => {
            ui.weak("Select a joint in the tree or the viewport.");
        }
    }
    ui.separator();
    weights_ui(ui, s, &mut cmds);
    ui.separator();
    ui.weak(
        "Ctrl+click adds a child of the selected joint in the middle of the mesh under the cursor; \
         drag an arrow, a square or the centre of the gizmo to move it; Delete or X deletes; \
         drag a joint onto another in the tree to reparent; double-click or F2 renames; \
         the status bar shows how the mouse moves the view; Tab leaves Rig mode.",
    );
    cmds
}

fn joint_ui(ui: &mut egui::Ui, s: &EditorState, node: usize, gesture: &mut u64, cmds: &mut Vec<Command>) {
    ui.label(egui::RichText::new(s.doc.model.nodes.key(node)).strong());
    let parent = s.doc.skeleton.joints.iter().find(|(n, _)| *n == node).and_then(|(_, p)| *p);
    ui.label(format!("parent: {}", parent.map_or_else(|| "(root)".to_owned(), |p| s.doc.model.nodes.key(p))));
    if let Some(p) = s.node_position(node) {
        let mut v = [f64::from(p.x), f64::from(p.y), f64::from(p.z)];
        let diagonal = f64::from((s.doc.model_bounds.1 - s.doc.model_bounds.0).length().max(1e-3));
        let (mut changed, mut dragging, mut started) = (false, false, false);
        egui::Grid::new("bind_position").num_columns(2).show(ui, |ui| {
            for (i, label) in POSITION_LABELS.iter().enumerate() {
                let l = ui.label(*label);
                let r =
                    ui.add(egui::DragValue::new(&mut v[i]).speed(diagonal * 0.002).max_decimals(5)).labelled_by(l.id);
                changed |= r.changed();
                dragging |= r.dragged();
                started |= r.drag_started();
                ui.end_row();
            }
        });
        if started {
            *gesture += 1;
        }
        if changed {
            let position = DVec3::from_array(v);
            cmds.push(Command::MoveJoint { node, position, gesture: dragging.then_some(*gesture) });
        }
    }
    roll_ui(ui, s, node, gesture, cmds);
    ui.horizontal_wrapped(|ui| {
        if ui.button("Orient to child").on_hover_text("aim the joint's frame at its child").clicked() {
            cmds.push(Command::OrientJoint(node));
        }
        if ui.button("Symmetrize").on_hover_text(SYMMETRIZE_HINT).clicked() {
            cmds.push(Command::Symmetrize(node));
        }
        if ui.button("Delete joint").on_hover_text("Delete or X; children and weights go to the parent").clicked() {
            cmds.push(Command::DeleteJoint(node));
        }
    });
}

/// The selected joint's roll about its bone in degrees (Blender's); a drag is one undo step.
fn roll_ui(ui: &mut egui::Ui, s: &EditorState, node: usize, gesture: &mut u64, cmds: &mut Vec<Command>) {
    let Some(roll) = skeleton_edit::joint_roll(&s.doc.model, node) else { return };
    let mut degrees = roll.to_degrees();
    let (mut changed, mut dragging, mut started) = (false, false, false);
    egui::Grid::new("joint_roll").num_columns(2).show(ui, |ui| {
        let l = ui.label(ROLL_LABEL);
        let r = ui
            .add(egui::DragValue::new(&mut degrees).speed(0.5).range(-180.0..=180.0).suffix("°").max_decimals(2))
            .labelled_by(l.id)
            .on_hover_text("the joint's turn about its bone (Blender's roll); children and the mesh stay");
        changed = r.changed();
        dragging = r.dragged();
        started = r.drag_started();
        ui.end_row();
    });
    if started {
        *gesture += 1;
    }
    if changed && degrees.is_finite() {
        cmds.push(Command::SetRoll { node, roll: degrees.to_radians(), gesture: dragging.then_some(*gesture) });
    }
}

fn weights_ui(ui: &mut egui::Ui, s: &mut EditorState, cmds: &mut Vec<Command>) {
    ui.heading("Automatic weights");
    if let Some((label, progress)) = s.rig.job_progress() {
        ui.label(format!("{label}…"));
        ui.add(egui::ProgressBar::new(progress).show_percentage().animate(true));
        if ui.button("Cancel").on_hover_text("stop it; nothing changes").clicked() {
            cmds.push(Command::Autorig(crate::app::command::AutorigCommand::Cancel));
        }
        return;
    }
    egui::Grid::new("bind_options").num_columns(2).show(ui, |ui| {
        let l = ui.label("Influence limit");
        ui.add(egui::DragValue::new(&mut s.painting.settings.limit).range(1..=16)).labelled_by(l.id);
        ui.end_row();
    });
    let has_skin = !s.doc.model.skins.is_empty();
    ui.horizontal_wrapped(|ui| {
        let bind = ui
            .add_enabled(has_skin, egui::Button::new("Bind"))
            .on_hover_text("automatic weights for every joint (bone heat), replacing the current ones");
        if bind.clicked() {
            cmds.push(Command::Bind { selected_only: false });
        }
        let assign = ui
            .add_enabled(has_skin && s.selected.is_some(), egui::Button::new("Assign Automatic"))
            .on_hover_text("automatic weights for the selected joint only, keeping the others and locked joints");
        if assign.clicked() {
            cmds.push(Command::Bind { selected_only: true });
        }
    });
    ui.checkbox(&mut s.rig.with_children, "Assign Automatic includes the joint's children");
    ui.checkbox(&mut s.rig.rigid_parts, "Small loose parts far from the bones follow one joint");
}
