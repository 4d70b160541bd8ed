//! Weight painting in the editor without a display (egui_kittest): paint mode, brush strokes by
//! simulated pointer events over the viewport, undo/redo shared with pose edits, the weight tools,
//! locks, Save (paint → save → reload keeps the weights), Export with the overwrite refusal, and
//! the weld report with Weld Weights.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use std::sync::Arc;

use eframe::egui::{self, accesskit::Role};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::{DQuat, Vec2, Vec3};
use skinlab::app::state::{EditorState, Mode};
use skinlab::app::SkinlabApp;
use skinlab::model::influences::VertexSnapshot;
use skinlab::model::Model;
use skinlab::skinning::{Deformer, SkinningMethod};
use ui_harness::{bend_elbow, harness, harness_with, paint_mode, press, Dropped, Scripted};

const SHOULDER: usize = 1;
const ELBOW: usize = 2;

/// Every vertex's stored state (weights and packed set word), for bit-for-bit comparisons.
fn snapshots(m: &Model) -> Vec<VertexSnapshot> {
    let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
    (0..inf.len()).map(|v| inf.snapshot(v)).collect()
}

/// The weight of skin joint `joint` on every vertex.
fn weights_of(m: &Model, joint: u16) -> Vec<f32> {
    let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
    let mut out = Vec::new();
    skinlab::paint::display::joint_weights(inf, &m.skins[0].sets, joint, &mut out);
    out
}

fn joint_index(m: &Model, node: usize) -> u16 {
    m.skins[0].joints.iter().position(|&n| n == node).unwrap() as u16
}

/// The left viewport panel's size (half the viewport in split view).
fn panel_size(h: &Harness<'_, SkinlabApp>) -> Vec2 {
    let rect = h.state().viewport_rect().unwrap();
    let panels = if h.state().state.view.split { 2.0 } else { 1.0 };
    Vec2::new(rect.width() / panels, rect.height())
}

/// A screen point over the arm in the left panel: the projection of a point a fraction `t` from
/// the shoulder to the elbow (the eye ray through it meets the arm's surface in front of the bone).
fn over_arm(h: &Harness<'_, SkinlabApp>, t: f32) -> egui::Pos2 {
    let rect = h.state().viewport_rect().unwrap();
    let size = panel_size(h);
    let s = &h.state().state;
    let a = s.node_position(SHOULDER).unwrap();
    let b = s.node_position(ELBOW).unwrap();
    let p = s.view.camera.project(a + (b - a) * t, size).unwrap();
    rect.min + egui::vec2(p.x, p.y)
}

/// One stroke from `from` to `to` with the primary button.
fn stroke(h: &mut Harness<'_, SkinlabApp>, from: egui::Pos2, to: egui::Pos2) {
    h.event(egui::Event::PointerMoved(from));
    h.step();
    press(h, from, true, egui::Modifiers::NONE);
    for k in 1..=6 {
        h.event(egui::Event::PointerMoved(from + (to - from) * (k as f32 / 6.0)));
        h.step();
    }
    press(h, to, false, egui::Modifiers::NONE);
    h.run();
}

/// A stroke along the arm from fraction `t0` to `t1` (see [`over_arm`]).
fn stroke_over(h: &mut Harness<'_, SkinlabApp>, t0: f32, t1: f32) {
    let (a, b) = (over_arm(h, t0), over_arm(h, t1));
    stroke(h, a, b);
}

fn ray_at(h: &Harness<'_, SkinlabApp>, p: egui::Pos2) -> skinlab::paint::Ray {
    let rect = h.state().viewport_rect().unwrap();
    let (origin, direction) =
        h.state().state.view.camera.ray(Vec2::new(p.x - rect.min.x, p.y - rect.min.y), panel_size(h));
    skinlab::paint::Ray { origin, direction }
}

/// The deformation a full pass gives for the state's model and pose.
fn full_deform(s: &EditorState, method: SkinningMethod) -> Vec<Vec3> {
    let mut out = Vec::new();
    Deformer::new().deform_all(&s.doc.model, &s.doc.pose, method, &mut out);
    out[0][0].positions.clone()
}

