//! The weight tools in the editor without a display (egui_kittest), on the demo arm: selection
//! keys and buttons (A, Alt+A, Ctrl+I, H, Alt+H, Grow, Shrink), box select with the Select tool,
//! lasso with Ctrl+right drag, painting restricted to the selection, the gradient drag, the weight
//! table's Set / Paste / cell edits, and Transfer weights from a file — each edit one undo step.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui::{self, accesskit::Role};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::Vec2;
use skinlab::app::command::PaintTool;
use skinlab::app::SkinlabApp;
use skinlab::model::influences::VertexSnapshot;
use skinlab::model::Model;
use ui_harness::{harness, paint_mode, Scripted};

const SHOULDER: usize = 1;
const ELBOW: usize = 2;

fn snapshots(m: &Model) -> Vec<VertexSnapshot> {
    let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
    (0..inf.len()).map(|v| inf.snapshot(v)).collect()
}

fn over_arm(h: &Harness<'_, SkinlabApp>, t: f32) -> egui::Pos2 {
    let rect = h.state().viewport_rect().unwrap();
    let size = Vec2::new(rect.width(), rect.height());
    let s = &h.state().state;
    let a = s.node_position(SHOULDER).unwrap();
    let b = s.node_position(ELBOW).unwrap();
    let p = s.view.camera.project(a + (b - a) * t, size).unwrap();
    rect.min + egui::vec2(p.x, p.y)
}

/// The selected weld groups, checked against what the panel says (its counts are kept between
/// frames and must follow every change).
fn selected(h: &Harness<'_, SkinlabApp>) -> usize {
    let n = h.state().state.selected_groups().len();
    let hidden = h.state().state.painting.weight_tools.selection.hidden_count();
    let text = format!("selected: {n} vertices, hidden: {hidden}");
    assert!(h.query_all_by_label(&text).next().is_some(), "the panel says \"{text}\"");
    n
}

fn groups(h: &Harness<'_, SkinlabApp>) -> usize {
    let s = &h.state().state.topology().surface;
    (0..s.len() as u32).filter(|&g| s.adjacency().rep(g) == g).count()
}

fn key(h: &mut Harness<'_, SkinlabApp>, key: egui::Key, modifiers: egui::Modifiers) {
    h.key_press_modifiers(modifiers, key);
    h.run();
}

fn button(h: &mut Harness<'_, SkinlabApp>, pos: egui::Pos2, b: egui::PointerButton, pressed: bool, m: egui::Modifiers) {
    h.event_modifiers(egui::Event::PointerButton { pos, button: b, pressed, modifiers: m }, m);
    h.step();
}

/// A drag with button `b` and modifiers `m` through `points`.
fn drag(h: &mut Harness<'_, SkinlabApp>, points: &[egui::Pos2], b: egui::PointerButton, m: egui::Modifiers) {
    h.event(egui::Event::PointerMoved(points[0]));
    h.step();
    button(h, points[0], b, true, m);
    for &p in &points[1..] {
        h.event_modifiers(egui::Event::PointerMoved(p), m);
        h.step();
    }
    button(h, *points.last().unwrap(), b, false, m);
    h.run();
}

/// Scrolls the widget labelled `label` into view (the weight tools sit low in the paint panel)
/// and clicks it.
fn click_label(h: &mut Harness<'_, SkinlabApp>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    h.run();
    h.get_by_label(label).click();
    h.run();
}

fn click_button(h: &mut Harness<'_, SkinlabApp>, label: &str) {
    let b = h.get_by_role_and_label(Role::Button, label);
    b.scroll_to_me();
    h.run();
    h.get_by_role_and_label(Role::Button, label).click();
    h.run();
}

