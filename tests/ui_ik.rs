//! IK dragging in the editor through egui_kittest on the demo arm (shoulder → elbow → wrist):
//! Ctrl+I turns it on, dragging the wrist puts it at the point under the pointer on the plane
//! facing the camera while the shoulder stays put, one Undo restores the pose bit for bit, a
//! pinned elbow stays, the pole handle turns the bend plane with the wrist kept, Esc cancels.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::{DVec3, Vec2};
use skinlab::app::ik_input::on_view_plane;
use skinlab::app::SkinlabApp;
use ui_harness::{bend_elbow, harness, press, Scripted};

const SHOULDER: usize = 1;
const ELBOW: usize = 2;
const WRIST: usize = 3;

fn at(h: &Harness<'_, SkinlabApp>, node: usize) -> DVec3 {
    h.state().state.frame.model_from_node[node].w_axis.truncate()
}

/// The viewport's top-left corner and size (one panel).
fn panel(h: &Harness<'_, SkinlabApp>) -> (egui::Pos2, Vec2) {
    let r = h.state().viewport_rect().unwrap();
    (r.min, Vec2::new(r.width(), r.height()))
}

/// Where a model-space point is drawn on screen.
fn screen_of(h: &Harness<'_, SkinlabApp>, p: DVec3) -> egui::Pos2 {
    let (min, size) = panel(h);
    let v = h.state().state.view.camera.project(p.as_vec3(), size).unwrap();
    min + egui::vec2(v.x, v.y)
}

/// The IK target a drag of the point `start` from `from` to `to` asks for.
fn target_of(h: &Harness<'_, SkinlabApp>, start: DVec3, from: egui::Pos2, to: egui::Pos2) -> DVec3 {
    let (min, size) = panel(h);
    let cam = h.state().state.view.camera;
    let local = |p: egui::Pos2| Vec2::new(p.x - min.x, p.y - min.y);
    let s = start.as_vec3();
    let grabbed = on_view_plane(&cam, s, local(from), size).unwrap();
    let now = on_view_plane(&cam, s, local(to), size).unwrap();
    (s + (now - grabbed)).as_dvec3()
}

/// Presses at `from` and moves to `to` in eight steps (the button stays down).
fn drag_to(h: &mut Harness<'_, SkinlabApp>, from: egui::Pos2, to: egui::Pos2) {
    h.event(egui::Event::PointerMoved(from));
    h.step();
    press(h, from, true, egui::Modifiers::NONE);
    for k in 1..=8 {
        h.event(egui::Event::PointerMoved(from + (to - from) * (k as f32 / 8.0)));
        h.step();
    }
}

fn release(h: &mut Harness<'_, SkinlabApp>, to: egui::Pos2) {
    press(h, to, false, egui::Modifiers::NONE);
    h.run();
}

fn ik_on(h: &mut Harness<'_, SkinlabApp>) {
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::I);
    h.run();
    assert!(h.state().state.posing.ik.enabled, "Ctrl+I turns IK on");
}

#[test]
fn dragging_the_wrist_reaches_the_target_keeps_the_shoulder_and_undoes_in_one_step() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 30.0);
    ik_on(&mut h);
    let before = h.state().state.doc.pose.clone();
    let undo_steps = h.state().state.doc.history.revision();
    let (shoulder, wrist) = (at(&h, SHOULDER), at(&h, WRIST));
    let from = screen_of(&h, wrist);
    let to = from.lerp(screen_of(&h, shoulder), 0.35) + egui::vec2(0.0, -25.0);
    let target = target_of(&h, wrist, from, to);
    drag_to(&mut h, from, to);
    release(&mut h, to);
    let reached = at(&h, WRIST);
    assert!(reached.distance(target) < 1e-6, "wrist at {reached} for target {target}");
    assert!(reached.distance(wrist) > 0.2, "the wrist moved: {reached} from {wrist}");
    assert_eq!(at(&h, SHOULDER), shoulder, "the chain root stays put");
    assert!((at(&h, ELBOW).distance(shoulder) - 1.0).abs() < 1e-9, "bone lengths kept");
    assert_eq!(h.state().state.selected, Some(WRIST), "the dragged joint is selected");
    assert_eq!(h.state().state.doc.history.revision(), undo_steps + 1, "one undo step for the whole drag");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(h.state().state.doc.pose, before, "one Undo restores the pose bit for bit");
}