#[test]
fn a_dab_raises_the_selected_joints_weight_only_under_the_brush_and_reskins() {
    let mut h = harness(Scripted::default());
    // Bend the elbow so that weights matter for the shape, and show both methods.
    bend_elbow(&mut h, 60.0);
    h.get_by_label("Split view").click();
    h.run();
    // Frame the model in the narrower panels.
    h.state_mut().state.frame_all();
    h.run();
    paint_mode(&mut h, "elbow");
    let m0 = h.state().state.doc.model.clone();
    let elbow = joint_index(&m0, ELBOW);
    let before = weights_of(&m0, elbow);
    // The brush measures its footprint on the mesh as deformed before the dab (the dab then
    // re-skins the touched vertices, which moves them).
    let deformed_before = h.state().state.frame.deformed[0][0][0].positions.clone();
    let at = over_arm(&h, 0.35);
    let ray = ray_at(&h, at);
    let hover = h
        .state()
        .state
        .hover(&ray, h.state().viewport_rect().unwrap().height(), 0)
        .expect("the arm is under the cursor");
    h.event(egui::Event::PointerMoved(at));
    h.step();
    press(&mut h, at, true, egui::Modifiers::NONE);
    press(&mut h, at, false, egui::Modifiers::NONE);
    h.run();
    let s = &h.state().state;
    let after = weights_of(&s.doc.model, elbow);
    let changed: Vec<usize> = (0..before.len()).filter(|&v| before[v].to_bits() != after[v].to_bits()).collect();
    assert!(!changed.is_empty(), "the dab changed nothing");
    assert!(
        after[hover.hit.vertex as usize] > before[hover.hit.vertex as usize],
        "the vertex under the cursor did not gain weight"
    );
    for &v in &changed {
        assert!(after[v] >= before[v], "Add lowered vertex {v}: {} → {}", before[v], after[v]);
    }
    // Every changed vertex lies inside the brush sphere (surface distance ≥ straight distance).
    let rect = h.state().viewport_rect().unwrap();
    let depth = (hover.hit.point - s.view.camera.eye()).dot(-s.view.camera.back());
    let upp = skinlab::paint::brush::model_units_per_px(s.view.camera.fov_y_rad, rect.height(), depth);
    let radius = s.painting.settings.brush.radius * upp;
    for &v in &changed {
        let d = (deformed_before[v] - hover.hit.point).length();
        assert!(d <= radius * 1.001, "vertex {v} at {d} outside the brush radius {radius}");
    }
    assert!(changed.len() < before.len() / 4, "{} of {} vertices changed", changed.len(), before.len());
    // Both panels were re-skinned to exactly what a full pass gives with the new weights.
    assert_eq!(s.frame.deformed[0][0][0].positions, full_deform(s, SkinningMethod::Lbs));
    assert_eq!(s.frame.deformed[1][0][0].positions, full_deform(s, SkinningMethod::Sbs));
    assert!(s.painting.edited.is_dirty());
    assert!(h.query_by_label_contains("1 unsaved weight edit").is_some(), "no unsaved marker in the status line");
    // The paint colours follow the weights (the ramp of the elbow's weight).
    let v = hover.hit.vertex as usize;
    let want = skinlab::paint::display::weight_colour(after[v]);
    let got = s.painting.colours[0][0][v];
    assert!((f32::from(got[0]) / 255.0 - want[0]).abs() < 0.01 && (f32::from(got[2]) / 255.0 - want[2]).abs() < 0.01);
    // A dab in the right (SBS) panel picks that panel's surface and re-skins both panels.
    let right = over_arm(&h, 0.7) + egui::vec2(panel_size(&h).x, 0.0);
    let before_right = weights_of(&h.state().state.doc.model, elbow);
    h.event(egui::Event::PointerMoved(right));
    h.step();
    press(&mut h, right, true, egui::Modifiers::NONE);
    press(&mut h, right, false, egui::Modifiers::NONE);
    h.run();
    let s = &h.state().state;
    assert!(weights_of(&s.doc.model, elbow) != before_right, "a dab in the right panel changed nothing");
    assert_eq!(s.frame.deformed[0][0][0].positions, full_deform(s, SkinningMethod::Lbs));
    assert_eq!(s.frame.deformed[1][0][0].positions, full_deform(s, SkinningMethod::Sbs));
}

