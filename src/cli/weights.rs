//! `skinlab weights compare` and `skinlab weights evaluate`: weight-quality measures of a model's
//! skinning weights, against a reference weighting of the same meshes or alone (see `analysis`);
//! `skinlab weights transfer` (in `weights_transfer.rs`).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::{load, CliError};
use crate::analysis::poses::PoseSet;
use crate::analysis::{compare, evaluate};
use crate::skinning::SkinningMethod;

/// Arguments of `skinlab weights`.
#[derive(Debug, Args)]
pub struct WeightsArgs {
    /// What to measure.
    #[command(subcommand)]
    pub command: WeightsCommand,
}

/// The `weights` subcommands.
#[derive(Debug, Subcommand)]
pub enum WeightsCommand {
    /// Compare two weightings of the same meshes (skins matched by joint names): weight L1,
    /// influence precision and recall, smoothness, and the LBS deformation distance over poses.
    Compare(CompareArgs),
    /// Measure one weighting alone: influence histogram, vertices without weight, smoothness, and
    /// the volume kept at a 90° bend of each joint.
    Evaluate(EvaluateArgs),
    /// Carry a model's weights onto another model (or another skin of the same model) by closest
    /// point, fill vertices without a close match by inpainting, and write a weights file.
    Transfer(super::weights_transfer::TransferArgs),
}

/// Arguments of `skinlab weights compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The reference weighting (.gltf or .glb), for example the artist's.
    pub reference: PathBuf,
    /// The compared weighting of the same meshes, for example automatic weights.
    pub compared: PathBuf,
    /// Poses of the deformation distance: auto = every clip at 10 evenly spaced times, or 10
    /// random poses (seed 1, every joint 0-45° about a random axis) when the model has no clip;
    /// note = the random poses plus 5 times of the first clip (shared/notes/blender-autoweights.md).
    #[arg(long, value_enum, default_value_t = PoseSet::Auto)]
    pub poses: PoseSet,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `skinlab weights evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// The model (.glb, .gltf, .fbx or .obj).
    pub model: PathBuf,
    /// Skinning method of the 90° bends: lbs, dqs, sbs or sbs-c.
    #[arg(long, default_value = "lbs")]
    pub method: SkinningMethod,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `skinlab weights ...`.
pub fn run(args: &WeightsArgs) -> Result<(), CliError> {
    match &args.command {
        WeightsCommand::Compare(a) => run_compare(a),
        WeightsCommand::Evaluate(a) => run_evaluate(a),
        WeightsCommand::Transfer(a) => super::weights_transfer::run(a),
    }
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn run_compare(args: &CompareArgs) -> Result<(), CliError> {
    let reference = load(&args.reference)?;
    let compared = load(&args.compared)?;
    let mut report = compare(&reference, &compared, args.poses)
        .map_err(|e| format!("{}: {e} (compared with {})", shown(&args.compared), shown(&args.reference)))?;
    report.reference = shown(&args.reference);
    report.compared = shown(&args.compared);
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        super::print_out(&report.to_string())?;
    }
    Ok(())
}

fn run_evaluate(args: &EvaluateArgs) -> Result<(), CliError> {
    let model = load(&args.model)?;
    if model.instances.is_empty() {
        return Err(format!("{}: the model has no skinned mesh to evaluate", shown(&args.model)).into());
    }
    let mut report = evaluate(&model, args.method);
    report.model = shown(&args.model);
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        super::print_out(&report.to_string())?;
    }
    Ok(())
}
