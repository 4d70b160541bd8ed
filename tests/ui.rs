//! The editor's UI logic without a display or GPU (egui_kittest; `cc.gl` is `None`, so the 3D
//! viewport draws nothing but everything else runs): selecting a joint in the tree, editing a
//! rotation field, switching the method, undo/redo, and a bad file leaving the old model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use std::sync::Arc;

use eframe::egui::{self, accesskit::Role};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::{DQuat, EulerRot};
use skinlab::app::SkinlabApp;
use skinlab::skinning::SkinningMethod;
use ui_harness::{bend_elbow, drag, harness, press, Dropped, Scripted};

const ELBOW: usize = 2;

fn elbow_z_degrees(h: &Harness<'_, SkinlabApp>) -> f64 {
    let q = h.state().state.doc.pose.overrides.get(&ELBOW).and_then(|o| o.rotation).unwrap_or(DQuat::IDENTITY);
    q.to_euler(EulerRot::XYZ).2.to_degrees()
}

#[test]
fn clicking_a_joint_in_the_tree_selects_it() {
    let mut h = harness(Scripted::default());
    assert_eq!(h.state().state.selected, None);
    h.get_by_label("elbow").click();
    h.run();
    assert_eq!(h.state().state.selected, Some(ELBOW));
    // The inspector now shows the joint's rotation fields.
    h.get_by_role_and_label(Role::SpinButton, "Rotation Z (°)");
}

#[test]
fn a_rotation_field_poses_the_joint_and_redeforms() {
    let mut h = harness(Scripted::default());
    h.get_by_label("elbow").click();
    h.run();
    let rev = h.state().state.frame.frame_rev;
    h.get_by_role_and_label(Role::SpinButton, "Rotation Z (°)").set_value_accesskit(45.0);
    h.run();
    assert!((elbow_z_degrees(&h) - 45.0).abs() < 1e-6, "{}", elbow_z_degrees(&h));
    assert!(h.state().state.frame.frame_rev > rev, "the deformation was not recomputed");
    // The forearm moved: some deformed vertex is now well above the arm's rest height.
    let top = h.state().state.frame.deformed[0][0][0].positions.iter().map(|p| p.y).fold(f32::MIN, f32::max);
    assert!(top > 0.5, "forearm did not rise: max y {top}");
}

#[test]
fn method_switches_by_button_and_by_number_key() {
    let mut h = harness(Scripted::default());
    assert_eq!(h.state().state.view.method, SkinningMethod::Lbs);
    h.get_by_label("DQS").click();
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Dqs);
    h.key_press(egui::Key::Num3);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Sbs);
    h.key_press(egui::Key::Num1);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Lbs);
    assert!(h.state().state.view.shown_methods() == vec![SkinningMethod::Lbs]);
}

#[test]
fn undo_and_redo_by_button_and_shortcut() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 30.0);
    h.get_by_role_and_label(Role::SpinButton, "Rotation Z (°)").set_value_accesskit(60.0);
    h.run();
    assert!((elbow_z_degrees(&h) - 60.0).abs() < 1e-6);
    h.get_by_label("Undo").click();
    h.run();
    assert!((elbow_z_degrees(&h) - 30.0).abs() < 1e-6, "{}", elbow_z_degrees(&h));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(elbow_z_degrees(&h).abs() < 1e-6, "{}", elbow_z_degrees(&h));
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert!((elbow_z_degrees(&h) - 30.0).abs() < 1e-6, "{}", elbow_z_degrees(&h));
    h.get_by_label("Redo").click();
    h.run();
    assert!((elbow_z_degrees(&h) - 60.0).abs() < 1e-6);
    h.get_by_label("Reset pose").click();
    h.run();
    assert!(h.state().state.doc.pose.overrides.is_empty());
    h.get_by_label("Undo").click();
    h.run();
    assert!((elbow_z_degrees(&h) - 60.0).abs() < 1e-6);
}

