//! The editor's handling as a rigger meets it, through egui_kittest (no display): the viewport
//! keeps its rectangle when a message or a long joint name appears, the wheel zooms toward the
//! point under the cursor, Frame selected centres the joint's bone in both panels of the split view,
//! rings seen edge-on turn about as fast as rings seen face-on, the Euler fields read a rotation
//! about one axis as one changing number, the difference overlay says "identical within
//! rounding" instead of stretching its ramp over rounding noise, joint sets at rest warn of
//! nothing, the demo opens on its twisted frame, and each mouse preset maps the buttons alike in
//! every mode.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use glam::{DQuat, DVec3, Vec2, Vec3};
use skinlab::app::command::Command;
use skinlab::app::gizmo::{nearest_on_ring, Gizmo, Handle, JointFrame, Orientation, RADIUS_PX};
use skinlab::app::gizmo_drag::RotateDrag;
use skinlab::app::navigation::CameraDrag;
use skinlab::app::state::{EditorState, Message};
use skinlab::app::SkinlabApp;
use skinlab::paint::Ray;
use skinlab::render::OrbitCamera;
use skinlab::skinning::SkinningMethod;
use ui_harness::{harness, Scripted};

const SHOULDER: usize = 1;
const ELBOW: usize = 2;

fn wheel(h: &mut Harness<'_, SkinlabApp>, at: egui::Pos2, notches: f32) {
    h.event(egui::Event::PointerMoved(at));
    h.step();
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, notches),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    h.run();
}

/// The size of one viewport panel and the screen rectangle of panel `i`.
fn panel(h: &Harness<'_, SkinlabApp>, i: usize) -> (Vec2, egui::Rect) {
    let rect = h.state().viewport_rect().unwrap();
    let n = if h.state().state.view.split { 2.0 } else { 1.0 };
    let w = rect.width() / n;
    let r = egui::Rect::from_min_size(rect.min + egui::vec2(w * i as f32, 0.0), egui::vec2(w, rect.height()));
    (Vec2::new(w, rect.height()), r)
}

/// Where model point `p` is on the screen in panel `i`.
fn on_screen(h: &Harness<'_, SkinlabApp>, i: usize, p: Vec3) -> egui::Pos2 {
    let (size, r) = panel(h, i);
    let q = h.state().state.view.camera.project(p, size).unwrap();
    r.min + egui::vec2(q.x, q.y)
}

#[test]
fn the_viewport_keeps_its_rectangle_under_messages_and_long_joint_names() {
    let mut h = harness(Scripted::default());
    h.get_by_label("elbow").click();
    h.run();
    let before = h.state().viewport_rect().unwrap();
    let long = "opened /a/folder/with/a/rather/long/name/model.glb; copy / added joint ".repeat(6);
    h.state_mut().state.message = Some(Message { text: long.clone(), is_error: true });
    h.run();
    assert_eq!(h.state().viewport_rect().unwrap(), before, "after a long status message");
    h.state_mut().state.message = Some(Message { text: "short".to_owned(), is_error: false });
    h.run();
    assert_eq!(h.state().viewport_rect().unwrap(), before, "after a short status message");
    let name = format!("mixamorig:LeftForeArmTwist_{}", "very_long_joint_name_".repeat(6));
    h.state_mut().state.apply(Command::SetMode(skinlab::app::state::Mode::Rig));
    h.run();
    let rig = h.state().viewport_rect().unwrap();
    h.state_mut().state.apply(Command::RenameJoint { node: ELBOW, name: name.clone() });
    h.run();
    assert_eq!(h.state().state.doc.model.nodes.key(ELBOW), name);
    assert_eq!(h.state().viewport_rect().unwrap(), rig, "Rig mode, after a long joint name");
    h.state_mut().state.apply(Command::SetMode(skinlab::app::state::Mode::Pose));
    h.run();
    assert_eq!(h.state().viewport_rect().unwrap(), before, "Pose mode, with a long joint name");
    // The message keeps its Copy button, which copies the whole of it (hover shows it whole).
    h.get_by_label("Copy");
    assert!(h.state().state.message.is_some());
}

