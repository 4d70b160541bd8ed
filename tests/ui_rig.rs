//! Rig mode through the editor's UI (egui_kittest, no display): switching modes, the bind pose,
//! adding joints by Ctrl+click in the middle of the mesh, deleting, renaming, reparenting by
//! dragging in the joint tree, moving with the gizmo and typed coordinates, the Roll field after
//! Orient to child — each one undo step
//! restored bit for bit — and rigging an unskinned OBJ from scratch: root, chain, Bind with its
//! progress bar, export and re-import.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use std::time::{Duration, Instant};

use eframe::egui::{self, accesskit::Role};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::{Vec2, Vec3};
use skinlab::app::command::Command;
use skinlab::app::state::{EditorState, Mode};
use skinlab::app::translate_gizmo::Handle;
use skinlab::app::SkinlabApp;
use skinlab::model::Model;
use skinlab::rig::Pose;
use skinlab::skinning::{Deformer, SkinningMethod};
use ui_harness::{bend_elbow, drag, harness, harness_with, press, Scripted};

const SHOULDER: usize = 1;
const ELBOW: usize = 2;
const WRIST: usize = 3;

/// Everything in the model, printed: equal strings mean bit-identical floats (Rust prints the
/// shortest representation that round-trips).
fn fingerprint(m: &Model) -> String {
    format!("{m:?}")
}

fn rig_mode(h: &mut Harness<'_, SkinlabApp>) {
    // The mode switch comes after the Rig menu of the same name.
    h.get_all_by_label("Rig").last().unwrap().click();
    h.run();
    assert_eq!(h.state().state.mode, Mode::Rig);
}

/// Clicks `joint` in the joint tree (drawn before the panel that also names the selection).
fn select(h: &mut Harness<'_, SkinlabApp>, joint: &str) {
    h.get_all_by_label(joint).next().unwrap().click();
    h.run();
}

fn panel_size(h: &Harness<'_, SkinlabApp>) -> Vec2 {
    let rect = h.state().viewport_rect().unwrap();
    Vec2::new(rect.width(), rect.height())
}

/// The screen point where model-space point `p` is drawn.
fn screen_of(h: &Harness<'_, SkinlabApp>, p: Vec3) -> egui::Pos2 {
    let rect = h.state().viewport_rect().unwrap();
    let q = h.state().state.view.camera.project(p, panel_size(h)).unwrap();
    rect.min + egui::vec2(q.x, q.y)
}

fn ctrl_click(h: &mut Harness<'_, SkinlabApp>, at: egui::Pos2) {
    h.event(egui::Event::PointerMoved(at));
    h.step();
    press(h, at, true, egui::Modifiers::COMMAND);
    press(h, at, false, egui::Modifiers::COMMAND);
    h.run();
}

/// Undo gives `before` and redo `after`, bit for bit, through the menu-bar buttons and keys.
fn undo_redo_exact(h: &mut Harness<'_, SkinlabApp>, before: &str, after: &str) {
    h.get_by_label("Undo").click();
    h.run();
    assert!(fingerprint(&h.state().state.doc.model) == before, "undo did not restore the model bit for bit");
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
    h.run();
    assert!(fingerprint(&h.state().state.doc.model) == after, "redo did not re-apply the edit bit for bit");
}

fn node(m: &Model, name: &str) -> usize {
    m.nodes.find(name).unwrap()
}

#[test]
fn rig_mode_shows_the_bind_pose_and_tab_cycles_the_modes() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 70.0);
    let posed = h.state().state.frame.deformed[0][0][0].positions.clone();
    rig_mode(&mut h);
    let mut rest = Vec::new();
    let s = &h.state().state;
    Deformer::new().deform_all(&s.doc.model, &Pose::rest(), SkinningMethod::Lbs, &mut rest);
    assert!(s.frame.deformed[0][0][0].positions == rest[0][0].positions, "Rig mode must show the bind pose");
    assert!(!s.doc.pose.overrides.is_empty(), "the pose is kept for the other modes");
    h.get_by_label("Automatic weights");
    h.get_by_label("Bind");
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.mode, Mode::Pose);
    assert!(h.state().state.frame.deformed[0][0][0].positions == posed, "the pose comes back in Pose mode");
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.mode, Mode::Paint);
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.mode, Mode::Rig);
}

