//! The rotation gizmo and the rotation fields through egui_kittest: Local/World toggle (button and
//! `,`); dragging the twist ring on CesiumMan's forearm keeps the bone's direction; a 50 px drag
//! along a face-on ring turns it 30–60°, and along an edge-on ring too (the tangential fallback);
//! Ctrl snaps to 5°, Shift is fine; one drag is one undo step; typed Euler values stay (Y = 150
//! reads back 0 / 150 / 0) until the rotation changes elsewhere; the Euler order menu; the twist
//! field keeps the bone's direction.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;
#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use glam::{DQuat, DVec3, Vec2};
use skinlab::app::command::Command;
use skinlab::app::gizmo::{nearest_on_ring, Gizmo, Handle, JointFrame, Orientation};
use skinlab::app::state::EditorState;
use skinlab::app::state::EulerOrder;
use skinlab::app::SkinlabApp;
use ui_harness::{harness, harness_with, press, Scripted};

const ELBOW: usize = 2;
const FOREARM: &str = "Skeleton_arm_joint_R__2_";

fn cesium() -> (Harness<'static, SkinlabApp>, usize, usize) {
    let model = skinlab::io::load_model(&common::shared_models().join("CesiumMan.glb")).unwrap();
    let node = model.nodes.find(FOREARM).unwrap();
    let hand = model.nodes.nodes[node].children[0];
    let mut h = harness_with(EditorState::new(model, "CesiumMan.glb"), Scripted::default());
    h.state_mut().state.apply(Command::Select(Some(node)));
    h.state_mut().state.apply(Command::FrameSelected);
    h.run();
    (h, node, hand)
}

/// The gizmo as the viewport lays it out now, and the panel's origin on screen.
fn gizmo(h: &Harness<'_, SkinlabApp>) -> (Gizmo, egui::Pos2) {
    let rect = h.state().viewport_rect().unwrap();
    let s = &h.state().state;
    let frame = JointFrame::of(&s.doc.model, &s.doc.pose, &s.frame.model_from_node, s.selected.unwrap()).unwrap();
    let axes = frame.ring_axes(s.posing.gizmo.orientation).map(|a| a.as_vec3());
    let size = Vec2::new(rect.width(), rect.height());
    (Gizmo::new(&s.view.camera, frame.position.as_vec3(), axes, s.posing.gizmo.orientation, size).unwrap(), rect.min)
}

/// The point of `handle`'s ring farthest from the centre that grabs that handle, and the ring's
/// direction of positive rotation there (panel pixels).
fn grab_point(g: &Gizmo, handle: Handle) -> (Vec2, Vec2) {
    let ring = g.ring(handle).unwrap();
    let p = ring
        .points
        .iter()
        .filter(|(p, facing)| *facing && g.hit(*p) == Some(handle))
        .map(|(p, _)| *p)
        .max_by(|a, b| a.distance(g.centre).total_cmp(&b.distance(g.centre)))
        .expect("a visible, grabbable point on the ring");
    nearest_on_ring(ring, p)
}

fn screen(origin: egui::Pos2, p: Vec2) -> egui::Pos2 {
    origin + egui::vec2(p.x, p.y)
}

/// A primary-button drag from `from` by `by` in ten steps, `held` held from step `held_from` on
/// and at the release (not at the press: Shift+drag pans).
fn drag_held(
    h: &mut Harness<'_, SkinlabApp>,
    from: egui::Pos2,
    by: egui::Vec2,
    held: egui::Modifiers,
    held_from: usize,
) {
    h.event(egui::Event::PointerMoved(from));
    h.step();
    press(h, from, true, egui::Modifiers::NONE);
    for k in 1..=10 {
        let modifiers = if k >= held_from { held } else { egui::Modifiers::NONE };
        h.event_modifiers(egui::Event::PointerMoved(from + by * (k as f32 / 10.0)), modifiers);
        h.step();
    }
    press(h, from + by, false, held);
    h.run();
}

