//! The File menu and everything behind it: asking for files (the desktop's dialog, or the
//! in-window browser where none answers), File ▸ Open Recent, and the recent-file list kept up
//! to date with what was opened and saved.

use std::path::PathBuf;

use eframe::egui;

use super::command::{Command, ExportChoice};
use super::dialogs::{Answer, FileDialogs, FileRequest};
use super::emulate_job::LbsExportChoice;
use super::file_browser::{BrowserOutcome, FileBrowser};
use super::recent::RecentFiles;
use super::state::{EditorState, Message};

/// The file dialogs, the browser while it is open, and the recent-file list.
pub struct Files {
    dialogs: Box<dyn FileDialogs>,
    /// The in-window browser while it is open.
    pub browser: Option<FileBrowser>,
    /// File ▸ Open Recent.
    pub recent: RecentFiles,
    seen: (u64, Option<PathBuf>),
    /// The folder of the file last chosen in a dialog or the browser: where the next Open starts.
    last_dir: Option<PathBuf>,
}

impl Files {
    /// Asking through `dialogs`, with `recent` as the list.
    #[must_use]
    pub fn new(dialogs: Box<dyn FileDialogs>, recent: RecentFiles) -> Self {
        Self { dialogs, browser: None, recent, seen: (0, None), last_dir: None }
    }

    /// Asks for a file for `request`: the command to run when one was chosen; where no dialog
    /// can be shown, the in-window browser opens (and answers in a later frame). A dialog that
    /// opens a file starts in the folder last chosen from (else the model's); one that saves
    /// starts in the model's folder with a name made from the model's.
    pub fn ask(&mut self, request: FileRequest, state: &EditorState) -> Option<Command> {
        let shown = if request == FileRequest::SaveModel { state.files.save_path.as_ref() } else { None };
        let mut start =
            request.start(shown.or(state.files.model_path.as_ref()).map(PathBuf::as_path), &state.doc.model_name);
        if !request.saves() && self.last_dir.is_some() {
            start.dir.clone_from(&self.last_dir);
        }
        match self.dialogs.ask(request, &start) {
            Answer::Chosen(path) => {
                self.chose(&path);
                Some(request.command(path))
            }
            Answer::Cancelled => None,
            Answer::Unavailable => {
                self.browser = Some(FileBrowser::new(request, &start));
                None
            }
        }
    }

    /// File ▸ Save: writes to the last saved path, or asks for one.
    pub fn save(&mut self, state: &EditorState) -> Option<Command> {
        match &state.files.save_path {
            Some(path) => Some(Command::SaveModel { path: path.clone(), overwrite: false }),
            None => self.ask(FileRequest::SaveModel, state),
        }
    }

    /// The File menu's items; `export_window` opens the Export window, `lbs_window` the Export
    /// for LBS runtimes window.
    pub fn menu_ui(
        &mut self,
        ui: &mut egui::Ui,
        state: &EditorState,
        export_window: &mut Option<ExportChoice>,
        lbs_window: &mut Option<LbsExportChoice>,
    ) -> Vec<Command> {
        let mut cmds = Vec::new();
        cmds.extend(self.item(ui, "Open model…", FileRequest::OpenModel, state));
        let mut reopen = None;
        let mut clear = false;
        ui.menu_button("Open Recent", |ui| {
            if self.recent.items().is_empty() {
                ui.weak("(nothing opened yet)");
            }
            for p in self.recent.items() {
                let name = p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into());
                let r = ui.add_enabled(p.exists(), egui::Button::new(name));
                if r.on_hover_text(p.display().to_string()).clicked() {
                    reopen = Some(p.clone());
                    ui.close();
                }
            }
            ui.separator();
            if ui.add_enabled(!self.recent.items().is_empty(), egui::Button::new("Clear the list")).clicked() {
                clear = true;
                ui.close();
            }
        });
        if ui.button("Save (Ctrl+S)").clicked() {
            ui.close();
            cmds.extend(self.save(state));
        }
        cmds.extend(self.item(ui, "Save as…", FileRequest::SaveModel, state));
        cmds.extend(self.item(ui, "Save weights…", FileRequest::SaveWeights, state));
        if ui.button("Export…").clicked() {
            *export_window = Some(ExportChoice::default());
            ui.close();
        }
        let skinned = !state.doc.model.instances.is_empty();
        let lbs = ui.add_enabled(skinned, egui::Button::new("Export for LBS runtimes…"));
        if lbs.on_hover_text("helper joints so that any glTF player shows SBS, DQS or continuous SBS").clicked() {
            lbs_window.get_or_insert_with(LbsExportChoice::default);
            ui.close();
        }
        ui.separator();
        cmds.extend(self.item(ui, "Load pose…", FileRequest::LoadPose, state));
        cmds.extend(self.item(ui, "Save pose…", FileRequest::SavePose, state));
        if ui.button("Quit").clicked() {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
        cmds.extend(reopen.map(Command::OpenModel));
        if clear {
            let _ = self.recent.clear();
        }
        cmds
    }

    /// A menu item that asks for a file for `request`.
    fn item(&mut self, ui: &mut egui::Ui, label: &str, request: FileRequest, state: &EditorState) -> Option<Command> {
        if ui.button(label).clicked() {
            ui.close();
            return self.ask(request, state);
        }
        None
    }

    /// The browser window while it is open: the command for the chosen file.
    pub fn browser_ui(&mut self, ctx: &egui::Context) -> Option<Command> {
        let browser = self.browser.as_mut()?;
        match browser.ui(ctx) {
            BrowserOutcome::Open => None,
            BrowserOutcome::Cancelled => {
                self.browser = None;
                None
            }
            BrowserOutcome::Chosen(path) => {
                let request = browser.request;
                self.browser = None;
                self.chose(&path);
                Some(request.command(path))
            }
        }
    }

    /// Remembers the folder of a chosen file.
    fn chose(&mut self, path: &std::path::Path) {
        self.last_dir = path.parent().filter(|d| !d.as_os_str().is_empty()).map(std::path::Path::to_path_buf);
    }

    /// Adds newly opened and saved files to the recent list (call after the commands ran). A new
    /// model is told by `geometry_rev`: edits of the open one (every frame of a joint drag bumps
    /// `model_rev`) write nothing.
    pub fn note(&mut self, state: &mut EditorState) {
        let now = (state.doc.geometry_rev, state.files.save_path.clone());
        if now == self.seen {
            return;
        }
        let (old_rev, old_save) = std::mem::replace(&mut self.seen, now);
        let mut added = Vec::new();
        if old_rev != state.doc.geometry_rev {
            added.extend(state.files.model_path.clone());
        }
        if old_save != state.files.save_path {
            added.extend(state.files.save_path.clone());
        }
        for p in added {
            if let Err(e) = self.recent.add(&p) {
                state.message = Some(Message { text: e, is_error: true });
            }
        }
    }
}
