//! The pose library in the editor through egui_kittest: add the current pose under a name (with
//! a thumbnail), apply it (one undo step), apply it flipped on a symmetric rig (the mirror image),
//! the library file beside a temporary copy of a model that a new editor reads back, the demo's
//! library kept in memory, and a broken library file reported and left alone until replaced.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/symmetric_rig.rs"]
mod symmetric_rig;
#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use std::path::{Path, PathBuf};

use eframe::egui::{self, accesskit::Role};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::{DMat4, DQuat, DVec3};
use skinlab::app::command::Command;
use skinlab::app::state::EditorState;
use skinlab::app::SkinlabApp;
use skinlab::model::Model;
use skinlab::rig::{fk, Pose};
use symmetric_rig::{reflect, symmetric_arms};
use ui_harness::{bend_elbow, Scripted};

const ELBOW: usize = 2;

/// The editor on `state` in a window tall enough to show the whole Pose-mode inspector (the
/// library is below the joint fields; a shorter window scrolls).
fn harness_with(state: EditorState, dialogs: Scripted) -> Harness<'static, SkinlabApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 1600.0))
        .build_eframe(move |_cc| SkinlabApp::new(state, Box::new(dialogs)));
    h.run();
    h
}

fn harness(dialogs: Scripted) -> Harness<'static, SkinlabApp> {
    harness_with(EditorState::demo().unwrap(), dialogs)
}

fn name_pose(h: &mut Harness<'_, SkinlabApp>, text: &str) {
    h.get_by_role_and_label(Role::TextInput, "Name").focus();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_role_and_label(Role::TextInput, "Name").type_text(text);
    h.run();
}

fn click_nth(h: &mut Harness<'_, SkinlabApp>, label: &str, n: usize) {
    h.get_all_by_label(label).nth(n).unwrap().click();
    h.run();
}

/// The demo arm written to `dir/arm.glb`, opened from there.
fn arm_in(dir: &Path) -> (PathBuf, EditorState) {
    let path = dir.join("arm.glb");
    if !path.exists() {
        std::fs::write(&path, skinlab::demo::demo_glb()).unwrap();
    }
    let (model, source) = skinlab::io::load_document(&path).unwrap();
    let mut s = EditorState::with_document(model, source, "arm.glb");
    s.files.model_path = Some(path.clone());
    (path, s)
}

#[test]
fn add_apply_and_undo_on_the_demo_kept_in_memory() {
    let mut h = harness(Scripted::default());
    h.get_by_label("the built-in demo has no file: this library is kept in memory only");
    bend_elbow(&mut h, 40.0);
    let bent = h.state().state.doc.pose.clone();
    name_pose(&mut h, "Bent elbow");
    h.get_by_label("Add Pose").click();
    h.run();
    {
        let s = &h.state().state;
        let lib = &s.posing.poses.library;
        assert_eq!(lib.poses.len(), 1, "{:?} {:?}", s.message, s.posing.poses.name_field);
        assert_eq!(lib.poses[0].name, "Bent elbow");
        let png = &lib.poses[0].thumbnail_png;
        let img = image::load_from_memory(png).unwrap().to_rgba8();
        assert_eq!((img.width(), img.height()), (96, 96));
        let background = img.get_pixel(0, 0).0;
        let covered = img.pixels().filter(|p| p.0 != background).count();
        assert!(covered > 300, "the arm is drawn in the thumbnail: {covered} pixels");
    }
    h.get_by_label("Bent elbow");
    h.state_mut().state.apply(Command::ResetPose);
    h.run();
    assert!(h.state().state.doc.pose.overrides.is_empty());
    let revision = h.state().state.doc.history.revision();
    click_nth(&mut h, "Apply", 0);
    let applied = h.state().state.rotation_of(ELBOW);
    assert_eq!(applied, bent.overrides[&ELBOW].rotation.unwrap(), "the pose comes back bit for bit");
    assert_eq!(h.state().state.doc.history.revision(), revision + 1, "one undo step");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(h.state().state.doc.pose.overrides.is_empty(), "Undo takes it back");
    // Rename and delete.
    click_nth(&mut h, "Rename", 0);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.value().as_deref() == Some("Bent elbow"))
        .expect("the rename field holds the name")
        .type_text("Bent");
    h.run();
    let names: Vec<String> = h.get_all_by_role(Role::TextInput).map(|n| n.value().unwrap_or_default()).collect();
    assert!(names.iter().any(|n| n == "Bent"), "{names:?}");
    h.key_press(egui::Key::Enter);
    h.run();
    assert_eq!(h.state().state.posing.poses.library.poses[0].name, "Bent");
    click_nth(&mut h, "Delete", 0);
    assert!(h.state().state.posing.poses.library.poses.is_empty());
    // Delete, rename and add are undo steps too.
    let names = |h: &Harness<'_, SkinlabApp>| -> Vec<String> {
        h.state().state.posing.poses.library.poses.iter().map(|p| p.name.clone()).collect()
    };
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(names(&h), ["Bent"], "{:?}", h.state().state.message);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(names(&h), ["Bent elbow"]);
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert_eq!(names(&h), ["Bent"], "Redo renames again");
}