#[test]
fn undo_restores_a_stroke_bit_for_bit_and_redo_reapplies_it() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let before = snapshots(&h.state().state.doc.model);
    stroke_over(&mut h, 0.2, 0.6);
    let after = snapshots(&h.state().state.doc.model);
    assert!(before != after);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(snapshots(&h.state().state.doc.model) == before, "undo did not restore the weights bit for bit");
    assert!(!h.state().state.doc.history.can_undo(), "one stroke must be one undo step");
    assert_eq!(h.state().state.frame.deformed[0][0][0].positions, full_deform(&h.state().state, SkinningMethod::Lbs));
    h.get_by_label("Redo").click();
    h.run();
    assert!(snapshots(&h.state().state.doc.model) == after, "redo did not re-apply the stroke");
}

#[test]
fn pose_edits_and_strokes_share_one_history() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 40.0);
    let posed = h.state().state.rotation_of(ELBOW);
    assert!(posed.angle_between(DQuat::IDENTITY) > 0.5);
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.mode, Mode::Paint, "Tab did not enter paint mode");
    let weights = snapshots(&h.state().state.doc.model);
    stroke_over(&mut h, 0.3, 0.5);
    assert!(snapshots(&h.state().state.doc.model) != weights);
    // First undo: the stroke (the pose stays); second: the pose edit.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(snapshots(&h.state().state.doc.model) == weights);
    assert_eq!(h.state().state.rotation_of(ELBOW), posed);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(h.state().state.rotation_of(ELBOW).angle_between(DQuat::IDENTITY) < 1e-9);
    assert!(snapshots(&h.state().state.doc.model) == weights);
    // Redo both, in order.
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert_eq!(h.state().state.rotation_of(ELBOW), posed);
    assert!(snapshots(&h.state().state.doc.model) == weights);
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert!(snapshots(&h.state().state.doc.model) != weights);
}

#[test]
fn weight_tool_buttons_change_weights_in_one_undo_step_each() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let before = snapshots(&h.state().state.doc.model);
    // Limit Total with a limit of 1: every vertex keeps a single influence.
    h.get_by_role_and_label(Role::SpinButton, "Influence limit").set_value_accesskit(1.0);
    h.run();
    assert_eq!(h.state().state.painting.settings.limit, 1);
    h.get_by_label("Limit Total").click();
    h.run();
    {
        let m = &h.state().state.doc.model;
        let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
        assert!((0..inf.len()).all(|v| inf.count(v, &m.skins[0].sets) <= 1), "Limit Total left several influences");
    }
    h.get_by_label("Undo").click();
    h.run();
    assert!(snapshots(&h.state().state.doc.model) == before);
    h.get_by_role_and_label(Role::SpinButton, "Influence limit").set_value_accesskit(4.0);
    h.run();
    // Clean with a high threshold drops small weights; Smooth All spreads them again.
    h.get_by_role_and_label(Role::SpinButton, "Clean threshold").set_value_accesskit(0.3);
    h.run();
    h.get_by_label("Clean").click();
    h.run();
    let cleaned = snapshots(&h.state().state.doc.model);
    assert!(cleaned != before, "Clean changed nothing");
    {
        let m = &h.state().state.doc.model;
        let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
        for v in 0..inf.len() {
            let w = inf.vertex_influences(v, &m.skins[0].sets);
            assert!(w.pairs.len() == 1 || w.pairs.iter().all(|p| p.1 >= 0.3 - 1e-6), "vertex {v}: {:?}", w.pairs);
        }
    }
    h.get_by_label("Smooth All").click();
    h.run();
    assert!(snapshots(&h.state().state.doc.model) != cleaned, "Smooth All changed nothing");
    h.get_by_label("Normalize All").click();
    h.run();
    let m = &h.state().state.doc.model;
    let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
    for v in 0..inf.len() {
        let sum: f32 = inf.vertex_influences(v, &m.skins[0].sets).pairs.iter().map(|p| p.1).sum();
        assert!((sum - 1.0).abs() < 1e-5, "vertex {v} sums to {sum}");
    }
    // Three undo steps back to the original weights (Normalize All may have changed nothing).
    for _ in 0..3 {
        h.get_by_label("Undo").click();
        h.run();
    }
    assert!(snapshots(&h.state().state.doc.model) == before);
    assert_eq!(h.state().state.frame.deformed[0][0][0].positions, full_deform(&h.state().state, SkinningMethod::Lbs));
}

