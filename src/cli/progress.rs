//! Progress bars on stderr for long commands (`bind`, `bench`), drawn by indicatif: only on a
//! terminal, only once the work has run a while (a quick run prints nothing), and never failing
//! the command when stderr fails.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar that appears after a delay.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    after: Duration,
    shown: bool,
}

impl Progress {
    /// A bar of `len` steps drawn with indicatif's `template` once `after` has passed.
    #[must_use]
    pub fn new(template: &str, len: u64, after: Duration) -> Self {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("#> "));
        }
        Self { bar, started: Instant::now(), after, shown: false }
    }

    /// Moves the bar to `position` (of `len`), showing it if the delay has passed.
    pub fn set(&mut self, position: u64) {
        if !self.shown && self.started.elapsed() >= self.after {
            self.shown = true;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_position(position);
    }

    /// Leaves the bar as it is drawn, on a line of its own.
    pub fn finish(self) {
        self.bar.abandon();
    }
}
