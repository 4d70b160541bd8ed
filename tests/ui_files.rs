//! A newcomer's first use of the editor, without a display (egui_kittest): where no desktop file dialog
//! answers, File ▸ Open, Save pose and Export go through the in-window browser (with the
//! overwrite question); save dialogs start in the model's folder with its name; editor keys work
//! after clicking a menu or a panel but not while typing; a damaged recovery file is reported
//! and unsaved work is offered for restoring at the next start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui::{self, accesskit::Role};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use skinlab::app::dialogs::FileRequest;
use skinlab::app::state::{EditorState, Mode};
use skinlab::app::SkinlabApp;
use skinlab::skinning::SkinningMethod;
use ui_harness::{arm_in, bend_elbow, harness, harness_with, Scripted};

fn no_portal() -> Scripted {
    let d = Scripted::default();
    *d.no_portal.lock().unwrap() = true;
    d
}

fn menu(h: &mut Harness<'_, SkinlabApp>, item: &str) {
    h.get_by_label("File").click();
    h.run();
    h.get_by_label(item).click();
    h.run();
}

/// Types `text` into the browser's file name field (replacing what it holds).
fn type_name(h: &mut Harness<'_, SkinlabApp>, text: &str) {
    let field = h.get_by_role_and_label(Role::TextInput, "File name");
    field.focus();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_role_and_label(Role::TextInput, "File name").type_text(text);
    h.run();
}

#[test]
fn without_a_portal_open_goes_through_the_in_window_browser() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = arm_in(dir.path());
    std::fs::write(dir.path().join("notes.txt"), b"not a model").unwrap();
    let mut h = harness(no_portal());
    menu(&mut h, "Open model…");
    // The browser is open; it lists models and folders, not other files.
    assert!(h.query_by_label("Open model").is_some(), "no browser window");
    type_name(&mut h, dir.path().to_str().unwrap());
    h.get_by_label("Open").click();
    h.run();
    // A folder typed as the name is entered.
    assert!(h.query_by_label("arm.glb").is_some());
    assert!(h.query_by_label_contains("notes.txt").is_none(), "the filter shows only models");
    h.get_by_label("arm.glb").click();
    h.run();
    h.get_by_label("Open").click();
    h.run();
    let s = &h.state().state;
    assert_eq!(s.doc.model_name, "arm.glb");
    assert_eq!(s.files.model_path.as_deref(), Some(path.as_path()));
    assert!(h.query_by_label("Open model").is_none(), "the browser stayed open");
    // The opened file is now in File ▸ Open Recent.
    assert_eq!(h.state().files.recent.items()[0], path.canonicalize().unwrap());
}

#[test]
fn without_a_portal_save_pose_and_export_write_through_the_browser_and_ask_before_replacing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, state) = arm_in(dir.path());
    let mut h = harness_with(state, no_portal());
    bend_elbow(&mut h, 40.0);
    menu(&mut h, "Save pose…");
    // It starts in the model's folder with a name made from the model's.
    let field = h.get_by_role_and_label(Role::TextInput, "File name");
    assert_eq!(field.value().as_deref(), Some("arm_pose.json"));
    h.get_by_label("Save").click();
    h.run();
    let pose = dir.path().join("arm_pose.json");
    let first = std::fs::read_to_string(&pose).unwrap();
    assert!(first.contains("elbow"), "{first}");

    // Again: the file exists, so the browser asks before replacing it.
    bend_elbow(&mut h, 70.0);
    menu(&mut h, "Save pose…");
    h.get_by_label("Save").click();
    h.run();
    assert!(h.query_by_label_contains("already exists. Replace it?").is_some());
    assert_eq!(std::fs::read_to_string(&pose).unwrap(), first, "replaced without asking");
    h.get_by_label("Replace").click();
    h.run();
    assert_ne!(std::fs::read_to_string(&pose).unwrap(), first);

    // Export: a typed name without extension gets .glb, in the model's folder.
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Export…").click();
    h.run();
    h.get_by_label("Export to…").click();
    h.run();
    type_name(&mut h, "arm_out");
    h.get_by_label("Save").click();
    h.run();
    let out = dir.path().join("arm_out.glb");
    assert!(out.exists(), "{:?}", h.state().state.message);
    skinlab::io::load_model(&out).unwrap();
}

