//! `skinlab deform`: pose a model, skin it by one method, write the contract's OBJ atomically.

use std::path::PathBuf;

use clap::Args;

use super::{load_model_checked, CliError, PoseArgs};
use crate::io::{atomic_write, obj, OutputPlan};
use crate::skinning::{Deformer, SkinningMethod};

/// Arguments of `skinlab deform`.
#[derive(Debug, Args)]
pub struct DeformArgs {
    /// The model (.glb, .gltf, .fbx or .obj).
    pub model: PathBuf,
    /// The pose.
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Skinning method: lbs, dqs, sbs or sbs-c.
    #[arg(long, default_value = "sbs")]
    pub method: SkinningMethod,
    /// The OBJ file to write (replaced atomically).
    #[arg(long, value_name = "OUT.obj")]
    pub out: PathBuf,
}

/// Runs `skinlab deform`.
pub fn run(args: &DeformArgs) -> Result<(), CliError> {
    let mut plan = OutputPlan::new();
    args.pose.record_input(&mut plan);
    plan.write("--out", &args.out);
    let model = load_model_checked(&mut plan, &args.model)?;
    let pose = args.pose.resolve_for_file(&model, &args.model)?;
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(&model, &pose, args.method, &mut out);
    obj::check_finite(&model, &out).map_err(|e| format!("{}: {e}", args.model.display()))?;
    atomic_write(&args.out, |w| obj::write_obj(w, &model, &out))
        .map_err(|e| format!("{}: cannot write: {e}", args.out.display()))?;
    Ok(())
}
