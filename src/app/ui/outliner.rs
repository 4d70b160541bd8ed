//! The joint tree: every skeleton joint indented under its parent joint; clicking selects. A
//! joint with children folds them away (its arrow button); the search field lists only joints
//! whose name contains the text (any case); a joint selected elsewhere (the viewport) unfolds its
//! parents and scrolls into view. In paint mode each joint has a lock box. In Rig mode a joint dragged onto another becomes its
//! child (reparent), and double-clicking a joint (or F2) renames it in place (Enter or clicking
//! away commits, Escape cancels).

use eframe::egui;

use crate::app::command::Command;
use crate::app::state::{EditorState, Mode};

/// Accessible label of the inline rename field (tests find it by this).
pub const RENAME_LABEL: &str = "Joint name";

/// Accessible label of the search field.
pub const SEARCH_LABEL: &str = "Search joints";

/// The payload of a joint dragged in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct JointDrag(usize);

/// The tree's own state: the joint being renamed and its text.
#[derive(Clone, Debug, Default)]
pub struct OutlinerState {
    renaming: Option<(usize, String)>,
    focus: bool,
    /// Joints whose children are folded away.
    collapsed: std::collections::BTreeSet<usize>,
    /// The search text.
    filter: String,
    /// The selection the tree last showed (a new one unfolds its parents and scrolls to it).
    shown_selection: Option<usize>,
}

impl OutlinerState {
    /// Starts renaming `node` in place (Rig mode).
    pub fn start_rename(&mut self, node: usize, s: &EditorState) {
        let name = s.doc.model.nodes.nodes.get(node).and_then(|n| n.name.clone()).unwrap_or_default();
        self.renaming = Some((node, name));
        self.focus = true;
    }