#[test]
fn the_wheel_zooms_toward_the_point_under_the_cursor_in_either_panel() {
    let mut h = harness(Scripted::default());
    for split in [false, true] {
        h.state_mut().state.apply(Command::SetSplit(split));
        h.state_mut().state.frame_all();
        h.run();
        let i = usize::from(split);
        let (size, r) = panel(&h, i);
        // A point of the forearm's skin, off the viewport's centre.
        let s = &h.state().state;
        let aim = s.node_position(ELBOW).unwrap() * 0.7 + s.node_position(SHOULDER).unwrap() * 0.3;
        let q = s.view.camera.project(aim, size).unwrap();
        let (origin, direction) = s.view.camera.ray(q, size);
        let hit = s.pick_deformed(&Ray { origin, direction }, i).unwrap().1.point;
        let cursor = r.min + egui::vec2(q.x, q.y);
        assert!(cursor.distance(r.center()) > 20.0, "the point is off the centre");
        let distance = s.view.camera.distance;
        wheel(&mut h, cursor, 3.0);
        assert!(h.state().state.view.camera.distance < distance * 0.9, "zoomed in");
        let after = on_screen(&h, i, hit);
        assert!(after.distance(cursor) <= 1.0, "split {split}: {cursor:?} → {after:?}");
        wheel(&mut h, cursor, -5.0);
        assert!(h.state().state.view.camera.distance > distance, "zoomed out");
        assert!(on_screen(&h, i, hit).distance(cursor) <= 1.0);
    }
}

#[test]
fn frame_selected_closes_in_on_the_joint_in_both_panels_of_the_split_view() {
    let mut h = harness(Scripted::default());
    h.state_mut().state.apply(Command::SetSplit(true));
    h.run();
    h.state_mut().state.frame_all();
    h.get_by_label("elbow").click();
    h.run();
    let far = h.state().state.view.camera.distance;
    h.key_press(egui::Key::F);
    h.run();
    assert!(h.state().state.view.camera.distance < far * 0.7, "closed in");
    let s = &h.state().state;
    let wrist = s.doc.model.nodes.find("wrist").unwrap();
    let (elbow, tip) = (s.node_position(ELBOW).unwrap(), s.node_position(wrist).unwrap());
    for i in 0..2 {
        let (_, r) = panel(&h, i);
        let centre = on_screen(&h, i, (elbow + tip) * 0.5);
        assert!(centre.distance(r.center()) <= 1.0, "panel {i}: the bone at the centre, {centre:?} in {r:?}");
        for (what, p) in [("joint", elbow), ("bone's end", tip)] {
            assert!(r.shrink(4.0).contains(on_screen(&h, i, p)), "panel {i}: the {what} in view");
        }
    }
}

/// The angle (degrees) a 50 px drag along ring `ring` at its point `k` turns it.
fn fifty_pixel_drag(g: &Gizmo, frame: &JointFrame, camera: &OrbitCamera, ring: usize, k: usize) -> Option<f64> {
    let (p, visible) = *g.rings[ring].points.get(k)?;
    if !visible || p.distance(g.centre) < 1.0 {
        return None;
    }
    let handle = Handle::Axis(ring);
    let (point, dir) = nearest_on_ring(&g.rings[ring], p);
    if dir == Vec2::ZERO {
        return None;
    }
    let mut drag = RotateDrag::start(g, handle, point, *frame, 1);
    for step in 1..=10 {
        drag.update(point + dir * 5.0 * step as f32, false, false, camera);
    }
    Some(drag.angle_rad().to_degrees())
}

