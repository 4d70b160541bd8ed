//! The editor under egui_kittest for the UI tests: file dialogs answered from a script, dropped
//! files, and a harness on the demo arm (or any state).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use eframe::egui;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use skinlab::app::dialogs::{Answer, DialogStart, FileDialogs, FileRequest};
use skinlab::app::state::{EditorState, Mode};
use skinlab::app::SkinlabApp;

/// Dialogs that answer from a script instead of asking: each returns the path its slot holds
/// (`model` is taken once; the others answer every time). `asked` counts Save dialogs, `starts`
/// records where each dialog would have opened, and `no_portal` answers like a desktop where no
/// dialog can be shown (the editor then opens its in-window browser).
#[derive(Clone, Default)]
pub struct Scripted {
    pub model: Arc<Mutex<Option<PathBuf>>>,
    pub pose: Arc<Mutex<Option<PathBuf>>>,
    pub save: Arc<Mutex<Option<PathBuf>>>,
    pub export: Arc<Mutex<Option<PathBuf>>>,
    pub transfer: Arc<Mutex<Option<PathBuf>>>,
    pub asked: Arc<Mutex<usize>>,
    pub starts: Arc<Mutex<Vec<(FileRequest, DialogStart)>>>,
    pub no_portal: Arc<Mutex<bool>>,
}

impl FileDialogs for Scripted {
    fn ask(&mut self, request: FileRequest, start: &DialogStart) -> Answer {
        self.starts.lock().unwrap().push((request, start.clone()));
        if *self.no_portal.lock().unwrap() {
            return Answer::Unavailable;
        }
        let answer = match request {
            FileRequest::OpenModel => self.model.lock().unwrap().take(),
            FileRequest::LoadPose | FileRequest::SavePose => self.pose.lock().unwrap().clone(),
            FileRequest::SaveModel => {
                *self.asked.lock().unwrap() += 1;
                self.save.lock().unwrap().clone()
            }
            FileRequest::SaveWeights => self.save.lock().unwrap().clone(),
            FileRequest::Export(_) | FileRequest::ExportForLbs(_) => self.export.lock().unwrap().clone(),
            FileRequest::TransferSource => self.transfer.lock().unwrap().clone(),
        };
        answer.map_or(Answer::Cancelled, Answer::Chosen)
    }
}

/// A file dropped onto the window.
#[derive(Debug)]
pub struct Dropped(pub PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

/// The editor on `state`, 1200x760 logical pixels, after its first frame.
pub fn harness_with(state: EditorState, dialogs: Scripted) -> Harness<'static, SkinlabApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 760.0))
        .build_eframe(move |_cc| SkinlabApp::new(state, Box::new(dialogs)));
    h.run();
    h
}

/// The demo arm written to `dir/arm.glb`, opened from there.
pub fn arm_in(dir: &Path) -> (PathBuf, EditorState) {
    let path = dir.join("arm.glb");
    std::fs::write(&path, skinlab::demo::demo_glb()).unwrap();
    let (model, source) = skinlab::io::load_document(&path).unwrap();
    let mut s = EditorState::with_document(model, source, "arm.glb");
    s.files.model_path = Some(path.clone());
    (path, s)
}

/// The editor on the built-in demo arm.
pub fn harness(dialogs: Scripted) -> Harness<'static, SkinlabApp> {
    harness_with(EditorState::demo().unwrap(), dialogs)
}

/// The demo arm's elbow: its rotation's angle from rest, degrees.
pub fn elbow_degrees(h: &Harness<'_, SkinlabApp>) -> f64 {
    h.state().state.rotation_of(2).angle_between(glam::DQuat::IDENTITY).to_degrees()
}

/// Selects the elbow in the joint tree and types `degrees` into its Z rotation field, as a user
/// would (one pose edit).
pub fn bend_elbow(h: &mut Harness<'_, SkinlabApp>, degrees: f64) {
    use egui::accesskit::Role;
    h.get_by_label("elbow").click();
    h.run();
    h.get_by_role_and_label(Role::SpinButton, "Rotation Z (°)").set_value_accesskit(degrees);
    h.run();
}

/// A primary-button press (or release) at `pos` with `modifiers` held, then one frame.
pub fn press(h: &mut Harness<'_, SkinlabApp>, pos: egui::Pos2, pressed: bool, modifiers: egui::Modifiers) {
    h.event_modifiers(
        egui::Event::PointerButton { pos, button: egui::PointerButton::Primary, pressed, modifiers },
        modifiers,
    );
    h.step();
}

/// A primary-button drag from `from` to `to` in eight steps, then frames until the editor is idle.
pub fn drag(h: &mut Harness<'_, SkinlabApp>, from: egui::Pos2, to: egui::Pos2) {
    h.event(egui::Event::PointerMoved(from));
    h.step();
    press(h, from, true, egui::Modifiers::NONE);
    for k in 1..=8 {
        h.event(egui::Event::PointerMoved(from + (to - from) * (k as f32 / 8.0)));
        h.step();
    }
    press(h, to, false, egui::Modifiers::NONE);
    h.run();
}

/// Enters paint mode with `joint` selected (through the joint tree and the Pose | Paint switch).
pub fn paint_mode(h: &mut Harness<'_, SkinlabApp>, joint: &str) {
    h.get_by_label(joint).click();
    h.run();
    h.get_by_label("Paint").click();
    h.run();
    assert_eq!(h.state().state.mode, Mode::Paint);
}
