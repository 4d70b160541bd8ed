//! The timeline through egui_kittest: time shown and typed in frames at the clip's rate (seconds
//! on demand), the keys' interpolation set from the menu (the pose follows, one undo step), and
//! the curve view's handles dragged in value and in time (one undo step each).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui::{self, accesskit::Role};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::DQuat;
use skinlab::app::SkinlabApp;
use skinlab::model::{Channel, ChannelPath, Interpolation};
use skinlab::rig::twist_bend::{decompose, BendAxes, TwistBend};
use ui_harness::{bend_elbow, drag, elbow_degrees, harness, Scripted};

const ELBOW: usize = 2;

fn elbow_rotation_channel(h: &Harness<'_, SkinlabApp>) -> Channel {
    let s = &h.state().state;
    let clip = &s.doc.model.clips[s.posing.clip.unwrap()];
    clip.channels.iter().find(|c| c.node == ELBOW && c.path == ChannelPath::Rotation).unwrap().clone()
}

fn set_frame(h: &mut Harness<'_, SkinlabApp>, frame: f64) {
    h.get_by_role_and_label(Role::Slider, "Frame").set_value_accesskit(frame);
    h.run();
}

/// The elbow keyed at 40° on frame 0 and 80° on frame 30 (a new clip at 30 fps).
fn two_keys() -> Harness<'static, SkinlabApp> {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 40.0);
    h.get_by_label("Set Key").click();
    h.run();
    set_frame(&mut h, 30.0);
    bend_elbow(&mut h, 80.0);
    h.get_by_label("Set Key").click();
    h.run();
    h
}

fn choose_interpolation(h: &mut Harness<'_, SkinlabApp>, name: &str) {
    h.get_by_role_and_label(Role::ComboBox, "Interpolation").click();
    h.run();
    h.get_by_label(name).click();
    h.run();
}

#[test]
fn time_is_shown_and_typed_in_frames_and_in_seconds_on_demand() {
    let mut h = two_keys();
    assert!((h.state().state.posing.time_secs - 1.0).abs() < 1e-9, "frame 30 at 30 fps is 1 s");
    h.get_by_label("key at frame 0");
    h.get_by_label("key at frame 30");
    set_frame(&mut h, 15.0);
    assert!((h.state().state.posing.time_secs - 0.5).abs() < 1e-9);
    assert!((elbow_degrees(&h) - 60.0).abs() < 1e-3, "{}", elbow_degrees(&h));
    h.get_by_label("Seconds").click();
    h.run();
    assert!(h.state().state.posing.timeline.seconds);
    h.get_by_label("key at 1.00 s");
    h.get_by_role_and_label(Role::Slider, "Time (s)").set_value_accesskit(0.25);
    h.run();
    assert!((h.state().state.posing.time_secs - 0.25).abs() < 1e-9);
    assert!(h.query_by_label("key at frame 30").is_none());
}

#[test]
fn the_interpolation_menu_sets_the_keys_and_the_pose_follows() {
    let mut h = two_keys();
    set_frame(&mut h, 15.0);
    assert!((elbow_degrees(&h) - 60.0).abs() < 1e-3);
    choose_interpolation(&mut h, "Step");
    assert_eq!(elbow_rotation_channel(&h).interpolation, Interpolation::Step);
    assert!((elbow_degrees(&h) - 40.0).abs() < 1e-3, "a step holds the first key: {}", elbow_degrees(&h));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(elbow_rotation_channel(&h).interpolation, Interpolation::Linear, "one undo step");
    // Only the key at frame 0 turns cubic: the channel holds per-key interpolation.
    h.get_by_label("only keys here").click();
    set_frame(&mut h, 0.0);
    choose_interpolation(&mut h, "Cubic spline");
    let c = elbow_rotation_channel(&h);
    assert_eq!(c.key_interpolation, vec![Interpolation::CubicSpline, Interpolation::Linear]);
    set_frame(&mut h, 15.0);
    // Clamped tangents are zero at the ends: an ease-in-out, at the middle exactly halfway.
    assert!((elbow_degrees(&h) - 60.0).abs() < 0.5, "{}", elbow_degrees(&h));
    set_frame(&mut h, 5.0);
    // Linear would be at 46.7° on frame 5 of 30.
    assert!(elbow_degrees(&h) < 40.0 + 40.0 / 6.0 - 2.0, "eases out of the first key: {}", elbow_degrees(&h));
}

fn key_reading(h: &Harness<'_, SkinlabApp>, k: usize) -> (f64, TwistBend) {
    let s = &h.state().state;
    let c = elbow_rotation_channel(h);
    let q = DQuat::from_slice(&c.values[4 * k..4 * k + 4]);
    let rest = s.doc.model.nodes.nodes[ELBOW].rest.to_trs().rotation;
    let axes = BendAxes::new(skinlab::rig::bone_axis::bone_axis(&s.doc.model, &s.doc.pose, ELBOW).axis);
    (c.times[k], decompose(rest, q, &axes))
}

#[test]
fn curve_keys_drag_in_value_and_time_one_undo_step_each() {
    let mut h = two_keys();
    h.get_by_label("Curves").click();
    h.run();
    let (t0, before) = key_reading(&h, 1);
    let at = h.get_by_label("Twist key at frame 30").rect().center();
    drag(&mut h, at, at + egui::vec2(0.0, -40.0));
    let (t1, after) = key_reading(&h, 1);
    assert_eq!(t1, t0, "a vertical drag keeps the time");
    assert!(after.twist.to_degrees() > before.twist.to_degrees() + 5.0, "{before:?} → {after:?}");
    assert!((after.bend_a - before.bend_a).abs() < 1e-4 && (after.bend_b - before.bend_b).abs() < 1e-4);
    // Sideways: the key moves to a later whole frame, its value kept.
    let at = h.get_by_label("Bend A key at frame 30").rect().center();
    drag(&mut h, at, at + egui::vec2(60.0, 0.0));
    let (t2, moved) = key_reading(&h, 1);
    assert!(t2 > t1 + 0.05 && (t2 * 30.0 - (t2 * 30.0).round()).abs() < 1e-3, "{t2}");
    assert!((moved.twist - after.twist).abs() < 1e-4 && (moved.bend_a - after.bend_a).abs() < 1e-2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(key_reading(&h, 1).0, t1, "Undo takes back the move alone");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let (_, undone) = key_reading(&h, 1);
    assert!((undone.twist - before.twist).abs() < 1e-6, "then the value drag");
}