#[test]
fn rings_turn_thirty_to_sixty_degrees_per_fifty_pixels_edge_on_or_face_on() {
    let mut s = EditorState::demo().unwrap();
    s.refresh();
    let frame = JointFrame::of(&s.doc.model, &s.doc.pose, &s.frame.model_from_node, ELBOW).unwrap();
    let camera = OrbitCamera { target: Vec3::ZERO, distance: 5.0, ..OrbitCamera::default() };
    let size = Vec2::new(800.0, 600.0);
    // The camera looks along −Z: a ring about Z is face-on, one about X edge-on.
    for tilt_deg in [0.0f32, 30.0, 50.0, 65.0, 75.0, 85.0, 90.0] {
        let t = tilt_deg.to_radians();
        let axis = Vec3::new(t.sin(), 0.0, t.cos());
        let g = Gizmo::new(&camera, Vec3::ZERO, [axis, Vec3::Y, Vec3::Z, Vec3::X], Orientation::Local, size).unwrap();
        assert!((g.rings[0].radius_px - RADIUS_PX).abs() < 1.0);
        let mut tried = 0;
        for k in 0..g.rings[0].points.len() {
            if let Some(deg) = fifty_pixel_drag(&g, &frame, &camera, 0, k) {
                assert!((30.0..=60.0).contains(&deg.abs()), "tilt {tilt_deg}°, point {k}: {deg}°");
                tried += 1;
            }
        }
        assert!(tried > 10, "tilt {tilt_deg}°: {tried} grab points");
    }
}

/// The three Euler fields' values.
fn euler(h: &Harness<'_, SkinlabApp>) -> [f64; 3] {
    skinlab::app::ui::rotation_fields::EULER_LABELS
        .map(|l| h.get_by_role_and_label(Role::SpinButton, l).accesskit_node().numeric_value().unwrap())
}

#[test]
fn a_twist_or_bend_swept_to_180_degrees_reads_as_one_changing_euler_field() {
    let mut h = harness(Scripted::default());
    h.get_by_label("elbow").click();
    h.run();
    let rest = h.state().state.doc.model.nodes.nodes[ELBOW].rest.to_trs().rotation;
    for (axis, field) in [(DVec3::Y, 1), (DVec3::Z, 2), (DVec3::X, 0)] {
        for k in 0..=36 {
            let degrees = k as f64 * 5.0;
            let rotation = rest * DQuat::from_axis_angle(axis, degrees.to_radians());
            h.state_mut().state.apply(Command::SetRotation { node: ELBOW, rotation, gesture: None });
            h.run();
            let shown = euler(&h);
            for (i, v) in shown.iter().enumerate() {
                let want = if i == field { degrees } else { 0.0 };
                assert!((v - want).abs() < 0.06, "about {axis} at {degrees}°: {shown:?}");
            }
        }
        h.state_mut().state.apply(Command::ResetPose);
        h.run();
    }
}

#[test]
fn the_difference_overlay_says_identical_within_rounding_below_its_floor() {
    let mut h = harness(Scripted::default());
    ui_harness::bend_elbow(&mut h, 70.0);
    let s = &mut h.state_mut().state;
    s.apply(Command::SetMethod(SkinningMethod::Dqs));
    s.apply(Command::SetCompare(SkinningMethod::Sbs));
    s.apply(Command::SetDifference(true));
    h.run();
    let s = &h.state().state;
    let (max, floor) = (s.frame.max_difference, s.difference_floor());
    let (lo, hi) = s.doc.model_bounds;
    assert!((floor - (hi - lo).length() * 1e-4).abs() <= floor * 1e-6);
    assert!(max < floor, "DQS and SBS agree on the demo's elbow within rounding: {max} vs {floor}");
    let bottom = skinlab::render::overlays::ramp(0.0);
    for c in s.frame.difference_colours.iter().flatten().flatten() {
        assert!(c.iter().zip(bottom).all(|(a, b)| a.abs_diff(b) <= 2), "{c:?} is not the ramp's bottom {bottom:?}");
    }
    assert!(skinlab::app::viewport::difference_note(max, floor).starts_with("identical within rounding"));
    // A real difference spans the ramp and names its largest distance.
    h.state_mut().state.apply(Command::SetMethod(SkinningMethod::Lbs));
    h.run();
    let s = &h.state().state;
    assert!(s.frame.max_difference > s.difference_floor() * 10.0);
    assert!(
        skinlab::app::viewport::difference_note(s.frame.max_difference, s.difference_floor()).starts_with("largest")
    );
}

