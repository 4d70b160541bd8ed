//! The inspector: skinning method (LBS / DQS / SBS), split view and comparison method, the
//! difference overlay, view toggles and axis views, and the selected joint's rotation as Euler degrees (with the
//! quaternion shown), reset buttons; Copy Pose, Paste and Paste Flipped.

use eframe::egui;
use glam::{DQuat, EulerRot};

use crate::app::command::Command;
use crate::app::state::EditorState;
use crate::app::view_keys::ViewAxis;
use crate::skinning::SkinningMethod;

/// Accessible labels of the rotation fields (tests find the fields by these).
pub const EULER_LABELS: [&str; 3] = ["Rotation X (°)", "Rotation Y (°)", "Rotation Z (°)"];

/// Draws the inspector and returns the commands it issued.
pub fn inspector_ui(ui: &mut egui::Ui, s: &mut EditorState, gesture: &mut u64) -> Vec<Command> {
    let mut cmds = skinning_ui(ui, s);
    ui.separator();
    cmds.extend(view_ui(ui, s));
    ui.separator();
    ui.horizontal(|ui| {
        let what = if s.selected.is_some() { "the selected joint and those below it" } else { "every joint" };
        if ui.button("Copy Pose").on_hover_text(format!("copy the pose of {what}")).clicked() {
            cmds.push(Command::CopyPose);
        }
        let has = s.pose_clipboard.is_some();
        if ui.add_enabled(has, egui::Button::new("Paste")).on_hover_text("paste onto the same joints").clicked() {
            cmds.push(Command::PastePose { flipped: false });
        }
        if ui
            .add_enabled(has, egui::Button::new("Paste Flipped"))
            .on_hover_text("paste mirrored onto the other side (Left/Right names, else mirrored positions)")
            .clicked()
        {
            cmds.push(Command::PastePose { flipped: true });
        }
    });
    ui.separator();
    ui.heading("Joint");
    let Some(node) = s.selected else {
        ui.weak("Select a joint in the tree or the viewport.");
        return cmds;
    };
    joint_ui(ui, s, node, gesture, &mut cmds);
    cmds
}

/// The View section (Pose and Paint mode): wireframe over the shading, bones (and X-ray: drawn
/// through the mesh), grid, the axis views of the numeric keypad, and framing the selection.
pub fn view_ui(ui: &mut egui::Ui, s: &mut EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    ui.heading("View");
    ui.checkbox(&mut s.view.wireframe, "Wireframe").on_hover_text("the mesh's edges over its shading");
    ui.horizontal(|ui| {
        ui.checkbox(&mut s.view.bones, "Bones");
        ui.add_enabled(s.view.bones, egui::Checkbox::new(&mut s.view.xray_bones, "X-ray"))
            .on_hover_text("bones drawn through the mesh (off: hidden where the mesh is in front)");
    });
    ui.checkbox(&mut s.view.grid, "Grid");
    ui.checkbox(&mut s.view.materials, "Materials")
        .on_hover_text("the materials' base colours and textures (paint mode shows weights instead)");
    ui.checkbox(&mut s.analysis.sets.on, "Joint sets").on_hover_text(
        "SBS internals: each joint set's centre of rotation with lines to its joints, vertices coloured by set, \
         the set table (Pose and Rig mode)",
    );
    ui.checkbox(&mut s.show_frame_times, "Frame times")
        .on_hover_text("median CPU time of each frame stage over the last 60 frames");
    ui.horizontal_wrapped(|ui| {
        for axis in ViewAxis::ALL {
            let key = match axis {
                ViewAxis::Front => "keypad 1",
                ViewAxis::Back => "Ctrl+keypad 1",
                ViewAxis::Right => "keypad 3",
                ViewAxis::Left => "Ctrl+keypad 3",
                ViewAxis::Top => "keypad 7",
                ViewAxis::Bottom => "Ctrl+keypad 7",
            };
            if ui.small_button(axis.label()).on_hover_text(format!("{key} (NumLock off)")).clicked() {
                axis.apply(&mut s.camera);
            }
        }
    });
    let mut sweep = s.analysis.sweep.open;
    if ui.toggle_value(&mut sweep, "Sweep…").on_hover_text("stress-sweep a joint: curves per method, scrub").changed()
    {
        s.analysis.sweep.open = sweep;
        if !sweep {
            s.scrub_sweep(None);
        }
    }
    if ui.button("Frame selected (F)").clicked() {
        cmds.push(Command::FrameSelected);
    }
    cmds
}

/// The skinning section: method buttons, split view, comparison method, difference overlay.
pub fn skinning_ui(ui: &mut egui::Ui, s: &EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    ui.heading("Skinning");
    ui.horizontal(|ui| {
        for m in SkinningMethod::MENU {
            if ui.selectable_label(s.method == m, m.label()).on_hover_text(format!("key {}", key_of(m))).clicked() {
                cmds.push(Command::SetMethod(m));
            }
        }
    });
    let mut split = s.split;
    if ui.checkbox(&mut split, "Split view").changed() {
        cmds.push(Command::SetSplit(split));
    }
    ui.horizontal(|ui| {
        let l = ui.label("Compare with");
        egui::ComboBox::from_id_salt("compare")
            .selected_text(s.compare.label())
            .show_ui(ui, |ui| {
                for m in SkinningMethod::MENU {
                    if ui.selectable_label(s.compare == m, m.label()).clicked() {
                        cmds.push(Command::SetCompare(m));
                    }
                }
            })
            .response
            .labelled_by(l.id);
    });
    let mut diff = s.difference;
    if ui.checkbox(&mut diff, "Difference overlay").changed() {
        cmds.push(Command::SetDifference(diff));
    }
    cmds
}

fn joint_ui(ui: &mut egui::Ui, s: &EditorState, node: usize, gesture: &mut u64, cmds: &mut Vec<Command>) {
    ui.label(egui::RichText::new(s.model.nodes.key(node)).strong());
    let q = s.rotation_of(node);
    let (x, y, z) = q.to_euler(EulerRot::XYZ);
    let mut deg = [x.to_degrees(), y.to_degrees(), z.to_degrees()];
    let mut changed = false;
    let mut dragging = false;
    let mut started = false;
    egui::Grid::new("euler").num_columns(2).show(ui, |ui| {
        for (i, label) in EULER_LABELS.iter().enumerate() {
            let l = ui.label(*label);
            let r = ui
                .add(egui::DragValue::new(&mut deg[i]).speed(0.5).range(-360.0..=360.0).fixed_decimals(1))
                .labelled_by(l.id);
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
        let rotation = DQuat::from_euler(EulerRot::XYZ, deg[0].to_radians(), deg[1].to_radians(), deg[2].to_radians());
        cmds.push(Command::SetRotation { node, rotation, gesture: dragging.then_some(*gesture) });
    }
    ui.label(format!("quaternion (x, y, z, w): ({:.4}, {:.4}, {:.4}, {:.4})", q.x, q.y, q.z, q.w));
    ui.horizontal(|ui| {
        if ui.button("Reset joint").clicked() {
            cmds.push(Command::ResetJoint(node));
        }
        if ui.button("Reset pose").clicked() {
            cmds.push(Command::ResetPose);
        }
    });
}

/// The number key that selects a method.
#[must_use]
pub fn key_of(m: SkinningMethod) -> u8 {
    match m {
        SkinningMethod::Lbs => 1,
        SkinningMethod::Dqs => 2,
        SkinningMethod::Sbs => 3,
        SkinningMethod::SbsC => 4,
    }
}