#[test]
fn ctrl_click_adds_a_child_in_the_middle_of_the_arm_as_one_undo_step() {
    let mut h = harness(Scripted::default());
    select(&mut h, "wrist");
    rig_mode(&mut h);
    let before = fingerprint(&h.state().state.doc.model);
    let (elbow, wrist) = {
        let s = &h.state().state;
        (s.node_position(ELBOW).unwrap(), s.node_position(WRIST).unwrap())
    };
    // A point on the bone axis between elbow and wrist: the ray through it crosses the arm's
    // round cross-section, whose chord midpoint is that axis point.
    let target = elbow + (wrist - elbow) * 0.4;
    let at = screen_of(&h, target);
    ctrl_click(&mut h, at);
    let s = &h.state().state;
    let added = s.selected.expect("the new joint is selected");
    assert_eq!(s.doc.model.nodes.nodes.len(), 5);
    assert_eq!(s.doc.model.nodes.nodes[added].parent, Some(WRIST));
    assert!(s.doc.model.skins[0].joints.contains(&added), "the new joint joins the skin");
    let at = s.node_position(added).unwrap();
    let bone = (wrist - elbow).length();
    assert!(at.distance(target) < 0.03 * bone, "placed at {at}, expected the middle of the arm at {target}");
    let after = fingerprint(&s.doc.model);
    undo_redo_exact(&mut h, &before, &after);
}

#[test]
fn delete_rename_reparent_and_typed_moves_are_each_one_exact_undo_step() {
    let mut h = harness(Scripted::default());
    rig_mode(&mut h);

    // Rename in place: F2, type, Enter.
    select(&mut h, "wrist");
    let before = fingerprint(&h.state().state.doc.model);
    h.key_press(egui::Key::F2);
    h.run();
    h.get_by_role_and_label(Role::TextInput, "Joint name").set_text_value_accesskit("hand");
    h.run();
    h.key_press(egui::Key::Enter);
    h.run();
    assert_eq!(h.state().state.doc.model.nodes.key(WRIST), "hand");
    let after = fingerprint(&h.state().state.doc.model);
    undo_redo_exact(&mut h, &before, &after);

    // Typed coordinates move the joint's bind position; the mesh does not move (rest = bind).
    let mesh_before = h.state().state.frame.deformed[0][0][0].positions.clone();
    select(&mut h, "elbow");
    let before = fingerprint(&h.state().state.doc.model);
    let y = h.state().state.node_position(ELBOW).unwrap().y;
    h.get_by_role_and_label(Role::SpinButton, "Position Y").set_value_accesskit(f64::from(y) + 0.25);
    h.run();
    let moved = h.state().state.node_position(ELBOW).unwrap();
    assert!((moved.y - (y + 0.25)).abs() < 1e-5, "{moved}");
    let mesh_after = &h.state().state.frame.deformed[0][0][0].positions;
    let worst = mesh_before.iter().zip(mesh_after).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(worst < 1e-5, "the mesh moved by {worst} when the joint moved");
    let after = fingerprint(&h.state().state.doc.model);
    undo_redo_exact(&mut h, &before, &after);

    // Reparent: drag the wrist onto the shoulder in the joint tree.
    let before = fingerprint(&h.state().state.doc.model);
    let row = |h: &Harness<'_, SkinlabApp>, name: &str| h.get_all_by_label(name).next().unwrap().rect().center();
    let (from, to) = (row(&h, "hand"), row(&h, "shoulder"));
    drag(&mut h, from, to);
    let m = &h.state().state.doc.model;
    assert_eq!(m.nodes.nodes[WRIST].parent, Some(SHOULDER), "the drag did not reparent");
    let after = fingerprint(m);
    undo_redo_exact(&mut h, &before, &after);

    // Delete the elbow (Delete key): the wrist goes to the shoulder, the weights too.
    select(&mut h, "elbow");
    let before = fingerprint(&h.state().state.doc.model);
    h.key_press(egui::Key::Delete);
    h.run();
    let m = &h.state().state.doc.model;
    assert!(m.nodes.find("elbow").is_err(), "the elbow is still there");
    let hand = node(m, "hand");
    assert_eq!(m.nodes.nodes[hand].parent, Some(node(m, "shoulder")));
    assert_eq!(h.state().state.selected, Some(node(m, "shoulder")), "the parent is selected after delete");
    let after = fingerprint(m);
    undo_redo_exact(&mut h, &before, &after);
}

