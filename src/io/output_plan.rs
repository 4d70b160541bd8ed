//! The files a command reads and the files it writes, checked against each other before any work
//! is done, so that no write can replace something it should not:
//! - every output is a new path or an existing regular file (never a device, a FIFO, a socket or a
//!   directory, which a rename would replace with a regular file);
//! - no output is a file the command reads (its model, the model's external buffers and images,
//!   pose and weights files), compared by canonical path and by device and inode, so that another
//!   name of the same file (a symbolic or hard link) is caught too;
//! - no two outputs are the same file.
//!
//! Outputs written together are staged first and renamed into place only when every one of them
//! is complete ([`StagedSet`]), so a failure leaves every old file as it was.

use std::path::{Path, PathBuf};

use super::atomic_write::{existing_target, StagedFile};

/// What identifies a file on disk: its canonical path, and its device and inode where it exists.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileId {
    canonical: PathBuf,
    inode: Option<(u64, u64)>,
}

impl FileId {
    /// The identity of `path`, which may not exist yet (then its folder's canonical path and its
    /// name).
    fn of(path: &Path) -> Self {
        let canonical = path.canonicalize().unwrap_or_else(|_| {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
            path.file_name().map_or(dir.clone(), |name| dir.join(name))
        });
        Self { canonical, inode: inode(path) }
    }

    fn same_file(&self, other: &Self) -> bool {
        self.canonical == other.canonical || (self.inode.is_some() && self.inode == other.inode)
    }
}