#[test]
fn the_library_file_appears_beside_the_model_and_reloads_in_a_new_editor() {
    let dir = tempfile::tempdir().unwrap();
    let (path, state) = arm_in(dir.path());
    let mut h = harness_with(state, Scripted::default());
    h.get_by_label("saved beside the model as arm.glb.poses.json");
    bend_elbow(&mut h, 55.0);
    name_pose(&mut h, "Reach");
    h.get_by_label("Add Selected").click();
    h.run();
    let file = dir.path().join("arm.glb.poses.json");
    assert!(file.exists(), "written beside {}", path.display());
    let saved = h.state().state.posing.poses.library.clone();
    assert_eq!(
        saved.poses[0].pose.overrides.keys().copied().collect::<Vec<_>>(),
        vec![ELBOW, 3],
        "the elbow and below"
    );
    // Undo of the add takes the pose out of the file too; Redo writes it back.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(h.state().state.posing.poses.library.poses.is_empty());
    assert!(!std::fs::read_to_string(&file).unwrap().contains("Reach"), "the file follows the Undo");
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert_eq!(h.state().state.posing.poses.library, saved);
    assert!(std::fs::read_to_string(&file).unwrap().contains("Reach"));
    drop(h);
    let (_, state) = arm_in(dir.path());
    let mut h = harness_with(state, Scripted::default());
    h.get_by_label("Reach");
    assert_eq!(h.state().state.posing.poses.library, saved, "read back identical");
    click_nth(&mut h, "Apply", 0);
    assert_eq!(h.state().state.doc.pose.overrides[&ELBOW], saved.poses[0].pose.overrides[&ELBOW]);
}

#[test]
fn a_broken_library_file_is_reported_and_not_overwritten_until_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("arm.glb.poses.json");
    std::fs::write(&file, b"{\"format\": \"skinlab-pose-library\", \"version\": 1, \"poses\": [{\"name\": 3}]}")
        .unwrap();
    let (_, state) = arm_in(dir.path());
    let mut h = harness_with(state, Scripted::default());
    let problem = h.state().state.posing.poses.problem.clone().expect("reported");
    assert!(problem.contains("arm.glb.poses.json") && problem.contains("\"name\""), "{problem}");
    h.get_by_label(problem.as_str());
    name_pose(&mut h, "Try");
    h.get_by_label("Add Pose").click();
    h.run();
    let msg = h.state().state.message.clone().unwrap();
    assert!(msg.is_error && msg.text.contains("not changed"), "{msg:?}");
    assert!(std::fs::read_to_string(&file).unwrap().contains("\"name\": 3"), "the broken file is left alone");
    h.get_by_label("Start a new library (replaces the broken file)").click();
    h.run();
    h.get_by_label("Add Pose").click();
    h.run();
    assert_eq!(
        skinlab::io::pose_library::PoseLibrary::read(&file, &h.state().state.doc.model.nodes)
            .unwrap()
            .unwrap()
            .poses
            .len(),
        1
    );
}

/// The symmetric arms as a model without meshes.
fn symmetric_rig() -> Model {
    Model { nodes: symmetric_arms(), ..Model::default() }
}

fn positions(model: &Model, pose: &Pose) -> Vec<DVec3> {
    let mut g: Vec<DMat4> = Vec::new();
    fk::model_from_node(&model.nodes, pose, &mut g);
    g.iter().map(|m| m.w_axis.truncate()).collect()
}

#[test]
fn apply_flipped_on_a_symmetric_rig_gives_the_mirrored_pose() {
    let model = symmetric_rig();
    let mut h = harness_with(EditorState::new(model.clone(), "symmetric"), Scripted::default());
    let s = &mut h.state_mut().state;
    for (node, q) in [
        (2, DQuat::from_rotation_z(0.7)),
        (3, DQuat::from_euler(glam::EulerRot::XYZ, 0.4, -0.2, 0.9)),
        (4, DQuat::from_rotation_x(-0.5)),
    ] {
        s.apply(Command::SetRotation { node, rotation: q, gesture: None });
    }
    s.apply(Command::Select(Some(2)));
    h.run();
    name_pose(&mut h, "Wave");
    h.get_by_label("Add Selected").click();
    h.run();
    let left = positions(&model, &h.state().state.doc.pose);
    h.state_mut().state.apply(Command::ResetPose);
    h.run();
    click_nth(&mut h, "Flipped", 0);
    let s = &h.state().state;
    assert_eq!(s.doc.pose.overrides.keys().copied().collect::<Vec<_>>(), vec![5, 6, 7], "onto the right side only");
    let right = positions(&model, &s.doc.pose);
    for (l, r) in [(2, 5), (3, 6), (4, 7)] {
        assert!(reflect(left[l]).distance(right[r]) < 1e-9, "joint {r}: {} vs {}", right[r], reflect(left[l]));
    }
    assert!(reflect(left[4]).distance(positions(&model, &Pose::rest())[7]) > 0.1, "the right hand moved");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(h.state().state.doc.pose.overrides.is_empty(), "one undo step");
}