#[test]
fn dragging_the_gizmos_x_arrow_moves_the_joint_along_x_in_one_step() {
    let mut h = harness(Scripted::default());
    select(&mut h, "elbow");
    rig_mode(&mut h);
    let before = fingerprint(&h.state().state.doc.model);
    let start = h.state().state.node_position(ELBOW).unwrap();
    let size = panel_size(&h);
    let g = skinlab::app::translate_gizmo::TranslateGizmo::new(&h.state().state.view.camera, start, size).unwrap();
    let tip = g.tips[0].expect("the x arrow is visible");
    let rect = h.state().viewport_rect().unwrap();
    let grab = rect.min + egui::vec2(g.centre.x + (tip.x - g.centre.x) * 0.7, g.centre.y + (tip.y - g.centre.y) * 0.7);
    let dir = (tip - g.centre).normalize();
    let to = grab + egui::vec2(dir.x, dir.y) * 60.0;
    drag(&mut h, grab, to);
    let moved = h.state().state.node_position(ELBOW).unwrap();
    assert!(moved.x - start.x > 0.05, "the joint did not move along +x: {start} -> {moved}");
    // The grabbed point follows the pointer: the joint moved by the distance along the axis
    // between the points under the press and under the release.
    let cam = h.state().state.view.camera;
    let on_axis = |p: egui::Pos2| {
        let (o, d) = cam.ray(Vec2::new(p.x - rect.min.x, p.y - rect.min.y), size);
        skinlab::app::translate_gizmo::grab_point(Handle::Axis(0), &cam, start, o, d).unwrap()
    };
    let expected = start + on_axis(to) - on_axis(grab);
    assert!(moved.distance(expected) < 1e-4, "moved to {moved}, the pointer asked for {expected}");
    let after = fingerprint(&h.state().state.doc.model);
    undo_redo_exact(&mut h, &before, &after);
    // One step: a second undo goes past the drag to nothing.
    h.get_by_label("Undo").click();
    h.run();
    assert!(!h.state().state.doc.history.can_undo());
}

/// A closed cylinder standing on the origin along +y (`rings` rings of `segments` vertices,
/// capped), as Wavefront OBJ text.
fn cylinder_obj(height: f32, radius: f32, rings: usize, segments: usize) -> String {
    use std::fmt::Write as _;
    let mut s = String::from("# test cylinder\no limb\n");
    for r in 0..rings {
        let y = height * r as f32 / (rings - 1) as f32;
        for k in 0..segments {
            let a = std::f32::consts::TAU * k as f32 / segments as f32;
            writeln!(s, "v {} {y} {}", radius * a.cos(), -radius * a.sin()).unwrap();
        }
    }
    writeln!(s, "v 0 0 0\nv 0 {height} 0").unwrap();
    let idx = |r: usize, k: usize| r * segments + k % segments + 1;
    for r in 0..rings - 1 {
        for k in 0..segments {
            writeln!(s, "f {} {} {} {}", idx(r, k), idx(r, k + 1), idx(r + 1, k + 1), idx(r + 1, k)).unwrap();
        }
    }
    let (bottom, top) = (rings * segments + 1, rings * segments + 2);
    for k in 0..segments {
        writeln!(s, "f {bottom} {} {}", idx(0, k + 1), idx(0, k)).unwrap();
        writeln!(s, "f {top} {} {}", idx(rings - 1, k), idx(rings - 1, k + 1)).unwrap();
    }
    s
}

