//! Writes that never leave a partial or clobbered file: write a temporary file beside the target,
//! flush it to disk, then rename it into place.
//!
//! Temporaries are named `.<target name>.skinlab-<pid>-<n>.tmp`, so that they are recognisable
//! and can be traced to their target. A temporary is removed on every error path (also when a
//! [`StagedFile`] is dropped without being committed); one left behind by a killed run (its
//! process is gone) is removed by the next write to the same target.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Marks skinlab's temporary files (between the target's name and the process id).
const TMP_MARK: &str = ".skinlab-";
/// Ends every temporary file's name.
const TMP_SUFFIX: &str = ".tmp";
/// A temporary without a live owner older than this is stale even where processes cannot be
/// checked (no `/proc`).
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(600);

/// A complete, flushed temporary file waiting to be renamed over its target. Dropping it without
/// [`StagedFile::commit`] removes the temporary.
#[derive(Debug)]
pub struct StagedFile {
    tmp: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl StagedFile {
    /// Writes `target`'s new content through `fill` into a fresh temporary beside it and flushes
    /// it to disk; `target` itself is untouched until [`StagedFile::commit`]. Stale temporaries
    /// of `target` from killed runs are removed first. An existing target must be a regular file
    /// (a rename would replace a device or a FIFO by a regular file), and the new file keeps its
    /// permissions.
    pub fn write(target: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let old = existing_target(target).map_err(io::Error::other)?;
        let (dir, name) = dir_and_name(target);
        remove_stale_temporaries(&dir, &name);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}{TMP_MARK}{}-{n}{TMP_SUFFIX}", std::process::id()));
        let file = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        // From here on, dropping `staged` removes the temporary.
        let staged = Self { tmp, target: target.to_path_buf(), committed: false };
        if let Some(permissions) = old {
            file.set_permissions(permissions)?;
        }
        let mut w = BufWriter::new(file);
        fill(&mut w)?;
        let file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        Ok(staged)
    }

    /// The target this file replaces.
    #[must_use]
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the temporary over the target (atomic on one filesystem).
    pub fn commit(mut self) -> io::Result<()> {
        fs::rename(&self.tmp, &self.target)?;
        self.committed = true;
        sync_dir(&self.target);
        Ok(())
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// The permissions of the regular file at `target` (`None` when there is none yet), or the problem
/// (without the path) when `target` is something a rename would replace by a regular file: a
/// device, a FIFO, a socket or a directory.
pub fn existing_target(target: &Path) -> Result<Option<fs::Permissions>, String> {
    match fs::metadata(target) {
        Ok(meta) if !meta.is_file() => {
            Err(format!("is {}, not a regular file: cannot write over it", super::input_file::kind_of(&meta)))
        }
        Ok(meta) => Ok(Some(meta.permissions())),
        Err(_) => Ok(None),
    }
}

/// Writes `path` through `fill`, atomically: on any error the target is untouched and the
/// temporary file is removed.
pub fn atomic_write(path: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    StagedFile::write(path, fill)?.commit()
}

/// The directory (`.` for a bare name) and the file name of `target`.
fn dir_and_name(target: &Path) -> (PathBuf, String) {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    (dir, name)
}

/// Flushes a rename in `file`'s directory to disk (best effort: not every platform can).
fn sync_dir(file: &Path) {
    let (dir, _) = dir_and_name(file);
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Removes temporaries of target `name` in `dir` whose writing process is gone (or, where that
/// cannot be known, that are older than [`STALE_AFTER`]). Another live run's temporary is kept.
fn remove_stale_temporaries(dir: &Path, name: &str) {
    remove_stale_temporaries_of(dir, &|target| target == name);
}

/// Like `remove_stale_temporaries` for every target name that `is_target` accepts (e.g. every
/// content-named buffer of one export destination).
pub fn remove_stale_temporaries_of(dir: &Path, is_target: &dyn Fn(&str) -> bool) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let can_check = Path::new("/proc/self").exists();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some((target, pid)) = file_name.to_str().and_then(parse_temporary) else { continue };
        if !is_target(target) {
            continue;
        }
        let stale = if can_check {
            pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists()
        } else {
            entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_AFTER))
        };
        if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The target name and the writer's pid of a temporary's file name.
fn parse_temporary(file_name: &str) -> Option<(&str, u32)> {
    let rest = file_name.strip_prefix('.')?.strip_suffix(TMP_SUFFIX)?;
    let (target, tail) = rest.rsplit_once(TMP_MARK)?;
    let (pid, n) = tail.split_once('-')?;
    n.parse::<u64>().ok()?;
    Some((target, pid.parse().ok()?))
}

/// The pid field of a temporary's name, for tests that fake a killed run.
#[must_use]
pub fn temporary_name(target_name: &str, pid: u32) -> String {
    format!(".{target_name}{TMP_MARK}{pid}-0{TMP_SUFFIX}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.txt");
        fs::write(&target, "old").unwrap();
        let err = atomic_write(&target, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("disk full"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
        atomic_write(&target, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
    }

    #[test]
    fn a_dropped_stage_leaves_nothing_and_stale_temporaries_go() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("b.bin");
        let staged = StagedFile::write(&target, |w| w.write_all(b"x")).unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        drop(staged);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "temporary removed on drop");
        // A dead process (pids never exceed 2^22 on Linux) and a live one (this process).
        let dead = dir.path().join(temporary_name("b.bin", 4_194_304 + 7));
        let live = dir.path().join(temporary_name("b.bin", std::process::id()).replace("-0.tmp", "-999.tmp"));
        let other = dir.path().join(temporary_name("c.bin", 4_194_311));
        for f in [&dead, &live, &other] {
            fs::write(f, "partial").unwrap();
        }
        atomic_write(&target, |w| w.write_all(b"y")).unwrap();
        assert!(!dead.exists(), "a killed run's temporary is removed");
        assert!(live.exists(), "a live run's temporary is kept");
        assert!(other.exists(), "another target's temporary is kept");
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode_and_special_files_are_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("private.json");
        fs::write(&target, "old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
        atomic_write(&target, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        let err = atomic_write(Path::new("/dev/null"), |w| w.write_all(b"x")).unwrap_err();
        assert!(err.to_string().contains("a device"), "{err}");
        let err = atomic_write(dir.path(), |w| w.write_all(b"x")).unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");
    }
}
