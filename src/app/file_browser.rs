//! The in-window file browser, used where no desktop dialog answers: a folder path to type or go
//! up from, the folder's sub-folders and the files of the request's type (or all files), a file
//! name field, and for saves a question before replacing an existing file.

use std::path::{Path, PathBuf};

use eframe::egui;

use super::dialogs::{DialogStart, FileRequest};

/// One row of the listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The file or folder name.
    pub name: String,
    /// Whether it is a folder.
    pub is_dir: bool,
}

/// A folder's sub-folders, then its files whose extension is in `extensions` (all files when
/// empty), each group sorted by name case-insensitively; hidden entries are left out.
pub fn list_dir(dir: &Path, extensions: &[&str]) -> Result<Vec<Entry>, String> {
    let read = std::fs::read_dir(dir).map_err(|e| format!("{}: cannot list the folder: {e}", dir.display()))?;
    let mut entries: Vec<Entry> = read
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.path().is_dir();
            let ext = Path::new(&name).extension().map(|x| x.to_string_lossy().to_ascii_lowercase());
            let shown = !name.starts_with('.')
                && (is_dir || extensions.is_empty() || ext.is_some_and(|x| extensions.contains(&x.as_str())));
            shown.then_some(Entry { name, is_dir })
        })
        .collect();
    entries.sort_by_key(|e| (!e.is_dir, e.name.to_lowercase()));
    Ok(entries)
}

/// The file a typed `name` means in `dir`: absolute names stand, `~/` is the home folder, and a
/// save without one of `extensions` gets the first.
#[must_use]
pub fn resolve_name(dir: &Path, name: &str, extensions: &[&str], saves: bool) -> PathBuf {
    let name = name.trim();
    let path = match (name.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => dir.join(name),
    };
    let has_ext =
        path.extension().is_some_and(|x| extensions.iter().any(|e| x.to_string_lossy().eq_ignore_ascii_case(e)));
    match extensions.first() {
        Some(first) if saves && !has_ext => {
            let mut s = path.into_os_string();
            s.push(format!(".{first}"));
            PathBuf::from(s)
        }
        _ => path,
    }
}

/// What the browser did this frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrowserOutcome {
    /// Still open.
    Open,
    /// A file was chosen (for saves: replacing it was confirmed).
    Chosen(PathBuf),
    /// Cancelled.
    Cancelled,
}

/// The browser window's state while it is open.
#[derive(Clone, Debug)]
pub struct FileBrowser {
    /// What it was opened for.
    pub request: FileRequest,
    dir: PathBuf,
    dir_text: String,
    name: String,
    all_files: bool,
    entries: Vec<Entry>,
    error: Option<String>,
    confirm_replace: Option<PathBuf>,
}

impl FileBrowser {
    /// A browser for `request`, showing `start`'s folder (else the current one) and name.
    #[must_use]
    pub fn new(request: FileRequest, start: &DialogStart) -> Self {
        let dir = start
            .dir
            .clone()
            .filter(|d| d.is_dir())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let mut b = Self {
            request,
            dir_text: String::new(),
            dir: PathBuf::new(),
            name: start.name.clone().unwrap_or_default(),
            all_files: false,
            entries: Vec::new(),
            error: None,
            confirm_replace: None,
        };
        b.go_to(dir);
        b
    }

