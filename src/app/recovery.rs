//! Autosave and the start-up offer to restore: the editor's unsaved work is written to its
//! recovery file (`io::recovery`) once the user pauses after a change (no stroke or drag in
//! progress for [`IDLE`]) and at the latest [`MAX_UNSAVED`] after the first unwritten change,
//! even while working without pause; a clean save or quit removes the file. The file is made and
//! written on a thread of its own from a snapshot that shares the model (at a million vertices
//! that takes seconds, which the window never waits for). At start-up, files left by editors that
//! did not quit (a crash, a kill, a power cut) are offered for restoring.

use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use eframe::egui;

use super::state::EditorState;
use crate::io::recovery::{self, Found};

/// How long the user must pause before a change is written.
pub const IDLE: Duration = Duration::from_secs(1);
/// The most work (in time) that a crash can lose while the user works without pausing.
pub const MAX_UNSAVED: Duration = Duration::from_secs(30);
/// How soon the editor looks again while a write is due or in progress.
const LOOK_AGAIN: Duration = Duration::from_millis(250);

/// The autosave clock and the recovery files found at start-up.
#[derive(Debug)]
pub struct Autosave {
    file: Option<PathBuf>,
    written_revision: Option<u64>,
    seen_revision: u64,
    last_change: Instant,
    pending_since: Option<Instant>,
    /// The write in progress: its error, if it fails.
    writer: Option<JoinHandle<Result<(), String>>>,
    /// Recovery files of sessions that did not quit, offered until answered.
    pub offered: Vec<Found>,
}

impl Autosave {
    /// Autosave to `dir` (`None`: off) as this process.
    #[must_use]
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self {
            file: dir.map(|d| recovery::session_file(&d, std::process::id())),
            written_revision: None,
            seen_revision: 0,
            last_change: Instant::now(),
            pending_since: None,
            writer: None,
            offered: Vec::new(),
        }
    }

    /// This session's recovery file, if autosave is on.
    #[must_use]
    pub fn file(&self) -> Option<&std::path::Path> {
        self.file.as_deref()
    }

    /// Looks for files to offer; returns one line per damaged file (set aside).
    pub fn scan(&mut self) -> Vec<String> {
        let Some(dir) = self.file.as_ref().and_then(|f| f.parent()) else { return Vec::new() };
        let scan = recovery::scan(dir, recovery::process_running);
        self.offered = scan.found;
        scan.damaged
    }

    /// Called every frame: starts writing the recovery file when it is due (`busy`: a stroke or
    /// drag is in progress), removes it when nothing is unsaved. Returns an error line when a
    /// write failed, and how soon to look again while a write is pending or in progress.
    pub fn tick(&mut self, state: &EditorState, now: Instant, busy: bool) -> (Option<String>, Option<Duration>) {
        let Some(file) = self.file.clone() else { return (None, None) };
        let failed = self.finished_write();
        let revision = state.doc.history.revision();
        if revision != self.seen_revision {
            self.seen_revision = revision;
            self.last_change = now;
        }
        if !state.has_unsaved_work() {
            self.pending_since = None;
            if self.writer.is_some() {
                // Removed once the write in progress has ended.
                return (failed, Some(LOOK_AGAIN));
            }
            if self.written_revision.take().is_some() {
                recovery::remove_with_companion(&file);
            }
            return (failed, None);
        }
        if self.written_revision == Some(revision) {
            return (failed, self.writer.is_some().then_some(LOOK_AGAIN));
        }
        let since = *self.pending_since.get_or_insert(now);
        let idle = now.duration_since(self.last_change) >= IDLE;
        let overdue = now.duration_since(since) >= MAX_UNSAVED;
        if busy || !(idle || overdue) || self.writer.is_some() {
            return (failed, Some(LOOK_AGAIN));
        }
        self.pending_since = None;
        self.written_revision = Some(revision);
        let (snapshot, pid) = (state.recovery_snapshot(), std::process::id());
        self.writer = Some(std::thread::spawn(move || {
            snapshot.write(pid, &file).map_err(|e| format!("{}: cannot write the recovery file: {e}", file.display()))
        }));
        (failed, Some(LOOK_AGAIN))
    }

    /// The error of the write that ended since the last look, if it failed.
    fn finished_write(&mut self) -> Option<String> {
        if !self.writer.as_ref().is_some_and(JoinHandle::is_finished) {
            return None;
        }
        self.wait()
    }

    /// Waits for the write in progress, if any; its error, if it failed.
    pub fn wait(&mut self) -> Option<String> {
        let writer = self.writer.take()?;
        match writer.join() {
            Ok(result) => result.err(),
            Err(_) => Some("the recovery file could not be made (its writer stopped)".to_owned()),
        }
    }

    /// Removes this session's recovery file (a clean quit), after the write in progress.
    pub fn remove(&mut self) {
        let _ = self.wait();
        if let Some(file) = &self.file {
            recovery::remove_with_companion(file);
        }
        self.written_revision = None;
    }

    /// The restore offer while files are offered: restores or discards them on request.
    pub fn offer_ui(&mut self, ctx: &egui::Context, state: &mut EditorState) {
        if self.offered.is_empty() {
            return;
        }
        let mut answer = None;
        let now = recovery::now_unix_secs();
        egui::Window::new("Recover unsaved work?")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(ctx, |ui| {
                ui.label("The editor did not quit cleanly last time. Unsaved work was kept:");
                for (i, f) in self.offered.iter().enumerate() {
                    ui.separator();
                    ui.label(describe(&f.file, now));
                    ui.horizontal(|ui| {
                        if ui.button("Restore").clicked() {
                            answer = Some((i, true));
                        }
                        if ui.button("Discard").clicked() {
                            answer = Some((i, false));
                        }
                    });
                }
                ui.separator();
                if ui.button("Decide later").on_hover_text("Keep the files and ask at the next start").clicked() {
                    self.offered.clear();
                }
            });
        if let Some((i, restore)) = answer {
            let found = self.offered.remove(i);
            if restore {
                self.restore(&found, state);
            } else {
                recovery::remove_with_companion(&found.path);
            }
        }
    }

    /// Restores one found file onto `state` (then removes it: this session's autosave takes over).
    pub fn restore(&mut self, found: &Found, state: &mut EditorState) {
        match state.restore(&found.file) {
            Ok(_) => {
                recovery::remove_with_companion(&found.path);
                self.written_revision = None;
            }
            Err(e) => {
                state.message = Some(super::state::Message {
                    text: format!("{}: cannot restore: {e}", found.path.display()),
                    is_error: true,
                });
            }
        }
    }
}

/// One line describing a recovery file for the offer.
#[must_use]
pub fn describe(file: &recovery::RecoveryFile, now_unix_secs: u64) -> String {
    let ago = now_unix_secs.saturating_sub(file.saved_unix_secs);
    let when = match ago {
        0..=89 => format!("{ago} s ago"),
        90..=5399 => format!("{} min ago", (ago + 30) / 60),
        _ => format!("{:.1} h ago", ago as f64 / 3600.0),
    };
    let posed = if file.sections.contains_key(recovery::POSE) { ", a pose" } else { "" };
    let rigged = if file.sections.contains_key(recovery::SKELETON) { ", skeleton edits" } else { "" };
    let model = file.model.as_ref().map_or_else(|| "the demo arm".to_owned(), |p| p.display().to_string());
    format!("{model}: {} strokes{posed}{rigged}, autosaved {when}", file.strokes)
}
