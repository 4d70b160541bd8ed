//! Where the editor's frame time goes: per-stage CPU times of the last frames (FK and joint
//! preparation, the deformation of each viewport panel, the weight or difference colours, the
//! upload into the GPU buffers, the CPU side of the draw calls, and the rest of the UI), their
//! medians, and the View ▸ Frame times overlay that shows them.
//!
//! The GPU's own time is not in these figures: the draw stage is what the CPU spends issuing the
//! draw calls; rasterisation happens in the driver after the frame is handed over (on llvmpipe,
//! in its own threads when the frame is presented). The frame interval (start of one frame to
//! the start of the next) includes it and everything else eframe does (egui tessellation and
//! painting, swap).

use std::collections::VecDeque;
use std::time::Instant;

use eframe::egui;

/// A stage of the editor's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Forward kinematics and the per-skin, per-set preparation (every shown method).
    Prepare,
    /// The per-vertex deformation of the left (or only) panel.
    DeformLeft,
    /// The per-vertex deformation of the right panel (split view, or the difference overlay).
    DeformRight,
    /// Paint-mode weight colours or the difference overlay's colours.
    Colours,
    /// Copying changed positions, normals and colours into the GPU buffers.
    Upload,
    /// The CPU side of the viewport's draw calls (every panel).
    Draw,
    /// Everything else in the frame's UI code: input, panels, layout.
    Ui,
    /// From the start of one frame to the start of the next (what the user sees; includes idle
    /// waits when nothing asks for a new frame).
    Interval,
}

impl Stage {
    /// Every stage, in the overlay's order.
    pub const ALL: [Self; 8] = [
        Self::Prepare,
        Self::DeformLeft,
        Self::DeformRight,
        Self::Colours,
        Self::Upload,
        Self::Draw,
        Self::Ui,
        Self::Interval,
    ];

    /// The stage's label in the overlay and in `open --bench-frames`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Prepare => "FK + preparation",
            Self::DeformLeft => "deform left",
            Self::DeformRight => "deform right",
            Self::Colours => "colours",
            Self::Upload => "upload",
            Self::Draw => "draw (CPU)",
            Self::Ui => "UI",
            Self::Interval => "frame interval",
        }
    }

    /// Whether the stage is part of the CPU work of a frame (the interval is not: it contains
    /// the others and the driver's work).
    #[must_use]
    pub fn is_cpu_work(self) -> bool {
        self != Self::Interval
    }
}

/// The last `capacity` frames' time of each stage, in seconds. A stage that did not run in a
/// frame (no deformation because nothing changed) records 0 for it, so medians are per frame.
#[derive(Clone, Debug)]
pub struct FrameTimes {
    capacity: usize,
    samples: [VecDeque<f64>; Stage::ALL.len()],
    /// This frame's time per stage, so far.
    current: [f64; Stage::ALL.len()],
    frame_started: Option<Instant>,
    frames: u64,
}

/// Frames in the overlay's medians.
pub const OVERLAY_FRAMES: usize = 60;

impl Default for FrameTimes {
    fn default() -> Self {
        Self::new(OVERLAY_FRAMES)
    }
}