/// Runs frames until the automatic-weights job is done (the UI keeps drawing meanwhile).
fn wait_for_bind(h: &mut Harness<'_, SkinlabApp>) {
    let started = Instant::now();
    while h.state().state.rig.job_progress().is_some() {
        assert!(started.elapsed() < Duration::from_secs(60), "the bind did not finish");
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.run();
}

#[test]
fn an_unskinned_obj_is_rigged_bound_exported_and_reimported() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("limb.obj");
    std::fs::write(&obj, cylinder_obj(2.0, 0.25, 17, 16)).unwrap();
    let dialogs = Scripted::default();
    *dialogs.model.lock().unwrap() = Some(obj.clone());
    let mut h = harness_with(EditorState::demo().unwrap(), dialogs.clone());
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Open model…").click();
    h.run();
    assert_eq!(h.state().state.mode, Mode::Rig, "a model without a skin opens in Rig mode");
    assert!(h.state().state.doc.model.skins.is_empty());
    h.state_mut().state.apply(Command::FrameSelected);
    h.run();

    // Root near the bottom, then a chain up the limb, each placed by Ctrl+click. The joint goes to
    // the middle of the chord the click ray cuts through the mesh; on the cylinder's wall that is
    // the axis point under the cursor, but within r·tan(elevation) of a cap the ray passes through
    // the cap and the chord's middle moves, so the clicks stay clear of the caps.
    for y in [0.4, 1.0, 1.6] {
        let at = screen_of(&h, Vec3::new(0.0, y, 0.0));
        ctrl_click(&mut h, at);
    }
    let s = &h.state().state;
    assert_eq!(s.doc.model.skins.len(), 1, "the first joint created the skin");
    assert_eq!(s.doc.model.skins[0].joints.len(), 3, "{}", s.message.as_ref().map_or("", |m| m.text.as_str()));
    let ys: Vec<f32> = s.doc.skeleton.joints.iter().map(|&(n, _)| s.node_position(n).unwrap().y).collect();
    for (got, want) in ys.iter().zip([0.4, 1.0, 1.6]) {
        assert!((got - want).abs() < 0.02, "joint heights {ys:?}");
    }

    // Bind: the progress bar shows while the job runs, the result is one undo step.
    let unbound = fingerprint(&s.doc.model);
    h.get_by_label("Bind").click();
    // The progress bar keeps repainting while the job runs: step frames instead of settling.
    h.step();
    assert!(
        h.state().state.rig.job_progress().is_some() || h.state().state.message.as_ref().is_some_and(|m| !m.is_error),
        "Bind did not start"
    );
    wait_for_bind(&mut h);
    let s = &h.state().state;
    assert!(!s.message.as_ref().unwrap().is_error, "{:?}", s.message);
    let m = &s.doc.model;
    let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
    let top = m.skins[0].joints.iter().position(|&n| n == s.doc.skeleton.joints[2].0).unwrap();
    let top_vertex = m.meshes[0].primitives[0].positions.iter().position(|p| p.y > 1.95).unwrap();
    let w: f32 = inf.vertex(top_vertex, &m.skins[0].sets).filter(|&(j, _)| j == top as u16).map(|(_, w)| w).sum();
    assert!(w > 0.5, "the top of the limb belongs to the top joint after binding ({w})");
    let bound = fingerprint(m);
    undo_redo_exact(&mut h, &unbound, &bound);

    // Export through File ▸ Export and read it back.
    let out = dir.path().join("limb.glb");
    *dialogs.export.lock().unwrap() = Some(out.clone());
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Export…").click();
    h.run();
    h.get_by_label("Export to…").click();
    h.run();
    let s = &h.state().state;
    assert!(out.exists(), "{:?}", s.message);
    let back = skinlab::io::load_model(&out).unwrap();
    let m = &s.doc.model;
    assert_eq!(back.skins.len(), 1);
    let names = |m: &Model| m.skins[0].joints.iter().map(|&n| m.nodes.key(n)).collect::<Vec<_>>();
    assert_eq!(names(&back), names(m));
    for (a, b) in back.skins[0].joint_from_bind.iter().zip(&m.skins[0].joint_from_bind) {
        assert!(a.abs_diff_eq(*b, 1e-6), "inverse bind matrices differ");
    }
    let (ia, ib) = (
        back.meshes[0].primitives[0].influences.as_ref().unwrap(),
        m.meshes[0].primitives[0].influences.as_ref().unwrap(),
    );
    assert_eq!(ia.len(), ib.len());
    // File vertex `v` in each model's own order (each load orders its vertices by joint set).
    let (oa, ob) = (&back.meshes[0].primitives[0].order, &m.meshes[0].primitives[0].order);
    for v in 0..ia.len() {
        let mut a: Vec<(u16, f32)> = ia.vertex(oa.model_index(v), &back.skins[0].sets).collect();
        let mut b: Vec<(u16, f32)> = ib.vertex(ob.model_index(v), &m.skins[0].sets).collect();
        a.sort_by_key(|p| p.0);
        b.sort_by_key(|p| p.0);
        assert_eq!(a.len(), b.len(), "vertex {v}: {a:?} vs {b:?}");
        for ((ja, x), (jb, y)) in a.iter().zip(&b) {
            assert_eq!(ja, jb);
            assert!((x - y).abs() < 1e-6, "vertex {v}: {a:?} vs {b:?}");
        }
    }
}

