//! `skinlab rom MODEL [--joints A,B] [--max-angle 90] [--seconds-per-motion 1] --out OUT.glb|.gltf`:
//! adds the range-of-motion clip of `analysis::rom` ("ROM", or "ROM.001", … when taken) to the
//! model and exports it with everything else kept (`io::export_model`, atomically). Every option is
//! checked before any work.

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::analysis::rom::{rom_clip, RomRequest};
use crate::io::{self, Container, ExportOptions};

/// Arguments of `skinlab rom`.
#[derive(Debug, Args)]
pub struct RomArgs {
    /// The model (.glb, .gltf, .fbx or .obj).
    pub model: PathBuf,
    /// Joints to move, in clip order (node names or #N); default every joint with weight.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub joints: Vec<String>,
    /// The largest angle of each motion in degrees (0 < angle ≤ 180).
    #[arg(long, default_value_t = 90.0, allow_negative_numbers = true)]
    pub max_angle: f64,
    /// Seconds per motion (each joint has three: twist, bend, side bend; 0.01 to 3600).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub seconds_per_motion: f64,
    /// The file to write: .glb, or .gltf (buffer embedded).
    #[arg(long, value_name = "OUT.glb|OUT.gltf")]
    pub out: PathBuf,
    /// Allow writing over the input model.
    #[arg(long)]
    pub force: bool,
}

/// Runs `skinlab rom`.
pub fn run(args: &RomArgs) -> Result<(), CliError> {
    let container = Container::for_path(&args.out, false).map_err(|e| format!("{}: {e}", args.out.display()))?;
    if !(args.max_angle.is_finite() && args.max_angle > 0.0 && args.max_angle <= 180.0) {
        return Err(
            format!("--max-angle {}: must be a number of degrees above 0 and at most 180", args.max_angle).into()
        );
    }
    if !(args.seconds_per_motion.is_finite() && (0.01..=3600.0).contains(&args.seconds_per_motion)) {
        return Err(format!("--seconds-per-motion {}: must be 0.01 to 3600", args.seconds_per_motion).into());
    }
    let (mut model, source) =
        super::load_document_checked(crate::io::OutputPlan::new().write("--out", &args.out), &args.model, args.force)?;
    let joints = super::sweep::joints(&model, &args.joints, &args.model)?;
    let request =
        RomRequest { joints, max_angle_rad: args.max_angle.to_radians(), seconds_per_motion: args.seconds_per_motion };
    let rom = rom_clip(&model, &request);
    let name = rom.clip.name.clone().unwrap_or_default();
    let (_, end) = rom.clip.range();
    model.clips.push(rom.clip);
    let options = ExportOptions { container, overwrite_source: args.force, ..ExportOptions::default() };
    let report = io::export_model(&model, &source, &options, &args.out)?;
    let mut text = format!(
        "added clip {name:?}: {} joint(s) x {} motions, {end:.2} s, ±{}°\n",
        request.joints.len(),
        crate::analysis::rom::RomMotion::ALL.len(),
        args.max_angle
    );
    for (path, bytes) in &report.files {
        text.push_str(&format!("wrote {} ({bytes} bytes)\n", path.display()));
    }
    super::print_out(&text)
}