#[test]
fn a_locked_joint_keeps_its_weights_under_the_brush_and_the_tools() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let shoulder = joint_index(&h.state().state.doc.model, SHOULDER);
    let elbow = joint_index(&h.state().state.doc.model, ELBOW);
    h.get_by_label("Lock shoulder").click();
    h.run();
    assert!(h.state().state.painting.settings.locked.contains(&SHOULDER));
    let locked = weights_of(&h.state().state.doc.model, shoulder);
    let elbow_before = weights_of(&h.state().state.doc.model, elbow);
    stroke_over(&mut h, 0.5, 0.95);
    let after = weights_of(&h.state().state.doc.model, shoulder);
    assert!(
        locked.iter().zip(&after).all(|(a, b)| a.to_bits() == b.to_bits()),
        "the locked shoulder's weights changed"
    );
    assert!(weights_of(&h.state().state.doc.model, elbow) != elbow_before, "the stroke changed nothing");
    h.get_by_label("Smooth All").click();
    h.run();
    let after = weights_of(&h.state().state.doc.model, shoulder);
    assert!(locked.iter().zip(&after).all(|(a, b)| a.to_bits() == b.to_bits()), "Smooth All changed a locked joint");
    // Unlocked, the same stroke may take weight from the shoulder.
    h.get_by_label("Lock shoulder").click();
    h.run();
    assert!(!h.state().state.painting.settings.locked.contains(&SHOULDER));
    stroke_over(&mut h, 0.5, 0.95);
    assert!(weights_of(&h.state().state.doc.model, shoulder) != locked, "the unlocked shoulder kept its weights");
}

fn assert_same_weights(a: &Model, b: &Model) {
    let (ia, ib) = (
        a.meshes[0].primitives[0].influences.as_ref().unwrap(),
        b.meshes[0].primitives[0].influences.as_ref().unwrap(),
    );
    assert_eq!(ia.len(), ib.len());
    let (ta, tb) = (&a.skins[0].sets, &b.skins[0].sets);
    // File vertex `v` in each model's own order (each load orders its vertices by joint set).
    let (oa, ob) = (&a.meshes[0].primitives[0].order, &b.meshes[0].primitives[0].order);
    for v in 0..ia.len() {
        let (mut wa, mut wb) =
            (ia.vertex_influences(oa.model_index(v), ta).pairs, ib.vertex_influences(ob.model_index(v), tb).pairs);
        wa.sort_by_key(|p| p.0);
        wb.sort_by_key(|p| p.0);
        assert_eq!(wa.len(), wb.len(), "vertex {v}: {wa:?} vs {wb:?}");
        for (x, y) in wa.iter().zip(&wb) {
            assert!(x.0 == y.0 && (x.1 - y.1).abs() < 1e-6, "vertex {v}: {wa:?} vs {wb:?}");
        }
    }
}

#[test]
fn painted_weights_survive_save_and_reload() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("painted.glb");
    let dialogs = Scripted::default();
    *dialogs.save.lock().unwrap() = Some(out.clone());
    let mut h = harness(dialogs.clone());
    paint_mode(&mut h, "elbow");
    stroke_over(&mut h, 0.2, 0.7);
    let original = skinlab::demo::demo_model().unwrap();
    assert!(snapshots(&h.state().state.doc.model) != snapshots(&original));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run();
    let msg = h.state().state.message.clone().unwrap();
    assert!(!msg.is_error, "{}", msg.text);
    assert!(!h.state().state.painting.edited.is_dirty(), "saving did not clear the unsaved marker");
    let (reloaded, _) = skinlab::io::load_document(&out).unwrap();
    assert_same_weights(&h.state().state.doc.model, &reloaded);
    // A second stroke and File ▸ Save write to the same file without asking again.
    stroke_over(&mut h, 0.6, 0.9);
    assert!(h.state().state.painting.edited.is_dirty());
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Save (Ctrl+S)").click();
    h.run();
    assert_eq!(*dialogs.asked.lock().unwrap(), 1, "Save asked for a path again");
    let reloaded = skinlab::io::load_model(&out).unwrap();
    assert_same_weights(&h.state().state.doc.model, &reloaded);
    // Save weights… writes a weights file that applies the painted weights to the original.
    let weights = dir.path().join("weights.json");
    *dialogs.save.lock().unwrap() = Some(weights.clone());
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Save weights…").click();
    h.run();
    let mut fresh = skinlab::demo::demo_model().unwrap();
    skinlab::io::apply_weights_file(&weights, &mut fresh).unwrap();
    assert_same_weights(&h.state().state.doc.model, &fresh);
}

