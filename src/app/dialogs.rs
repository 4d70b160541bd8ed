//! File dialogs behind a trait, so tests never open one (rfd would block on a real desktop).
//!
//! Every File-menu item asks through [`FileDialogs::ask`] with a [`FileRequest`]. The native
//! dialog ([`NativeDialogs`], rfd's XDG desktop portal with its zenity fallback) answers where a
//! portal or zenity is there; where none is (plain X11 window managers, minimal installs) the
//! answer is [`Answer::Unavailable`] and the editor opens its own in-window browser
//! (`super::file_browser`) instead: a menu item never does nothing.
//!
//! rfd's portal backend cannot tell "no portal" from "the user cancelled": both return `None`. So
//! the choice is made twice: at start-up from what is installed ([`DialogFacts::probe`],
//! [`choose_backend`]), and at run time a `None` that comes back faster than a person can press
//! Cancel ([`NO_DIALOG_SHOWN`]) counts as "no dialog was shown" and switches to the browser for the
//! rest of the session. rfd's GTK backend was not chosen: it needs libgtk-3-dev to build and GTK at
//! run time, and the portal plus the in-window browser cover the same desktops.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::command::{Command, ExportChoice};

/// What a file dialog is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileRequest {
    /// A model to open (.gltf/.glb/.obj).
    OpenModel,
    /// A pose file to load.
    LoadPose,
    /// Where to save the pose.
    SavePose,
    /// Where to save the model (File ▸ Save as).
    SaveModel,
    /// Where to write the weights file.
    SaveWeights,
    /// Where to export the model with these choices.
    Export(ExportChoice),
    /// Where to write the fitted export for LBS runtimes (`.glb` when true, else `.gltf`).
    ExportForLbs(bool),
    /// A model to transfer weights from (Paint ▸ Transfer weights).
    TransferSource,
}

impl FileRequest {
    /// The dialog's title.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Self::OpenModel => "Open model",
            Self::LoadPose => "Load pose",
            Self::SavePose => "Save pose",
            Self::SaveModel => "Save model as",
            Self::SaveWeights => "Save weights",
            Self::Export(_) => "Export model",
            Self::ExportForLbs(_) => "Export for LBS runtimes",
            Self::TransferSource => "Transfer weights from",
        }
    }

    /// The file type's name and its extensions (the first is added to a typed name without one).
    #[must_use]
    pub fn filter(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Self::OpenModel | Self::TransferSource => ("Model (glTF, FBX, OBJ)", &["glb", "gltf", "fbx", "obj"]),
            Self::LoadPose | Self::SavePose => ("skinlab pose", &["json"]),
            Self::SaveModel => ("glTF model", &["glb", "gltf"]),
            Self::SaveWeights => ("skinlab weights", &["json"]),
            Self::Export(c) if c.glb => ("glTF binary", &["glb"]),
            Self::Export(_) | Self::ExportForLbs(false) => ("glTF", &["gltf"]),
            Self::ExportForLbs(true) => ("glTF binary", &["glb"]),
        }
    }

    /// Whether the dialog picks a file to write (a name can be typed; replacing asks first).
    #[must_use]
    pub fn saves(self) -> bool {
        !matches!(self, Self::OpenModel | Self::LoadPose | Self::TransferSource)
    }

    /// The command that carries out the request on the chosen file.
    #[must_use]
    pub fn command(self, path: PathBuf) -> Command {
        match self {
            Self::OpenModel => Command::OpenModel(path),
            Self::LoadPose => Command::LoadPose(path),
            Self::SavePose => Command::SavePose(path),
            // The browser or the native dialog has already asked before replacing a file; the
            // model's own input file is still confirmed by the editor.
            Self::SaveModel => Command::SaveModel { path, overwrite: false },
            Self::SaveWeights => Command::SaveWeights(path),
            Self::Export(choice) => Command::Export { path, choice, overwrite: false },
            Self::ExportForLbs(_) => {
                Command::LbsExport(crate::app::command::LbsExportCommand::Export { path, overwrite: false })
            }
            Self::TransferSource => Command::WeightTools(crate::app::command::WeightToolCommand::Transfer(
                crate::app::command::TransferSource::File(path),
            )),
        }
    }

    /// Where the dialog starts: the model's folder, and for saves a name from the model's
    /// (`arm.glb` → `arm.glb`, `arm_pose.json`, `arm_weights.json`, `arm_export.glb`,
    /// `arm_lbs.glb`).
    #[must_use]
    pub fn start(self, model_path: Option<&Path>, model_name: &str) -> DialogStart {
        let dir = model_path.and_then(Path::parent).filter(|d| !d.as_os_str().is_empty()).map(Path::to_path_buf);
        let stem = Path::new(model_name).file_stem().map_or_else(|| "model".to_owned(), |s| s.to_string_lossy().into());
        let ext = self.filter().1[0];
        let name = match self {
            Self::OpenModel | Self::LoadPose | Self::TransferSource => None,
            Self::SavePose => Some(format!("{stem}_pose.{ext}")),
            Self::SaveModel => Some(format!("{stem}.{ext}")),
            Self::SaveWeights => Some(format!("{stem}_weights.{ext}")),
            Self::Export(_) => Some(format!("{stem}_export.{ext}")),
            Self::ExportForLbs(_) => Some(format!("{stem}_lbs.{ext}")),
        };
        DialogStart { dir, name }
    }
}