#[test]
fn the_roll_field_turns_the_joint_about_its_bone_as_one_undo_step() {
    use skinlab::rig::skeleton_edit::joint_roll;
    let mut h = harness(Scripted::default());
    rig_mode(&mut h);
    select(&mut h, "elbow");
    // Orient to child first: +Y then aims at the wrist, and the roll turns about that line.
    h.get_by_label("Orient to child").click();
    h.run();
    let (wrist, mesh_before) = {
        let s = &h.state().state;
        (s.node_position(WRIST).unwrap(), s.frame.deformed[0][0][0].positions.clone())
    };
    let before = fingerprint(&h.state().state.doc.model);
    h.get_by_role_and_label(Role::SpinButton, "Roll").set_value_accesskit(30.0);
    h.run();
    let s = &h.state().state;
    let roll = joint_roll(&s.doc.model, ELBOW).unwrap();
    assert!((roll.to_degrees() - 30.0).abs() < 1e-6, "roll {}°", roll.to_degrees());
    assert!(s.node_position(WRIST).unwrap().distance(wrist) < 1e-5, "the child stays");
    let worst =
        mesh_before.iter().zip(&s.frame.deformed[0][0][0].positions).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(worst < 1e-5, "the mesh moved by {worst}");
    let j = s.doc.model.skins[0].joints.iter().position(|&n| n == ELBOW).unwrap();
    let frame = glam::DMat3::from_mat4(s.doc.model.skins[0].joint_from_bind[j].inverse());
    let elbow = s.node_position(ELBOW).unwrap().as_dvec3();
    let along = (wrist.as_dvec3() - elbow).normalize();
    assert!(frame.y_axis.normalize().dot(along) > 1.0 - 1e-9, "+Y still aims at the child");
    let after = fingerprint(&s.doc.model);
    undo_redo_exact(&mut h, &before, &after);
}

#[test]
fn dragging_the_roll_ring_turns_the_roll_about_the_bone_in_one_step() {
    use skinlab::app::gizmo::nearest_on_ring;
    use skinlab::app::gizmo_drag::Sweep;
    use skinlab::app::translate_gizmo::TranslateGizmo;
    use skinlab::rig::skeleton_edit::joint_roll;
    let mut h = harness(Scripted::default());
    rig_mode(&mut h);
    select(&mut h, "elbow");
    h.get_by_label("Orient to child").click();
    h.run();
    let s = &h.state().state;
    let (start, wrist) = (s.node_position(ELBOW).unwrap(), s.node_position(WRIST).unwrap());
    let axis = s.roll_axis(ELBOW).unwrap();
    assert!(axis.dot((wrist - start).normalize()) > 0.9999, "the ring turns about the bone: {axis}");
    let size = panel_size(&h);
    let g = TranslateGizmo::new(&s.view.camera, start, size).unwrap().with_roll(&s.view.camera, start, axis, size);
    let ring = g.roll.clone().expect("a roll ring");
    // The middle of a segment of the ring's visible half that grabs it (away from the arrows).
    let grab = ring
        .points
        .windows(2)
        .filter(|w| w[0].1 && w[1].1)
        .map(|w| (w[0].0 + w[1].0) * 0.5)
        .find(|p| g.hit(*p) == Some(Handle::Roll) && p.distance(g.centre) > 0.5 * ring.radius_px)
        .expect("the ring can be grabbed");
    let (on_ring, dir) = nearest_on_ring(&ring, grab);
    let sweep = Sweep::choose(g.centre, on_ring, dir, ring.radius_px, ring.minor_px(g.centre));
    let to = grab + dir * 40.0;
    let expected = sweep.angle(g.centre, grab, to);
    assert!(expected.to_degrees() > 10.0, "a 40 px drag along the ring turns it {}°", expected.to_degrees());
    let roll_before = joint_roll(&s.doc.model, ELBOW).unwrap();
    let mesh_before = s.frame.deformed[0][0][0].positions.clone();
    let before = fingerprint(&s.doc.model);
    let rect = h.state().viewport_rect().unwrap();
    let at = |p: Vec2| rect.min + egui::vec2(p.x, p.y);
    drag(&mut h, at(grab), at(to));
    let s = &h.state().state;
    let roll = joint_roll(&s.doc.model, ELBOW).unwrap();
    let turned = (roll - roll_before).sin().atan2((roll - roll_before).cos());
    assert!(
        (turned - expected).abs() < 1e-3,
        "turned {}°, the drag asked {}°",
        turned.to_degrees(),
        expected.to_degrees()
    );
    assert!(s.node_position(WRIST).unwrap().distance(wrist) < 1e-5, "the child stays");
    let worst =
        mesh_before.iter().zip(&s.frame.deformed[0][0][0].positions).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(worst < 1e-5, "the mesh moved by {worst}");
    // The status line reads it as the field does, and the whole drag is one undo step.
    let message = s.message.as_ref().map(|m| m.text.clone()).unwrap_or_default();
    assert!(message.contains(&format!("roll {:.1}°", roll.to_degrees())), "{message}");
    let after = fingerprint(&s.doc.model);
    undo_redo_exact(&mut h, &before, &after);
}
