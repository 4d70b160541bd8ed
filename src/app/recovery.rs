//! Autosave and the start-up offer to restore: the editor's unsaved work is written to its
//! recovery file (`io::recovery`) once the user pauses after a change (no stroke or drag in
//! progress for [`IDLE`]) and at the latest [`MAX_UNSAVED`] after the first unwritten change,
//! even while working without pause; a clean save or quit removes the file. At start-up, files
//! left by editors that did not quit (a crash, a kill, a power cut) are offered for restoring.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use eframe::egui;

use super::state::EditorState;
use crate::io::recovery::{self, Found};

/// How long the user must pause before a change is written.
pub const IDLE: Duration = Duration::from_secs(1);
/// The most work (in time) that a crash can lose while the user works without pausing.
pub const MAX_UNSAVED: Duration = Duration::from_secs(30);

/// The autosave clock and the recovery files found at start-up.
#[derive(Debug)]
pub struct Autosave {
    file: Option<PathBuf>,
    written_revision: Option<u64>,
    seen_revision: u64,
    last_change: Instant,
    pending_since: Option<Instant>,
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

    /// Called every frame: writes the recovery file when it is due (`busy`: a stroke or drag is
    /// in progress), removes it when nothing is unsaved. Returns an error line when a write
    /// failed, and how soon to look again when a write is pending.
    pub fn tick(&mut self, state: &EditorState, now: Instant, busy: bool) -> (Option<String>, Option<Duration>) {
        let Some(file) = self.file.clone() else { return (None, None) };
        let revision = state.history.revision();
        if revision != self.seen_revision {
            self.seen_revision = revision;
            self.last_change = now;
        }
        if !state.has_unsaved_work() {
            self.pending_since = None;
            if self.written_revision.take().is_some() {
                let _ = std::fs::remove_file(&file);
            }
            return (None, None);
        }
        if self.written_revision == Some(revision) {
            return (None, None);
        }
        let since = *self.pending_since.get_or_insert(now);
        let idle = now.duration_since(self.last_change) >= IDLE;
        let overdue = now.duration_since(since) >= MAX_UNSAVED;
        if busy || !(idle || overdue) {
            return (None, Some(Duration::from_millis(250)));
        }
        self.pending_since = None;
        self.written_revision = Some(revision);
        match state.recovery_file(std::process::id()).write(&file) {
            Ok(()) => (None, None),
            Err(e) => (Some(format!("{}: cannot write the recovery file: {e}", file.display())), None),
        }
    }

    /// Removes this session's recovery file (a clean quit).
    pub fn remove(&mut self) {
        if let Some(file) = &self.file {
            let _ = std::fs::remove_file(file);
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
                let _ = std::fs::remove_file(&found.path);
            }
        }
    }

    /// Restores one found file onto `state` (then removes it: this session's autosave takes over).
    pub fn restore(&mut self, found: &Found, state: &mut EditorState) {
        match state.restore(&found.file) {
            Ok(_) => {
                let _ = std::fs::remove_file(&found.path);
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
    let model = file.model.as_ref().map_or_else(|| "the demo arm".to_owned(), |p| p.display().to_string());
    format!("{model}: {} strokes{posed}, autosaved {when}", file.strokes)
}
