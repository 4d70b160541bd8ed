//! Rig ▸ Auto-rig and Rig ▸ Symmetrize through the editor's UI (egui_kittest, no display): the
//! window opens on an unrigged capsule humanoid, markers are placed by clicking on the character
//! in the front view (the side placed alone shown mirrored), Rig and bind runs on a thread and the
//! skeleton appears bound, as one undo step restored bit for bit; Cancel leaves the model as it
//! was.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/capsule_people.rs"]
mod capsule_people;
#[path = "common/capsules.rs"]
mod capsules;
#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use std::time::{Duration, Instant};

use capsule_people::{humanoid_joints, humanoid_obj, HEIGHT};
use eframe::egui;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::{DVec3, Vec2};
use skinlab::app::autorig_markers::shown;
use skinlab::app::state::{EditorState, Mode};
use skinlab::app::ui::autorig_window::{RUN_LABEL, TITLE};
use skinlab::app::SkinlabApp;
use skinlab::io::obj_import::parse_obj;
use skinlab::model::Model;
use ui_harness::{harness_with, press, Scripted};

fn fingerprint(m: &Model) -> String {
    format!("{m:?}")
}

fn person() -> Harness<'static, SkinlabApp> {
    let model = parse_obj(humanoid_obj(true).as_bytes(), Some("person")).unwrap();
    harness_with(EditorState::new(model, "person.obj"), Scripted::default())
}

/// Rig ▸ Auto-rig… (the menu comes before the mode switch of the same name).
fn open_window(h: &mut Harness<'_, SkinlabApp>) {
    h.get_all_by_label("Rig").next().unwrap().click();
    h.run();
    h.get_by_label("Auto-rig…").click();
    h.run();
    assert_eq!(h.state().state.mode, Mode::Rig, "Auto-rig works in Rig mode");
    assert!(h.state().state.rig.autorig.is_some(), "the window is open");
    h.get_by_label(TITLE);
}

/// The screen point where model-space point `p` is drawn.
fn screen_of(h: &Harness<'_, SkinlabApp>, p: DVec3) -> egui::Pos2 {
    let rect = h.state().viewport_rect().unwrap();
    let q = h.state().state.view.camera.project(p.as_vec3(), Vec2::new(rect.width(), rect.height())).unwrap();
    rect.min + egui::vec2(q.x, q.y)
}

fn click(h: &mut Harness<'_, SkinlabApp>, at: egui::Pos2) {
    h.event(egui::Event::PointerMoved(at));
    h.step();
    press(h, at, true, egui::Modifiers::NONE);
    press(h, at, false, egui::Modifiers::NONE);
    h.run();
}

fn joint(name: &str) -> DVec3 {
    humanoid_joints().into_iter().find(|(n, _)| *n == name).unwrap().1
}