#[test]
fn joint_sets_at_rest_need_no_centre_and_warn_of_nothing() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models/CesiumMan.glb");
    let (m, source) = skinlab::io::load_document(&path).unwrap();
    let mut s = EditorState::with_document(m, source, "CesiumMan.glb");
    s.refresh();
    s.frame_all();
    let mut h = ui_harness::harness_with(s, Scripted::default());
    h.get_by_label("Joint sets").click();
    h.run();
    let table = h.state().state.analysis.sets.table().unwrap().clone();
    assert!(table.rows.len() > 10);
    assert!(table.rows.iter().all(|r| r.no_centre_needed && r.warning.is_none()), "{:?}", table.rows[0]);
    h.get_by_label_contains(skinlab::app::ui::joint_sets_panel::NO_CENTRE_AT_REST);
    assert!(h.query_by_label_contains("near-singular").is_none());
    // The Members column is as wide as its longest entry.
    let widest = table.rows.iter().map(|r| r.members.join(", ")).max_by_key(String::len).unwrap();
    let font = egui::TextStyle::Body.resolve(&h.ctx.global_style());
    let text = h.ctx.fonts_mut(|f| f.layout_no_wrap(widest, font, egui::Color32::WHITE).size().x);
    let column = h.get_by_label("Members").rect().width();
    assert!(column >= text, "Members {column} px for {text} px of names");
    // Posed, the sets get centres again.
    let clip = h.state().state.doc.model.clips.len();
    assert!(clip > 0);
    h.state_mut().state.apply(Command::SelectClip(Some(0)));
    h.state_mut().state.apply(Command::SetTime(0.5));
    h.run();
    let table = h.state().state.analysis.sets.table().unwrap();
    assert!(table.rows.iter().any(|r| !r.no_centre_needed && r.condition.is_some()));
}

/// A drag with `button` and `modifiers` held from `from` to `to` in six steps.
fn drag_with(
    h: &mut Harness<'_, SkinlabApp>,
    button: egui::PointerButton,
    modifiers: egui::Modifiers,
    from: egui::Pos2,
    to: egui::Pos2,
) {
    h.event_modifiers(egui::Event::PointerMoved(from), modifiers);
    h.step();
    h.event_modifiers(egui::Event::PointerButton { pos: from, button, pressed: true, modifiers }, modifiers);
    h.step();
    for k in 1..=6 {
        h.event_modifiers(egui::Event::PointerMoved(from + (to - from) * (k as f32 / 6.0)), modifiers);
        h.step();
    }
    h.event_modifiers(egui::Event::PointerButton { pos: to, button, pressed: false, modifiers }, modifiers);
    h.step();
    h.run();
}

/// What a drag did to the camera.
fn camera_change(before: &OrbitCamera, after: &OrbitCamera) -> Option<CameraDrag> {
    let turned = before.yaw_rad != after.yaw_rad || before.pitch_rad != after.pitch_rad;
    let moved = before.target.distance(after.target) > 1e-6;
    let dolly = (before.distance - after.distance).abs() > 1e-6;
    match (turned, moved, dolly) {
        (false, false, false) => None,
        (true, false, false) => Some(CameraDrag::Orbit),
        (false, true, false) => Some(CameraDrag::Pan),
        (false, false, true) => Some(CameraDrag::Dolly),
        other => panic!("a drag did several things: {other:?}"),
    }
}