/// Where a dialog opens and the name it proposes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DialogStart {
    /// The folder to show first (`None`: the current directory).
    pub dir: Option<PathBuf>,
    /// The file name proposed by a save dialog.
    pub name: Option<String>,
}

/// A dialog's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The user chose this file.
    Chosen(PathBuf),
    /// The user cancelled.
    Cancelled,
    /// No dialog could be shown: the editor opens its in-window browser.
    Unavailable,
}

/// Asks the user for files.
pub trait FileDialogs {
    /// Asks for a file for `request`, starting at `start`.
    fn ask(&mut self, request: FileRequest, start: &DialogStart) -> Answer;
}

/// A `None` from rfd sooner than this after asking means no dialog was on screen: nobody can see
/// a dialog and press Cancel in a quarter of a second (no portal answers in 4 to 45 ms here).
pub const NO_DIALOG_SHOWN: Duration = Duration::from_millis(250);

/// Native dialogs through rfd (XDG portal, zenity fallback); [`Answer::Unavailable`] once a call
/// shows that no dialog appears, and from then on without asking again.
#[derive(Clone, Copy, Debug, Default)]
pub struct NativeDialogs {
    unavailable: bool,
}

impl NativeDialogs {
    /// What rfd's answer means, given how long it took.
    #[must_use]
    pub fn interpret(picked: Option<PathBuf>, took: Duration) -> Answer {
        match picked {
            Some(p) => Answer::Chosen(p),
            None if took < NO_DIALOG_SHOWN => Answer::Unavailable,
            None => Answer::Cancelled,
        }
    }
}

impl FileDialogs for NativeDialogs {
    fn ask(&mut self, request: FileRequest, start: &DialogStart) -> Answer {
        if self.unavailable {
            return Answer::Unavailable;
        }
        let (name, exts) = request.filter();
        let mut d = rfd::FileDialog::new().add_filter(name, exts).set_title(request.title());
        if let Some(dir) = &start.dir {
            d = d.set_directory(dir);
        }
        if let Some(file) = &start.name {
            d = d.set_file_name(file);
        }
        let asked = Instant::now();
        let picked = if request.saves() { d.save_file() } else { d.pick_file() };
        let answer = Self::interpret(picked, asked.elapsed());
        self.unavailable = answer == Answer::Unavailable;
        answer
    }
}

/// Always the in-window browser (no desktop dialog here, or `SKINLAB_FILE_DIALOG=builtin`).
#[derive(Clone, Copy, Debug, Default)]
pub struct InWindowDialogs;

impl FileDialogs for InWindowDialogs {
    fn ask(&mut self, _request: FileRequest, _start: &DialogStart) -> Answer {
        Answer::Unavailable
    }
}

/// Dialogs that never ask: every call is cancelled (for scripted runs).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoDialogs;

impl FileDialogs for NoDialogs {
    fn ask(&mut self, _request: FileRequest, _start: &DialogStart) -> Answer {
        Answer::Cancelled
    }
}

/// Which dialogs the editor uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The desktop's dialogs through rfd (still falling back at run time).
    Native,
    /// The in-window browser.
    InWindow,
}

/// What start-up found out about the desktop's file dialogs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DialogFacts {
    /// `SKINLAB_FILE_DIALOG` (`native` or `builtin`), if set.
    pub forced: Option<String>,
    /// A D-Bus session bus is reachable (the portal lives there).
    pub session_bus: bool,
    /// Whether `org.freedesktop.portal.Desktop` is running or activatable (`None`: unknown, no
    /// `dbus-send` to ask with).
    pub portal: Option<bool>,
    /// `zenity` is on the PATH (rfd's fallback when the portal does not answer).
    pub zenity: bool,
}