/// Runs frames until the background job is done (the UI keeps drawing meanwhile).
fn wait_for_job(h: &mut Harness<'_, SkinlabApp>) {
    let started = Instant::now();
    while h.state().state.rig.job_progress().is_some() {
        assert!(started.elapsed() < Duration::from_secs(120), "the job did not finish");
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.run();
}

#[test]
fn markers_clicked_on_the_character_rig_and_bind_it_as_one_undo_step() {
    let mut h = person();
    let unrigged = fingerprint(&h.state().state.doc.model);
    open_window(&mut h);
    h.get_by_label("Humanoid").click();
    h.run();
    h.get_by_label("Front view").click();
    h.run();
    let back = h.state().state.view.camera.back();
    assert!(back.distance(glam::Vec3::Z) < 1e-6, "the front view looks along -z: {back}");
    assert_eq!(h.state().state.rig.placing_marker(), Some("chin"), "the first marker waits for a click");

    // Chin, left wrist, left elbow, left knee and groin; the right side is mirrored.
    let groin = joint("hips") - DVec3::Y * (skinlab::rig::autorig::HIP_ABOVE_CROTCH * HEIGHT);
    let clicks = [
        ("chin", joint("head")),
        ("wrist.L", joint("hand.L")),
        ("elbow.L", joint("forearm.L")),
        ("knee.L", joint("shin.L")),
        ("groin", groin),
    ];
    for (name, p) in clicks {
        h.get_by_label(name).click();
        h.run();
        let at = screen_of(&h, p);
        click(&mut h, at);
        let placed = h.state().state.rig.autorig.as_ref().unwrap().marker(name);
        let placed = placed.unwrap_or_else(|| panic!("{name} was not placed: {:?}", h.state().state.message));
        // The marker lies on the click's ray: in the front view its x and y are the joint's.
        let off = ((placed.x - p.x).powi(2) + (placed.y - p.y).powi(2)).sqrt();
        assert!(off < 0.01 * HEIGHT, "{name}: placed at {placed}, clicked on {p}");
    }
    let setup = h.state().state.rig.autorig.clone().unwrap();
    assert_eq!(setup.markers.len(), 5);
    // The marker view shows the right side mirrored from the left.
    let labels: Vec<String> = shown(&setup, 0.0).into_iter().map(|m| m.1).collect();
    for mirrored in ["wrist.R (mirrored)", "elbow.R (mirrored)", "knee.R (mirrored)"] {
        assert!(labels.iter().any(|l| l == mirrored), "{labels:?}");
    }
    assert!(fingerprint(&h.state().state.doc.model) == unrigged, "placing markers changes no model");

    h.get_by_label(RUN_LABEL).click();
    h.step();
    wait_for_job(&mut h);
    let s = &h.state().state;
    let message = s.message.as_ref().map(|m| (m.text.clone(), m.is_error));
    assert!(message.as_ref().is_some_and(|m| !m.1 && m.0.starts_with("Auto-rig")), "{message:?}");
    assert!(s.rig.autorig.is_none(), "the window closes once the rig is applied");
    let m = &s.doc.model;
    assert_eq!(m.skins.len(), 1);
    assert!(m.rigid_instances.is_empty(), "every object joined the skin");
    assert!(s.doc.skeleton.joints.len() >= 20, "the skeleton appears: {} joints", s.doc.skeleton.joints.len());
    for (name, want) in [("hand.L", joint("hand.L")), ("forearm.R", joint("forearm.L") * DVec3::new(-1.0, 1.0, 1.0))] {
        let node = m.nodes.find(name).unwrap();
        let got = s.node_position(node).unwrap().as_dvec3();
        assert!((got - want).length() < 0.02 * HEIGHT, "{name} at {got}, want {want}");
    }
    let rigged = fingerprint(m);

    // One undo step takes the skeleton and the weights away, bit for bit; redo brings them back.
    h.get_by_label("Undo").click();
    h.run();
    assert!(fingerprint(&h.state().state.doc.model) == unrigged, "undo restores the unrigged model");
    assert!(h.state().state.doc.skeleton.joints.is_empty(), "the skeleton is gone after undo");
    h.get_by_label("Redo").click();
    h.run();
    assert!(fingerprint(&h.state().state.doc.model) == rigged, "redo restores the rig");
}

#[test]
fn cancel_stops_auto_rig_and_changes_nothing() {
    let mut h = person();
    let unrigged = fingerprint(&h.state().state.doc.model);
    open_window(&mut h);
    h.get_by_label("Detect").click();
    h.run();
    h.get_by_label(RUN_LABEL).click();
    h.step();
    assert!(h.state().state.rig.job_progress().is_some(), "the job runs: {:?}", h.state().state.message);
    h.step();
    // The window shows the progress and Cancel (the rig panel has a Cancel too).
    h.get_all_by_label("Cancel").next().unwrap().click();
    h.step();
    h.step();
    let s = &h.state().state;
    assert!(s.rig.job_progress().is_none(), "the job is gone");
    assert!(s.message.as_ref().is_some_and(|m| m.text.contains("cancelled")), "{:?}", s.message);
    // Frames go on; the cancelled job's result never arrives.
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    assert!(fingerprint(&h.state().state.doc.model) == unrigged, "Cancel leaves the model as it was");
    assert!(!h.state().state.doc.history.can_undo(), "no undo step");
    // Run again, to the end: the quadruped-or-humanoid detection picks the humanoid.
    h.get_by_label(RUN_LABEL).click();
    h.step();
    wait_for_job(&mut h);
    let s = &h.state().state;
    assert!(s.doc.model.nodes.find("hips").is_ok(), "{:?}", s.message);
    assert!(s.message.as_ref().is_some_and(|m| m.text.contains("humanoid, detected")), "{:?}", s.message);
}

#[test]
fn rig_symmetrize_mirrors_the_selected_subtree_in_one_step() {
    let mut h = person();
    open_window(&mut h);
    h.get_by_label(RUN_LABEL).click();
    h.step();
    wait_for_job(&mut h);
    // Move the left elbow, then mirror the left arm onto the right one from the menu.
    let (forearm_l, forearm_r) = {
        let m = &h.state().state.doc.model;
        (m.nodes.find("forearm.L").unwrap(), m.nodes.find("forearm.R").unwrap())
    };
    let moved = h.state().state.node_position(forearm_l).unwrap().as_dvec3() + DVec3::new(0.0, 0.0, -0.03);
    h.state_mut().state.apply(skinlab::app::command::Command::MoveJoint {
        node: forearm_l,
        position: moved,
        gesture: None,
    });
    let upperarm = h.state().state.doc.model.nodes.find("upperarm.L").unwrap();
    h.state_mut().state.apply(skinlab::app::command::Command::Select(Some(upperarm)));
    h.run();
    let before = fingerprint(&h.state().state.doc.model);
    h.get_all_by_label("Rig").next().unwrap().click();
    h.run();
    h.get_all_by_label("Symmetrize").next().unwrap().click();
    h.run();
    let s = &h.state().state;
    let text = s.message.as_ref().map(|m| m.text.clone()).unwrap_or_default();
    assert!(text.contains("0 created, 3 updated"), "{text}");
    let right = s.node_position(forearm_r).unwrap().as_dvec3();
    assert!((right - moved * DVec3::new(-1.0, 1.0, 1.0)).length() < 1e-4, "{right} mirrors {moved}");
    h.get_by_label("Undo").click();
    h.run();
    assert!(fingerprint(&h.state().state.doc.model) == before, "one undo step");
}

#[test]
fn the_marker_view_is_orthographic_from_the_front_and_its_labels_do_not_overlap() {
    use skinlab::app::autorig_markers::{place_labels, placed};
    let mut h = person();
    open_window(&mut h);
    h.get_by_label("Humanoid").click();
    h.run();
    let camera = h.state().state.view.camera;
    assert!(camera.orthographic, "the marker view is orthographic");
    assert!(camera.back().distance(glam::Vec3::Z) < 1e-6, "from the front: {}", camera.back());
    // A point's place on screen does not depend on its depth (it would in perspective).
    let rect = h.state().viewport_rect().unwrap();
    let size = Vec2::new(rect.width(), rect.height());
    let hand = joint("hand.L").as_vec3();
    let (near, far) =
        (camera.project(hand + glam::Vec3::Z * 0.3, size), camera.project(hand - glam::Vec3::Z * 0.3, size));
    assert!(near.unwrap().distance(far.unwrap()) < 1e-3, "{near:?} vs {far:?}");
    let mut perspective = camera;
    perspective.orthographic = false;
    let (a, b) =
        (perspective.project(hand + glam::Vec3::Z * 0.3, size), perspective.project(hand - glam::Vec3::Z * 0.3, size));
    assert!(a.unwrap().distance(b.unwrap()) > 1.0, "perspective would move it");

    // Markers crowded together: wrist and elbow a few pixels apart, the chin and groin.
    let wrist = screen_of(&h, joint("hand.L"));
    for (name, at) in [
        ("chin", screen_of(&h, joint("head"))),
        ("wrist.L", wrist),
        ("elbow.L", wrist + egui::vec2(6.0, 3.0)),
        ("groin", screen_of(&h, joint("hips"))),
    ] {
        h.get_by_label(name).click();
        h.run();
        click(&mut h, at);
        assert!(h.state().state.rig.autorig.as_ref().unwrap().marker(name).is_some(), "{name} placed");
    }
    let painter = egui::Painter::new(h.ctx.clone(), egui::LayerId::background(), rect);
    let panels = placed(&painter, rect, 1, &h.state().state);
    let markers = &panels[0];
    assert_eq!(markers.len(), 4 + 2, "four placed and two mirrored");
    for (i, a) in markers.iter().enumerate() {
        for b in &markers[i + 1..] {
            assert!(!a.label.expand(2.0).intersects(b.label.expand(2.0)), "{} and {} overlap", a.text, b.text);
        }
        for b in markers {
            let dot = egui::Rect::from_center_size(b.dot, egui::Vec2::splat(12.0));
            assert!(!a.label.intersects(dot), "{}'s label covers {}'s dot", a.text, b.text);
        }
    }
    // Each label beside its own dot as drawn before would have overlapped here.
    let beside = place_labels(&[markers[1].dot], &[markers[1].label.size()])[0];
    let other = place_labels(&[markers[2].dot], &[markers[2].label.size()])[0];
    assert!(beside.intersects(other), "the wrist and elbow crowd each other");

    // Closing the window gives the perspective view back.
    h.state_mut().state.close_autorig();
    h.run();
    assert!(!h.state().state.view.camera.orthographic);
}