#[test]
fn a_pinned_elbow_stays_where_it_is() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 30.0);
    ik_on(&mut h);
    // The elbow is selected by bend_elbow: P pins it.
    h.key_press(egui::Key::P);
    h.run();
    assert!(h.state().state.posing.ik.pinned.contains(&ELBOW));
    let (shoulder, elbow, wrist) = (at(&h, SHOULDER), at(&h, ELBOW), at(&h, WRIST));
    let shoulder_rotation = h.state().state.rotation_of(SHOULDER);
    let from = screen_of(&h, wrist);
    let to = from + egui::vec2(-20.0, 60.0);
    let target = target_of(&h, wrist, from, to);
    drag_to(&mut h, from, to);
    release(&mut h, to);
    assert_eq!(at(&h, ELBOW), elbow, "the pinned joint stays");
    assert_eq!(h.state().state.rotation_of(SHOULDER), shoulder_rotation, "nothing above the pin turns");
    assert_eq!(at(&h, SHOULDER), shoulder);
    let dir = (at(&h, WRIST) - elbow).normalize();
    assert!(dir.angle_between(target - elbow) < 1e-6, "the forearm aims at the target");
    assert!(at(&h, WRIST).distance(wrist) > 0.05, "the wrist moved");
}

#[test]
fn the_pole_handle_turns_the_bend_plane_and_keeps_the_wrist() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 60.0);
    ik_on(&mut h);
    h.get_by_label("wrist").click();
    h.run();
    let normal = |h: &Harness<'_, SkinlabApp>| {
        let (s, e, w) = (at(h, SHOULDER), at(h, ELBOW), at(h, WRIST));
        (e - s).cross(w - s).normalize()
    };
    let (before, wrist) = (normal(&h), at(&h, WRIST));
    let (mid, handle) = h.state().state.ik_pole_handle(WRIST).expect("a two-bone chain has a pole handle");
    assert!((mid - at(&h, ELBOW)).length() < 1e-12);
    let from = screen_of(&h, handle);
    // Toward where the bend plane's normal points on screen: the pole leaves the plane.
    let to = screen_of(&h, handle + before * 0.8);
    assert!(from.distance(to) > 20.0, "{from:?} {to:?}");
    let revision = h.state().state.doc.history.revision();
    drag_to(&mut h, from, to);
    release(&mut h, to);
    let after = normal(&h);
    assert!(before.angle_between(after).to_degrees() > 10.0, "the bend plane turned: {before} → {after}");
    assert!(at(&h, WRIST).distance(wrist) < 1e-9, "the wrist stays where it was");
    assert_eq!(h.state().state.doc.history.revision(), revision + 1, "one undo step");
}

#[test]
fn escape_cancels_a_drag_back_to_the_start_pose() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 20.0);
    ik_on(&mut h);
    let (before, revision) = (h.state().state.doc.pose.clone(), h.state().state.doc.history.revision());
    let from = screen_of(&h, at(&h, WRIST));
    let to = from + egui::vec2(-60.0, -60.0);
    drag_to(&mut h, from, to);
    assert_ne!(h.state().state.doc.pose, before, "the chain follows during the drag");
    h.key_press(egui::Key::Escape);
    h.step();
    assert_eq!(h.state().state.doc.pose, before, "Esc puts the start pose back");
    release(&mut h, to);
    assert_eq!(h.state().state.doc.pose, before, "releasing after a cancel changes nothing");
    assert_eq!(h.state().state.doc.history.revision(), revision, "no undo step");
}