#[test]
fn opening_a_broken_file_shows_an_error_and_keeps_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.glb");
    std::fs::write(&bad, b"glTF\x02\x00\x00\x00garbage").unwrap();
    let dialogs = Scripted::default();
    *dialogs.model.lock().unwrap() = Some(bad.clone());
    let mut h = harness(dialogs.clone());
    bend_elbow(&mut h, 20.0);
    let vertices = h.state().state.frame.stats.vertices;
    let rev = h.state().state.doc.model_rev;
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Open model…").click();
    h.run();
    let s = &h.state().state;
    assert_eq!(s.doc.model_rev, rev, "the model was replaced");
    assert_eq!(s.doc.model_name, "demo_arm.glb");
    assert_eq!(s.frame.stats.vertices, vertices);
    assert!((elbow_z_degrees(&h) - 20.0).abs() < 1e-6, "the pose was lost");
    let msg = s.message.clone().expect("no message shown");
    assert!(msg.is_error && msg.text.contains("broken.glb"), "{msg:?}");
    // The message is on screen.
    assert!(h.query_by_label_contains("broken.glb").is_some());

    // A file that is not there at all: same outcome.
    *dialogs.model.lock().unwrap() = Some(dir.path().join("missing.glb"));
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Open model…").click();
    h.run();
    assert_eq!(h.state().state.doc.model_rev, rev);
    assert!(h.state().state.message.as_ref().unwrap().text.contains("missing.glb"));
}

#[test]
fn opening_a_good_file_replaces_the_model_and_clears_the_pose() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("again.glb");
    skinlab::demo::write_demo(&good).unwrap();
    let dialogs = Scripted::default();
    *dialogs.model.lock().unwrap() = Some(good);
    let mut h = harness(dialogs);
    let rev = h.state().state.doc.model_rev;
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Open model…").click();
    h.run();
    assert_eq!(h.state().state.doc.model_rev, rev + 1);
    assert_eq!(h.state().state.doc.model_name, "again.glb");
    assert!(!h.state().state.message.as_ref().unwrap().is_error);
}

#[test]
fn split_view_and_difference_overlay_compute_both_methods() {
    let mut h = harness(Scripted::default());
    h.get_by_label("Split view").click();
    h.run();
    h.get_by_label("Difference overlay").click();
    h.run();
    bend_elbow(&mut h, 120.0);
    let s = &h.state().state;
    assert_eq!(s.view.shown_methods(), vec![SkinningMethod::Lbs, SkinningMethod::Sbs]);
    assert!(s.frame.max_difference > 0.01, "LBS and SBS agree at a 120° elbow? {}", s.frame.max_difference);
    let n = s.frame.deformed[0][0][0].positions.len();
    assert_eq!(s.frame.difference_colours[0][0].len(), n);
    assert!(h.query_by_label_contains("LBS vs SBS").is_some(), "status line missing");
}

/// Screen position (points) of a joint in the left viewport panel.
fn joint_on_screen(h: &Harness<'_, SkinlabApp>, node: usize) -> egui::Pos2 {
    let rect = h.state().viewport_rect().expect("viewport drawn");
    let s = &h.state().state;
    let panel_w = rect.width() / if s.view.split { 2.0 } else { 1.0 };
    let p = s.view.camera.project(s.node_position(node).unwrap(), glam::Vec2::new(panel_w, rect.height())).unwrap();
    rect.min + egui::vec2(p.x, p.y)
}

#[test]
fn clicking_a_joint_in_the_viewport_selects_it_and_empty_space_clears_it() {
    let mut h = harness(Scripted::default());
    let at = joint_on_screen(&h, ELBOW);
    h.event(egui::Event::PointerMoved(at));
    h.step();
    press(&mut h, at, true, egui::Modifiers::NONE);
    press(&mut h, at, false, egui::Modifiers::NONE);
    h.run();
    assert_eq!(h.state().state.selected, Some(ELBOW));
    let corner = h.state().viewport_rect().unwrap().min + egui::vec2(15.0, 60.0);
    h.event(egui::Event::PointerMoved(corner));
    h.step();
    press(&mut h, corner, true, egui::Modifiers::NONE);
    press(&mut h, corner, false, egui::Modifiers::NONE);
    h.run();
    assert_eq!(h.state().state.selected, None);
}