fn drag_with(h: &mut Harness<'_, SkinlabApp>, from: egui::Pos2, by: egui::Vec2, held: egui::Modifiers) {
    drag_held(h, from, by, held, 1);
}

/// The angle between two rotations, degrees (glam's `angle_between` uses an approximate acos).
fn angle_deg(a: DQuat, b: DQuat) -> f64 {
    let d = a.inverse() * b;
    (2.0 * d.xyz().length().atan2(d.w.abs())).to_degrees()
}

fn rotation(h: &Harness<'_, SkinlabApp>, node: usize) -> DQuat {
    h.state().state.rotation_of(node)
}

fn position(h: &Harness<'_, SkinlabApp>, node: usize) -> DVec3 {
    h.state().state.frame.model_from_node[node].w_axis.truncate()
}

fn field(h: &Harness<'_, SkinlabApp>, label: &str) -> f64 {
    h.get_by_role_and_label(Role::SpinButton, label).accesskit_node().numeric_value().unwrap()
}

fn fields(h: &Harness<'_, SkinlabApp>) -> [f64; 3] {
    ["Rotation X (°)", "Rotation Y (°)", "Rotation Z (°)"].map(|l| field(h, l))
}

#[test]
fn local_and_world_by_button_and_comma_key() {
    let (mut h, _, _) = cesium();
    assert_eq!(h.state().state.posing.gizmo.orientation, Orientation::Local, "local by default");
    let local = gizmo(&h).0;
    h.get_by_label("World").click();
    h.run();
    assert_eq!(h.state().state.posing.gizmo.orientation, Orientation::World);
    let world = gizmo(&h).0;
    assert_eq!(world.rings[0].axis, glam::Vec3::X);
    assert!(local.rings[0].axis.dot(glam::Vec3::X) < 0.99, "the forearm's X axis is not the world's");
    h.key_press(egui::Key::Comma);
    h.run();
    assert_eq!(h.state().state.posing.gizmo.orientation, Orientation::Local);
}

#[test]
fn dragging_the_twist_ring_keeps_the_bone_direction_in_one_undo_step() {
    let (mut h, forearm, hand) = cesium();
    let before = rotation(&h, forearm);
    let bone = (position(&h, hand) - position(&h, forearm)).normalize();
    let (g, origin) = gizmo(&h);
    let (p, dir) = grab_point(&g, Handle::Twist);
    drag_with(&mut h, screen(origin, p), egui::vec2(dir.x, dir.y) * 50.0, egui::Modifiers::NONE);
    let after = rotation(&h, forearm);
    let turned = angle_deg(after, before);
    assert!((20.0..=60.0).contains(&turned), "twisted {turned}°");
    let now = (position(&h, hand) - position(&h, forearm)).normalize();
    assert!((now - bone).length() < 1e-6, "the bone moved: {now} vs {bone}");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(rotation(&h, forearm), before, "one undo step undoes the drag");
}

#[test]
fn a_fifty_pixel_drag_along_a_ring_turns_it_thirty_to_sixty_degrees() {
    let (mut h, forearm, _) = cesium();
    for orientation in Orientation::ALL {
        h.state_mut().state.posing.gizmo.orientation = orientation;
        h.state_mut().state.apply(Command::ResetPose);
        h.run();
        let (g, origin) = gizmo(&h);
        // The ring facing the viewer most: the widest on screen.
        let face_on = (0..3)
            .max_by(|&a, &b| {
                let minor =
                    |i: usize| g.rings[i].points.iter().map(|(p, _)| p.distance(g.centre)).fold(f32::MAX, f32::min);
                minor(a).total_cmp(&minor(b))
            })
            .unwrap();
        let before = rotation(&h, forearm);
        let (p, dir) = grab_point(&g, Handle::Axis(face_on));
        drag_with(&mut h, screen(origin, p), egui::vec2(dir.x, dir.y) * 50.0, egui::Modifiers::NONE);
        let turned = angle_deg(rotation(&h, forearm), before);
        assert!((30.0..=60.0).contains(&turned), "{orientation:?} ring {face_on}: {turned}° (was 113°)");
    }
}

