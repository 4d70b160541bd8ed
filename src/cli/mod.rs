//! The `skinlab` command line: one file per subcommand over the GUI-free core. Every failure is
//! returned as one error whose `Display` is a single line; `main` prints it and exits with 2.
//!
//! In detail: one file per subcommand (clap); `bench.rs` with `bench_load.rs`, `bench_bind.rs`,
//! `bench_lanes.rs`, `bench_morph.rs` (`--morph-target`: frames with and without one morph target,
//! interleaved) and `bench_threads.rs` (`--threads 1,2,4,8,16`: one pool per count, every frame on
//! each pool in turn, the speed-ups and any count slower than a smaller one); `densify.rs` writes a
//! densified model through `io::gltf_export::export_densified` (`gltf_export/densify.rs`: every
//! attribute and morph target of a refined primitive re-written, normalised integers re-quantised,
//! TANGENT renormalised).
//!
//! Invariants: errors print one line, exit status 2; output goes through `cli::print_out` / `outln!` (a
//! failed write to stdout is an error, never a panic).

pub mod autorig;
pub mod bench;
mod bench_autorig;
mod bench_bind;
mod bench_lanes;
mod bench_load;
mod bench_morph;
pub mod bench_motion;
mod bench_threads;
pub mod bind;
pub mod deform;
pub mod demo;
pub mod densify;
pub mod export;
pub mod export_emulate;
pub mod info;
mod info_sets;
#[cfg(feature = "gui")]
pub mod open;
pub mod pose;
pub mod progress;
#[cfg(feature = "gui")]
pub mod render;
pub mod rig;
pub mod rom;
pub mod sweep;
pub mod weights;
pub mod weights_transfer;

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::io::pose_file;
use crate::io::OutputPlan;
use crate::model::Model;
use crate::rig::{sample, Pose};

/// A failed command: one line for stderr.
pub type CliError = Box<dyn std::error::Error + Send + Sync>;

/// Top-level arguments.
#[derive(Debug, Parser)]
#[command(
    name = "skinlab",
    version,
    about = "Rigging and weight-painting editor: compare LBS, DQS and spherical blend skinning"
)]
pub struct Cli {
    /// What to do (no subcommand opens the editor on the demo model).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Deform a model's skinned meshes and write the contract's OBJ.
    Deform(deform::DeformArgs),
    /// Export a model as .glb/.gltf with edited weights or a baked pose, keeping everything else.
    Export(export::ExportArgs),
    /// Write the built-in demo arm model (GLB).
    Demo(demo::DemoArgs),
    /// Draw a posed model offscreen, one panel per method, into a PNG (no window needed).
    #[cfg(feature = "gui")]
    Render(render::RenderArgs),
    /// Open the editor window on a model (no subcommand: on the built-in demo arm).
    #[cfg(feature = "gui")]
    Open(open::OpenArgs),
    /// Print a model's meshes, skins, joint tree, influence histogram and joint-set counts.
    Info(info::InfoArgs),
    /// Time LBS, DQS and SBS frames on a model or a synthetic rig (and the memory-bandwidth bound).
    Bench(bench::BenchArgs),
    /// Replace a skin's weights with automatic weights (bone heat), for all or only the named joints.
    Bind(bind::BindArgs),
    /// Weight quality: compare two weightings of the same meshes, or evaluate one alone.
    Weights(weights::WeightsArgs),
    /// Rig an unrigged character automatically: fit a humanoid or quadruped skeleton (from its
    /// shape or front-view markers), bind every mesh with automatic weights, write glTF.
    Autorig(autorig::AutorigArgs),
    /// Edit or build a skeleton (add, delete, move, reparent, rename, symmetrize, orient joints;
    /// create a skin on an unskinned mesh) and export the result.
    Rig(rig::RigArgs),
    /// Turn each joint alone through a twist and a bend and measure, per step and method, collapse,
    /// volume change, bulge and flips on the vertices it influences (JSON or CSV, optional plot).
    Sweep(sweep::SweepArgs),
    /// Subdivide every skinned triangle primitive (midpoint edge splits, weights interpolated)
    /// until the model has at least N skinned vertices, and write it as .glb/.gltf.
    Densify(densify::DensifyArgs),
    /// Pose a model by inverse kinematics (`--ik JOINT=X,Y,Z`) and write a pose file.
    Pose(pose::PoseCmdArgs),
    /// Add a range-of-motion clip (each joint's twist and bends in turn) and export the model.
    Rom(rom::RomArgs),
}

/// How the pose is chosen: a pose file, an animation sample, or the rest pose.
#[derive(Debug, Args, Clone)]
pub struct PoseArgs {
    /// A pose file (JSON, `"format": "skinlab-pose"`).
    #[arg(long, value_name = "FILE", conflicts_with = "animation")]
    pub pose: Option<PathBuf>,
    /// Sample this animation (its name, or `#N` for its index).
    #[arg(long, value_name = "NAME")]
    pub animation: Option<String>,
    /// Time in seconds at which to sample the animation (clamped to its range).
    #[arg(long, value_name = "SECONDS", requires = "animation", allow_negative_numbers = true)]
    pub time: Option<f64>,
}

impl PoseArgs {
    /// Resolves the pose against `model`.
    pub fn resolve(&self, model: &Model) -> Result<Pose, CliError> {
        if let Some(path) = &self.pose {
            return Ok(pose_file::read_pose_file(path, &model.nodes)?);
        }
        let Some(name) = &self.animation else {
            return Ok(Pose::rest());
        };
        let clip = model.find_clip(name).ok_or_else(|| {
            let names = model.clip_keys();
            if names.is_empty() {
                format!("--animation {name:?}: the model has no animations")
            } else {
                format!("--animation {name:?}: no such animation (the model has: {})", names.join(", "))
            }
        })?;
        let time = self.time.unwrap_or(0.0);
        if !time.is_finite() {
            return Err(format!("--time {time}: not a finite number of seconds").into());
        }
        let mut pose = Pose::rest();
        sample::sample_clip(&model.clips[clip], time, &mut pose);
        Ok(pose)
    }
}

