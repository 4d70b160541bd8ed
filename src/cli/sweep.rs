//! `skinlab sweep MODEL [--joints NAME,...] [--method lbs,dqs,sbs] [--motion twist,bend]
//! [--max-angle 180] [--steps 37 | --clip NAME] --out REPORT.json|.csv [--plot PLOT.png]`: the stress
//! sweep of `analysis::sweep`, on its own steps or on a clip's keys. Every option is checked before any work; files are written atomically.

use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::analysis::sweep::{self, Motion, SweepRequest};
use crate::io::{OutputPlan, StagedSet};
use crate::model::{Clip, Model};
use crate::plot::sweep as plot;
use crate::skinning::SkinningMethod;

/// Arguments of `skinlab sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The model (.gltf, .glb or .obj with a skin).
    pub model: PathBuf,
    /// Joints to sweep, each alone (node names or #N); default every joint with weight.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub joints: Vec<String>,
    /// Methods to compare.
    #[arg(long, value_delimiter = ',', default_value = "lbs,dqs,sbs")]
    pub method: Vec<SkinningMethod>,
    /// Motions: twist (about the bone), bend (about an axis perpendicular to it), weight (the
    /// joint's weight on each vertex from 1e-1 to 1e-6, against 0: the jump, in a random pose).
    #[arg(long, value_delimiter = ',', default_value = "twist,bend")]
    pub motion: Vec<Motion>,
    /// The largest angle in degrees (0 < angle ≤ 360).
    #[arg(long, default_value_t = 180.0, allow_negative_numbers = true)]
    pub max_angle: f64,
    /// Steps from 0° to the largest angle, both included (2 to 10000).
    #[arg(long, default_value_t = 37)]
    pub steps: usize,
    /// Measure at the key times of this clip of the model (a name, or #N for the N-th clip, e.g. the
    /// range-of-motion clip of `skinlab rom`) instead of turning each joint through --steps up to
    /// --max-angle: per joint and motion, the keys at which the clip turns the joint about that
    /// motion's axis.
    #[arg(long, value_name = "NAME")]
    pub clip: Option<String>,
    /// The report: .json or .csv (replaced atomically).
    #[arg(long, value_name = "REPORT.json|.csv")]
    pub out: PathBuf,
    /// Also draw the curves into this PNG: one row per joint and motion, one panel per metric.
    #[arg(long, value_name = "PLOT.png")]
    pub plot: Option<PathBuf>,
}

fn extension(path: &Path) -> String {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

/// Resolves `names` to joint nodes of `model` (every weighted joint when empty).
pub(super) fn joints(model: &Model, names: &[String], path: &Path) -> Result<Vec<usize>, CliError> {
    let weighted = sweep::weighted_joints(model);
    if names.is_empty() {
        if weighted.is_empty() {
            return Err(format!("{}: no joint has weight on a vertex: nothing to sweep", path.display()).into());
        }
        return Ok(weighted);
    }
    let mut out = Vec::new();
    for name in names {
        let node = model.nodes.find(name).map_err(|e| format!("{}: --joints {name:?}: {e}", path.display()))?;
        if !model.skins.iter().any(|s| s.joints.contains(&node)) {
            return Err(format!("{}: --joints {name:?}: not a joint of any skin", path.display()).into());
        }
        if !weighted.contains(&node) {
            return Err(format!("{}: --joints {name:?}: influences no vertex", path.display()).into());
        }
        if !out.contains(&node) {
            out.push(node);
        }
    }
    Ok(out)
}

/// The clip named `name` (or `#N`, counted from 0) of `model`.
fn clip<'m>(model: &'m Model, name: &str, path: &Path) -> Result<&'m Clip, CliError> {
    let by_index = name.strip_prefix('#').and_then(|n| n.parse::<usize>().ok()).and_then(|n| model.clips.get(n));
    by_index.or_else(|| model.clips.iter().find(|c| c.name.as_deref() == Some(name))).ok_or_else(|| {
        let names = model.clip_keys();
        let known = if names.is_empty() { "the model has none".to_owned() } else { names.join(", ") };
        format!("{}: --clip {name:?}: no such clip ({known})", path.display()).into()
    })
}

/// Checks the options that need no model.
fn check_options(args: &SweepArgs) -> Result<(), CliError> {
    let out_ext = extension(&args.out);
    if out_ext != "json" && out_ext != "csv" {
        return Err(format!("--out {}: the report must end in .json or .csv", args.out.display()).into());
    }
    if let Some(plot) = &args.plot {
        if extension(plot) != "png" {
            return Err(format!("--plot {}: the plot must end in .png", plot.display()).into());
        }
    }
    if !(args.max_angle.is_finite() && args.max_angle > 0.0 && args.max_angle <= 360.0) {
        return Err(
            format!("--max-angle {}: must be a number of degrees above 0 and at most 360", args.max_angle).into()
        );
    }
    if !(2..=10_000).contains(&args.steps) {
        return Err(format!("--steps {}: must be 2 to 10000", args.steps).into());
    }
    if args.clip.is_some() && args.motion.contains(&Motion::Weight) {
        return Err("--motion weight turns nothing, so a clip cannot drive it: leave it out with --clip".into());
    }
    if args.method.is_empty() || args.motion.is_empty() {
        return Err("--method and --motion need at least one value".into());
    }
    Ok(())
}

/// Runs `skinlab sweep`.
pub fn run(args: &SweepArgs) -> Result<(), CliError> {
    check_options(args)?;
    let mut plan = OutputPlan::new();
    plan.write("--out", &args.out);
    if let Some(path) = &args.plot {
        plan.write("--plot", path);
    }
    let model = super::load_model_checked(&mut plan, &args.model)?;
    let joints = joints(&model, &args.joints, &args.model)?;
    if args.plot.is_some() && joints.len() * args.motion.len() > plot::MAX_ROWS {
        return Err(format!(
            "--plot draws at most {} joint x motion rows, this sweep has {}: choose joints with --joints",
            plot::MAX_ROWS,
            joints.len() * args.motion.len()
        )
        .into());
    }
    let mut methods = Vec::new();
    for m in &args.method {
        if !methods.contains(m) {
            methods.push(*m);
        }
    }
    let mut motions = Vec::new();
    for m in &args.motion {
        if !motions.contains(m) {
            motions.push(*m);
        }
    }
    let request =
        SweepRequest { joints, methods, motions, max_angle_rad: args.max_angle.to_radians(), steps: args.steps };
    let title = args.model.display().to_string();
    let report = match &args.clip {
        Some(name) => sweep::sweep_clip(&model, &title, clip(&model, name, &args.model)?, &request),
        None => sweep::sweep(&model, &title, &request),
    };
    if report.sweeps.is_empty() && args.clip.is_some() {
        return Err(format!(
            "{}: --clip {:?} turns none of the chosen joints about a --motion axis",
            args.model.display(),
            args.clip.as_deref().unwrap_or_default()
        )
        .into());
    }
    // Both files are staged before either replaces an old one.
    let mut staged = StagedSet::new();
    if extension(&args.out) == "csv" {
        staged.stage(&args.out, |w| sweep::write_csv(w, &report))?;
    } else {
        staged.stage(&args.out, |w| {
            serde_json::to_writer_pretty(&mut *w, &report).map_err(std::io::Error::other)?;
            writeln!(w)
        })?;
    }
    if let Some(path) = &args.plot {
        let bytes = plot::png(&report).map_err(|e| format!("{}: {e}", path.display()))?;
        staged.stage(path, |w| w.write_all(&bytes))?;
    }
    staged.commit()?;
    super::print_out(&report.summary())
}
