//! Recovery files: the effect of an editor session's unsaved history, written atomically to the
//! user's data folder (never beside the model) so that a crash, a kill or a power cut loses at
//! most the work since the last autosave.
//!
//! ```json
//! {
//!   "format": "skinlab-recovery",
//!   "version": 1,
//!   "model": "/abs/path/arm.glb",        // null: the built-in demo
//!   "model_name": "arm.glb",
//!   "saved_unix_secs": 1764000000,
//!   "pid": 4242,
//!   "strokes": 3,
//!   "sections": {"weights": {..weights file..}, "pose": {..pose file..}, "clips": [..],
//!                "morph_weights": {"Face": [0.5, 0]}}
//! }
//! ```
//! Each kind of edit is one named section holding its own file format (the weights file, the
//! pose file), so a new kind of edit (skeleton edits, keys) adds a section without changing the
//! others; a reader lists the sections it does not know instead of failing. One file per running
//! editor (`session-<pid>.json`); files of processes that are no longer running are offered for
//! restoring, and files that cannot be read are renamed to `*.damaged` and reported.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::atomic_write;

const FORMAT: &str = "skinlab-recovery";
const VERSION: u64 = 1;

/// The weights section (a weights file of the vertices that differ from the model's file).
pub const WEIGHTS: &str = "weights";
/// The pose section (a pose file).
pub const POSE: &str = "pose";
/// The clips section (every clip, `io::clips_json`), written when the clips differ from the
/// model's file (keys set, moved or deleted; clips made).
pub const CLIPS: &str = "clips";
/// The skeleton section, written when the skeleton differs from the model's file: `{"copy":
/// PATH}`, the whole edited model exported beside the recovery file ([`companion`]), written
/// before the file that names it.
pub const SKELETON: &str = "skeleton";
/// The pose's morph-target weights, written when the pose sets any: `{"NODE": [w, ...]}`, the
/// mesh node by its key in the model (as the pose file names joints).
pub const MORPH_WEIGHTS: &str = "morph_weights";

/// The pose's morph-target weights as the [`MORPH_WEIGHTS`] section.
#[must_use]
pub fn morph_weights_to_json(weights: &BTreeMap<usize, Vec<f32>>, tree: &crate::model::NodeTree) -> Value {
    let map: serde_json::Map<String, Value> =
        weights.iter().map(|(&node, w)| (tree.unique_key(node), serde_json::json!(w))).collect();
    Value::Object(map)
}

/// Reads the [`MORPH_WEIGHTS`] section against the model's nodes (one line on error): each
/// mesh node's weights, finite numbers.
pub fn morph_weights_from_json(
    value: &Value,
    tree: &crate::model::NodeTree,
) -> Result<BTreeMap<usize, Vec<f32>>, String> {
    let Value::Object(map) = value else { return Err("the morph weights must be an object".into()) };
    let mut out = BTreeMap::new();
    for (key, list) in map {
        let node = tree.find(key).map_err(|e| format!("morph weights of {key:?}: {e}"))?;
        let Value::Array(items) = list else { return Err(format!("morph weights of {key:?} must be an array")) };
        let weights = items
            .iter()
            .map(|x| {
                x.as_f64()
                    .map(|w| w as f32)
                    .filter(|w| w.is_finite())
                    .ok_or_else(|| format!("morph weights of {key:?} hold {x}, not a finite number"))
            })
            .collect::<Result<Vec<f32>, String>>()?;
        out.insert(node, weights);
    }
    Ok(out)
}

/// Where the edited model of the recovery file `path` is kept while its skeleton differs from the
/// model's file (`session-PID.glb` beside `session-PID.json`).
#[must_use]
pub fn companion(path: &Path) -> PathBuf {
    path.with_extension("glb")
}

/// Removes the recovery file `path` and its companion model, the file first (so that no file
/// ever names a missing model).
pub fn remove_with_companion(path: &Path) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(companion(path));
}

/// One session's unsaved work.
#[derive(Clone, Debug, PartialEq)]
pub struct RecoveryFile {
    /// The model file the work applies to (`None`: the built-in demo).
    pub model: Option<PathBuf>,
    /// The model's name as shown in the title.
    pub model_name: String,
    /// When it was written (seconds since 1970).
    pub saved_unix_secs: u64,
    /// The editor process that wrote it.
    pub pid: u32,
    /// Paint strokes and tool runs in the unsaved history.
    pub strokes: usize,
    /// Each kind of edit's data, by section name ([`WEIGHTS`], [`POSE`], ...).
    pub sections: BTreeMap<String, Value>,
}

