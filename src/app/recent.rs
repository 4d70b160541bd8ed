//! File ▸ Open Recent: the models opened or saved last, newest first, kept in the user's config
//! folder (`recent.txt`, one path a line) so that the list survives restarts.

use std::path::{Path, PathBuf};

/// At most this many entries are kept.
pub const MAX_RECENT: usize = 10;

/// The recent-file list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecentFiles {
    file: Option<PathBuf>,
    items: Vec<PathBuf>,
}

impl RecentFiles {
    /// The list stored in `config_dir` (empty when there is none or it cannot be read; `None`:
    /// kept for this session only).
    #[must_use]
    pub fn load(config_dir: Option<&Path>) -> Self {
        let file = config_dir.map(|d| d.join("recent.txt"));
        let items = file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .map(|text| text.lines().filter(|l| !l.trim().is_empty()).map(PathBuf::from).take(MAX_RECENT).collect())
            .unwrap_or_default();
        Self { file, items }
    }

    /// The entries, newest first.
    #[must_use]
    pub fn items(&self) -> &[PathBuf] {
        &self.items
    }

    /// Puts `path` first (absolute), drops the oldest beyond [`MAX_RECENT`] and stores the list;
    /// an error names the list file.
    pub fn add(&mut self, path: &Path) -> Result<(), String> {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.items.retain(|p| p != &path);
        self.items.insert(0, path);
        self.items.truncate(MAX_RECENT);
        self.store()
    }

    /// Empties the list.
    pub fn clear(&mut self) -> Result<(), String> {
        self.items.clear();
        self.store()
    }

    fn store(&self) -> Result<(), String> {
        let Some(file) = &self.file else { return Ok(()) };
        let text: String = self.items.iter().map(|p| format!("{}\n", p.display())).collect();
        file.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::io::atomic_write(file, |w| w.write_all(text.as_bytes())))
            .map_err(|e| format!("{}: cannot write the recent-file list: {e}", file.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_without_duplicates_and_kept_across_restarts() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("cfg");
        let mut r = RecentFiles::load(Some(&cfg));
        assert!(r.items().is_empty());
        for i in 0..12 {
            r.add(Path::new(&format!("/m/{i}.glb"))).unwrap();
        }
        r.add(Path::new("/m/5.glb")).unwrap();
        assert_eq!(r.items().len(), MAX_RECENT);
        assert_eq!(r.items()[0], Path::new("/m/5.glb"));
        assert_eq!(r.items()[1], Path::new("/m/11.glb"));
        assert_eq!(r.items().iter().filter(|p| p.ends_with("5.glb")).count(), 1);
        assert_eq!(RecentFiles::load(Some(&cfg)), r);
        r.clear().unwrap();
        assert!(RecentFiles::load(Some(&cfg)).items().is_empty());
    }
}
