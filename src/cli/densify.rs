//! `skinlab densify`: a production-density copy of a model (`model::densify`: midpoint edge
//! splits of every skinned triangle primitive until the skinned vertices number at least N),
//! written as `.glb` or `.gltf` with every attribute, material, skin and animation carried over.

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::io::{self, Container, ExportOptions};
use crate::model::densify;

/// Arguments of `skinlab densify`.
#[derive(Debug, Args)]
pub struct DensifyArgs {
    /// The model (.glb, .gltf, .fbx or .obj).
    pub model: PathBuf,
    /// The fewest skinned vertices the result must have (over every skinned mesh node; 1 to
    /// 5000000, which keeps the peak memory under about 2 GB).
    #[arg(long, value_name = "N", value_parser = super::whole(1, super::MAX_VERTICES))]
    pub vertices: usize,
    /// The file to write: .glb, or .gltf (buffer embedded as a data URI unless --external-buffer).
    #[arg(long, value_name = "OUT.glb|OUT.gltf")]
    pub out: PathBuf,
    /// With a .gltf output: write the buffer to a .bin file beside it instead of embedding it.
    #[arg(long)]
    pub external_buffer: bool,
    /// Allow writing over the input model (or a file it uses).
    #[arg(long)]
    pub force: bool,
}

/// Runs `skinlab densify`.
pub fn run(args: &DensifyArgs) -> Result<(), CliError> {
    let container =
        Container::for_path(&args.out, args.external_buffer).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let (model, source) =
        super::load_document_checked(crate::io::OutputPlan::new().write("--out", &args.out), &args.model, args.force)?;
    let before = model.skinned_vertex_count();
    let triangles = |m: &crate::model::Model| -> usize {
        m.instances.iter().flat_map(|i| &m.meshes[i.mesh].primitives).map(|p| p.triangles.len()).sum()
    };
    let dense = densify(&model, args.vertices).map_err(|e| format!("{}: {e}", args.model.display()))?;
    let options = ExportOptions { container, overwrite_source: args.force, ..ExportOptions::default() };
    let report = io::gltf_export::export_densified(&dense, &source, &options, &args.out)?;
    crate::outln!(
        "densified: {} skinned vertices, {} triangles (from {before} and {}) in {} rounds of edge splits",
        dense.model.skinned_vertex_count(),
        triangles(&dense.model),
        triangles(&model),
        dense.rounds
    );
    for (path, bytes) in &report.files {
        crate::outln!("wrote {} ({bytes} bytes)", path.display());
    }
    Ok(())
}