impl RecoveryFile {
    /// The file's JSON text (the sections serialised where they are, not copied: at a million
    /// vertices the weights section alone is tens of megabytes).
    #[must_use]
    pub fn to_json(&self) -> String {
        /// The file's fields in their written order.
        #[derive(serde::Serialize)]
        struct Text<'a> {
            format: &'a str,
            version: u64,
            model: Option<String>,
            model_name: &'a str,
            saved_unix_secs: u64,
            pid: u32,
            strokes: usize,
            sections: &'a BTreeMap<String, Value>,
        }
        let text = Text {
            format: FORMAT,
            version: VERSION,
            model: self.model.as_ref().map(|p| p.display().to_string()),
            model_name: &self.model_name,
            saved_unix_secs: self.saved_unix_secs,
            pid: self.pid,
            strokes: self.strokes,
            sections: &self.sections,
        };
        serde_json::to_string(&text).unwrap_or_default()
    }

    /// Parses a recovery file's text (the problem without the path on error).
    pub fn parse(text: &str) -> Result<Self, String> {
        let fields = ["model", "model_name", "saved_unix_secs", "pid", "strokes", "sections"];
        let root = crate::json_header::parse_document(text, FORMAT, VERSION, &fields)?;
        let uint = |key: &str| {
            root.get(key).and_then(Value::as_u64).ok_or_else(|| format!("\"{key}\" must be a non-negative integer"))
        };
        let model = match root.get("model") {
            Some(Value::Null) => None,
            Some(Value::String(s)) if !s.is_empty() => Some(PathBuf::from(s)),
            _ => return Err("\"model\" must be a file path or null".into()),
        };
        let model_name =
            root.get("model_name").and_then(Value::as_str).ok_or("\"model_name\" must be a string")?.to_owned();
        let sections = match root.get("sections") {
            Some(Value::Object(m)) => m.clone().into_iter().collect(),
            _ => return Err("\"sections\" must be an object".into()),
        };
        Ok(Self {
            model,
            model_name,
            saved_unix_secs: uint("saved_unix_secs")?,
            pid: u32::try_from(uint("pid")?).map_err(|_| "\"pid\" is out of range".to_owned())?,
            strokes: usize::try_from(uint("strokes")?).unwrap_or(usize::MAX),
            sections,
        })
    }

    /// Reads and parses `path` (`path: problem` on error).
    pub fn read(path: &Path) -> Result<Self, String> {
        // Only a regular file is read (a FIFO put in the folder would block the start-up scan).
        let text = super::input_file::read_input_text(path, super::input_file::MODEL_CAP)
            .map_err(|e| format!("{}: cannot be read: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Writes the file atomically (creating its folder).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = self.to_json();
        atomic_write(path, |w| w.write_all(text.as_bytes()))
    }

    /// A section as text, for the reader of its own format.
    #[must_use]
    pub fn section_text(&self, name: &str) -> Option<String> {
        self.sections.get(name).map(Value::to_string)
    }

    /// Sections this version does not restore.
    #[must_use]
    pub fn unknown_sections(&self) -> Vec<&str> {
        self.sections
            .keys()
            .map(String::as_str)
            .filter(|k| ![WEIGHTS, POSE, CLIPS, SKELETON, MORPH_WEIGHTS].contains(k))
            .collect()
    }
}

/// The recovery file of the editor process `pid` in `dir`.
#[must_use]
pub fn session_file(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("session-{pid}.json"))
}

/// A recovery file found at start-up.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// Where it is.
    pub path: PathBuf,
    /// What it holds.
    pub file: RecoveryFile,
}

/// The result of looking for recovery files.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scan {
    /// Files left by editors that are no longer running, newest first.
    pub found: Vec<Found>,
    /// One line per unreadable file: the problem and where it was set aside.
    pub damaged: Vec<String>,
}

/// Looks for recovery files in `dir` whose writer is not running (`running(pid)`); unreadable
/// ones are renamed to `*.damaged` (kept for the curious, never offered again) and reported.
#[must_use]
pub fn scan(dir: &Path, running: impl Fn(u32) -> bool) -> Scan {
    let mut out = Scan::default();
    let Ok(read) = std::fs::read_dir(dir) else { return out };
    let entries: Vec<(PathBuf, String)> = read
        .filter_map(Result::ok)
        .map(|e| (e.path(), e.file_name().to_string_lossy().into_owned()))
        .filter(|(_, name)| name.starts_with("session-"))
        .collect();
    let mut paths: Vec<PathBuf> =
        entries.iter().filter(|(_, name)| name.ends_with(".json")).map(|(p, _)| p.clone()).collect();
    paths.sort();
    for path in paths {
        match RecoveryFile::read(&path) {
            Ok(file) if file.pid != std::process::id() && running(file.pid) => {}
            Ok(file) => out.found.push(Found { path, file }),
            Err(problem) => {
                let aside = path.with_extension("json.damaged");
                let note = match std::fs::rename(&path, &aside) {
                    Ok(()) => format!("set aside as {}", aside.display()),
                    Err(e) => format!("could not be set aside: {e}"),
                };
                out.damaged.push(format!("damaged recovery file {problem}; {note}"));
            }
        }
    }
    out.found.sort_by_key(|f| std::cmp::Reverse(f.file.saved_unix_secs));
    remove_orphan_copies(&entries, &running);
    out
}

