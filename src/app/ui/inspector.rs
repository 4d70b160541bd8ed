//! The inspector: skinning method (LBS / DQS / SBS), split view and comparison method, the
//! difference overlay, view toggles and axis views, and the selected joint: the gizmo's Local /
//! World rings, its rotation fields (`rotation_fields.rs`: Euler in a chosen order, twist and bend
//! about the bone) with the quaternion shown, reset buttons; Copy Pose, Paste and Paste Flipped.

use crate::app::command::Command;
use crate::app::gizmo::Orientation;
use crate::app::state::EditorState;
use crate::app::ui::rotation_fields::rotation_fields_ui;
use crate::app::view_keys::ViewAxis;
use crate::skinning::SkinningMethod;
use eframe::egui;

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
        let has = s.posing.clipboard.is_some();
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
    ui.checkbox(&mut s.view.options.wireframe, "Wireframe").on_hover_text("the mesh's edges over its shading");
    ui.horizontal(|ui| {
        ui.checkbox(&mut s.view.options.bones, "Bones");
        ui.add_enabled(s.view.options.bones, egui::Checkbox::new(&mut s.view.options.xray_bones, "X-ray"))
            .on_hover_text("bones drawn through the mesh (off: hidden where the mesh is in front)");
    });
    ui.checkbox(&mut s.view.options.grid, "Grid");
    ui.checkbox(&mut s.view.options.materials, "Materials")
        .on_hover_text("the materials' base colours and textures (paint mode shows weights instead)");
    ui.checkbox(&mut s.analysis.sets.on, "Joint sets").on_hover_text(
        "SBS internals: each joint set's centre of rotation with lines to its joints, vertices coloured by set, \
         the set table (Pose and Rig mode)",
    );
    ui.checkbox(&mut s.view.show_frame_times, "Frame times")
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
                axis.apply(&mut s.view.camera);
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
            if ui.selectable_label(s.view.method == m, m.label()).on_hover_text(format!("key {}", key_of(m))).clicked()
            {
                cmds.push(Command::SetMethod(m));
            }
        }
    });
    let mut split = s.view.split;
    if ui.checkbox(&mut split, "Split view").changed() {
        cmds.push(Command::SetSplit(split));
    }
    ui.horizontal(|ui| {
        let l = ui.label("Compare with");
        egui::ComboBox::from_id_salt("compare")
            .selected_text(s.view.compare.label())
            .show_ui(ui, |ui| {
                for m in SkinningMethod::MENU {
                    if ui.selectable_label(s.view.compare == m, m.label()).clicked() {
                        cmds.push(Command::SetCompare(m));
                    }
                }
            })
            .response
            .labelled_by(l.id);
    });
    let mut diff = s.view.difference;
    if ui.checkbox(&mut diff, "Difference overlay").changed() {
        cmds.push(Command::SetDifference(diff));
    }
    cmds
}

fn joint_ui(ui: &mut egui::Ui, s: &mut EditorState, node: usize, gesture: &mut u64, cmds: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new(s.doc.model.nodes.key(node)).strong());
        if ui.button("Reset joint").clicked() {
            cmds.push(Command::ResetJoint(node));
        }
        if ui.button("Reset pose").clicked() {
            cmds.push(Command::ResetPose);
        }
    });
    ui.horizontal(|ui| {
        ui.label("Gizmo");
        for o in Orientation::ALL {
            let hover = match o {
                Orientation::Local => "rings about the joint's own axes (key , toggles)",
                Orientation::World => "rings about the world's X, Y and Z (key , toggles)",
            };
            if ui.selectable_label(s.posing.gizmo.orientation == o, o.label()).on_hover_text(hover).clicked() {
                s.posing.gizmo.orientation = o;
            }
        }
    });
    cmds.extend(rotation_fields_ui(ui, s, node, gesture));
    let q = s.rotation_of(node);
    ui.label(format!("local quaternion (x, y, z, w): ({:.4}, {:.4}, {:.4}, {:.4})", q.x, q.y, q.z, q.w));
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
