//! The user's own folders for skinlab, as the platform names them (the `directories` crate; on
//! Linux the XDG base directories): settings such as the recent-file list under the config folder,
//! recovery files under the data folder, never beside a model.

use std::path::PathBuf;

/// skinlab's folders in the user's config and data directories (`None` where the platform names
/// no home folder).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserDirs {
    /// `$XDG_CONFIG_HOME/skinlab` (default `~/.config/skinlab`).
    pub config: Option<PathBuf>,
    /// `$XDG_DATA_HOME/skinlab` (default `~/.local/share/skinlab`).
    pub data: Option<PathBuf>,
}

impl UserDirs {
    /// From the environment (relative XDG paths are ignored, as the specification says).
    #[must_use]
    pub fn from_env() -> Self {
        match directories::ProjectDirs::from("", "", "skinlab") {
            Some(p) => Self { config: Some(p.config_dir().to_path_buf()), data: Some(p.data_dir().to_path_buf()) },
            None => Self::default(),
        }
    }

    /// Where recovery files are kept.
    #[must_use]
    pub fn recovery(&self) -> Option<PathBuf> {
        self.data.as_ref().map(|d| d.join("recovery"))
    }
}
