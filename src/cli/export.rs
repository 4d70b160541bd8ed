//! `skinlab export`: writes a model (with edited weights from a weights file, or with a pose baked
//! into its meshes) as `.glb` or `.gltf`, carrying everything else in the source over unchanged;
//! optionally also saves the pose file and the `deform` OBJ of the same pose.

use std::path::PathBuf;

use clap::Args;

use super::{CliError, PoseArgs};
use crate::io::pose_file;
use crate::io::{self, obj, Bake, Container, ExportOptions, OutputPlan, StagedSet, WeightsFormat};
use crate::paint::{weld, ModelSurface};
use crate::skinning::{Deformer, SkinningMethod};

/// Arguments of `skinlab export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The model (.glb, .gltf, .fbx or .obj).
    pub model: PathBuf,
    /// The file to write: .glb, or .gltf (buffer embedded as a data URI unless --external-buffer).
    #[arg(long, value_name = "OUT.glb|OUT.gltf")]
    pub out: PathBuf,
    /// A weights file (`"format": "skinlab-weights"`) to apply before exporting.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Bake the pose into the meshes (deformed positions and normals, skins removed).
    #[arg(long)]
    pub bake: bool,
    /// The pose (for --bake, --save-pose and --obj; the rest pose by default).
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Skinning method for --bake and --obj: lbs, dqs, sbs or sbs-c.
    #[arg(long, default_value = "sbs")]
    pub method: SkinningMethod,
    /// With a .gltf output: write the buffer to a .bin file beside it instead of embedding it.
    #[arg(long)]
    pub external_buffer: bool,
    /// Encoding of written weights: float, u16 or u8 (normalised). Given, every skinned primitive is
    /// re-encoded; otherwise only primitives with edited weights are rewritten (as float).
    #[arg(long, value_name = "FORMAT")]
    pub weights_format: Option<WeightsFormat>,
    /// Most influences per vertex in rewritten weights (more than 4 adds JOINTS_1/WEIGHTS_1); source
    /// vertices with more are rewritten with their largest ones, normalised.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=16))]
    pub max_influences: u8,
    /// Allow writing over the input model (or a file it uses).
    #[arg(long)]
    pub force: bool,
    /// Write source weights that glTF validators reject (sums not 1, a joint listed twice) or that
    /// exceed --max-influences as they are; by default they are written normalised, as the
    /// deformation contract reads them (the largest --max-influences kept).
    #[arg(long)]
    pub keep_weights: bool,
    /// Also save the pose as a pose file.
    #[arg(long, value_name = "FILE")]
    pub save_pose: Option<PathBuf>,
    /// Also write the contract's OBJ of the pose (as `skinlab deform` does).
    #[arg(long, value_name = "OUT.obj")]
    pub obj: Option<PathBuf>,
    /// Helper joints fitted so that LBS players show another method.
    #[command(flatten)]
    pub emulation: super::export_emulate::EmulateArgs,
}