/// Removes edited-model copies ([`companion`]) among the folder's `session-*` `entries` (path,
/// name) that no recovery file names any more: a write cut off between the copy and its file, by
/// a writer that is not running.
fn remove_orphan_copies(entries: &[(PathBuf, String)], running: &impl Fn(u32) -> bool) {
    for (path, name) in entries {
        let Some(pid) = name.strip_prefix("session-").and_then(|n| n.strip_suffix(".glb")) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        let named = path.with_extension("json").exists() || path.with_extension("json.damaged").exists();
        if pid != std::process::id() && !running(pid) && !named {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Whether process `pid` is running (Linux: `/proc/<pid>/stat` exists and does not say the
/// process has ended, a zombie that its parent has not reaped yet, as a killed editor stays in a
/// container without an init; elsewhere always `false`, so a second editor may offer a running
/// one's file: restoring it is harmless).
#[must_use]
pub fn process_running(pid: u32) -> bool {
    if !cfg!(target_os = "linux") {
        return false;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // "PID (COMM) STATE ...": COMM may hold spaces and parentheses, so the state follows the last ')'.
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

/// Seconds since 1970 now.
#[must_use]
pub fn now_unix_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(pid: u32, secs: u64) -> RecoveryFile {
        let mut sections = BTreeMap::new();
        sections.insert(POSE.to_owned(), serde_json::json!({"format": "skinlab-pose"}));
        sections.insert("keys".to_owned(), serde_json::json!([1, 2]));
        RecoveryFile {
            model: Some("/m/arm.glb".into()),
            model_name: "arm.glb".into(),
            saved_unix_secs: secs,
            pid,
            strokes: 3,
            sections,
        }
    }

    #[test]
    fn round_trip_keeps_every_section() {
        let f = sample(7, 100);
        let back = RecoveryFile::parse(&f.to_json()).unwrap();
        assert_eq!(back, f);
        assert_eq!(back.unknown_sections(), ["keys"]);
        let demo = RecoveryFile { model: None, ..f };
        assert_eq!(RecoveryFile::parse(&demo.to_json()).unwrap().model, None);
    }

    #[test]
    fn scan_offers_dead_sessions_newest_first_and_sets_damaged_files_aside() {
        let dir = tempfile::tempdir().unwrap();
        sample(11, 100).write(&session_file(dir.path(), 11)).unwrap();
        sample(12, 200).write(&session_file(dir.path(), 12)).unwrap();
        sample(13, 300).write(&session_file(dir.path(), 13)).unwrap();
        std::fs::write(session_file(dir.path(), 14), b"{\"format\": \"skinlab-recovery\", trunc").unwrap();
        let s = scan(dir.path(), |pid| pid == 13);
        let pids: Vec<u32> = s.found.iter().map(|f| f.file.pid).collect();
        assert_eq!(pids, [12, 11]);
        assert_eq!(s.damaged.len(), 1);
        assert!(s.damaged[0].contains("session-14.json") && s.damaged[0].contains("set aside"), "{}", s.damaged[0]);
        assert!(dir.path().join("session-14.json.damaged").exists());
        assert!(!session_file(dir.path(), 14).exists());
        // Set aside once: not reported again.
        assert!(scan(dir.path(), |_| false).damaged.is_empty());
    }

    #[test]
    fn a_fifo_in_the_folder_is_set_aside_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = session_file(dir.path(), 31);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let s = scan(dir.path(), |_| false);
        assert!(s.found.is_empty());
        assert_eq!(s.damaged.len(), 1, "{:?}", s.damaged);
        assert!(s.damaged[0].contains("regular file"), "{}", s.damaged[0]);
    }

    #[test]
    fn a_process_that_ended_is_not_running() {
        assert!(process_running(std::process::id()));
        assert!(!process_running(u32::MAX));
        // A child killed and not reaped yet is a zombie: it no longer runs.
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        assert!(process_running(child.id()));
        child.kill().unwrap();
        let stat = format!("/proc/{}/stat", child.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !std::fs::read_to_string(&stat).unwrap_or_default().contains(") Z")
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!process_running(child.id()), "a zombie counts as ended");
        child.wait().unwrap();
        assert!(!process_running(child.id()));
    }

    #[test]
    fn scan_removes_model_copies_no_recovery_file_names() {
        let dir = tempfile::tempdir().unwrap();
        sample(21, 100).write(&session_file(dir.path(), 21)).unwrap();
        for pid in [21, 22, 23] {
            std::fs::write(companion(&session_file(dir.path(), pid)), b"glTF").unwrap();
        }
        let _ = scan(dir.path(), |pid| pid == 23);
        assert!(companion(&session_file(dir.path(), 21)).exists(), "its recovery file names it");
        assert!(!companion(&session_file(dir.path(), 22)).exists(), "an orphan of a dead session");
        assert!(companion(&session_file(dir.path(), 23)).exists(), "its session still runs");
    }
}
