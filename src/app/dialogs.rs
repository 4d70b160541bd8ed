//! File dialogs behind a trait, so tests never open one (rfd would block on a real desktop). The
//! editor uses [`RfdDialogs`]; tests pass a scripted implementation.

use std::path::PathBuf;

/// Asks the user for files.
pub trait FileDialogs {
    /// A model to open (.gltf/.glb), or `None` when cancelled.
    fn open_model(&mut self) -> Option<PathBuf>;
    /// A pose file to load, or `None`.
    fn open_pose(&mut self) -> Option<PathBuf>;
    /// Where to save a pose file, or `None`.
    fn save_pose(&mut self) -> Option<PathBuf>;
    /// Where to save the model (.glb/.gltf), or `None`.
    fn save_model(&mut self) -> Option<PathBuf> {
        None
    }
    /// Where to write a weights file (.json), or `None`.
    fn save_weights(&mut self) -> Option<PathBuf> {
        None
    }
    /// Where to export the model, as a file ending in `extension` ("glb" or "gltf"), or `None`.
    fn export_model(&mut self, extension: &str) -> Option<PathBuf> {
        let _ = extension;
        None
    }
}

/// Native dialogs through rfd (XDG portal on Linux; `None` when no portal answers).
#[derive(Clone, Copy, Debug, Default)]
pub struct RfdDialogs;

impl FileDialogs for RfdDialogs {
    fn open_model(&mut self) -> Option<PathBuf> {
        rfd::FileDialog::new()
            .add_filter("Model (glTF, OBJ)", &["gltf", "glb", "obj"])
            .set_title("Open model")
            .pick_file()
    }

    fn open_pose(&mut self) -> Option<PathBuf> {
        rfd::FileDialog::new().add_filter("skinlab pose", &["json"]).set_title("Load pose").pick_file()
    }

    fn save_pose(&mut self) -> Option<PathBuf> {
        rfd::FileDialog::new()
            .add_filter("skinlab pose", &["json"])
            .set_title("Save pose")
            .set_file_name("pose.json")
            .save_file()
    }

    fn save_model(&mut self) -> Option<PathBuf> {
        rfd::FileDialog::new()
            .add_filter("glTF model", &["glb", "gltf"])
            .set_title("Save model")
            .set_file_name("model.glb")
            .save_file()
    }

    fn save_weights(&mut self) -> Option<PathBuf> {
        rfd::FileDialog::new()
            .add_filter("skinlab weights", &["json"])
            .set_title("Save weights")
            .set_file_name("weights.json")
            .save_file()
    }

    fn export_model(&mut self, extension: &str) -> Option<PathBuf> {
        rfd::FileDialog::new()
            .add_filter("glTF model", &[extension])
            .set_title("Export model")
            .set_file_name(format!("export.{extension}"))
            .save_file()
    }
}

/// Dialogs that never ask: every call returns `None` (for tests and scripted runs).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoDialogs;

impl FileDialogs for NoDialogs {
    fn open_model(&mut self) -> Option<PathBuf> {
        None
    }
    fn open_pose(&mut self) -> Option<PathBuf> {
        None
    }
    fn save_pose(&mut self) -> Option<PathBuf> {
        None
    }
}