#[test]
fn selection_keys_and_buttons() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let all = groups(&h);
    key(&mut h, egui::Key::A, egui::Modifiers::NONE);
    assert_eq!(selected(&h), all, "A selects everything");
    key(&mut h, egui::Key::A, egui::Modifiers::ALT);
    assert_eq!(selected(&h), 0, "Alt+A deselects");
    key(&mut h, egui::Key::I, egui::Modifiers::COMMAND);
    assert_eq!(selected(&h), all, "Ctrl+I inverts");
    key(&mut h, egui::Key::H, egui::Modifiers::NONE);
    assert_eq!(
        h.state().state.painting.weight_tools.selection.hidden_count(),
        h.state().state.topology().surface.len()
    );
    assert_eq!(selected(&h), 0);
    key(&mut h, egui::Key::H, egui::Modifiers::ALT);
    assert_eq!(h.state().state.painting.weight_tools.selection.hidden_count(), 0);
    assert_eq!(selected(&h), all, "Alt+H reveals and selects");
    click_button(&mut h, "None");
    assert_eq!(selected(&h), 0);
    // The Select tool by B, a box over the upper arm, then Grow and Shrink buttons.
    key(&mut h, egui::Key::B, egui::Modifiers::NONE);
    assert_eq!(h.state().state.painting.weight_tools.tool, PaintTool::Select);
    let (a, b) = (over_arm(&h, 0.3), over_arm(&h, 0.6));
    let lo = egui::pos2(a.x.min(b.x) - 5.0, a.y.min(b.y) - 40.0);
    let hi = egui::pos2(a.x.max(b.x) + 5.0, a.y.max(b.y) + 40.0);
    drag(&mut h, &[lo, egui::pos2((lo.x + hi.x) / 2.0, hi.y), hi], egui::PointerButton::Primary, egui::Modifiers::NONE);
    let boxed = selected(&h);
    assert!(boxed > 0 && boxed < all, "{boxed} of {all}");
    click_button(&mut h, "Grow");
    let grown = selected(&h);
    assert!(grown > boxed, "{grown} > {boxed}");
    click_button(&mut h, "Shrink");
    assert!(selected(&h) < grown);
    // Ctrl+drag with the box subtracts (what grow and shrink left outside the box stays).
    let before = selected(&h);
    drag(&mut h, &[lo, hi], egui::PointerButton::Primary, egui::Modifiers::COMMAND);
    assert!(selected(&h) < before / 4, "{} of {before}", selected(&h));
    key(&mut h, egui::Key::A, egui::Modifiers::ALT);
    // Lasso: Ctrl+right drag around the elbow adds.
    let c = over_arm(&h, 1.0);
    let ring: Vec<egui::Pos2> =
        (0..=12).map(|k| c + egui::Vec2::angled(k as f32 * std::f32::consts::TAU / 12.0) * 60.0).collect();
    drag(&mut h, &ring, egui::PointerButton::Secondary, egui::Modifiers::COMMAND);
    let lassoed = selected(&h);
    assert!(lassoed > 0 && lassoed < all, "{lassoed}");
}

