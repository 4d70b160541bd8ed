//! The selected joint's rotation fields: Euler angles in a chosen order and Twist / Bend A /
//! Bend B about the bone (`rig::twist_bend`), both relative to the joint's rest rotation (zero at
//! rest, as Blender's pose bones and Maya's joints show it: `local = rest · fields`).
//!
//! The fields keep what the user typed: each edit stores the typed triple with the rotation it
//! produced, and the fields show that triple for as long as the joint's rotation is still that
//! rotation; they re-derive from the quaternion only when the rotation changed elsewhere (a
//! gizmo drag, Undo, IK, a clip). So typing Y = 150 keeps showing X 0, Y 150, Z 0, where deriving
//! XYZ angles from the quaternion would show X 180, Y 30, Z 180.
//!
//! Orders follow Blender and Maya: "XYZ" turns about X first, then Y, then Z, each about the
//! parent-side axes (the matrix is Rz·Ry·Rx: glam's extrinsic `EulerRot::XYZEx`).

use eframe::egui;

use crate::app::command::Command;
use crate::app::state::{EditorState, EulerOrder};
use crate::rig::bone_axis::AxisSource;
use crate::rig::twist_bend::BendAxes;

/// Accessible labels of the Euler fields (tests find the fields by these).
pub const EULER_LABELS: [&str; 3] = ["Rotation X (°)", "Rotation Y (°)", "Rotation Z (°)"];
/// Accessible labels of the twist and bend fields.
pub const TWIST_BEND_LABELS: [&str; 3] = ["Twist (°)", "Bend A (°)", "Bend B (°)"];
/// Accessible label of the Euler order menu.
pub const ORDER_LABEL: &str = "Euler order";

/// Draws the rotation fields of `node` and returns the command of an edit. `gesture` numbers
/// field drags (one undo step each).
pub fn rotation_fields_ui(ui: &mut egui::Ui, s: &mut EditorState, node: usize, gesture: &mut u64) -> Option<Command> {
    let rest = s.doc.model.nodes.nodes.get(node)?.rest.to_trs().rotation.normalize();
    let local = s.rotation_of(node).normalize();
    let mut fields = std::mem::take(&mut s.posing.rotation_fields);
    let rev = s.doc.model_rev;
    let mut cmd = None;

    ui.horizontal(|ui| {
        let l = ui.label(ORDER_LABEL);
        egui::ComboBox::from_id_salt("euler_order")
            .selected_text(fields.order.label())
            .show_ui(ui, |ui| {
                for o in EulerOrder::ALL {
                    if ui.selectable_label(fields.order == o, o.label()).clicked() {
                        fields.set_order(o);
                    }
                }
            })
            .response
            .labelled_by(l.id)
            .on_hover_text("the order the X, Y and Z turns are applied in (XYZ: X first), about the parent's axes");
        ui.weak("from rest");
    });
    let shown = fields.euler_shown(rev, node, rest, local);
    if let Some((degrees, drag)) = triple_ui(ui, "euler", &EULER_LABELS, shown, gesture, &[]) {
        let rotation = fields.type_euler(rev, node, rest, degrees);
        cmd = Some(Command::SetRotation { node, rotation, gesture: drag });
    }

    let bone = crate::rig::bone_axis::bone_axis(&s.doc.model, &s.doc.pose, node);
    let axes = BendAxes::new(bone.axis);
    let towards = match bone.source {
        AxisSource::Tail => "the bone's tail".to_owned(),
        AxisSource::Child(c) => s.doc.model.nodes.key(c),
        AxisSource::Parent(p) => format!("continuing {}", s.doc.model.nodes.key(p)),
        AxisSource::LocalY => "local +Y (no child joint)".to_owned(),
    };
    ui.label(format!("About the bone (toward {towards})"));
    let local_name = |i: usize| ["X", "Y", "Z"][i];
    let hovers = [
        "turn about the bone axis: the bone keeps its direction".to_owned(),
        format!("bend about local {} (made perpendicular to the bone)", local_name(axes.a_local)),
        format!("bend about local {} (made perpendicular to the bone)", local_name(axes.b_local)),
    ];
    let shown = fields.twist_bend_shown(rev, node, rest, local, &axes);
    if let Some((degrees, drag)) = triple_ui(ui, "twist_bend", &TWIST_BEND_LABELS, shown, gesture, &hovers) {
        let rotation = fields.type_twist_bend(rev, node, rest, &axes, degrees);
        cmd = Some(Command::SetRotation { node, rotation, gesture: drag });
    }
    s.posing.rotation_fields = fields;
    cmd
}

/// Three labelled degree fields; returns the edited triple and, for a drag, its gesture id.
fn triple_ui(
    ui: &mut egui::Ui,
    id: &str,
    labels: &[&str; 3],
    mut values: [f64; 3],
    gesture: &mut u64,
    hovers: &[String],
) -> Option<([f64; 3], Option<u64>)> {
    let (mut changed, mut dragging, mut started) = (false, false, false);
    egui::Grid::new(id).num_columns(2).show(ui, |ui| {
        for (i, label) in labels.iter().enumerate() {
            let mut l = ui.label(*label);
            if let Some(h) = hovers.get(i) {
                l = l.on_hover_text(h);
            }
            let r = ui
                .add(egui::DragValue::new(&mut values[i]).speed(0.5).range(-360.0..=360.0).fixed_decimals(1))
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
    changed.then_some((values, dragging.then_some(*gesture)))
}