#[test]
fn dragging_the_gizmo_rotates_the_joint_in_one_undo_step() {
    let mut h = harness(Scripted::default());
    h.get_by_label("elbow").click();
    h.run();
    assert!(h.state().state.doc.pose.overrides.is_empty());
    let c = joint_on_screen(&h, ELBOW);
    drag(&mut h, c + egui::vec2(8.0, 4.0), c + egui::vec2(48.0, 24.0));
    let q = h.state().state.rotation_of(ELBOW);
    assert!(q.angle_between(DQuat::IDENTITY) > 0.2, "gizmo drag did not rotate the elbow: {q:?}");
    let yaw = h.state().state.view.camera.yaw_rad;
    h.get_by_label("Undo").click();
    h.run();
    assert!(
        h.state().state.rotation_of(ELBOW).angle_between(DQuat::IDENTITY) < 1e-9,
        "one undo should undo the whole drag"
    );
    assert_eq!(h.state().state.view.camera.yaw_rad, yaw);
}

#[test]
fn dragging_empty_space_orbits_the_camera_without_posing() {
    let mut h = harness(Scripted::default());
    let rect = h.state().viewport_rect().unwrap();
    let yaw = h.state().state.view.camera.yaw_rad;
    drag(&mut h, rect.min + egui::vec2(30.0, 80.0), rect.min + egui::vec2(130.0, 80.0));
    assert!((h.state().state.view.camera.yaw_rad - yaw).abs() > 0.3);
    assert!(h.state().state.doc.pose.overrides.is_empty());
}

#[test]
fn the_timeline_scrubs_an_animation() {
    let mut h = harness(Scripted::default());
    h.get_by_role_and_label(Role::ComboBox, "Animation").click();
    h.run();
    h.get_by_label("twist").click();
    h.run();
    assert_eq!(h.state().state.posing.clip, Some(0));
    // The timeline counts frames at the clip's rate: one second is `fps` frames.
    let fps = skinlab::rig::keys::frame_rate(&h.state().state.doc.model.clips[0]);
    h.get_by_role_and_label(Role::Slider, "Frame").set_value_accesskit(fps);
    h.run();
    assert!((h.state().state.posing.time_secs - 1.0).abs() < 1e-9);
    let wrist = h.state().state.rotation_of(3);
    assert!((wrist.angle_between(DQuat::IDENTITY).to_degrees() - 90.0).abs() < 1.0, "{wrist:?}");
    h.get_by_label("Play").click();
    h.run_steps(3);
    assert!(h.state().state.posing.playing);
    h.get_by_label("Pause").click();
    h.run();
    assert!(!h.state().state.posing.playing);
}

#[test]
fn poses_save_and_load_through_the_file_menu() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pose.json");
    let dialogs = Scripted::default();
    *dialogs.pose.lock().unwrap() = Some(file.clone());
    let mut h = harness(dialogs);
    bend_elbow(&mut h, 75.0);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Save pose…").click();
    h.run();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("skinlab-pose") && text.contains("elbow"), "{text}");
    h.get_by_label("Reset pose").click();
    h.run();
    assert!(elbow_z_degrees(&h).abs() < 1e-9);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Load pose…").click();
    h.run();
    assert!((elbow_z_degrees(&h) - 75.0).abs() < 1e-6);
    // A broken pose file: message, pose kept.
    std::fs::write(&file, "{ not json").unwrap();
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Load pose…").click();
    h.run();
    assert!((elbow_z_degrees(&h) - 75.0).abs() < 1e-6);
    assert!(h.state().state.message.as_ref().unwrap().is_error);
}

#[test]
fn dropping_files_opens_models_and_refuses_broken_ones() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("dropped.gltf");
    std::fs::write(&bad, "{}").unwrap();
    let good = dir.path().join("dropped.glb");
    skinlab::demo::write_demo(&good).unwrap();
    let mut h = harness(Scripted::default());
    let rev = h.state().state.doc.model_rev;
    h.input_mut().dropped_files.push(Arc::new(Dropped(bad)));
    h.run();
    assert_eq!(h.state().state.doc.model_rev, rev);
    assert!(h.state().state.message.as_ref().unwrap().text.contains("dropped.gltf"));
    h.input_mut().dropped_files.push(Arc::new(Dropped(good)));
    h.run();
    assert_eq!(h.state().state.doc.model_rev, rev + 1);
    assert_eq!(h.state().state.doc.model_name, "dropped.glb");
}