#[test]
fn restricted_painting_gradient_and_table_are_one_undo_step_each() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let original = snapshots(&h.state().state.doc.model);
    // Select the forearm end with a box, restrict, paint across the whole arm.
    click_button(&mut h, "Select");
    let (a, b) = (over_arm(&h, 1.2), over_arm(&h, 1.8));
    let lo = egui::pos2(a.x.min(b.x) - 5.0, a.y.min(b.y) - 60.0);
    let hi = egui::pos2(a.x.max(b.x) + 5.0, a.y.max(b.y) + 60.0);
    drag(&mut h, &[lo, hi], egui::PointerButton::Primary, egui::Modifiers::NONE);
    assert!(selected(&h) > 0, "{:?} {lo:?} {hi:?} {:?}", h.state().state.message, h.state().viewport_rect());
    click_label(&mut h, "Restrict to selection");
    assert!(h.state().state.painting.weight_tools.restrict);
    click_button(&mut h, "Brush");
    let stroke: Vec<egui::Pos2> = (0..=8).map(|k| over_arm(&h, 0.2 + 1.4 * k as f32 / 8.0)).collect();
    drag(&mut h, &stroke, egui::PointerButton::Primary, egui::Modifiers::NONE);
    let after = snapshots(&h.state().state.doc.model);
    let s = &h.state().state;
    let sel = &s.painting.weight_tools.selection;
    let changed: Vec<usize> = (0..after.len()).filter(|&v| after[v] != original[v]).collect();
    assert!(!changed.is_empty(), "the stroke painted the selection");
    assert!(changed.iter().all(|&v| sel.is_selected(v as u32)), "only selected vertices changed");
    key(&mut h, egui::Key::Z, egui::Modifiers::COMMAND);
    assert_eq!(snapshots(&h.state().state.doc.model), original);
    // Gradient from the shoulder to the wrist on everything (restriction off).
    click_label(&mut h, "Restrict to selection");
    click_button(&mut h, "Gradient");
    let g: Vec<egui::Pos2> = (0..=4).map(|k| over_arm(&h, 0.1 + 1.6 * k as f32 / 4.0)).collect();
    drag(&mut h, &g, egui::PointerButton::Primary, egui::Modifiers::NONE);
    let msg = h.state().state.message.clone().unwrap();
    assert!(!msg.is_error && msg.text.starts_with("Gradient of elbow"), "{}", msg.text);
    assert_ne!(snapshots(&h.state().state.doc.model), original);
    key(&mut h, egui::Key::Z, egui::Modifiers::COMMAND);
    assert_eq!(snapshots(&h.state().state.doc.model), original, "one undo step");
    // The table: select all, Set the elbow to 0.5 everywhere, undo.
    key(&mut h, egui::Key::A, egui::Modifiers::NONE);
    click_button(&mut h, "Set");
    let s = &h.state().state;
    let surface = &s.topology().surface;
    let elbow = s.selected_surface_joint().unwrap();
    for g in 0..surface.len() as u32 {
        let w = surface.weights(&s.doc.model, g);
        assert!((w.iter().find(|p| p.0 == elbow).unwrap().1 - 0.5).abs() < 1e-6, "{g}: {w:?}");
    }
    key(&mut h, egui::Key::Z, egui::Modifiers::COMMAND);
    assert_eq!(snapshots(&h.state().state.doc.model), original);
    // Copy a row's weights and paste them onto the selection.
    let copy = h.get_all_by_role_and_label(Role::Button, "copy").next().unwrap();
    copy.scroll_to_me();
    h.run();
    h.get_all_by_role_and_label(Role::Button, "copy").next().unwrap().click();
    h.run();
    assert!(h.state().state.painting.weight_tools.clipboard.is_some());
    click_button(&mut h, "Paste");
    let s = &h.state().state;
    let surface = &s.topology().surface;
    let first = surface.weights(&s.doc.model, s.selected_groups()[0]);
    assert!(s.selected_groups().iter().all(|&g| surface.weights(&s.doc.model, g) == first));
    key(&mut h, egui::Key::Z, egui::Modifiers::COMMAND);
    assert_eq!(snapshots(&h.state().state.doc.model), original);
}

#[test]
fn transfer_from_a_file_reports_and_undoes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("arm.glb");
    std::fs::write(&path, skinlab::demo::demo_glb()).unwrap();
    let dialogs = Scripted::default();
    *dialogs.transfer.lock().unwrap() = Some(path);
    let mut h = harness(dialogs);
    paint_mode(&mut h, "elbow");
    let original = snapshots(&h.state().state.doc.model);
    // Paint over the file's weights, then transfer them back from the file.
    key(&mut h, egui::Key::A, egui::Modifiers::NONE);
    click_button(&mut h, "Set");
    let painted = snapshots(&h.state().state.doc.model);
    assert_ne!(painted, original);
    click_button(&mut h, "From a model file…");
    let msg = h.state().state.message.clone().unwrap();
    assert!(!msg.is_error && msg.text.contains("matched by closest point, 0 inpainted"), "{}", msg.text);
    let report = h.state().state.painting.weight_tools.last_transfer.clone().unwrap();
    assert_eq!(report.matched, groups(&h));
    let m = &h.state().state.doc.model;
    let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
    let table = &m.skins[0].sets;
    let demo = skinlab::io::load_model_from_bytes(&skinlab::demo::demo_glb(), std::path::Path::new("arm.glb")).unwrap();
    let dinf = demo.meshes[0].primitives[0].influences.as_ref().unwrap();
    for v in 0..inf.len() {
        let (a, b): (Vec<_>, Vec<_>) = (inf.vertex(v, table).collect(), dinf.vertex(v, &demo.skins[0].sets).collect());
        assert!(
            a.len() == b.len() && a.iter().zip(&b).all(|(p, q)| p.0 == q.0 && (p.1 - q.1).abs() < 1e-5),
            "{v}: {a:?} {b:?}"
        );
    }
    key(&mut h, egui::Key::Z, egui::Modifiers::COMMAND);
    assert_eq!(snapshots(&h.state().state.doc.model), painted, "one undo step");
}
