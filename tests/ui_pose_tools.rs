//! Pose tools in the editor through egui_kittest: Copy Pose of the selected limb, Paste back,
//! Paste Flipped (the demo arm has no Left/Right partner: the pose flips onto itself), each
//! one undo step.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui;
use egui_kittest::kittest::Queryable;
use glam::DQuat;
use ui_harness::{bend_elbow, harness, Scripted};

const ELBOW: usize = 2;

#[test]
fn copy_paste_and_paste_flipped() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 40.0);
    let bent = h.state().state.rotation_of(ELBOW);
    h.get_by_label("Copy Pose").click();
    h.run();
    h.state_mut().state.apply(skinlab::app::command::Command::ResetPose);
    h.run();
    assert!(h.state().state.rotation_of(ELBOW).angle_between(DQuat::IDENTITY) < 1e-9);
    h.get_by_label("Paste").click();
    h.run();
    assert!(h.state().state.rotation_of(ELBOW).angle_between(bent) < 1e-9, "pasted back");
    h.get_by_label("Paste Flipped").click();
    h.run();
    let flipped = h.state().state.rotation_of(ELBOW);
    assert!((flipped.angle_between(DQuat::IDENTITY).to_degrees() - 40.0).abs() < 1e-6, "{flipped:?}");
    assert!(flipped.angle_between(bent) > 0.5, "bent the other way: {flipped:?} vs {bent:?}");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(h.state().state.rotation_of(ELBOW).angle_between(bent) < 1e-9, "Undo brings the pasted pose back");
}