impl PoseArgs {
    /// Records the pose file, if any, among the files a command reads.
    pub fn record_input(&self, plan: &mut OutputPlan) {
        if let Some(path) = &self.pose {
            plan.read("the pose file", path);
        }
    }

    /// Resolves the pose against `model`, loaded from `model_path`: an `--animation` error names
    /// that file (a pose-file error names the pose file).
    pub fn resolve_for_file(&self, model: &Model, model_path: &Path) -> Result<Pose, CliError> {
        match self.resolve(model) {
            Err(e) if self.pose.is_none() => Err(format!("{}: {e}", model_path.display()).into()),
            other => other,
        }
    }
}

/// A command-line usage error (unknown option, bad value, missing argument) as one line, for the
/// single `error: ...` line on stderr: clap's message without its usage block and `--help` hint.
#[must_use]
pub fn usage_error_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut parts = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if !line.is_empty() {
            parts.push(line.strip_prefix("error:").map_or(line, str::trim_start));
        }
    }
    format!("{} (see --help)", parts.join(" "))
}

/// A clap parser for a whole number from `lo` to `hi`, both included: anything else is one error
/// line naming the range (exit status 2), before any work.
#[must_use]
pub fn whole(lo: u64, hi: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(lo..=hi)
}

/// The most vertices a densified or synthetic model may have (`model::densify::MAX_VERTICES`).
pub const MAX_VERTICES: u64 = crate::model::densify::MAX_VERTICES as u64;

/// Writes `text` to standard output and flushes it; a failed write (a closed pipe, a full disk)
/// is an error line like any other instead of a panic.
pub fn print_out(text: &str) -> Result<(), CliError> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write to standard output: {e}").into())
}

/// `println!` through [`print_out`]: returns the error from the enclosing function.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::print_out(&format!("{}\n", format_args!($($arg)*)))?
    };
}

/// Loads a model (the error names the file), printing the import's warnings.
pub fn load(path: &Path) -> Result<Model, CliError> {
    Ok(load_reported(path)?.model)
}

/// Loads a model with its files, printing the import's warnings (`warn_import`).
pub fn load_reported(path: &Path) -> Result<crate::io::LoadedModel, CliError> {
    let loaded = crate::io::load_model_reported(path)?;
    warn_import(path, &loaded.warnings);
    Ok(loaded)
}

/// Prints one `warning: FILE: ...` line on standard error per thing the import of `path`
/// dropped or approximated; a failed write to standard error is ignored.
pub fn warn_import(path: &Path, warnings: &[String]) {
    use std::io::Write as _;
    let mut err = std::io::stderr().lock();
    for warning in warnings {
        let line = crate::error_line::one_line(&format!("{}: {warning}", path.display()));
        let _ = writeln!(err, "warning: {line}");
    }
}

/// Loads `model` for a command whose other inputs and outputs are in `plan`: the plan is checked
/// before loading (no output a special file, the model or another input, nor twice the same) and
/// again once the model's external buffers and images are known. `force` allows writing over the
/// model's own files.
pub fn load_checked<T>(
    plan: &mut OutputPlan,
    model: &Path,
    force: bool,
    load: impl FnOnce(&Path) -> Result<(T, Vec<PathBuf>), CliError>,
) -> Result<T, CliError> {
    plan.read_model("the model", &[model.to_path_buf()]);
    plan.check(force)?;
    let (loaded, files) = load(model)?;
    plan.read_model("the model", &files);
    plan.check(force)?;
    Ok(loaded)
}

/// [`load_checked`] for a model alone (no source document).
pub fn load_model_checked(plan: &mut OutputPlan, model: &Path) -> Result<Model, CliError> {
    load_checked(plan, model, false, |path| {
        let loaded = load_reported(path)?;
        Ok((loaded.model, loaded.files))
    })
}

/// [`load_checked`] for a model with its source document (commands that export it).
pub fn load_document_checked(
    plan: &mut OutputPlan,
    model: &Path,
    force: bool,
) -> Result<(Model, crate::io::SourceDocument), CliError> {
    load_checked(plan, model, force, |path| {
        let (model, source) = crate::io::load_document(path)?;
        warn_import(path, source.warnings());
        let files = source.files().to_vec();
        Ok(((model, source), files))
    })
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Some(Command::Deform(args)) => deform::run(&args),
        Some(Command::Info(args)) => info::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Bind(args)) => bind::run(&args),
        Some(Command::Weights(args)) => weights::run(&args),
        Some(Command::Rig(args)) => rig::run(&args),
        Some(Command::Autorig(args)) => autorig::run(&args),
        Some(Command::Sweep(args)) => sweep::run(&args),
        Some(Command::Pose(args)) => pose::run(&args),
        Some(Command::Rom(args)) => rom::run(&args),
        Some(Command::Export(args)) => export::run(&args),
        Some(Command::Demo(args)) => demo::run(&args),
        Some(Command::Densify(args)) => densify::run(&args),
        #[cfg(feature = "gui")]
        Some(Command::Render(args)) => render::run(&args),
        #[cfg(feature = "gui")]
        Some(Command::Open(args)) => open::run(&args),
        #[cfg(feature = "gui")]
        None => open::run(&open::OpenArgs::default()),
        #[cfg(not(feature = "gui"))]
        None => {
            use clap::CommandFactory;
            Cli::command().print_help()?;
            Ok(())
        }
    }
}
