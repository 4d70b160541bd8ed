//! `skinlab open MODEL --bench-frames N`: the editor's own frame loop driven through a changing
//! pose every frame (the same joint motion as `skinlab bench`, `synthetic::animate`), timed per
//! stage by [`super::frame_times`]; after two warm-up frames and N timed ones, the per-stage
//! medians and the time to the first drawn frame become the report, and the window closes.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::frame_times::FrameTimes;
use super::state::EditorState;
use crate::rig::Pose;

/// Frames drawn before the timed ones (shader compilation, first uploads).
pub const WARM_UP: usize = 2;

/// A frame benchmark in progress.
#[derive(Debug)]
pub struct FrameBench {
    frames: usize,
    step: usize,
    started: Instant,
    pose: Pose,
    header: String,
    report: Arc<Mutex<Option<String>>>,
}

impl FrameBench {
    /// A benchmark of `frames` timed frames (at least one) of the editor showing `state`;
    /// `started` is when the command began (for the time to the first frame).
    #[must_use]
    pub fn new(frames: usize, started: Instant, state: &EditorState) -> Self {
        let methods: Vec<&str> = state.shown_methods().iter().map(|m| m.name()).collect();
        let header = format!(
            "editor frames: {} ({} vertices), {} view ({}), mode {}, {} timed frames after {WARM_UP} warm-up, \
             {} threads",
            state.model_name,
            state.stats.vertices,
            if state.split { "split" } else { "single" },
            methods.join(" | "),
            state.mode.label(),
            frames.max(1),
            rayon::current_num_threads(),
        );
        Self { frames: frames.max(1), step: 0, started, pose: Pose::rest(), header, report: Arc::new(Mutex::new(None)) }
    }

    /// Where the report appears once the benchmark is done.
    #[must_use]
    pub fn report_slot(&self) -> Arc<Mutex<Option<String>>> {
        Arc::clone(&self.report)
    }

    /// Called at the start of every frame (after the previous one was closed in
    /// `state.frame_times`): poses the model for this frame. Returns true when the benchmark is
    /// done and the window should close; `first_draw` is when the viewport was first drawn.
    pub fn step(&mut self, state: &mut EditorState, first_draw: Option<Instant>) -> bool {
        if self.step == WARM_UP {
            // Timed frames start now: keep every one of them.
            state.frame_times = FrameTimes::new(self.frames);
            state.frame_times.start_frame(Instant::now());
        }
        if self.step >= WARM_UP && state.frame_times.frames() as usize >= self.frames {
            if let Ok(mut slot) = self.report.lock() {
                if slot.is_none() {
                    *slot = Some(self.report_text(&state.frame_times, first_draw));
                }
            }
            return true;
        }
        crate::synthetic::animate(&state.model, self.step, &mut self.pose);
        state.show_pose(self.pose.clone());
        self.step += 1;
        false
    }

    fn report_text(&self, times: &FrameTimes, first_draw: Option<Instant>) -> String {
        let mut lines = vec![self.header.clone(), "stage             median".to_owned()];
        lines.extend(times.report_lines());
        lines.push(match first_draw {
            Some(t) => format!(
                "time to first frame: {:.0} ms (command start to the viewport's first draw)",
                t.duration_since(self.started).as_secs_f64() * 1e3
            ),
            None => "time to first frame: not drawn (no OpenGL)".to_owned(),
        });
        lines.push(
            "draw (CPU) is the time issuing draw calls; the GPU's (llvmpipe's) rasterisation is outside every \
             stage and inside the frame interval"
                .to_owned(),
        );
        lines.join("\n")
    }
}
