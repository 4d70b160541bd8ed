//! The sweep panel's state: the choices (joint, motion, methods, largest angle and steps, or a clip
//! of the model whose keys drive the sweep instead), the sweep running on a background thread
//! (`analysis::sweep::sweep` or `sweep_clip` on a shared copy of the model, so the window keeps
//! drawing), its result, and the scrub step that poses the model in the viewport (the swept joint
//! at that step's angle, or the driving clip at that key's time). The pose shown before scrubbing
//! is kept and put back when the panel is left; scrubbing makes no undo entry.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

use crate::analysis::sweep::{sweep, sweep_clip, JointSweep, Motion, SweepRequest};
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::SkinningMethod;

/// A finished sweep of one joint and motion.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepResult {
    /// The curves.
    pub sweep: JointSweep,
    /// The largest angle, degrees.
    pub max_angle_deg: f64,
    /// Steps from 0 to the largest angle, or the driving clip's keys measured.
    pub steps: usize,
    /// The clip whose keys drove the sweep (its index in the model), if one did.
    pub clip: Option<usize>,
    /// Wall-clock time of the computation, milliseconds.
    pub elapsed_ms: f64,
}

impl SweepResult {
    /// The clip time of step `step` of a clip-driven sweep.
    #[must_use]
    pub fn step_time(&self, step: usize) -> Option<f64> {
        self.clip?;
        self.sweep.curves.first()?.steps.get(step)?.time_secs
    }

    /// The joint's turn at step `step`, degrees.
    #[must_use]
    pub fn step_angle_deg(&self, step: usize) -> f64 {
        match self.sweep.curves.first().and_then(|c| c.steps.get(step)).filter(|_| self.clip.is_some()) {
            Some(m) => m.angle_deg,
            None => crate::analysis::sweep::step_angle(step, self.steps, self.max_angle_deg),
        }
    }
}

struct Job {
    receiver: mpsc::Receiver<Option<JointSweep>>,
    started: Instant,
    max_angle_deg: f64,
    steps: usize,
    clip: Option<usize>,
}

/// The scrub's pose and the pose it replaced.
#[derive(Clone, Debug, PartialEq)]
pub struct Scrub {
    /// The step shown.
    pub step: usize,
    /// The pose before scrubbing (restored on leaving the panel).
    pub saved: Pose,
    /// The pose the scrub set (a different current pose means the user posed since: it is kept).
    pub shown: Pose,
}

/// The sweep panel.
pub struct SweepPanel {
    /// The panel is open.
    pub open: bool,
    /// The joint swept (`None`: the selected joint).
    pub joint: Option<usize>,
    /// The motion.
    pub motion: Motion,
    /// The methods compared, in `SkinningMethod::MENU` order.
    pub methods: Vec<SkinningMethod>,
    /// The largest angle, degrees.
    pub max_angle_deg: f64,
    /// Steps from 0 to the largest angle (both included).
    pub steps: usize,
    /// The clip whose keys drive the sweep (its index in the model; `None`: the panel's own
    /// steps up to the largest angle).
    pub drive_clip: Option<usize>,
    /// The last result.
    pub result: Option<SweepResult>,
    /// Why the last run gave nothing (shown in the panel).
    pub problem: Option<String>,
    /// The scrub, while it poses the joint.
    pub scrub: Option<Scrub>,
    job: Option<Job>,
    model_rev: u64,
}

impl Default for SweepPanel {
    fn default() -> Self {
        Self {
            open: false,
            joint: None,
            motion: Motion::Twist,
            methods: vec![SkinningMethod::Lbs, SkinningMethod::Dqs, SkinningMethod::Sbs],
            max_angle_deg: 180.0,
            steps: 37,
            drive_clip: None,
            result: None,
            problem: None,
            scrub: None,
            job: None,
            model_rev: 0,
        }
    }
}

impl SweepPanel {
    /// Whether a sweep is being computed.
    #[must_use]
    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// Starts sweeping `node` of `model` (revision `model_rev`) with the panel's choices on a
    /// background thread (a run still going is abandoned). Driven by a clip, the weight motion
    /// is refused: a clip turns joints, it does not change weights.
    pub fn start(&mut self, model: Arc<Model>, model_rev: u64, node: usize) {
        self.model_changed(model_rev);
        let clip = self.drive_clip.filter(|&c| c < model.clips.len());
        if clip.is_some() && self.motion == Motion::Weight {
            self.problem =
                Some("a clip turns joints and leaves weights alone: it cannot drive the weight motion".into());
            return;
        }
        let request = SweepRequest {
            joints: vec![node],
            methods: self.methods.clone(),
            motions: vec![self.motion],
            max_angle_rad: self.max_angle_deg.to_radians(),
            steps: self.steps.clamp(2, 721),
        };
        let steps = request.steps;
        let (sender, receiver) = mpsc::channel();
        let spawned = std::thread::Builder::new().name("sweep".into()).spawn(move || {
            let report = match clip {
                Some(c) => sweep_clip(&model, "", &model.clips[c], &request),
                None => sweep(&model, "", &request),
            };
            // The panel may have been closed or restarted: nobody listens then.
            let _ = sender.send(report.sweeps.into_iter().next());
        });
        match spawned {
            Ok(_) => {
                self.problem = None;
                let max_angle_deg = self.max_angle_deg;
                self.job = Some(Job { receiver, started: Instant::now(), max_angle_deg, steps, clip });
            }
            Err(e) => self.problem = Some(format!("cannot start the sweep: {e}")),
        }
    }

    /// Takes a finished sweep; true while one is still running.
    pub fn poll(&mut self) -> bool {
        let Some(job) = &self.job else { return false };
        match job.receiver.try_recv() {
            Ok(found) => {
                let elapsed_ms = job.started.elapsed().as_secs_f64() * 1e3;
                let (max_angle_deg, steps, clip) = (job.max_angle_deg, job.steps, job.clip);
                self.job = None;
                match found {
                    Some(sweep) => {
                        let steps =
                            if clip.is_some() { sweep.curves.first().map_or(0, |c| c.steps.len()) } else { steps };
                        let turns = sweep.curves.first().into_iter().flat_map(|c| &c.steps).map(|m| m.angle_deg.abs());
                        let max_angle_deg = if clip.is_some() { turns.fold(0.0, f64::max) } else { max_angle_deg };
                        self.result = Some(SweepResult { sweep, max_angle_deg, steps, clip, elapsed_ms });
                    }
                    None => {
                        self.result = None;
                        self.problem = Some(
                            if clip.is_some() {
                                "the clip does not turn the joint about this motion's axis at any of its keys (or the joint influences no vertex)"
                            } else {
                                "the joint influences no vertex: nothing to measure"
                            }
                            .into(),
                        );
                    }
                }
                false
            }
            Err(mpsc::TryRecvError::Empty) => true,
            Err(mpsc::TryRecvError::Disconnected) => {
                self.job = None;
                self.problem = Some("the sweep stopped without a result".into());
                false
            }
        }
    }

    /// Forgets results and runs of another model; true when `model_rev` changed.
    pub fn model_changed(&mut self, model_rev: u64) -> bool {
        if self.model_rev == model_rev {
            return false;
        }
        self.model_rev = model_rev;
        self.result = None;
        self.job = None;
        self.joint = None;
        self.drive_clip = None;
        self.problem = None;
        true
    }
}
