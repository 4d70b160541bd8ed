//! `skinlab open MODEL --bench-frames N`: the editor's own frame loop driven through a changing
//! pose every frame (the same joint motion as `skinlab bench`, `synthetic::animate`), timed per
//! stage by [`super::frame_times`]; after two warm-up frames and N timed ones, the per-stage
//! medians and the time to the first drawn frame become the report, and the window closes.
//!
//! The timed frames wait for the brush caches' background build of a large model (it shares the
//! cores with the frame: Knight at 1M deformed each panel in 2.6-2.9 ms while it ran, against
//! 1.7 ms in `skinlab bench`); the report says how long the build held them back.
//!
//! In Rig mode with a joint selected (`--rig --select JOINT`), each frame instead moves that
//! joint's bind position a step along a small circle, as one gizmo drag does (one gesture): the
//! frames of a skeleton edit, where the model itself changes every frame.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use glam::DVec3;

use super::command::Command;
use super::frame_times::FrameTimes;
use super::state::{EditorState, Mode};
use crate::render::streamed_mesh::{UploadMethod, MAPPED_FROM_BYTES, SUB_DATA_CHUNK_BYTES};
use crate::rig::Pose;

/// Frames drawn before the timed ones (shader compilation, first uploads).
pub const WARM_UP: usize = 2;

/// The gesture id of the benchmark's joint drag (any id the pointer's drags do not take first).
const DRAG_GESTURE: u64 = u64::MAX;

/// A joint drag driven by the benchmark: where the joint started and the circle it follows.
#[derive(Clone, Copy, Debug)]
struct JointDrag {
    node: usize,
    /// The joint's bind position at the start (model space); `None` until the first step.
    start: Option<DVec3>,
    /// The circle's radius: 1 % of the model's diagonal.
    radius: f64,
}

/// A frame benchmark in progress.
#[derive(Debug)]
pub struct FrameBench {
    frames: usize,
    step: usize,
    started: Instant,
    pose: Pose,
    header: String,
    report: Arc<Mutex<Option<String>>>,
    drag: Option<JointDrag>,
    /// The OpenGL renderer that drew the frames (`GL_RENDERER`), once known.
    renderer: Option<String>,
    /// When the timed frames began (`None` while warming up).
    timed_at: Option<Instant>,
    /// Whether they waited for the brush caches' background build.
    waited_for_caches: bool,
    /// How the frames' vertex data reached the GPU.
    pub upload: UploadMethod,
}

impl FrameBench {
    /// A benchmark of `frames` timed frames (at least one) of the editor showing `state`;
    /// `started` is when the command began (for the time to the first frame).
    #[must_use]
    pub fn new(frames: usize, started: Instant, state: &EditorState) -> Self {
        let methods: Vec<&str> = state.view.shown_methods().iter().map(|m| m.name()).collect();
        let drag = state.selected.filter(|_| state.mode == Mode::Rig).map(|node| {
            let (lo, hi) = state.doc.model_bounds;
            JointDrag { node, start: None, radius: 0.01 * f64::from((hi - lo).length().max(1e-3)) }
        });
        let motion = match drag {
            Some(d) => format!("dragging joint {}'s bind position", state.doc.model.nodes.key(d.node)),
            None => "a changing pose".to_owned(),
        };
        let header = format!(
            "editor frames: {} ({} vertices), {} view ({}), mode {}, {motion}, {} timed frames after {WARM_UP} \
             warm-up, {} threads",
            state.doc.model_name,
            state.frame.stats.vertices,
            if state.view.split { "split" } else { "single" },
            methods.join(" | "),
            state.mode.label(),
            frames.max(1),
            rayon::current_num_threads(),
        );
        Self {
            frames: frames.max(1),
            step: 0,
            started,
            pose: Pose::rest(),
            header,
            report: Arc::new(Mutex::new(None)),
            drag,
            renderer: None,
            timed_at: None,
            waited_for_caches: false,
            upload: UploadMethod::default(),
        }
    }