#[test]
fn an_edge_on_ring_turns_by_the_tangential_drag() {
    let (mut h, forearm, _) = cesium();
    let s = &mut h.state_mut().state;
    s.posing.gizmo.orientation = Orientation::World;
    // Seen from the front, the world Y ring (in the XZ plane) is a horizontal line.
    (s.view.camera.yaw_rad, s.view.camera.pitch_rad) = (0.0, 0.0);
    h.run();
    let (g, origin) = gizmo(&h);
    let ring = &g.rings[1];
    let spread = ring.points.iter().map(|(p, _)| (p.y - g.centre.y).abs()).fold(0.0, f32::max);
    assert!(spread < 1.0, "not edge-on: {spread}");
    // Grab it 35 px right of the centre, drag 50 px along it.
    let at = g.centre + Vec2::new(35.0, 0.0);
    assert_eq!(g.hit(at), Some(Handle::Axis(1)));
    let before = rotation(&h, forearm);
    drag_with(&mut h, screen(origin, at), egui::vec2(50.0, 0.0), egui::Modifiers::NONE);
    let turned = angle_deg(rotation(&h, forearm), before);
    let want = (50.0 / ring.radius_px as f64).to_degrees();
    assert!((turned - want).abs() < 0.5 && (30.0..=60.0).contains(&turned), "{turned}° (want {want}°)");
}

#[test]
fn ctrl_snaps_to_five_degrees_and_shift_is_fine() {
    let (mut h, forearm, _) = cesium();
    let (g, origin) = gizmo(&h);
    let (p, dir) = grab_point(&g, Handle::Axis(0));
    let from = screen(origin, p);
    let by = egui::vec2(dir.x, dir.y) * 50.0;
    let before = rotation(&h, forearm);
    // The angle swept about the ring's centre between two points d0 and d1 px along the drag.
    let by_px = Vec2::new(by.x, by.y);
    let swept = |d0: f32, d1: f32| {
        let (a, b) = (p + by_px * (d0 / 50.0) - g.centre, p + by_px * (d1 / 50.0) - g.centre);
        f64::from(a.perp_dot(b).atan2(a.dot(b))).abs().to_degrees()
    };
    let plain = swept(0.0, 50.0);
    assert!((30.0..=60.0).contains(&plain) && (plain / 5.0 - (plain / 5.0).round()).abs() > 0.05, "{plain}");

    drag_held(&mut h, from, by, egui::Modifiers::NONE, 1);
    let turned = angle_deg(rotation(&h, forearm), before);
    assert!((turned - plain).abs() < 1e-3, "plain {turned}° vs {plain}°");

    h.state_mut().state.apply(Command::ResetPose);
    h.run();
    drag_held(&mut h, from, by, egui::Modifiers::COMMAND, 1);
    let turned = angle_deg(rotation(&h, forearm), before);
    assert!((turned - 5.0 * (plain / 5.0).round()).abs() < 1e-6, "Ctrl: {turned}° from {plain}°");

    // Shift from the fifth step: the first 20 px count fully, the last 30 px a tenth.
    h.state_mut().state.apply(Command::ResetPose);
    h.run();
    drag_held(&mut h, from, by, egui::Modifiers::SHIFT, 5);
    let turned = angle_deg(rotation(&h, forearm), before);
    let want = swept(0.0, 20.0) + 0.1 * swept(20.0, 50.0);
    assert!((turned - want).abs() < 1e-3, "Shift: {turned}° vs {want}°");
}