impl FrameTimes {
    /// Keeps the last `capacity` frames (at least one).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            samples: std::array::from_fn(|_| VecDeque::new()),
            current: [0.0; Stage::ALL.len()],
            frame_started: None,
            frames: 0,
        }
    }

    fn index(stage: Stage) -> usize {
        Stage::ALL.iter().position(|&s| s == stage).unwrap_or(0)
    }

    /// Adds `secs` to `stage`'s time in the current frame.
    pub fn add(&mut self, stage: Stage, secs: f64) {
        if secs.is_finite() && secs > 0.0 {
            self.current[Self::index(stage)] += secs;
        }
    }

    /// Time spent in `stage` so far this frame.
    #[must_use]
    pub fn current(&self, stage: Stage) -> f64 {
        self.current[Self::index(stage)]
    }

    /// Closes the previous frame (its stages become one sample each, with the interval since
    /// it started) and starts a new one at `now`.
    pub fn start_frame(&mut self, now: Instant) {
        if let Some(started) = self.frame_started {
            self.current[Self::index(Stage::Interval)] = now.duration_since(started).as_secs_f64();
            for (i, ring) in self.samples.iter_mut().enumerate() {
                if ring.len() == self.capacity {
                    ring.pop_front();
                }
                ring.push_back(self.current[i]);
            }
            self.frames += 1;
        }
        self.current = [0.0; Stage::ALL.len()];
        self.frame_started = Some(now);
    }

    /// Frames closed so far.
    #[must_use]
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Frames in the current medians.
    #[must_use]
    pub fn sampled(&self) -> usize {
        self.samples[0].len()
    }

    /// The median of `stage` over the kept frames, seconds (0 before the first frame closes).
    #[must_use]
    pub fn median(&self, stage: Stage) -> f64 {
        let v: Vec<f64> = self.samples[Self::index(stage)].iter().copied().collect();
        crate::maths::median(&v)
    }

    /// The median over the kept frames of the sum of every CPU stage (see
    /// [`Stage::is_cpu_work`]), seconds.
    #[must_use]
    pub fn median_cpu_total(&self) -> f64 {
        let n = self.sampled();
        let totals: Vec<f64> = (0..n)
            .map(|f| {
                Stage::ALL
                    .iter()
                    .filter(|s| s.is_cpu_work())
                    .map(|&s| self.samples[Self::index(s)].get(f).copied().unwrap_or(0.0))
                    .sum()
            })
            .collect();
        crate::maths::median(&totals)
    }

    /// One line per stage (`label  median ms`), then the CPU total: the overlay's and
    /// `open --bench-frames`' text.
    #[must_use]
    pub fn report_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = Stage::ALL
            .iter()
            .filter(|s| s.is_cpu_work())
            .map(|&s| format!("{:<17}{:>8.2} ms", s.label(), self.median(s) * 1e3))
            .collect();
        lines.push(format!("{:<17}{:>8.2} ms", "CPU total", self.median_cpu_total() * 1e3));
        lines.push(format!("{:<17}{:>8.2} ms", Stage::Interval.label(), self.median(Stage::Interval) * 1e3));
        lines
    }
}

/// Draws the frame-time overlay in the top right corner of `rect`: the medians over the last
/// frames of each stage.
pub fn draw_overlay(painter: &egui::Painter, rect: egui::Rect, times: &FrameTimes) {
    let mut text = format!("frame times, median of {} frames\n", times.sampled());
    text.push_str(&times.report_lines().join("\n"));
    text.push_str("\n(GPU time not included: see the interval)");
    let font = egui::FontId::monospace(12.0);
    let galley = painter.layout_no_wrap(text, font, egui::Color32::WHITE);
    let pos = egui::pos2(rect.max.x - galley.size().x - 14.0, rect.min.y + 10.0);
    painter.rect_filled(
        egui::Rect::from_min_size(pos, galley.size()).expand(5.0),
        4.0,
        egui::Color32::from_black_alpha(170),
    );
    painter.galley(pos, galley, egui::Color32::WHITE);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn medians_are_per_frame_and_keep_the_last_frames() {
        let mut t = FrameTimes::new(3);
        let t0 = Instant::now();
        for (f, ms) in [5.0, 1.0, 2.0, 3.0].iter().enumerate() {
            t.start_frame(t0 + Duration::from_millis(10 * f as u64));
            t.add(Stage::DeformLeft, ms / 1e3);
            t.add(Stage::DeformLeft, ms / 1e3);
        }
        // Four frames closed (10, 2, 4, 6 ms); the last three are kept.
        t.start_frame(t0 + Duration::from_millis(40));
        assert_eq!(t.frames(), 4);
        assert_eq!(t.sampled(), 3);
        assert!((t.median(Stage::DeformLeft) - 0.004).abs() < 1e-12);
        assert!((t.median(Stage::Interval) - 0.010).abs() < 1e-9);
        assert_eq!(t.median(Stage::Upload), 0.0);
        assert!((t.median_cpu_total() - 0.004).abs() < 1e-12);
        assert_eq!(t.report_lines().len(), Stage::ALL.len() + 1);
    }
}
