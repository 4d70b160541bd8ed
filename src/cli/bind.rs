//! `skinlab bind`: replaces a skin's weights with automatic weights (bone heat), for every joint or
//! only the named ones (Assign Automatic), and writes the model through the exporter. A progress
//! bar goes to stderr when it is a terminal and the bind takes longer than half a second.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use super::CliError;
use crate::bind::{bind_skin, BindOptions};
use crate::io::{self, Container, ExportOptions};
use crate::model::Model;

/// Arguments of `skinlab bind`.
#[derive(Debug, Args)]
pub struct BindArgs {
    /// The model (.glb, .gltf, .fbx or .obj).
    pub model: PathBuf,
    /// The file to write: .glb, or .gltf (buffer embedded).
    #[arg(long, value_name = "OUT.glb|OUT.gltf")]
    pub out: PathBuf,
    /// The skin to bind (index, as `skinlab info` lists them); every skin when not given.
    #[arg(long, value_name = "N")]
    pub skin: Option<usize>,
    /// Recompute only these joints (node names or `#N` node keys, comma-separated); the other
    /// weights are kept.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub joints: Option<Vec<String>>,
    /// Joints whose weights must not change (node names or `#N` keys, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub locked: Vec<String>,
    /// Most influences per vertex (1 to 16; more than 4 writes JOINTS_1/WEIGHTS_1).
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub limit: usize,
    /// Bind small loose parts far from every bone (an eye, a sword) rigidly to the nearest joint.
    #[arg(long)]
    pub rigid_parts: bool,
    /// Allow writing over the input model.
    #[arg(long)]
    pub force: bool,
}

/// Runs `skinlab bind`.
pub fn run(args: &BindArgs) -> Result<(), CliError> {
    if args.limit == 0 || args.limit > 16 {
        return Err(format!("--limit {}: must be 1 to 16", args.limit).into());
    }
    let container = Container::for_path(&args.out, false).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let (mut model, source) =
        super::load_document_checked(io::OutputPlan::new().write("--out", &args.out), &args.model, args.force)?;
    let file = args.model.display().to_string();
    if model.skins.is_empty() {
        return Err(format!("{file}: has no skin to bind").into());
    }
    let skins: Vec<usize> = match args.skin {
        Some(skin) if skin >= model.skins.len() => {
            return Err(format!("{file}: --skin {skin}: no such skin (the model has {})", model.skins.len()).into());
        }
        Some(skin) => vec![skin],
        None => (0..model.skins.len()).collect(),
    };
    let attached = if args.skin.is_none_or(|s| s == 0) {
        crate::bind::attach_unskinned(&mut model)
    } else {
        crate::bind::Attached::default()
    };
    let joints = match &args.joints {
        Some(names) => Some(resolve_joints(&model, &skins, names, "--joints", &file)?),
        None => None,
    };
    let locked = resolve_joints(&model, &skins, &args.locked, "--locked", &file)?;
    let started = Instant::now();
    let mut bar = super::progress::Progress::new(
        "binding [{bar:30}] {percent:>3} %",
        1000 * skins.len() as u64,
        Duration::from_millis(500),
    );
    let mut lines = Vec::new();
    for (k, &skin) in skins.iter().enumerate() {
        let joints = match &joints {
            Some(per_skin) if per_skin[k].is_empty() => continue, // none of the named joints is in this skin
            Some(per_skin) => Some(per_skin[k].clone()),
            None => None,
        };
        let options =
            BindOptions { limit: args.limit, joints, locked: locked[k].clone(), rigid_parts: args.rigid_parts };
        let mut progress = |f: f32| bar.set(1000 * k as u64 + (f.clamp(0.0, 1.0) * 1000.0) as u64);
        let result =
            bind_skin(&model, skin, &options, &mut progress).map_err(|e| format!("{file}: skin {skin}: {e}"))?;
        result.apply(&mut model).map_err(|e| format!("{file}: skin {skin}: {e}"))?;
        let s = &result.stats;
        lines.push(format!(
            "bound skin {skin}: {} meshes, {} vertices ({} after welding, {} parts{}{}), {} joints solved, {} vertices changed",
            s.meshes,
            s.vertices,
            s.welded_vertices,
            s.parts,
            if s.unseen_vertices > 0 {
                format!(", {} vertices saw no bone and took the nearest", s.unseen_vertices)
            } else {
                String::new()
            },
            if s.rigid_vertices > 0 { format!(", {} vertices of loose parts rigid", s.rigid_vertices) } else { String::new() },
            s.solved_joints,
            s.changed_vertices
        ));
    }
    bar.finish();
    let secs = started.elapsed().as_secs_f64();
    let export = ExportOptions {
        container,
        weights_format: None,
        max_influences: args.limit,
        bake: None,
        overwrite_source: args.force,
        keep_weights: false,
    };
    let report = io::export_model(&model, &source, &export, &args.out)?;
    if !attached.nodes.is_empty() {
        crate::outln!("{} unskinned meshes joined skin 0", attached.nodes.len());
    }
    for skipped in &attached.skipped {
        crate::outln!("left unskinned: {skipped}");
    }
    for line in &lines {
        crate::outln!("{line}");
    }
    crate::outln!("automatic weights in {secs:.2} s");
    for (path, bytes) in &report.files {
        crate::outln!("wrote {} ({bytes} bytes)", path.display());
    }
    Ok(())
}

/// Per skin of `skins`, the skin joint indices of the named nodes (names or `#N` keys). Each name
/// must be a node that is a joint of at least one of the skins.
fn resolve_joints(
    model: &Model,
    skins: &[usize],
    names: &[String],
    flag: &str,
    file: &str,
) -> Result<Vec<Vec<u16>>, CliError> {
    let mut out = vec![Vec::with_capacity(names.len()); skins.len()];
    for name in names {
        let node = model.nodes.find(name).map_err(|e| format!("{file}: {flag} {name:?}: {e}"))?;
        let mut found = false;
        for (k, &skin) in skins.iter().enumerate() {
            if let Some(joint) = model.skins[skin].joints.iter().position(|&n| n == node) {
                out[k].push(joint as u16);
                found = true;
            }
        }
        if !found {
            let which = if skins.len() == 1 { format!("skin {}", skins[0]) } else { "any skin".to_owned() };
            return Err(format!("{file}: {flag} {name:?}: not a joint of {which}").into());
        }
    }
    Ok(out)
}
