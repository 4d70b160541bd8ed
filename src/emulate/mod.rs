//! LBS emulation of another skinning method: helper joints and weights fitted so that a plain
//! glTF skin, played by any LBS runtime, follows SBS, DQS or continuous SBS over chosen clips
//! (in the spirit of SSDR, Le and Deng 2012, and Maya's Bake Deformer). See docs/emulation.md.
//!
//! - `samples`: when each clip is sampled (its keys plus a 30/s grid).
//! - `subject`: the skinned vertices and one evaluated sample (joint matrices, target positions).
//! - `seeds`: where helpers start (largest LBS error per joint) and their first transforms.
//! - `rigid`: weighted Procrustes fits of the helpers' per-sample transforms.
//! - `weights`: a vertex's simplex-constrained least-squares weights.
//! - `fit`: the alternation of the two.
//! - `apply`: the helpers, weights and keys written into a copy of the model.
//! - `live`: each helper's transform as a map of its parent's rotation (node extras).
//! - `measure`: the runtime's distance to the target, with and without helpers.
//! - `exact`: per-key morph targets holding what the helpers leave (`--exact`).
//!
//! Deterministic: the same model and request give the same helpers, weights and keys whatever
//! the number of threads.

pub mod apply;
pub mod exact;
pub mod fit;
pub mod live;
pub mod measure;
pub mod rigid;
pub mod samples;
pub mod seeds;
pub mod subject;
pub mod weights;

use std::ops::ControlFlow;
use std::time::Instant;

use glam::DAffine3;
use rayon::prelude::*;
use serde::Serialize;

use self::apply::{apply, ClipKeys};
use self::fit::Fit;
use self::measure::{measure_clip, ClipDistances};
use self::subject::{clip_pose, diagonal, evaluate, Evaluated, Subject};
use crate::analysis::rom::{rom_clip, RomRequest};
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::{Deformer, SkinningMethod};

/// Helpers per deforming joint unless asked otherwise.
pub const DEFAULT_HELPERS: usize = 3;
/// Alternations of the weight and transform steps.
pub const ITERATIONS: usize = 6;
/// Most samples the alternation fits (spread evenly over every fitted clip's samples); the
/// helpers' transforms at the other samples are fitted afterwards with the final weights.
pub const MAX_FIT_SAMPLES: usize = 240;
/// Sweeps of the transform fit at each exported sample after the alternation.
pub const FINAL_SWEEPS: usize = 3;

/// What to emulate.
#[derive(Clone, Debug, PartialEq)]
pub struct EmulateRequest {
    /// The method LBS should look like (not LBS itself).
    pub method: SkinningMethod,
    /// Most helpers per deforming joint (≥ 1).
    pub helpers_per_joint: usize,
    /// Clips to fit (indices); empty: every clip, or a range-of-motion clip when there is none.
    pub clips: Vec<usize>,
}

/// Why emulation was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmulateError {
    /// The model has no skinned mesh.
    #[error("the model has no skinned mesh: nothing to emulate")]
    NoSkin,
    /// LBS asked to emulate itself, or zero helpers.
    #[error("{0}")]
    BadRequest(String),
    /// Writing the helpers failed.
    #[error("cannot add the helpers: {0}")]
    Apply(String),
    /// The progress callback asked to stop.
    #[error("the fit was cancelled")]
    Cancelled,
}

/// Where the fit stands, for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// The share done, 0 to 1 (by the stages' usual cost).
    pub done: f32,
    /// What the fit is doing or has found (one line).
    pub line: &'a str,
}

/// A progress callback: `Break` stops the fit at the next stage ([`EmulateError::Cancelled`]).
pub type Progress<'a> = &'a mut dyn FnMut(Step<'_>) -> ControlFlow<()>;

/// Reports `line` at `done`; a `Break` becomes [`EmulateError::Cancelled`].
fn report(progress: &mut dyn FnMut(Step<'_>) -> ControlFlow<()>, done: f32, line: &str) -> Result<(), EmulateError> {
    match progress(Step { done, line }) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(EmulateError::Cancelled),
    }
}

/// One fitted clip in the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClipReport {
    /// The clip's name (or `#N`).
    pub name: String,
    /// Exported sample times (keys of the helpers).
    pub samples: usize,
    /// The runtime's distances to the target.
    pub distances: ClipDistances,
}

/// The emulated model and what it took.
#[derive(Clone, Debug)]
pub struct Emulation {
    /// The model with helpers, weights and keys (and the range-of-motion clip, if one was made).
    pub model: Model,
    /// The model that was fitted: the input, with the range-of-motion clip if one was made.
    pub source: Model,
    /// The fitted clips with their sample times (the helpers' keys).
    pub fitted: Vec<(usize, Vec<f64>)>,
    /// Helper joint nodes added.
    pub helper_nodes: Vec<usize>,
    /// Per fitted clip, the distances.
    pub clips: Vec<ClipReport>,
    /// The range-of-motion clip's name when the model had no clip.
    pub rom_clip: Option<String>,
    /// RMS distance (share of the diagonal) over the fit's samples after each iteration.
    pub fit_rms: Vec<f64>,
    /// Influences per vertex allowed (4, or 8 where the source used more than 4).
    pub influence_limit: usize,
    /// Seconds the fit took (without the measurement).
    pub fit_secs: f64,
}