impl DialogFacts {
    /// Looks at the environment: the session bus, the portal's name on it, zenity.
    #[must_use]
    pub fn probe() -> Self {
        let forced = std::env::var("SKINLAB_FILE_DIALOG").ok().filter(|s| !s.is_empty());
        let session_bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|s| !s.is_empty())
            || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| Path::new(&d).join("bus").exists());
        let portal = if session_bus { portal_on_bus() } else { Some(false) };
        Self { forced, session_bus, portal, zenity: on_path("zenity") }
    }
}

/// Whether the portal's bus name is owned or activatable, asked with `dbus-send` (`None` when it
/// cannot be asked).
fn portal_on_bus() -> Option<bool> {
    let mut found = false;
    for method in ["ListNames", "ListActivatableNames"] {
        let out = std::process::Command::new("dbus-send")
            .args([
                "--session",
                "--print-reply",
                "--reply-timeout=1000",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                &format!("org.freedesktop.DBus.{method}"),
            ])
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        found |= String::from_utf8_lossy(&out.stdout).contains("\"org.freedesktop.portal.Desktop\"");
    }
    Some(found)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// The dialogs to use: forced by `SKINLAB_FILE_DIALOG`, else native where a portal or zenity can
/// answer (or the portal cannot be asked about), else the in-window browser.
#[must_use]
pub fn choose_backend(facts: &DialogFacts) -> Backend {
    match facts.forced.as_deref() {
        Some("builtin") => return Backend::InWindow,
        Some("native") => return Backend::Native,
        _ => {}
    }
    if facts.zenity || (facts.session_bus && facts.portal != Some(false)) {
        Backend::Native
    } else {
        Backend::InWindow
    }
}

/// The dialogs for `backend`.
#[must_use]
pub fn dialogs_for(backend: Backend) -> Box<dyn FileDialogs> {
    match backend {
        Backend::Native => Box::new(NativeDialogs::default()),
        Backend::InWindow => Box::new(InWindowDialogs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_portal_or_zenity_the_in_window_browser_is_chosen() {
        let none = DialogFacts { session_bus: true, portal: Some(false), ..DialogFacts::default() };
        assert_eq!(choose_backend(&none), Backend::InWindow);
        assert_eq!(choose_backend(&DialogFacts::default()), Backend::InWindow);
        let portal = DialogFacts { session_bus: true, portal: Some(true), ..DialogFacts::default() };
        assert_eq!(choose_backend(&portal), Backend::Native);
        let unknown = DialogFacts { session_bus: true, portal: None, ..DialogFacts::default() };
        assert_eq!(choose_backend(&unknown), Backend::Native);
        assert_eq!(choose_backend(&DialogFacts { zenity: true, ..DialogFacts::default() }), Backend::Native);
        let forced = DialogFacts { forced: Some("builtin".into()), ..portal };
        assert_eq!(choose_backend(&forced), Backend::InWindow);
    }

    #[test]
    fn an_instant_none_means_no_dialog_was_shown() {
        assert_eq!(NativeDialogs::interpret(None, Duration::from_millis(6)), Answer::Unavailable);
        assert_eq!(NativeDialogs::interpret(None, Duration::from_secs(3)), Answer::Cancelled);
        let p = PathBuf::from("/m/a.glb");
        assert_eq!(NativeDialogs::interpret(Some(p.clone()), Duration::ZERO), Answer::Chosen(p));
    }

    #[test]
    fn save_dialogs_start_in_the_models_folder_with_its_name() {
        let path = Path::new("/work/models/fox.glb");
        let s = FileRequest::SaveModel.start(Some(path), "fox.glb");
        assert_eq!(s, DialogStart { dir: Some("/work/models".into()), name: Some("fox.glb".into()) });
        let e =
            FileRequest::Export(ExportChoice { glb: false, ..ExportChoice::default() }).start(Some(path), "fox.glb");
        assert_eq!(e.name.as_deref(), Some("fox_export.gltf"));
        assert_eq!(FileRequest::SavePose.start(None, "demo_arm.glb").name.as_deref(), Some("demo_arm_pose.json"));
        assert_eq!(FileRequest::OpenModel.start(Some(path), "fox.glb").name, None);
    }
}