#[test]
fn each_mouse_preset_maps_the_buttons_alike_in_every_mode_and_says_so_in_the_help_line() {
    use egui::{Modifiers, PointerButton as B};
    use skinlab::app::navigation::MousePreset;
    use skinlab::app::state::Mode;
    let mut h = harness(Scripted::default());
    // Edit ▸ Preferences… ▸ Mouse ▸ Blender.
    h.get_by_label("Edit").click();
    h.run();
    h.get_by_label("Preferences…").click();
    h.run();
    h.get_by_label(skinlab::app::preferences::MOUSE_LABEL).click();
    h.run();
    h.get_by_label("Blender").click();
    h.run();
    assert_eq!(h.state().preferences.mouse, MousePreset::Blender);
    let (shift, ctrl, alt) = (Modifiers::SHIFT, Modifiers::COMMAND, Modifiers::ALT);
    let none = Modifiers::NONE;
    let skinlab_pose = [(B::Primary, none, Some(CameraDrag::Orbit)), (B::Secondary, none, Some(CameraDrag::Pan))];
    let skinlab_pose = [&skinlab_pose[..], &[(B::Middle, none, Some(CameraDrag::Pan))]].concat();
    let skinlab_paint = [
        (B::Primary, none, None),
        (B::Secondary, none, Some(CameraDrag::Orbit)),
        (B::Middle, none, Some(CameraDrag::Pan)),
        (B::Secondary, shift, Some(CameraDrag::Pan)),
    ];
    let blender = [
        (B::Primary, none, None),
        (B::Middle, none, Some(CameraDrag::Orbit)),
        (B::Middle, shift, Some(CameraDrag::Pan)),
        (B::Middle, ctrl, Some(CameraDrag::Dolly)),
    ];
    let maya = [
        (B::Primary, none, None),
        (B::Primary, alt, Some(CameraDrag::Orbit)),
        (B::Middle, alt, Some(CameraDrag::Pan)),
        (B::Secondary, alt, Some(CameraDrag::Dolly)),
    ];
    for preset in MousePreset::ALL {
        h.state_mut().preferences.mouse = preset;
        for mode in [Mode::Pose, Mode::Paint, Mode::Rig] {
            h.state_mut().state.apply(Command::Select(None));
            h.state_mut().state.apply(Command::SetMode(mode));
            h.run();
            assert_eq!(h.state().state.mode, mode);
            assert!(h.query_all_by_label(preset.help(mode)).next().is_some(), "{preset:?} {mode:?}: the help line");
            let map: Vec<_> = match (preset, mode) {
                (MousePreset::Skinlab, Mode::Paint) => skinlab_paint.to_vec(),
                (MousePreset::Skinlab, _) => skinlab_pose.clone(),
                (MousePreset::Blender, _) => blender.to_vec(),
                (MousePreset::Maya, _) => maya.to_vec(),
            };
            for (button, modifiers, want) in map {
                // Low in the viewport, below the arm: no handle, joint, window or mesh there.
                let r = h.state().viewport_rect().unwrap();
                let from = egui::pos2(r.center().x - 20.0, r.max.y - 60.0);
                let before = h.state().state.view.camera;
                let strokes = h.state().state.unsaved_strokes();
                drag_with(&mut h, button, modifiers, from, from + egui::vec2(40.0, 25.0));
                let got = camera_change(&before, &h.state().state.view.camera);
                assert_eq!(got, want, "{preset:?} in {mode:?}: {button:?} with {modifiers:?}");
                assert_eq!(h.state().state.unsaved_strokes(), strokes);
                h.state_mut().state.view.camera = before;
            }
        }
    }
}

