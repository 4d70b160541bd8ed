//! The user's own folders for skinlab (XDG base directories): settings such as the recent-file
//! list under the config folder, recovery files under the data folder, never beside a model.

use std::path::PathBuf;

/// skinlab's folders in the user's config and data directories (`None` where neither the XDG
/// variable nor `HOME` says where).
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
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let xdg = |var: &str, fallback: &str| {
            std::env::var_os(var)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .or_else(|| home.as_ref().map(|h| h.join(fallback)))
                .map(|d| d.join("skinlab"))
        };
        Self { config: xdg("XDG_CONFIG_HOME", ".config"), data: xdg("XDG_DATA_HOME", ".local/share") }
    }

    /// Where recovery files are kept.
    #[must_use]
    pub fn recovery(&self) -> Option<PathBuf> {
        self.data.as_ref().map(|d| d.join("recovery"))
    }
}
