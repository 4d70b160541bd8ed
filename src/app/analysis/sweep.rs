//! The sweep panel's state: the choices (joint, motion, methods, largest angle, steps), the sweep
//! running on a background thread (`analysis::sweep::sweep` on a shared copy of the model, so the
//! window keeps drawing), its result, and the scrub step that poses the swept joint in the
//! viewport. The pose shown before scrubbing is kept and put back when the panel is left; scrubbing
//! makes no undo entry.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

use crate::analysis::sweep::{sweep, JointSweep, Motion, SweepRequest};
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
    /// Steps from 0 to the largest angle.
    pub steps: usize,
    /// Wall-clock time of the computation, milliseconds.
    pub elapsed_ms: f64,
}

struct Job {
    receiver: mpsc::Receiver<Option<JointSweep>>,
    started: Instant,
    max_angle_deg: f64,
    steps: usize,
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
    /// background thread (a run still going is abandoned).
    pub fn start(&mut self, model: Arc<Model>, model_rev: u64, node: usize) {
        self.model_changed(model_rev);
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
            let report = sweep(&model, "", &request);
            // The panel may have been closed or restarted: nobody listens then.
            let _ = sender.send(report.sweeps.into_iter().next());
        });
        match spawned {
            Ok(_) => {
                self.problem = None;
                self.job = Some(Job { receiver, started: Instant::now(), max_angle_deg: self.max_angle_deg, steps });
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
                let (max_angle_deg, steps) = (job.max_angle_deg, job.steps);
                self.job = None;
                match found {
                    Some(sweep) => {
                        self.result = Some(SweepResult { sweep, max_angle_deg, steps, elapsed_ms });
                    }
                    None => {
                        self.result = None;
                        self.problem = Some("the joint influences no vertex: nothing to measure".into());
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
        self.problem = None;
        true
    }
}
