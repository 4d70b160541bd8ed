//! `skinlab rig`: skeleton edits from the command line, applied in order to a model (glTF or
//! OBJ) and exported as `.glb`/`.gltf`: the scriptable twin of the editor's Rig mode. Each
//! `--edit` is one operation of `rig::skeleton_edit`; joints are named by node name or `#N`.

use std::path::PathBuf;

use clap::Args;
use glam::{DMat4, DVec3};

use super::CliError;
use crate::bind::{attach_unskinned, bind_skin, BindOptions};
use crate::io::{self, Container, ExportOptions};
use crate::model::Model;
use crate::rig::skeleton_edit::{
    add_joint, create_skin, delete_joint, meshes_in_space, move_joint, orient_joint, rename_node, reparent, set_roll,
    symmetrize, SkeletonRecord,
};

/// The edit grammar, for messages and `--help`.
const GRAMMAR: &str =
    "create-skin MESH_NODE[,MESH_NODE...]|* ROOT X,Y,Z | add NAME PARENT X,Y,Z | delete JOINT | move JOINT X,Y,Z | \
     reparent JOINT PARENT|- | rename JOINT NEW_NAME | symmetrize JOINT | orient JOINT | roll JOINT DEGREES | bind";

/// Arguments of `skinlab rig`.
#[derive(Debug, Args)]
pub struct RigArgs {
    /// The model (.gltf, .glb or .obj).
    pub model: PathBuf,
    /// The file to write: .glb or .gltf.
    #[arg(long, value_name = "OUT.glb|OUT.gltf")]
    pub out: PathBuf,
    /// One skeleton edit, applied in the order given: create-skin MESH_NODE[,MESH_NODE...]|* ROOT
    /// X,Y,Z (one skin for the listed mesh nodes, `*` every unskinned mesh) |
    /// add NAME PARENT X,Y,Z | delete JOINT | move JOINT X,Y,Z | reparent JOINT PARENT|- |
    /// rename JOINT NEW_NAME | symmetrize JOINT (mirror the joint's subtree to the other side,
    /// adding side names in the rig's scheme) | orient JOINT | roll JOINT DEGREES (Blender's
    /// roll about the bone) | bind (automatic weights for
    /// every skin, as `skinlab bind`). Positions are in bind space (the mesh's own coordinates);
    /// joints are node names or #N.
    #[arg(long = "edit", value_name = "EDIT", required = true)]
    pub edits: Vec<String>,
    /// Allow writing over the input model (or a file it uses).
    #[arg(long)]
    pub force: bool,
}

fn position(token: &str) -> Result<DVec3, String> {
    let parts: Vec<&str> = token.split(',').collect();
    let nums: Vec<f64> = parts.iter().filter_map(|p| p.trim().parse::<f64>().ok()).collect();
    match nums.as_slice() {
        [x, y, z] if parts.len() == 3 && nums.iter().all(|v| v.is_finite()) => Ok(DVec3::new(*x, *y, *z)),
        _ => Err(format!("{token:?} is not a position X,Y,Z of three finite numbers")),
    }
}

fn node(model: &Model, key: &str) -> Result<usize, String> {
    model.nodes.find(key).map_err(|e| e.to_string())
}

/// Binds every skin of `model` with automatic weights (a single skin first takes every unskinned
/// mesh); returns the edit's label with the meshes and vertices bound.
fn bind_all(model: &mut Model) -> Result<String, String> {
    if model.skins.is_empty() {
        return Err("the model has no skin to bind (start one with create-skin)".into());
    }
    attach_unskinned(model);
    let (mut meshes, mut vertices) = (0, 0);
    for skin in 0..model.skins.len() {
        let result = bind_skin(model, skin, &BindOptions::default(), &mut |_| {}).map_err(|e| e.to_string())?;
        result.apply(model).map_err(|e| e.to_string())?;
        meshes += result.stats.meshes;
        vertices += result.stats.vertices;
    }
    Ok(format!("Bind: {meshes} meshes, {vertices} vertices"))
}

/// The mesh nodes of a create-skin edit: comma-separated node keys, or `*` for every unskinned
/// mesh placed like the first one.
fn mesh_nodes(model: &Model, list: &str) -> Result<Vec<usize>, String> {
    if list == "*" {
        let first = model.rigid_instances.iter().map(|r| r.0).min().ok_or("the model has no unskinned mesh")?;
        let space = rest_globals(model).get(first).copied().unwrap_or(DMat4::IDENTITY);
        return Ok(meshes_in_space(model, space).0);
    }
    list.split(',').map(|key| node(model, key.trim())).collect()
}

fn rest_globals(model: &Model) -> Vec<DMat4> {
    let mut globals = Vec::new();
    crate::rig::fk::model_from_node(&model.nodes, &crate::rig::Pose::rest(), &mut globals);
    globals
}

/// Applies one `--edit` text to `model`; returns the edit's label.
pub fn apply_edit(model: &mut Model, edit: &str) -> Result<String, String> {
    let tokens: Vec<&str> = edit.split_whitespace().collect();
    let record: Result<SkeletonRecord, _> = match tokens.as_slice() {
        ["bind"] => return bind_all(model),
        ["create-skin", meshes, root, pos] => create_skin(model, &mesh_nodes(model, meshes)?, position(pos)?, root),
        ["add", name, parent, pos] => add_joint(model, node(model, parent)?, position(pos)?, name),
        ["delete", joint] => delete_joint(model, node(model, joint)?),
        ["move", joint, pos] => move_joint(model, node(model, joint)?, position(pos)?),
        ["reparent", joint, "-"] => reparent(model, node(model, joint)?, None),
        ["reparent", joint, parent] => reparent(model, node(model, joint)?, Some(node(model, parent)?)),
        ["rename", joint, name] => rename_node(model, node(model, joint)?, name),
        ["symmetrize", joint] => {
            let (record, report) = symmetrize(model, node(model, joint)?).map_err(|e| e.to_string())?;
            return Ok(format!("{} {joint} ({})", record.label(), report.summary()));
        }
        ["orient", joint] => orient_joint(model, node(model, joint)?),
        ["roll", joint, degrees] => {
            let deg: f64 = degrees
                .parse()
                .ok()
                .filter(|d: &f64| d.is_finite())
                .ok_or_else(|| format!("{degrees:?} is not a finite number of degrees"))?;
            set_roll(model, node(model, joint)?, deg.to_radians())
        }
        _ => return Err(format!("expected one of: {GRAMMAR}")),
    };
    record.map(|r| r.label().to_owned()).map_err(|e| e.to_string())
}

/// Runs `skinlab rig`.
pub fn run(args: &RigArgs) -> Result<(), CliError> {
    let container = Container::for_path(&args.out, false).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let (mut model, source) =
        super::load_document_checked(crate::io::OutputPlan::new().write("--out", &args.out), &args.model, args.force)?;
    let mut done = Vec::new();
    for edit in &args.edits {
        let label =
            apply_edit(&mut model, edit).map_err(|e| crate::error_line::one_line(&format!("--edit {edit:?}: {e}")))?;
        done.push(label);
    }
    let options = ExportOptions { container, overwrite_source: args.force, ..ExportOptions::default() };
    let report = io::export_model(&model, &source, &options, &args.out)?;
    for (path, bytes) in &report.files {
        crate::outln!("wrote {} ({bytes} bytes)", path.display());
    }
    let joints: usize = model.skins.iter().map(|s| s.joints.len()).sum();
    crate::outln!("{} edits ({}); {} skins, {joints} joints", done.len(), done.join(", "), model.skins.len());
    Ok(())
}