#[cfg(unix)]
fn inode(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn inode(_: &Path) -> Option<(u64, u64)> {
    None
}

/// A file read by a command: what it is (for messages) and its identity.
#[derive(Debug)]
struct Input {
    role: String,
    path: PathBuf,
    id: FileId,
    /// Writing over it is allowed with `--force` (the model's own files, for commands that have it).
    forcible: bool,
}

/// The inputs and outputs of one command; [`OutputPlan::check`] refuses a plan in which a write
/// would replace an input, another output or something that is not a regular file.
#[derive(Debug, Default)]
pub struct OutputPlan {
    inputs: Vec<Input>,
    outputs: Vec<(String, PathBuf, FileId)>,
}

impl OutputPlan {
    /// An empty plan.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a file the command reads, named `role` in messages ("the model", "the pose file").
    pub fn read(&mut self, role: &str, path: &Path) -> &mut Self {
        self.inputs.push(Input {
            role: role.to_owned(),
            path: path.to_path_buf(),
            id: FileId::of(path),
            forcible: false,
        });
        self
    }

    /// Records a model file and every external file it uses (`files`, the model first; `role`
    /// names it: "the model"), which `--force` may allow to be written over where the command has
    /// that option.
    pub fn read_model(&mut self, role: &str, files: &[PathBuf]) -> &mut Self {
        for (i, path) in files.iter().enumerate() {
            let role = if i == 0 { role.to_owned() } else { format!("a file {role} uses") };
            self.inputs.push(Input { role, path: path.clone(), id: FileId::of(path), forcible: true });
        }
        self
    }

    /// Records an output given by option `flag` (e.g. `--out`).
    pub fn write(&mut self, flag: &str, path: &Path) -> &mut Self {
        self.outputs.push((flag.to_owned(), path.to_path_buf(), FileId::of(path)));
        self
    }

    /// Checks the plan: every output a regular file or a new path, none an input (unless `force`
    /// and the input is the model's own file), no two the same. The error is one line naming the
    /// output.
    pub fn check(&self, force: bool) -> Result<(), String> {
        for (i, (flag, path, id)) in self.outputs.iter().enumerate() {
            check_writable(path)?;
            for input in &self.inputs {
                if input.id.same_file(id) && !(force && input.forcible) {
                    let hint = if input.forcible { " (use --force)" } else { "" };
                    return Err(format!(
                        "{}: {flag} names {} ({}); refusing to overwrite it{hint}",
                        path.display(),
                        input.role,
                        input.path.display()
                    ));
                }
            }
            if let Some((other, _, _)) = self.outputs[..i].iter().find(|(_, _, o)| o.same_file(id)) {
                return Err(format!("{}: {other} and {flag} name the same file; give each its own", path.display()));
            }
        }
        Ok(())
    }
}

/// Refuses an existing `path` that is not a regular file (after following links): writing would
/// replace a device, a FIFO, a socket or a directory by a regular file.
pub fn check_writable(path: &Path) -> Result<(), String> {
    existing_target(path).map(|_| ()).map_err(|e| format!("{}: {e}", path.display()))
}

/// Files written together: each staged complete beside its target, then all renamed into place.
/// Dropping the set before [`StagedSet::commit`] removes every temporary and leaves every target
/// as it was.
#[derive(Debug, Default)]
pub struct StagedSet {
    files: Vec<StagedFile>,
}

impl StagedSet {
    /// An empty set.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Stages `target`'s new content through `fill`; the error names the target.
    pub fn stage(
        &mut self,
        target: &Path,
        fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<(), String> {
        let staged = StagedFile::write(target, fill).map_err(|e| format!("{}: cannot write: {e}", target.display()))?;
        self.files.push(staged);
        Ok(())
    }

    /// Renames every staged file over its target, in the order staged.
    pub fn commit(self) -> Result<(), String> {
        for staged in self.files {
            let target = staged.target().to_path_buf();
            staged.commit().map_err(|e| format!("{}: cannot write: {e}", target.display()))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_that_are_inputs_or_each_other_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("m.glb");
        let pose = dir.path().join("p.json");
        std::fs::write(&model, "x").unwrap();
        std::fs::write(&pose, "{}").unwrap();
        let link = dir.path().join("hard.glb");
        std::fs::hard_link(&model, &link).unwrap();
        let fresh = dir.path().join("new.obj");

        let mut plan = OutputPlan::new();
        plan.read_model("the model", std::slice::from_ref(&model)).read("the pose file", &pose).write("--out", &fresh);
        assert!(plan.check(false).is_ok());

        let mut plan = OutputPlan::new();
        plan.read_model("the model", std::slice::from_ref(&model)).write("--out", &link);
        let err = plan.check(false).unwrap_err();
        assert!(err.contains("names the model") && err.contains("--force"), "{err}");
        assert!(plan.check(true).is_ok(), "--force allows the model's own file");

        let mut plan = OutputPlan::new();
        plan.read("the pose file", &pose).write("--out", &dir.path().join(".").join("p.json"));
        let err = plan.check(true).unwrap_err();
        assert!(err.contains("the pose file") && !err.contains("--force"), "{err}");

        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let mut plan = OutputPlan::new();
        plan.write("--out", &fresh).write("--obj", &dir.path().join("sub/../new.obj"));
        let err = plan.check(false).unwrap_err();
        assert!(err.contains("--out and --obj name the same file"), "{err}");
    }

    #[test]
    fn special_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = check_writable(dir.path()).unwrap_err();
        assert!(err.contains("a directory"), "{err}");
        #[cfg(unix)]
        {
            let err = check_writable(Path::new("/dev/null")).unwrap_err();
            assert!(err.contains("a device"), "{err}");
        }
        assert!(check_writable(&dir.path().join("new")).is_ok());
    }

    #[test]
    fn a_dropped_set_leaves_the_old_files() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "old a").unwrap();
        let mut set = StagedSet::new();
        set.stage(&a, |w| w.write_all(b"new a")).unwrap();
        let err = set.stage(&b, |_| Err(std::io::Error::other("disk full"))).unwrap_err();
        assert!(err.contains("disk full"));
        drop(set);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporaries left");

        let mut set = StagedSet::new();
        set.stage(&a, |w| w.write_all(b"new a")).unwrap();
        set.stage(&b, |w| w.write_all(b"new b")).unwrap();
        set.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "new b");
    }
}