#[test]
fn typed_euler_values_stay_until_the_rotation_changes_elsewhere() {
    let mut h = harness(Scripted::default());
    h.get_by_label("elbow").click();
    h.run();
    h.get_by_role_and_label(Role::SpinButton, "Rotation Y (°)").set_value_accesskit(150.0);
    h.run();
    h.run();
    assert_eq!(fields(&h), [0.0, 150.0, 0.0]);
    let typed = rotation(&h, ELBOW);
    assert!(angle_deg(typed, DQuat::from_rotation_y(150f64.to_radians())) < 1e-6);
    // Undo: the rotation changed elsewhere, the fields re-derive; Redo brings the typed values back.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(fields(&h), [0.0, 0.0, 0.0]);
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert_eq!(fields(&h), [0.0, 150.0, 0.0]);
    // A gizmo drag changes it: re-derived, and they describe the new rotation.
    let (g, origin) = gizmo(&h);
    let (p, dir) = grab_point(&g, Handle::Axis(0));
    drag_with(&mut h, screen(origin, p), egui::vec2(dir.x, dir.y) * 30.0, egui::Modifiers::NONE);
    let q = rotation(&h, ELBOW);
    assert!(angle_deg(q, typed) > 5.0);
    let shown = fields(&h).map(f64::to_radians);
    assert!(angle_deg(EulerOrder::Xyz.to_quat(shown), q) < 0.1, "{shown:?}");
}

#[test]
fn the_euler_order_is_shown_and_chosen() {
    let mut h = harness(Scripted::default());
    h.get_by_label("elbow").click();
    h.run();
    h.get_by_role_and_label(Role::SpinButton, "Rotation X (°)").set_value_accesskit(30.0);
    h.run();
    h.get_by_role_and_label(Role::SpinButton, "Rotation Y (°)").set_value_accesskit(40.0);
    h.run();
    assert_eq!(fields(&h), [30.0, 40.0, 0.0]);
    let q = rotation(&h, ELBOW);
    // XYZ turns X first, about the parent's axes.
    let want = DQuat::from_rotation_y(40f64.to_radians()) * DQuat::from_rotation_x(30f64.to_radians());
    assert!(angle_deg(q, want) < 1e-6);
    h.get_by_role_and_label(Role::ComboBox, "Euler order").click();
    h.run();
    h.get_by_label("ZYX").click();
    h.run();
    assert_eq!(h.state().state.posing.rotation_fields.order, EulerOrder::Zyx);
    assert_eq!(rotation(&h, ELBOW), q, "changing the order keeps the rotation");
    let shown = fields(&h);
    assert!(shown[2].abs() > 1.0, "ZYX angles of the same rotation differ: {shown:?}");
    assert!(angle_deg(EulerOrder::Zyx.to_quat(shown.map(f64::to_radians)), q) < 1e-6, "{shown:?}");
    // Typing in the new order composes in it.
    h.get_by_role_and_label(Role::SpinButton, "Rotation Z (°)").set_value_accesskit(10.0);
    h.run();
    let typed = [shown[0], shown[1], 10.0];
    assert_eq!(fields(&h), typed);
    let want = EulerOrder::Zyx.to_quat(typed.map(f64::to_radians));
    assert!(angle_deg(rotation(&h, ELBOW), want) < 1e-6);
}

#[test]
fn the_twist_field_keeps_the_bone_and_bend_moves_it() {
    let (mut h, forearm, hand) = cesium();
    let bone = (position(&h, hand) - position(&h, forearm)).normalize();
    let rest = rotation(&h, forearm);
    h.get_by_role_and_label(Role::SpinButton, "Twist (°)").set_value_accesskit(70.0);
    h.run();
    h.run();
    assert_eq!(field(&h, "Twist (°)"), 70.0);
    let now = (position(&h, hand) - position(&h, forearm)).normalize();
    assert!((angle_deg(rotation(&h, forearm), rest) - 70.0).abs() < 1e-6);
    assert!((now - bone).length() < 1e-6, "twist moved the bone: {now} vs {bone}");
    h.get_by_role_and_label(Role::SpinButton, "Bend A (°)").set_value_accesskit(30.0);
    h.run();
    let bent = (position(&h, hand) - position(&h, forearm)).normalize();
    assert!((bent.angle_between(bone).to_degrees() - 30.0).abs() < 1e-3, "{}", bent.angle_between(bone).to_degrees());
    assert_eq!(field(&h, "Twist (°)"), 70.0);
}