    /// The folder shown.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn extensions(&self) -> &'static [&'static str] {
        if self.all_files {
            &[]
        } else {
            self.request.filter().1
        }
    }

    fn go_to(&mut self, dir: PathBuf) {
        let dir = dir.canonicalize().unwrap_or(dir);
        match list_dir(&dir, self.extensions()) {
            Ok(entries) => {
                self.entries = entries;
                self.dir = dir;
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
        self.dir_text = self.dir.display().to_string();
    }

    /// Accepts the typed name: a folder is entered, a file is chosen (a save asks before
    /// replacing one).
    fn accept(&mut self) -> BrowserOutcome {
        if self.name.trim().is_empty() {
            self.error = Some("type a file name or pick a file".into());
            return BrowserOutcome::Open;
        }
        let saves = self.request.saves();
        let raw = resolve_name(&self.dir, &self.name, &[], false);
        if raw.is_dir() {
            self.name.clear();
            self.go_to(raw);
            return BrowserOutcome::Open;
        }
        let path = resolve_name(&self.dir, &self.name, self.request.filter().1, saves);
        if saves {
            if path.parent().is_some_and(|p| !p.is_dir()) {
                self.error = Some(format!("{}: no such folder", path.parent().unwrap_or(&path).display()));
                return BrowserOutcome::Open;
            }
            if path.exists() && self.confirm_replace.as_ref() != Some(&path) {
                self.confirm_replace = Some(path);
                return BrowserOutcome::Open;
            }
        } else if !path.is_file() {
            self.error = Some(format!("{}: no such file", path.display()));
            return BrowserOutcome::Open;
        }
        BrowserOutcome::Chosen(path)
    }

    /// Draws the browser window.
    pub fn ui(&mut self, ctx: &egui::Context) -> BrowserOutcome {
        let mut outcome = BrowserOutcome::Open;
        let mut open = true;
        let verb = if self.request.saves() { "Save" } else { "Open" };
        egui::Window::new(self.request.title())
            .collapsible(false)
            .resizable(true)
            .default_size([560.0, 420.0])
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .open(&mut open)
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    if ui.button("Up").on_hover_text("The parent folder").clicked() {
                        if let Some(parent) = self.dir.parent().map(Path::to_path_buf) {
                            self.go_to(parent);
                        }
                    }
                    let l = ui.label("Folder");
                    let r = ui
                        .add(egui::TextEdit::singleline(&mut self.dir_text).desired_width(f32::INFINITY))
                        .labelled_by(l.id);
                    if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                        self.go_to(PathBuf::from(self.dir_text.trim()));
                    }
                });
                ui.separator();
                let list_height = (ui.available_height() - 90.0).max(120.0);
                let mut enter = None;
                let mut choose = false;
                egui::ScrollArea::vertical().max_height(list_height).auto_shrink([false, false]).show(ui, |ui| {
                    for e in &self.entries {
                        let text = if e.is_dir { format!("{}/", e.name) } else { e.name.clone() };
                        let r = ui.selectable_label(!e.is_dir && self.name == e.name, text);
                        if e.is_dir && (r.double_clicked() || r.clicked()) {
                            enter = Some(self.dir.join(&e.name));
                        } else if r.double_clicked() {
                            self.name.clone_from(&e.name);
                            choose = true;
                        } else if r.clicked() {
                            self.name.clone_from(&e.name);
                            self.confirm_replace = None;
                        }
                    }
                    if self.entries.is_empty() {
                        ui.weak("(no folders or matching files here)");
                    }
                });
                if let Some(dir) = enter {
                    self.go_to(dir);
                }
                ui.separator();
                ui.horizontal(|ui| {
                    let l = ui.label("File name");
                    let r = ui.add(egui::TextEdit::singleline(&mut self.name).desired_width(300.0)).labelled_by(l.id);
                    if r.changed() {
                        self.confirm_replace = None;
                    }
                    if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                        choose = true;
                    }
                    let (kind, exts) = self.request.filter();
                    let before = self.all_files;
                    let typed = format!("{kind} (*.{})", exts.join(", *."));
                    let l = ui.label("Type");
                    egui::ComboBox::from_id_salt("file_type")
                        .selected_text(if self.all_files { "All files".to_owned() } else { typed.clone() })
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut self.all_files, false, typed);
                            ui.selectable_value(&mut self.all_files, true, "All files");
                        })
                        .response
                        .labelled_by(l.id);
                    if before != self.all_files {
                        self.go_to(self.dir.clone());
                    }
                });
                if let Some(p) = &self.confirm_replace {
                    ui.colored_label(
                        egui::Color32::from_rgb(255, 200, 90),
                        format!("{} already exists. Replace it?", p.display()),
                    );
                }
                if let Some(e) = &self.error {
                    ui.add(
                        egui::Label::new(egui::RichText::new(e).color(egui::Color32::from_rgb(255, 110, 100))).wrap(),
                    );
                }
                ui.horizontal(|ui| {
                    let label = if self.confirm_replace.is_some() { "Replace" } else { verb };
                    if ui.button(label).clicked() {
                        choose = true;
                    }
                    if ui.button("Cancel").clicked() {
                        outcome = BrowserOutcome::Cancelled;
                    }
                });
                if choose && outcome == BrowserOutcome::Open {
                    outcome = self.accept();
                }
            });
        if !open {
            outcome = BrowserOutcome::Cancelled;
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_puts_folders_first_and_filters_by_extension() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["b.glb", "A.gltf", "notes.txt", ".hidden.glb"] {
            std::fs::write(dir.path().join(f), b"x").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let names = |exts: &[&str]| -> Vec<String> {
            list_dir(dir.path(), exts).unwrap().into_iter().map(|e| e.name).collect()
        };
        assert_eq!(names(&["glb", "gltf"]), ["sub", "A.gltf", "b.glb"]);
        assert_eq!(names(&[]), ["sub", "A.gltf", "b.glb", "notes.txt"]);
        assert!(list_dir(&dir.path().join("missing"), &[]).unwrap_err().contains("cannot list"));
    }

    #[test]
    fn a_typed_save_name_gets_the_extension() {
        let d = Path::new("/m");
        assert_eq!(resolve_name(d, "arm", &["glb", "gltf"], true), Path::new("/m/arm.glb"));
        assert_eq!(resolve_name(d, "arm.GLTF", &["glb", "gltf"], true), Path::new("/m/arm.GLTF"));
        assert_eq!(resolve_name(d, "/x/y.json", &["json"], true), Path::new("/x/y.json"));
        assert_eq!(resolve_name(d, "arm", &["glb"], false), Path::new("/m/arm"));
    }
}