    /// Draws the joint tree and returns the commands it issued.
    pub fn ui(&mut self, ui: &mut egui::Ui, s: &EditorState) -> Vec<Command> {
        ui.heading("Joints");
        let mut cmds = Vec::new();
        if s.doc.skeleton.joints.is_empty() {
            ui.weak(if s.mode == Mode::Rig {
                "(no skeleton yet) Ctrl+click on the mesh to place the root joint."
            } else {
                "(this model has no skin) Switch to Rig mode to build a skeleton."
            });
            return cmds;
        }
        let rig = s.mode == Mode::Rig;
        if self.renaming.as_ref().is_some_and(|(n, _)| !rig || *n >= s.doc.model.nodes.len()) {
            self.renaming = None;
        }
        let search = ui
            .add(egui::TextEdit::singleline(&mut self.filter).hint_text("search joints").desired_width(f32::INFINITY));
        search.widget_info(|| egui::WidgetInfo::labeled(egui::Role::SearchInput, true, SEARCH_LABEL));
        let parents: std::collections::HashMap<usize, Option<usize>> = s.doc.skeleton.joints.iter().copied().collect();
        let scroll_to = (s.selected != self.shown_selection).then_some(s.selected).flatten();
        self.shown_selection = s.selected;
        if let Some(node) = scroll_to {
            let mut up = parents.get(&node).copied().flatten();
            while let Some(p) = up {
                self.collapsed.remove(&p);
                up = parents.get(&p).copied().flatten();
            }
        }
        let has_children: std::collections::HashSet<usize> = parents.values().flatten().copied().collect();
        let needle = self.filter.trim().to_lowercase();
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            let mut depth = std::collections::HashMap::new();
            let mut hidden = std::collections::HashSet::new();
            for &(node, parent) in &s.doc.skeleton.joints {
                let d = parent.and_then(|p| depth.get(&p).copied()).map_or(0, |d: usize| d + 1);
                depth.insert(node, d);
                let folded = parent.is_some_and(|p| hidden.contains(&p) || self.collapsed.contains(&p));
                if folded {
                    hidden.insert(node);
                }
                let shown = if needle.is_empty() {
                    !folded
                } else {
                    s.doc.model.nodes.key(node).to_lowercase().contains(&needle)
                };
                if !shown {
                    continue;
                }
                ui.horizontal(|ui| {
                    if s.mode == Mode::Paint {
                        lock_box(ui, s, node, &mut cmds);
                    }
                    ui.add_space(12.0 * d as f32);
                    if has_children.contains(&node) && needle.is_empty() {
                        self.fold_button(ui, s, node);
                    } else {
                        ui.add_space(14.0 + ui.spacing().item_spacing.x);
                    }
                    if self.renaming.as_ref().is_some_and(|(n, _)| *n == node) {
                        self.rename_field(ui, node, &mut cmds);
                    } else {
                        let r = self.joint_label(ui, s, node, rig, &mut cmds);
                        if scroll_to == Some(node) {
                            r.scroll_to_me(Some(egui::Align::Center));
                        }
                    }
                });
            }
        });
        if let (true, Some(drag)) = (rig, egui::DragAndDrop::payload::<JointDrag>(ui.ctx())) {
            if let Some(p) = ui.ctx().pointer_interact_pos() {
                let layer = egui::LayerId::new(egui::Order::Tooltip, egui::Id::unique("joint_drag"));
                ui.ctx().layer_painter(layer).text(
                    p + egui::vec2(12.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    format!("reparent {}", s.doc.model.nodes.key(drag.0)),
                    egui::FontId::proportional(13.0),
                    ui.visuals().strong_text_color(),
                );
            }
        }
        cmds
    }

    /// The arrow that folds or unfolds `node`'s children.
    fn fold_button(&mut self, ui: &mut egui::Ui, s: &EditorState, node: usize) {
        let folded = self.collapsed.contains(&node);
        let (_, r) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::click());
        egui::collapsing_header::paint_default_icon(ui, if folded { 0.0 } else { 1.0 }, &r);
        let text = format!("{} {}", if folded { "Expand" } else { "Collapse" }, s.doc.model.nodes.key(node));
        r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &text));
        if r.clicked() && !self.collapsed.remove(&node) {
            self.collapsed.insert(node);
        }
    }

    fn joint_label(
        &mut self,
        ui: &mut egui::Ui,
        s: &EditorState,
        node: usize,
        rig: bool,
        cmds: &mut Vec<Command>,
    ) -> egui::Response {
        let name = s.doc.model.nodes.key(node);
        let posed = !rig && s.doc.pose.overrides.get(&node).is_some_and(|o| !o.is_empty());
        let label = if posed { format!("{name} •") } else { name };
        let mut r = ui.selectable_label(s.selected == Some(node), label);
        if rig {
            r = r
                .interact(egui::Sense::drag())
                .on_hover_text("drag onto another joint to reparent; double-click renames");
            if r.drag_started() {
                egui::DragAndDrop::set_payload(ui.ctx(), JointDrag(node));
            }
            if let Some(drag) = r.dnd_hover_payload::<JointDrag>() {
                if drag.0 != node {
                    ui.painter().rect_stroke(
                        r.rect.expand(1.0),
                        2.0,
                        egui::Stroke::new(1.5, ui.visuals().selection.stroke.color),
                        egui::StrokeKind::Outside,
                    );
                }
            }
            if let Some(drag) = r.dnd_release_payload::<JointDrag>() {
                if drag.0 != node {
                    cmds.push(Command::ReparentJoint { node: drag.0, parent: node });
                }
            }
            if r.double_clicked() {
                self.start_rename(node, s);
            }
        }
        if r.clicked() {
            cmds.push(Command::Select(Some(node)));
        }
        r
    }

    fn rename_field(&mut self, ui: &mut egui::Ui, node: usize, cmds: &mut Vec<Command>) {
        let Some((_, text)) = &mut self.renaming else { return };
        let r = ui.add(egui::TextEdit::singleline(text).desired_width(140.0));
        r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::TextInput, true, RENAME_LABEL));
        if std::mem::take(&mut self.focus) {
            r.request_focus();
        }
        let (enter, escape) = ui.input(|i| (i.key_pressed(egui::Key::Enter), i.key_pressed(egui::Key::Escape)));
        if escape {
            self.renaming = None;
        } else if r.lost_focus() || (enter && r.has_focus()) {
            let name = text.trim().to_owned();
            self.renaming = None;
            cmds.push(Command::RenameJoint { node, name });
        }
    }
}

fn lock_box(ui: &mut egui::Ui, s: &EditorState, node: usize, cmds: &mut Vec<Command>) {
    let mut locked = s.painting.settings.locked.contains(&node);
    let r =
        ui.add(egui::Checkbox::without_text(&mut locked)).on_hover_text("locked: painting and tools leave it alone");
    let text = format!("Lock {}", s.doc.model.nodes.key(node));
    r.widget_info(|| egui::WidgetInfo::selected(egui::Role::CheckBox, true, locked, &text));
    if r.changed() {
        cmds.push(Command::SetLocked { node, locked });
    }
}
