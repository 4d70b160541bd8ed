//! Autosave and recovery in the real editor under Xvfb, driven as an artist would with xdotool:
//! two brush strokes, the process killed with SIGKILL, and the next start restores both strokes
//! (`open --recover`); a clean quit then leaves no recovery file. Needs Xvfb and xdotool
//! (scripts/setup.sh installs them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use skinlab::io::recovery::RecoveryFile;

/// An X server of its own (the display number it chose), killed on drop.
struct Xvfb(Child, String);

impl Xvfb {
    fn start() -> Self {
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb must be installed (bash scripts/setup.sh)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        Self(child, format!(":{}", line.trim()))
    }

    fn xdotool(&self, args: &[&str]) -> String {
        let o = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.1)
            .output()
            .expect("xdotool must be installed (bash scripts/setup.sh)");
        assert!(o.status.success(), "xdotool {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// One brush stroke across the middle of the viewport (where the framed arm lies).
    fn stroke(&self, y: u32) {
        self.xdotool(&["mousemove", "470", &y.to_string()]);
        std::thread::sleep(Duration::from_millis(200));
        self.xdotool(&["mousedown", "1"]);
        for x in (490..=690).step_by(20) {
            self.xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
            std::thread::sleep(Duration::from_millis(40));
        }
        self.xdotool(&["mouseup", "1"]);
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn skinlab(x: &Xvfb, home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_skinlab"));
    c.args(args)
        .env("DISPLAY", &x.1)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("SKINLAB_FILE_DIALOG", "builtin");
    c
}

/// Waits until `path` holds a recovery file with `strokes` strokes.
fn wait_for_strokes(path: &Path, strokes: usize) -> RecoveryFile {
    let start = Instant::now();
    loop {
        if let Ok(f) = RecoveryFile::read(path) {
            if f.strokes == strokes {
                return f;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no autosave with {strokes} strokes in {}", path.display());
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn recovery_files(home: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(home.join("data/skinlab/recovery"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[test]
fn a_killed_session_restores_its_strokes_and_a_clean_quit_leaves_no_recovery_file() {
    let home = tempfile::tempdir().unwrap();
    let model = home.path().join("arm.glb");
    std::fs::write(&model, skinlab::demo::demo_glb()).unwrap();
    let x = Xvfb::start();
    let mut editor = skinlab(&x, home.path(), &["open", model.to_str().unwrap(), "--paint", "--select", "elbow"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let window = x.xdotool(&["search", "--sync", "--onlyvisible", "--name", "skinlab"]);
    let window = window.lines().next().unwrap().to_owned();
    x.xdotool(&["windowfocus", &window]);
    std::thread::sleep(Duration::from_secs(2));
    let file = skinlab::io::recovery::session_file(&home.path().join("data/skinlab/recovery"), editor.id());

    x.stroke(390);
    let first = wait_for_strokes(&file, 1);
    x.stroke(410);
    let second = wait_for_strokes(&file, 2);
    assert_eq!(second.model.as_deref(), Some(model.as_path()));
    assert!(second.sections.contains_key("weights"), "no weights were autosaved");
    assert_ne!(first.sections, second.sections, "the second stroke changed nothing");

    // The power goes: SIGKILL, nothing runs on the way out.
    editor.kill().unwrap();
    editor.wait().unwrap();
    assert!(file.exists(), "the recovery file went with the process");

    // The autosaved weights differ from the model's file and apply to it.
    let (mut painted, _) = skinlab::io::load_document(&model).unwrap();
    skinlab::io::weights_file::apply_weights(&second.section_text("weights").unwrap(), &mut painted).unwrap();
    let original = skinlab::io::load_model(&model).unwrap();
    assert_ne!(painted.meshes[0].primitives[0].influences, original.meshes[0].primitives[0].influences);

    // The next start restores both strokes; its clean quit (after the screenshot) removes every file.
    let shot = home.path().join("restored.png");
    let o = skinlab(&x, home.path(), &["open", "--recover", "--screenshot-after-frames", "5", shot.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("restored unsaved work on arm.glb: 2 strokes"), "{err}");
    assert!(recovery_files(home.path()).is_empty(), "left behind: {:?}", recovery_files(home.path()));
}

#[test]
fn a_recovery_file_whose_clip_has_a_channel_without_keys_is_refused_at_start() {
    use skinlab::io::recovery::{session_file, CLIPS};
    let home = tempfile::tempdir().unwrap();
    let model = home.path().join("arm.glb");
    std::fs::write(&model, skinlab::demo::demo_glb()).unwrap();
    // What a crashed session (a pid that no longer runs) left: a clip whose channel has no keys,
    // which sampling indexed out of bounds as soon as the clip was chosen.
    let dir = home.path().join("data/skinlab/recovery");
    std::fs::create_dir_all(&dir).unwrap();
    let mut sections = std::collections::BTreeMap::new();
    sections.insert(
        CLIPS.to_owned(),
        serde_json::json!([{"name": "empty", "channels": [{"node": "elbow", "path": "rotation",
            "interpolation": "LINEAR", "times": [], "values": []}]}]),
    );
    let file = RecoveryFile {
        model: Some(model.clone()),
        model_name: "arm.glb".into(),
        saved_unix_secs: skinlab::io::recovery::now_unix_secs(),
        pid: 4_194_321,
        strokes: 0,
        sections,
    };
    std::fs::write(session_file(&dir, 4_194_321), file.to_json()).unwrap();
    let x = Xvfb::start();
    let shot = home.path().join("refused.png");
    let o = skinlab(
        &x,
        home.path(),
        &["open", "--recover", "--animation", "empty", "--screenshot-after-frames", "5", shot.to_str().unwrap()],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("no keys"), "the refusal is not reported: {err}");
}