#[test]
fn export_writes_a_loadable_file_and_never_overwrites_the_input_unconfirmed() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("arm.glb");
    skinlab::demo::write_demo(&input).unwrap();
    let (model, source) = skinlab::io::load_document(&input).unwrap();
    let dialogs = Scripted::default();
    let mut h = harness_with(EditorState::with_document(model, source, "arm.glb"), dialogs.clone());
    paint_mode(&mut h, "elbow");
    stroke_over(&mut h, 0.2, 0.7);
    // Export to a new .gltf with u16 weights.
    let out = dir.path().join("exported.gltf");
    *dialogs.export.lock().unwrap() = Some(out.clone());
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Export…").click();
    h.run();
    h.get_by_label(".gltf").click();
    h.run();
    h.get_by_label("Export to…").click();
    h.run();
    let msg = h.state().state.message.clone().unwrap();
    assert!(!msg.is_error, "{}", msg.text);
    let exported = skinlab::io::load_model(&out).unwrap();
    assert_same_weights(&h.state().state.doc.model, &exported);
    // Export over the input: refused until confirmed, the file untouched.
    let original_bytes = std::fs::read(&input).unwrap();
    *dialogs.export.lock().unwrap() = Some(input.clone());
    for answer in ["Cancel", "Overwrite"] {
        h.get_by_label("File").click();
        h.run();
        h.get_by_label("Export…").click();
        h.run();
        h.get_by_label("Export to…").click();
        h.run();
        assert!(h.state().state.files.pending_overwrite.is_some(), "no confirmation asked");
        assert_eq!(std::fs::read(&input).unwrap(), original_bytes, "the input was overwritten without confirmation");
        h.get_by_label(answer).click();
        h.run();
        assert!(h.state().state.files.pending_overwrite.is_none());
    }
    assert!(std::fs::read(&input).unwrap() != original_bytes, "confirmed overwrite did not write");
    assert_same_weights(&h.state().state.doc.model, &skinlab::io::load_model(&input).unwrap());
    // A failing export (unwritable directory) shows an error and changes nothing.
    *dialogs.export.lock().unwrap() = Some(dir.path().join("missing/dir/out.glb"));
    let weights = snapshots(&h.state().state.doc.model);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Export…").click();
    h.run();
    h.get_by_label("Export to…").click();
    h.run();
    assert!(h.state().state.message.as_ref().unwrap().is_error);
    assert!(snapshots(&h.state().state.doc.model) == weights);
}

#[test]
fn ctrl_click_samples_the_weight_and_brush_keys_change_the_brush() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let at = over_arm(&h, 0.9);
    h.event(egui::Event::PointerMoved(at));
    h.step();
    press(&mut h, at, true, egui::Modifiers::COMMAND);
    press(&mut h, at, false, egui::Modifiers::COMMAND);
    h.run();
    let s = &h.state().state;
    assert_eq!(s.painting.settings.brush.mode, skinlab::paint::BlendMode::Replace);
    let v = s.painting.settings.brush.value;
    assert!(v > 0.0 && v < 1.0, "sampled {v}");
    assert!(!s.doc.history.can_undo(), "sampling must not paint");
    let (r, st) = (s.painting.settings.brush.radius, s.painting.settings.brush.strength);
    h.key_press(egui::Key::CloseBracket);
    h.key_press(egui::Key::Minus);
    h.run();
    assert!(h.state().state.painting.settings.brush.radius > r);
    assert!(h.state().state.painting.settings.brush.strength < st);
    h.get_by_label("Dominant joint").click();
    h.run();
    let s = &h.state().state;
    let skin = &s.doc.model.skins[0];
    let c =
        skinlab::paint::joint_palette::joint_palette(&skinlab::paint::joint_palette::skin_parents(&s.doc.model, skin))
            [0];
    assert!(s.painting.colours[0][0].iter().any(|p| (f32::from(p[0]) / 255.0 - c[0]).abs() < 0.01));
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.mode, Mode::Rig, "Tab leaves paint mode for Rig mode");
}

#[test]
fn opening_another_model_over_unsaved_edits_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.glb");
    skinlab::demo::write_demo(&other).unwrap();
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    stroke_over(&mut h, 0.2, 0.7);
    let painted = snapshots(&h.state().state.doc.model);
    let rev = h.state().state.doc.model_rev;
    for answer in ["Cancel", "Discard"] {
        h.input_mut().dropped_files.push(Arc::new(Dropped(other.clone())));
        h.run();
        assert_eq!(h.state().state.doc.model_rev, rev, "opened over unsaved edits without asking");
        assert!(snapshots(&h.state().state.doc.model) == painted);
        h.get_by_label(answer).click();
        h.run();
    }
    assert_eq!(h.state().state.doc.model_rev, rev + 1);
    assert_eq!(h.state().state.doc.model_name, "other.glb");
    assert!(!h.state().state.painting.edited.is_dirty());
    assert!(h.state().state.files.source.is_some(), "the opened model has no source document to save to");
}

