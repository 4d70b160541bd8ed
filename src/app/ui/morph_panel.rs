//! The morph-target sliders (Pose mode): one slider from 0 to 1 per target of a mesh (skinned or not)
//! with morph targets (blend shapes), named by the mesh's target names; a mesh chooser when several
//! have targets; "Key" keys the mesh's weights at the timeline's time. Moving a slider is a pose
//! edit (one undo step per drag); the deformation follows (morph, then skin).

use eframe::egui;

use crate::app::command::{Command, KeyCommand};
use crate::app::state::EditorState;

/// Draws the morph-target section when the model has a morphed mesh, adding its commands to
/// `cmds`; returns whether it drew anything. `gesture` numbers the slider drags.
pub fn morph_panel_ui(ui: &mut egui::Ui, s: &mut EditorState, gesture: &mut u64, cmds: &mut Vec<Command>) -> bool {
    let nodes = s.doc.model.morphed_nodes();
    let Some(&first) = nodes.first() else { return false };
    let node = s.posing.morph_node.filter(|n| nodes.contains(n)).unwrap_or(first);
    ui.heading("Morph targets");
    ui.horizontal(|ui| {
        if nodes.len() > 1 {
            let mut chosen = node;
            egui::ComboBox::from_label("Mesh").selected_text(s.doc.model.nodes.key(node)).show_ui(ui, |ui| {
                for &n in &nodes {
                    ui.selectable_value(&mut chosen, n, s.doc.model.nodes.key(n));
                }
            });
            s.posing.morph_node = Some(chosen);
        } else {
            ui.label(egui::RichText::new(s.doc.model.nodes.key(node)).strong());
        }
        if ui.button("Key").on_hover_text("key these weights at the timeline's time").clicked() {
            cmds.push(Command::Key(KeyCommand::SetMorph { node }));
        }
    });
    let mut weights = s.morph_weights(node);
    let Some(morphs) = s.doc.model.morphs_of(node) else { return true };
    let (mut edited, mut dragging, mut started) = (None, false, false);
    egui::Grid::new("morph_targets").num_columns(2).show(ui, |ui| {
        for (t, w) in weights.iter_mut().enumerate() {
            let label = ui.label(morphs.label(t));
            let r = ui.add(egui::Slider::new(w, 0.0..=1.0).clamping(egui::SliderClamping::Never)).labelled_by(label.id);
            if r.changed() {
                edited = Some((t, *w));
            }
            dragging |= r.dragged();
            started |= r.drag_started();
            ui.end_row();
        }
    });
    if started {
        *gesture += 1;
    }
    if let Some((target, weight)) = edited {
        cmds.push(Command::SetMorphWeight { node, target, weight, gesture: dragging.then_some(*gesture) });
    }
    true
}