#[test]
fn save_dialogs_start_in_the_models_folder_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let (_, state) = arm_in(dir.path());
    let dialogs = Scripted::default();
    let mut h = harness_with(state, dialogs.clone());
    menu(&mut h, "Save as…");
    let starts = dialogs.starts.lock().unwrap().clone();
    let (request, start) = starts.last().unwrap();
    assert_eq!(*request, FileRequest::SaveModel);
    assert_eq!(start.dir.as_deref(), Some(dir.path()));
    assert_eq!(start.name.as_deref(), Some("arm.glb"));
}

#[test]
fn editor_keys_work_after_clicking_a_menu_and_a_panel_but_not_while_typing() {
    let mut h = harness(no_portal());
    h.get_by_label("elbow").click();
    h.run();
    // Click a menu (it opens and takes focus), then Tab: paint mode, focus not moved.
    h.get_by_label("Edit").click();
    h.run();
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.mode, Mode::Paint, "Tab after clicking a menu");
    let (r0, s0) = (h.state().state.painting.settings.brush.radius, h.state().state.painting.settings.brush.strength);
    for key in [egui::Key::CloseBracket, egui::Key::Equals] {
        h.key_press(key);
        h.run();
    }
    let b = &h.state().state.painting.settings.brush;
    assert!(b.radius > r0 && b.strength > s0, "] and = after Tab: {} {} (from {r0} {s0})", b.radius, b.strength);
    for key in [egui::Key::OpenBracket, egui::Key::Minus] {
        h.key_press(key);
        h.run();
    }
    let b = &h.state().state.painting.settings.brush;
    assert!((b.radius - r0).abs() < 1e-4 && (b.strength - s0).abs() < 1e-4, "[ and -");
    // Click a panel's button (focus on it), then the number keys, F and Tab again.
    h.get_by_label("DQS").click();
    h.run();
    h.key_press(egui::Key::Num3);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Sbs);
    h.key_press(egui::Key::Num1);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Lbs);
    let distance = h.state().state.view.camera.distance;
    h.key_press(egui::Key::F);
    h.run();
    assert!(h.state().state.view.camera.distance < distance * 0.9, "F framed the elbow");
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.mode, Mode::Rig, "second Tab");
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.mode, Mode::Pose, "third Tab (Pose → Paint → Rig → Pose)");

    // Typing in a text field: the keys are text, not shortcuts; Escape leaves the field.
    menu(&mut h, "Save pose…");
    let field = h.get_by_role_and_label(Role::TextInput, "File name");
    field.focus();
    h.run();
    h.key_press(egui::Key::Num3);
    h.get_by_role_and_label(Role::TextInput, "File name").type_text("3");
    h.run();
    h.key_press(egui::Key::Tab);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Lbs, "3 typed into a field switched the method");
    assert_eq!(h.state().state.mode, Mode::Pose, "Tab in a text field switched the mode");
    h.key_press(egui::Key::Escape);
    h.run();
    h.key_press(egui::Key::Num2);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Dqs, "keys after Escape left the field");
}

#[test]
fn a_damaged_recovery_file_is_reported_and_set_aside_and_unsaved_work_is_offered() {
    let dir = tempfile::tempdir().unwrap();
    let dirs = skinlab::io::UserDirs { config: Some(dir.path().join("cfg")), data: Some(dir.path().join("data")) };
    let rec = dirs.recovery().unwrap();
    std::fs::create_dir_all(&rec).unwrap();
    std::fs::write(rec.join("session-999999991.json"), b"{\"format\": \"skinlab-recovery\", \"vers").unwrap();

    // A session with a pose edit, written as a crashed editor (another pid) would have left it.
    let (path, state) = arm_in(dir.path());
    let mut h = harness_with(state, Scripted::default());
    bend_elbow(&mut h, 35.0);
    let file = h.state().state.recovery_file(999_999_992);
    assert_eq!(file.model.as_deref(), Some(path.as_path()));
    file.write(&rec.join("session-999999992.json")).unwrap();
    drop(h);

    let app = SkinlabApp::new(EditorState::demo().unwrap(), Box::new(Scripted::default())).with_user_dirs(&dirs);
    let mut h = Harness::builder().with_size(egui::vec2(1200.0, 760.0)).build_eframe(move |_cc| app);
    h.run();
    let msg = h.state().state.message.clone().unwrap();
    assert!(msg.is_error && msg.text.contains("damaged recovery file"), "{msg:?}");
    assert!(rec.join("session-999999991.json.damaged").exists());
    assert!(h.query_by_label("Recover unsaved work?").is_some());
    h.get_by_label("Restore").click();
    h.run();
    let s = &h.state().state;
    assert_eq!(s.doc.model_name, "arm.glb");
    let q = s.doc.pose.overrides.get(&2).and_then(|o| o.rotation).unwrap();
    assert!((q.to_euler(glam::EulerRot::XYZ).2.to_degrees() - 35.0).abs() < 1e-4);
    assert!(s.has_unsaved_work());
    assert!(!rec.join("session-999999992.json").exists(), "the restored file is taken over by this session");
}