/// Runs `skinlab export`.
pub fn run(args: &ExportArgs) -> Result<(), CliError> {
    let container =
        Container::for_path(&args.out, args.external_buffer).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let mut plan = OutputPlan::new();
    plan.write("--out", &args.out);
    for (flag, path) in [("--save-pose", &args.save_pose), ("--obj", &args.obj)] {
        if let Some(path) = path {
            plan.write(flag, path);
        }
    }
    if let Some(path) = &args.emulation.report {
        plan.write("--report", path);
    }
    if let Some(path) = &args.weights {
        plan.read("the weights file", path);
    }
    args.pose.record_input(&mut plan);
    let (mut model, source) = super::load_document_checked(&mut plan, &args.model, args.force)?;
    let mut summary = Vec::new();
    let surface = ModelSurface::new(&model);
    if let Some(path) = &args.weights {
        let before = weld::disagreeing_groups(&model, &surface, weld::AGREEMENT_TOLERANCE);
        let applied = io::apply_weights_file(path, &mut model)?;
        summary.push(format!("applied weights of {} vertices", applied.vertices));
        let welded =
            weld::weld_after_import(&mut model, &surface, &before).map_err(|e| format!("{}: {e}", path.display()))?;
        if welded > 0 {
            summary.push(format!(
                "welded {welded} groups of coincident vertices the file gave different weights (their mean)"
            ));
        }
    }
    if let Some(warning) = weld::disagreement_warning(&model, &surface) {
        use std::io::Write as _;
        // A warning that cannot be shown does not stop the export.
        let _ = writeln!(std::io::stderr(), "warning: {}: {warning}", args.model.display());
    }
    let plain = args.emulation.emulate.is_some().then(|| model.clone());
    let emulated =
        super::export_emulate::prepare(&args.emulation, &mut model, &args.model, args.bake, args.force, &source)?;
    let pose = args.pose.resolve(&model)?;
    // The companions are staged first and replace their old files only once the model is written.
    let mut companions = StagedSet::new();
    if let Some(path) = &args.save_pose {
        let text = pose_file::pose_to_json(&pose, &model.nodes);
        companions.stage(path, |w| w.write_all(text.as_bytes()))?;
    }
    if let Some(path) = &args.obj {
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        deformer.deform_all(&model, &pose, args.method, &mut out);
        obj::check_finite(&model, &out).map_err(|e| format!("{}: {e}", args.model.display()))?;
        companions.stage(path, |w| obj::write_obj(w, &model, &out))?;
    }
    let options = ExportOptions {
        container,
        weights_format: args.weights_format,
        max_influences: emulated.as_ref().map_or(usize::from(args.max_influences), |e| {
            e.emulation.influence_limit.max(usize::from(args.max_influences))
        }),
        bake: args.bake.then_some(Bake { pose, method: args.method }),
        overwrite_source: args.force,
        keep_weights: args.keep_weights,
    };
    let morphs = emulated.as_ref().and_then(|e| e.morphs.as_ref());
    let report = io::gltf_export::export_model_with_key_morphs(&model, &source, &options, morphs, &args.out)?;
    if let (Some(done), Some(plain)) = (&emulated, &plain) {
        let plain_bytes = super::export_emulate::plain_bytes(plain, &source, &options, &args.out)?;
        let helpers_bytes = match morphs {
            Some(_) => super::export_emulate::plain_bytes(&model, &source, &options, &args.out)?,
            None => report.files.iter().map(|f| f.1).sum(),
        };
        let (line, report_json) = super::export_emulate::finish(
            done,
            &args.emulation,
            &args.model,
            &args.out,
            &report,
            plain_bytes,
            helpers_bytes,
        )?;
        if let (Some(path), Some(text)) = (&args.emulation.report, report_json) {
            companions.stage(path, |w| w.write_all(&text))?;
        }
        summary.push(line);
    }
    companions.commit()?;
    if report.rewritten_primitives > 0 {
        summary.push(format!("new weights in {} primitives", report.rewritten_primitives));
    }
    if report.repaired_vertices > 0 {
        // One line for every repair; trimmed source vertices are among them.
        summary.push(format!(
            "normalised the source weights of {} vertices (not summing to 1, listing a joint twice or beyond \
             {} influences, of which the largest were kept; --keep-weights writes them as they are)",
            report.repaired_vertices, args.max_influences
        ));
    } else if report.trimmed_vertices > 0 {
        summary.push(format!(
            "{} vertices trimmed to {} influences (raise --max-influences to keep more)",
            report.trimmed_vertices, args.max_influences
        ));
    }
    if report.empty_vertices > 0 {
        summary.push(format!(
            "{} vertices have no influence (written with zero weights, which glTF validators reject)",
            report.empty_vertices
        ));
    }
    if report.baked_nodes > 0 {
        summary.push(format!("baked {} skinned mesh nodes ({})", report.baked_nodes, args.method));
    }
    for (path, bytes) in &report.files {
        crate::outln!("wrote {} ({bytes} bytes)", path.display());
    }
    if !summary.is_empty() {
        crate::outln!("{}", summary.join("; "));
    }
    Ok(())
}