#[test]
fn ctrl_wheel_sizes_the_brush_and_shift_wheel_changes_its_strength() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let at = over_arm(&h, 0.5);
    h.event(egui::Event::PointerMoved(at));
    h.run();
    let (radius, strength, distance) = (
        h.state().state.painting.settings.brush.radius,
        h.state().state.painting.settings.brush.strength,
        h.state().state.view.camera.distance,
    );
    let wheel = |h: &mut Harness<'_, SkinlabApp>, modifiers: egui::Modifiers| {
        h.event_modifiers(
            egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Line,
                delta: egui::vec2(0.0, 1.0),
                phase: egui::TouchPhase::Move,
                source: egui::MouseWheelSource::Wheel,
                modifiers,
            },
            modifiers,
        );
        h.step();
        h.run();
    };
    wheel(&mut h, egui::Modifiers::COMMAND);
    assert!(h.state().state.painting.settings.brush.radius > radius, "Ctrl+wheel did not grow the brush");
    wheel(&mut h, egui::Modifiers::SHIFT);
    assert!(h.state().state.painting.settings.brush.strength > strength, "Shift+wheel did not raise the strength");
    assert_eq!(h.state().state.view.camera.distance, distance, "the modified wheel also zoomed");
}

/// The weld report: opening a model whose coincident vertices disagree says how many, the paint
/// panel offers Weld Weights, one click welds them as one undo step.
#[test]
fn opening_a_cracked_model_reports_it_and_weld_weights_fixes_it() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models/Stegosaurus.glb"));
    if !path.exists() {
        return;
    }
    let mut state = EditorState::demo().unwrap();
    assert_eq!(state.painting.weld_disagreements, 0, "the demo arm has no crack");
    state.apply(skinlab::app::command::Command::OpenModel(path.to_path_buf()));
    assert_eq!(state.painting.weld_disagreements, 4);
    let message = state.message.clone().unwrap();
    assert!(!message.is_error && message.text.contains("4 weld groups"), "{}", message.text);
    let mut h = harness_with(state, Scripted::default());
    h.run();
    h.get_by_label("Paint").click();
    h.run();
    assert!(h.query_by_label_contains("4 weld groups of coincident vertices disagree").is_some());
    // The paint panel scrolls (mirror, tools, locks): bring the button into view first.
    h.get_by_label("Weld Weights (mean)").scroll_to_me();
    h.run();
    h.get_by_label("Weld Weights (mean)").click();
    h.run();
    assert_eq!(h.state().state.painting.weld_disagreements, 0, "{:?}", h.state().state.message);
    assert!(h.query_by_label_contains("Coincident vertices agree").is_some());
    let text = h.state().state.message.clone().unwrap().text;
    assert!(text.contains("Weld Weights (mean): 4 weld groups changed"), "{text}");
    h.state_mut().state.apply(skinlab::app::command::Command::Undo);
    h.run();
    assert_eq!(h.state().state.painting.weld_disagreements, 4, "one undo step brings the file's weights back");
}

/// The paint panel names the joint the mirror paints and offers Mirror Weights in both directions.
#[test]
fn the_panel_shows_what_the_mirror_paints_and_runs_mirror_weights() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    assert!(h.query_by_label_contains("mirror paints: elbow (its own mirror)").is_some());
    let menus = h.query_all_by_label_contains("Mirror +").count() + h.query_all_by_label_contains("Mirror -").count();
    assert_eq!(menus, 2, "one Mirror menu per direction");
    let state = &mut h.state_mut().state;
    let tool = skinlab::app::command::WeightTool::MirrorWeights {
        direction: skinlab::paint::mirror_weights::MirrorDirection::PositiveToNegative,
        all_joints: true,
    };
    state.apply(skinlab::app::command::Command::Tool(tool));
    let text = state.message.clone().unwrap().text;
    assert!(text.starts_with("Mirror Weights (all joints): ") && text.contains("to -"), "{text}");
}