impl Emulation {
    /// The runtime's RMS distance to the target over every fitted clip's samples (share of the
    /// diagonal): without the helpers, and with them.
    #[must_use]
    pub fn overall_rms(&self) -> (f64, f64) {
        let (mut plain, mut with, mut n) = (0.0, 0.0, 0.0);
        for c in &self.clips {
            let k = c.samples as f64;
            plain += c.distances.plain.rms.powi(2) * k;
            with += c.distances.emulated.rms.powi(2) * k;
            n += k;
        }
        ((plain / n.max(1.0)).sqrt(), (with / n.max(1.0)).sqrt())
    }
}

/// Most influences the export may keep: 4, or 8 when some source vertex has more than 4.
#[must_use]
pub fn influence_limit(model: &Model) -> usize {
    let more = model.instances.iter().any(|inst| {
        model.meshes[inst.mesh]
            .primitives
            .iter()
            .filter_map(|p| p.influences.as_ref())
            .any(|inf| (0..inf.len()).any(|v| inf.count(v, &model.skins[inst.skin].sets) > 4))
    });
    if more {
        8
    } else {
        4
    }
}

/// Fits helpers for `request` (see the module docs); `progress` gets one line per stage and may
/// cancel between stages.
pub fn emulate(model: &Model, request: &EmulateRequest, progress: Progress<'_>) -> Result<Emulation, EmulateError> {
    if request.method == SkinningMethod::Lbs {
        return Err(EmulateError::BadRequest("LBS needs no emulation (choose sbs, dqs or sbs-c)".into()));
    }
    if request.helpers_per_joint == 0 {
        return Err(EmulateError::BadRequest("at least one helper per joint is needed".into()));
    }
    let started = Instant::now();
    let mut source = model.clone();
    let subject = Subject::new(&source);
    if source.instances.is_empty() || subject.is_empty() {
        return Err(EmulateError::NoSkin);
    }
    let mut clips = request.clips.clone();
    let mut rom_name = None;
    if clips.is_empty() {
        if source.clips.is_empty() {
            let joints = crate::analysis::sweep::weighted_joints(&source);
            let rom =
                rom_clip(&source, &RomRequest { joints, max_angle_rad: 90f64.to_radians(), seconds_per_motion: 1.0 });
            rom_name = rom.clip.name.clone();
            let line = format!("no clip: fitting over a range-of-motion clip {:?}", rom_name.as_deref().unwrap_or(""));
            report(progress, 0.0, &line)?;
            source.clips.push(rom.clip);
        }
        clips = (0..source.clips.len()).collect();
    }
    let limit = influence_limit(&source);
    let times: Vec<Vec<f64>> = clips.iter().map(|&c| samples::sample_times(&source.clips[c])).collect();
    let all: Vec<(usize, f64)> =
        clips.iter().zip(&times).flat_map(|(&c, ts)| ts.iter().map(move |&t| (c, t))).collect();
    let chosen = samples::spread(all.len(), MAX_FIT_SAMPLES);
    let fit_at: Vec<(usize, f64)> = chosen.iter().map(|&k| all[k]).collect();
    let line = format!(
        "{} vertices, {} clip(s), {} samples ({} fitted), target {}",
        subject.len(),
        clips.len(),
        all.len(),
        fit_at.len(),
        request.method
    );
    report(progress, 0.01, &line)?;
    let frames = evaluate_all(&source, &subject, &fit_at, request.method);
    let rest = {
        let mut out = Vec::new();
        Deformer::new().deform_all(&source, &Pose::rest(), SkinningMethod::Lbs, &mut out);
        subject.gather(&out)
    };
    let diag = diagonal(&rest);
    let errors = seeds::lbs_errors(&subject, &frames);
    let seeds = seeds::place(&source, &subject, &frames, &errors, request.helpers_per_joint, diag);
    let count = (frames.len() * subject.len()).max(1) as f64;
    let rms = |sq: f64| (sq / count).sqrt() / diag;
    let line =
        format!("LBS RMS {:.4} % of the diagonal; {} helper(s) seeded", 100.0 * rms(errors.iter().sum()), seeds.len());
    report(progress, 0.1, &line)?;
    let mut fit = Fit::new(&source, &subject, &seeds, limit);
    let mut xs: Vec<Vec<DAffine3>> = frames
        .par_iter()
        .map(|f| {
            seeds
                .iter()
                .zip(&fit.helpers)
                .map(|(s, h)| seeds::initial_transform(s, h, &subject, &seeds::neighbourhood(&source, &subject, s), f))
                .collect()
        })
        .collect();
    let mut fit_rms = Vec::new();
    if !seeds.is_empty() {
        for iteration in 0..ITERATIONS {
            let sq = fit.weights_step(&subject, &frames, &xs);
            fit.transforms_step(&subject, &frames, &mut xs);
            fit_rms.push(rms(sq));
            let done = (0.1 + 0.6 * (iteration + 1) as f32 / ITERATIONS as f32).min(0.7);
            report(
                progress,
                done,
                &format!("iteration {}: RMS {:.4} % of the diagonal", iteration + 1, 100.0 * rms(sq)),
            )?;
        }
        fit.weights_step(&subject, &frames, &xs);
    }
    // Every exported sample: its transforms from the nearest fitted sample of the same clip.
    let users = fit.users(&subject);
    let mut keys = Vec::with_capacity(clips.len());
    for (k, (&c, ts)) in clips.iter().zip(&times).enumerate() {
        let line = format!("keying clip {} of {} ({} samples)", k + 1, clips.len(), ts.len());
        report(progress, 0.7 + 0.15 * k as f32 / clips.len() as f32, &line)?;
        let nearest = |t: f64| {
            fit_at
                .iter()
                .enumerate()
                .filter(|(_, (fc, _))| *fc == c)
                .min_by(|a, b| (a.1 .1 - t).abs().total_cmp(&(b.1 .1 - t).abs()))
                .map(|(k, _)| k)
        };
        let transforms: Vec<Vec<DAffine3>> = ts
            .par_iter()
            .map_init(
                || (Deformer::new(), Vec::new()),
                |(d, out), &t| {
                    let frame = evaluate(&source, &subject, &clip_pose(&source, c, t), request.method, d, out);
                    let start = nearest(t).map_or_else(|| vec![DAffine3::IDENTITY; seeds.len()], |k| xs[k].clone());
                    fit.transforms_at(&subject, &users, &frame, start, FINAL_SWEEPS)
                },
            )
            .collect();
        keys.push(ClipKeys { clip: c, times: ts.clone(), transforms });
    }
    report(progress, 0.85, "fitting the live rigs")?;
    let drivers = fit_drivers(&source, &subject, &fit, &keys);
    let applied =
        apply(&source, &subject, &fit, &seeds, request.method, &keys, &drivers).map_err(EmulateError::Apply)?;
    let fit_secs = started.elapsed().as_secs_f64();
    report(progress, 0.9, &format!("{} helper(s) added in {fit_secs:.1} s; measuring", applied.helper_nodes.len()))?;
    let mut reports = Vec::with_capacity(clips.len());
    for (k, (&c, ts)) in clips.iter().zip(&times).enumerate() {
        if k > 0 {
            report(progress, 0.9 + 0.1 * k as f32 / clips.len() as f32, &format!("measuring clip {}", k + 1))?;
        }
        reports.push(ClipReport {
            name: source.clips[c].name.clone().unwrap_or_else(|| format!("#{c}")),
            samples: ts.len(),
            distances: measure_clip(&source, &applied.model, &subject, c, ts, request.method, diag),
        });
    }
    Ok(Emulation {
        model: applied.model,
        fitted: clips.iter().copied().zip(times).collect(),
        source,
        helper_nodes: applied.helper_nodes,
        clips: reports,
        rom_clip: rom_name,
        fit_rms,
        influence_limit: limit,
        fit_secs,
    })
}