#[test]
fn the_demo_opens_on_its_twisted_frame_in_split_view_and_rest_on_request() {
    use skinlab::app::{initial_state, EditorOptions};
    let s = initial_state(&EditorOptions::default()).unwrap();
    assert!(s.view.split);
    assert_eq!((s.view.method, s.view.compare), (SkinningMethod::Lbs, SkinningMethod::Sbs));
    let clip = s.posing.clip.unwrap();
    assert_eq!(s.doc.model.clips[clip].name.as_deref(), Some(skinlab::app::first_look::CLIP));
    // The wrist is twisted 150° about the forearm.
    let wrist = s.doc.model.nodes.find("wrist").unwrap();
    let angle = s.rotation_of(wrist).angle_between(DQuat::IDENTITY).to_degrees();
    assert!((angle - 150.0).abs() < 0.5, "{angle}");
    // LBS and SBS differ there by a good part of the forearm's radius (0.2).
    let far = s.frame.deformed[0]
        .iter()
        .flatten()
        .zip(s.frame.deformed[1].iter().flatten())
        .flat_map(|(a, b)| a.positions.iter().zip(&b.positions).map(|(p, q)| p.distance(*q)))
        .fold(0.0f32, f32::max);
    assert!(far > 0.05, "{far}");
    assert!(s.message.as_ref().unwrap().text.contains("candy wrapper"));
    // `--rest`, or any option that sets the view, starts at rest in one panel.
    for opts in [
        EditorOptions { rest: true, ..EditorOptions::default() },
        EditorOptions { method: Some(SkinningMethod::Dqs), ..EditorOptions::default() },
    ] {
        let s = initial_state(&opts).unwrap();
        assert!(!s.view.split && s.posing.clip.is_none() && s.doc.pose.overrides.is_empty(), "{opts:?}");
    }
    // The harness's demo (every other UI test) stays at rest.
    let h = harness(Scripted::default());
    assert!(!h.state().state.view.split && h.state().state.doc.pose.overrides.is_empty());
}

#[test]
fn view_names_labels_every_joint_and_the_hovered_bone_is_named() {
    use skinlab::app::bone_names::{hovered_bone, labels};
    let mut h = harness(Scripted::default());
    assert!(!h.state().state.view.bone_names);
    h.get_by_label("Names").click();
    h.run();
    let s = &h.state().state;
    assert!(s.view.bone_names);
    let (size, _) = panel(&h, 0);
    let names: Vec<String> = labels(s, size, None, true).into_iter().map(|l| l.1).collect();
    assert_eq!(names, ["shoulder", "elbow", "wrist"]);
    // Halfway along the upper arm, the shoulder's bone is named (hovered), the names off or on.
    let (a, b) = (s.node_position(SHOULDER).unwrap(), s.node_position(ELBOW).unwrap());
    let mid = s.view.camera.project((a + b) * 0.5, size).unwrap();
    assert_eq!(hovered_bone(s, mid, size), Some(SHOULDER));
    let hovered = labels(s, size, Some(mid), false);
    assert_eq!(hovered.len(), 1);
    assert_eq!((hovered[0].1.as_str(), hovered[0].2), ("shoulder", true));
    // On the elbow's head: the elbow.
    let head = s.view.camera.project(b, size).unwrap();
    assert_eq!(hovered_bone(s, head + Vec2::new(3.0, 0.0), size), Some(ELBOW));
    // Far from every bone: nothing.
    assert_eq!(hovered_bone(s, Vec2::new(5.0, 5.0), size), None);
}