    /// Whether the report still lacks the OpenGL renderer's name.
    #[must_use]
    pub fn needs_renderer(&self) -> bool {
        self.renderer.is_none()
    }

    /// Names the OpenGL renderer (`GL_RENDERER`) that draws the frames, for the report.
    pub fn set_renderer(&mut self, renderer: String) {
        self.renderer = Some(renderer);
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
        if self.step >= WARM_UP && self.timed_at.is_none() {
            if state.topology_progress().is_some() {
                // The brush caches are still being built on another thread: one more warm-up
                // frame.
                self.waited_for_caches = true;
            } else {
                // Timed frames start now: keep every one of them.
                let now = Instant::now();
                self.timed_at = Some(now);
                state.frame.frame_times = FrameTimes::new(self.frames);
                state.frame.frame_times.start_frame(now);
            }
        }
        if self.timed_at.is_some() && state.frame.frame_times.frames() as usize >= self.frames {
            if let Ok(mut slot) = self.report.lock() {
                if slot.is_none() {
                    *slot = Some(self.report_text(&state.frame.frame_times, first_draw));
                }
            }
            return true;
        }
        match &mut self.drag {
            Some(drag) => {
                let start = *drag.start.get_or_insert_with(|| {
                    state.frame.model_from_node.get(drag.node).map_or(DVec3::ZERO, |m| m.w_axis.truncate())
                });
                let angle = self.step as f64 * 0.2;
                let position = start + drag.radius * DVec3::new(angle.cos() - 1.0, angle.sin(), 0.0);
                state.apply(Command::MoveJoint { node: drag.node, position, gesture: Some(DRAG_GESTURE) });
            }
            None => {
                crate::synthetic::animate(&state.doc.model, self.step, &mut self.pose);
                state.show_pose(self.pose.clone());
            }
        }
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
        if let (true, Some(t)) = (self.waited_for_caches, self.timed_at) {
            lines.push(format!(
                "timed frames began {:.1} s after the command started, once the brush caches' background build \
                 had finished (it shares the cores with the frames)",
                t.duration_since(self.started).as_secs_f64()
            ));
        }
        let renderer = self.renderer.as_deref().unwrap_or("unknown");
        lines.push(format!("OpenGL renderer: {renderer}"));
        lines.push(match self.upload {
            UploadMethod::Mapped => format!(
                "upload: buffers refilled whole are mapped and written by the {} threads (from {} kB; parts of buffers \
                 by glBufferSubData)",
                rayon::current_num_threads(),
                MAPPED_FROM_BYTES >> 10
            ),
            UploadMethod::SubData => {
                format!("upload: glBufferSubData in calls of at most {} MB", SUB_DATA_CHUNK_BYTES >> 20)
            }
        });
        let software = ["llvmpipe", "softpipe", "swrast"].iter().any(|s| renderer.contains(s));
        lines.push(format!(
            "draw (CPU) is the time issuing draw calls; the rasterisation ({}) is outside every stage and inside \
             the frame interval",
            if software { "a software renderer's: on the CPU" } else { "on the GPU" }
        ));
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_report_names_the_renderer_and_where_it_rasterises() {
        let state = EditorState::demo().unwrap();
        let mut bench = FrameBench::new(3, Instant::now(), &state);
        let times = FrameTimes::new(3);
        assert!(bench.needs_renderer());
        assert!(bench.report_text(&times, None).contains("OpenGL renderer: unknown"));
        bench.set_renderer("NVIDIA H200/PCIe/SSE2".into());
        assert!(!bench.needs_renderer());
        let gpu = bench.report_text(&times, None);
        assert!(gpu.contains("OpenGL renderer: NVIDIA H200/PCIe/SSE2") && gpu.contains("(on the GPU)"), "{gpu}");
        bench.set_renderer("llvmpipe (LLVM 15.0.6, 256 bits)".into());
        assert!(bench.report_text(&times, None).contains("software renderer's: on the CPU"));
    }
}