/// Every helper's driver (`live`), fitted over every exported key.
fn fit_drivers(model: &Model, subject: &Subject, fit: &Fit, keys: &[ClipKeys]) -> Vec<crate::model::HelperDriver> {
    let users = fit.users(subject);
    let inputs: Vec<Vec<usize>> = fit.helpers.iter().map(|h| live::inputs_of(model, h.parent)).collect();
    let mut nodes: Vec<usize> = inputs.iter().flatten().copied().collect();
    nodes.sort_unstable();
    nodes.dedup();
    let rotations = live::local_rotations(model, &nodes, keys);
    fit.helpers
        .par_iter()
        .zip(&inputs)
        .enumerate()
        .map(|(index, (h, ins))| {
            let with: Vec<(usize, &[glam::DQuat])> = ins
                .iter()
                .map(|&n| (n, nodes.binary_search(&n).map_or(&[][..], |k| rotations[k].as_slice())))
                .collect();
            let transforms: Vec<DAffine3> = keys.iter().flat_map(|k| k.transforms.iter().map(|xs| xs[index])).collect();
            // The users' centroid (weights squared, as the fit weighs them) in the parent's frame.
            let (mut sum, mut total) = (glam::DVec3::ZERO, 0.0);
            for &(i, w) in &users[index] {
                let i = i as usize;
                if let Some(Some(ibm)) = h.parent_ibm.get(subject.skin[i]) {
                    sum += w * w * ibm.transform_point3(subject.rest[i]);
                    total += w * w;
                }
            }
            let pivot = if total > 0.0 { sum / total } else { h.centre };
            live::fit_driver(model, &with, &transforms, h.centre, pivot)
        })
        .collect()
}

/// The target and joint matrices at each (clip, time), in parallel.
fn evaluate_all(model: &Model, subject: &Subject, at: &[(usize, f64)], method: SkinningMethod) -> Vec<Evaluated> {
    at.par_iter()
        .map_init(
            || (Deformer::new(), Vec::new()),
            |(d, out), &(c, t)| evaluate(model, subject, &clip_pose(model, c, t), method, d, out),
        )
        .collect()
}