#[test]
fn weights_show_in_greyscale_with_black_zeros_and_neighbouring_joints_in_distinct_colours() {
    use skinlab::app::state::WeightDisplay;
    use skinlab::paint::display::joint_weight;
    use skinlab::paint::joint_palette::{joint_palette, skin_parents};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models/CesiumMan.glb");
    let (m, source) = skinlab::io::load_document(&path).unwrap();
    let mut s = EditorState::with_document(m, source, "CesiumMan.glb");
    s.refresh();
    s.frame_all();
    let mut h = ui_harness::harness_with(s, Scripted::default());
    let skin = h.state().state.doc.model.skins[0].clone();
    let node = skin.joints[3];
    h.state_mut().state.apply(Command::Select(Some(node)));
    h.state_mut().state.apply(Command::SetMode(skinlab::app::state::Mode::Paint));
    h.run();
    h.get_by_label("Greyscale").click();
    h.run();
    h.get_by_label("Zero weights black").click();
    h.run();
    let s = &h.state().state;
    let inf = s.doc.model.meshes[0].primitives[0].influences.as_ref().unwrap();
    let colours = &s.painting.colours[0][0];
    let (mut zeros, mut greys) = (0, 0);
    for (v, c) in colours.iter().enumerate().take(inf.len()) {
        let w = joint_weight(inf, &skin.sets, v, 3);
        if w <= 0.0 {
            assert_eq!(c, &[0, 0, 0, 255], "vertex {v}: zero weight shown black");
            zeros += 1;
        } else {
            assert!(c[0] == c[1] && c[1] == c[2], "vertex {v}: grey {c:?}");
            assert!((f32::from(c[0]) - w * 255.0).abs() <= 1.0, "vertex {v}: {w} as {c:?}");
            greys += 1;
        }
    }
    assert!(zeros > 100 && greys > 10, "{zeros} zeros, {greys} greys");
    // Dominant joint: parent and child, and siblings, far apart in colour.
    h.get_by_label("Dominant joint").click();
    h.run();
    let s = &h.state().state;
    let parents = skin_parents(&s.doc.model, &skin);
    let palette = joint_palette(&parents);
    let far = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f32>().sqrt() > 0.5;
    for (j, p) in parents.iter().enumerate() {
        for k in 0..parents.len() {
            if k != j && (Some(k) == *p || (p.is_some() && parents[k] == *p)) {
                assert!(far(palette[j], palette[k]), "joints {j} and {k}: {:?} {:?}", palette[j], palette[k]);
            }
        }
    }
    let inf = s.doc.model.meshes[0].primitives[0].influences.as_ref().unwrap();
    let v = (0..inf.len()).find(|&v| skinlab::paint::display::dominant_joint(inf, &skin.sets, v).is_some()).unwrap();
    let j = skinlab::paint::display::dominant_joint(inf, &skin.sets, v).unwrap();
    let want = palette[usize::from(j)].map(|c| (c * 255.0).round() as u8);
    assert_eq!(s.painting.colours[0][0][v][..3], want);
    assert_eq!(s.painting.settings.display, WeightDisplay::Dominant);
}

#[test]
fn the_sweep_docks_beside_the_viewport_and_marks_coinciding_curves() {
    let mut h = harness(Scripted::default());
    h.get_by_label("elbow").click();
    h.run();
    h.get_by_label("Sweep…").click();
    h.run();
    h.get_by_label("bend").click();
    h.run();
    h.state_mut().state.analysis.sweep.result = None;
    h.get_by_label("Run").click();
    h.step();
    let started = std::time::Instant::now();
    while h.state().state.analysis.sweep.result.is_none() {
        assert!(started.elapsed().as_secs() < 60, "the sweep finished");
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    h.run();
    // The panel sits beside the viewport: nothing of it over the model.
    let viewport = h.state().viewport_rect().unwrap();
    for label in ["Run", "Close"] {
        let r = h.get_by_label(label).rect();
        assert!(!viewport.intersects(r), "{label} at {r:?} over the viewport {viewport:?}");
    }
    // A pure bend of the demo's elbow: DQS and SBS give the same curves, and the legend says so.
    let result = h.state().state.analysis.sweep.result.clone().unwrap();
    let pairs = result.sweep.coinciding();
    assert!(pairs.contains(&(SkinningMethod::Dqs, SkinningMethod::Sbs)), "{pairs:?}");
    assert!(!pairs.iter().any(|p| p.0 == SkinningMethod::Lbs), "LBS differs: {pairs:?}");
    h.get_by_label_contains("DQS = SBS: the curves coincide");
    // Close puts the pose back.
    h.get_by_label("Close").click();
    h.run();
    assert!(!h.state().state.analysis.sweep.open);
    assert!(h.state().state.doc.pose.overrides.is_empty());
}