/// Restoring a recovery file is one undo step: Ctrl+Z shows the model's saved weights and pose
/// again, Ctrl+Shift+Z the restored ones, bit for bit.
#[test]
fn restoring_unsaved_work_is_one_undo_step() {
    use skinlab::app::command::{Command, WeightTool};
    let dir = tempfile::tempdir().unwrap();
    // The crashed session: a pose edit and a weight tool run.
    let (_, mut crashed) = arm_in(dir.path());
    let rotation = glam::DQuat::from_rotation_z(0.6);
    crashed.apply(Command::SetRotation { node: 2, rotation, gesture: None });
    crashed.apply(Command::Tool(WeightTool::SmoothAll));
    let file = crashed.recovery_file(999_999_993);
    let weights = |s: &EditorState| s.doc.model.meshes[0].primitives[0].influences.clone().unwrap();
    let painted = weights(&crashed);

    let (_, mut s) = arm_in(dir.path());
    let saved = weights(&s);
    assert_ne!(saved, painted, "the tool changed the weights");
    s.restore(&file).unwrap();
    assert_eq!(weights(&s), painted);
    assert_eq!(s.doc.pose.overrides.get(&2).and_then(|o| o.rotation), Some(rotation));
    s.apply(Command::Undo);
    assert_eq!(weights(&s), saved, "undo takes the restored weights back");
    assert!(s.doc.pose.overrides.is_empty(), "and the restored pose, in the same step");
    assert!(!s.doc.history.can_undo(), "one step");
    assert_eq!(s.unsaved_summary().as_deref().map(|t| t.contains("skeleton")), Some(false));
    s.apply(Command::Redo);
    assert_eq!(weights(&s), painted);
    assert_eq!(s.doc.pose.overrides.get(&2).and_then(|o| o.rotation), Some(rotation));
}

#[test]
fn skeleton_edits_do_not_rewrite_the_recent_file_list() {
    let dir = tempfile::tempdir().unwrap();
    let (path, state) = arm_in(dir.path());
    let config = dir.path().join("config");
    let dirs = skinlab::io::UserDirs { config: Some(config.clone()), data: None };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 760.0))
        .build_eframe(move |_cc| SkinlabApp::new(state, Box::new(Scripted::default())).with_user_dirs(&dirs));
    h.run();
    let list = config.join("recent.txt");
    assert!(std::fs::read_to_string(&list).unwrap().contains("arm.glb"), "the opened model is listed");
    std::fs::remove_file(&list).unwrap();
    // Every frame of a joint drag edits the model; none of them is a newly opened file.
    h.state_mut().state.apply(skinlab::app::command::Command::SetMode(Mode::Rig));
    for step in 1..=3 {
        let s = &mut h.state_mut().state;
        let to = s.frame.model_from_node[2].w_axis.truncate() + glam::DVec3::new(0.0, 0.01 * f64::from(step), 0.0);
        s.apply(skinlab::app::command::Command::MoveJoint { node: 2, position: to, gesture: Some(3) });
        h.run();
    }
    assert!(h.state().state.doc.model_rev > 1);
    assert!(!list.exists(), "a skeleton edit wrote the recent-file list again");
    assert_eq!(h.state().files.recent.items()[0], path.canonicalize().unwrap());
}
