//! `skinlab autorig`: an unrigged character (OBJ or glTF) to a bound rig in one command: fit a
//! template skeleton (from the shape alone or from front-view markers, `rig::autorig`), give every
//! mesh one skin, bind it with automatic weights and write glTF. Progress goes to stderr as a bar
//! when stderr is a terminal (hidden otherwise).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::CliError;
use crate::bind::{bind_skin, BindOptions};
use crate::io::{self, Container, ExportOptions};
use crate::rig::autorig::build::{build_rig, source};
use crate::rig::autorig::{FitOptions, Markers, Template};

/// Arguments of `skinlab autorig`.
#[derive(Debug, Args)]
pub struct AutorigArgs {
    /// The unrigged character (.obj, .glb or .gltf), standing Y up and facing +Z.
    pub model: PathBuf,
    /// The file to write: .glb or .gltf.
    #[arg(long, value_name = "OUT.glb|OUT.gltf")]
    pub out: PathBuf,
    /// The skeleton template: humanoid or quadruped.
    #[arg(long, default_value = "humanoid", value_name = "humanoid|quadruped")]
    pub template: String,
    /// Front-view markers as `name=X,Y,Z;...` with names chin, wrist.L, wrist.R, elbow.L,
    /// elbow.R, knee.L, knee.R, groin (any point on the front view's ray through the joint; a
    /// side given alone is mirrored). Without markers the fit uses the shape alone.
    #[arg(long, value_name = "NAME=X,Y,Z;...")]
    pub markers: Option<String>,
    /// Add three joints per finger and a thumb (humanoid).
    #[arg(long)]
    pub fingers: bool,
    /// Fit and write the skeleton without automatic weights (every vertex on the root).
    #[arg(long)]
    pub no_bind: bool,
    /// Allow writing over the input model.
    #[arg(long)]
    pub force: bool,
}

fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(100), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{msg:12} [{bar:30}] {percent:>3} %") {
        bar.set_style(style.progress_chars("#>-"));
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Runs `skinlab autorig`.
pub fn run(args: &AutorigArgs) -> Result<(), CliError> {
    let file = args.model.display().to_string();
    let template: Template = args.template.parse().map_err(|e| format!("--template: {e}"))?;
    let markers = match &args.markers {
        Some(text) => Markers::parse(text).map_err(|e| format!("--markers: {e}"))?,
        None => Markers::default(),
    };
    if template == Template::Quadruped && (!markers.is_empty() || args.fingers) {
        return Err("--markers and --fingers apply to the humanoid template only".to_owned().into());
    }
    let container = Container::for_path(&args.out, false).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let (mut model, doc) =
        super::load_document_checked(io::OutputPlan::new().write("--out", &args.out), &args.model, args.force)?;
    let started = Instant::now();
    let bar = progress_bar();
    bar.set_message("fitting");
    let src = source(&model).map_err(|e| format!("{file}: {e}"))?;
    let options = FitOptions { template, markers, fingers: args.fingers };
    let plan = src.fit(&options).map_err(|e| format!("{file}: {e}"))?;
    build_rig(&mut model, &plan, &src.mesh_nodes).map_err(|e| format!("{file}: {e}"))?;
    let fitted = started.elapsed().as_secs_f64();
    bar.set_position(20);
    let mut lines = vec![format!(
        "fitted {} joints ({}) to {} meshes, {} triangles in {fitted:.2} s",
        plan.joints.len(),
        args.template,
        src.mesh_nodes.len(),
        src.triangles.len()
    )];
    lines.extend(plan.notes.iter().cloned());
    lines.extend(src.skipped.iter().map(|s| format!("left unrigged: {s}")));
    if !args.no_bind {
        bar.set_message("binding");
        let options = BindOptions { rigid_parts: true, ..BindOptions::default() };
        let mut report = |f: f32| bar.set_position(20 + (f.clamp(0.0, 1.0) * 80.0) as u64);
        let result = bind_skin(&model, 0, &options, &mut report).map_err(|e| format!("{file}: binding: {e}"))?;
        result.apply(&mut model).map_err(|e| format!("{file}: binding: {e}"))?;
        let s = &result.stats;
        lines.push(format!(
            "bound {} meshes, {} vertices ({} of loose parts rigid) in {:.2} s",
            s.meshes,
            s.vertices,
            s.rigid_vertices,
            started.elapsed().as_secs_f64() - fitted
        ));
    }
    bar.finish_and_clear();
    let export = ExportOptions { container, overwrite_source: args.force, ..ExportOptions::default() };
    let report = io::export_model(&model, &doc, &export, &args.out)?;
    for line in &lines {
        crate::outln!("{line}");
    }
    for (path, bytes) in &report.files {
        crate::outln!("wrote {} ({bytes} bytes)", path.display());
    }
    Ok(())
}
