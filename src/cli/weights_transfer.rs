//! `skinlab weights transfer SOURCE TARGET --out WEIGHTS.json`: the weights of SOURCE carried onto
//! TARGET by closest point, the rest inpainted (see `paint::transfer`), written as a weights file
//! holding the target's changed vertices (apply it in the editor or with `export --weights`).

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::io::OutputPlan;
use crate::model::StrokeRecord;
use crate::paint::transfer::{apply_transfer, plan_transfer, TransferOptions};
use crate::paint::{ModelSurface, WeightRules};

/// Arguments of `skinlab weights transfer`.
#[derive(Debug, Args)]
pub struct TransferArgs {
    /// The model whose weights are read (.gltf, .glb or .obj with a skin).
    pub source: PathBuf,
    /// The model that receives them (its joints matched to the source's by name, else by bind
    /// position); may be the same file with --source-skin and --target-skin.
    pub target: PathBuf,
    /// The weights file to write (the target's changed vertices).
    #[arg(long)]
    pub out: PathBuf,
    /// Farthest closest point that counts as a match, as a share of the target's diagonal.
    #[arg(long, default_value_t = 0.05)]
    pub max_distance: f32,
    /// Largest angle between the normals at a match, in degrees.
    #[arg(long, default_value_t = 30.0)]
    pub max_angle: f32,
    /// Read only the primitives drawn with this skin of the source.
    #[arg(long)]
    pub source_skin: Option<usize>,
    /// Write only the primitives drawn with this skin of the target.
    #[arg(long)]
    pub target_skin: Option<usize>,
    /// Most influences per vertex.
    #[arg(long, default_value_t = crate::paint::DEFAULT_LIMIT)]
    pub limit: usize,
}

/// Runs `skinlab weights transfer`.
pub fn run(args: &TransferArgs) -> Result<(), CliError> {
    let bad = |what: &str| -> CliError { format!("{}: {what}", args.out.display()).into() };
    if !(args.max_distance.is_finite() && args.max_distance >= 0.0) {
        return Err(bad("--max-distance must be a non-negative number"));
    }
    if !(args.max_angle.is_finite() && (0.0..=180.0).contains(&args.max_angle)) {
        return Err(bad("--max-angle must be between 0 and 180 degrees"));
    }
    if !(1..=crate::model::influences::MAX_SLOTS).contains(&args.limit) {
        return Err(bad(&format!("--limit must be between 1 and {}", crate::model::influences::MAX_SLOTS)));
    }
    let mut plan = OutputPlan::new();
    plan.write("--out", &args.out);
    plan.read_model("the source model", std::slice::from_ref(&args.source));
    plan.read_model("the target model", std::slice::from_ref(&args.target));
    plan.check(false)?;
    let source = super::load_reported(&args.source)?;
    let target = super::load_reported(&args.target)?;
    plan.read_model("the source model", &source.files).read_model("the target model", &target.files);
    let (source, original) = (source.model, target.model);
    plan.check(false)?;
    let mut target = original.clone();
    for (flag, skin, model, path) in [
        ("--source-skin", args.source_skin, &source, &args.source),
        ("--target-skin", args.target_skin, &target, &args.target),
    ] {
        if let Some(s) = skin.filter(|&s| s >= model.skins.len()) {
            return Err(format!("{}: {flag} {s}: the model has {} skins", path.display(), model.skins.len()).into());
        }
    }
    let (ss, ts) = (ModelSurface::new(&source), ModelSurface::new(&target));
    let options = TransferOptions {
        max_distance: args.max_distance,
        max_angle_deg: args.max_angle,
        source_skin: args.source_skin,
        target_skin: args.target_skin,
    };
    let rules = WeightRules { limit: args.limit, ..WeightRules::default() };
    let plan = plan_transfer(&source, &ss, &target, &ts, &rules, &options)
        .map_err(|e| format!("{}: {e} (transferring from {})", args.target.display(), args.source.display()))?;
    let mut record = StrokeRecord::new("Transfer Weights");
    let report = apply_transfer(&mut target, &ts, &rules, &plan, &mut record)
        .map_err(|e| format!("{}: {e}", args.target.display()))?;
    let written = crate::io::write_weights_file(&args.out, &target, Some(&original))?;
    crate::outln!("{}", report.summary());
    crate::outln!("wrote {} ({written} vertices changed)", args.out.display());
    Ok(())
}
