//! `skinlab pose`: solves inverse kinematics headless and writes the contract's pose file, so
//! scripts can pose a model for `deform`, `render`, `export` and `sweep`. Each `--ik JOINT=X,Y,Z`
//! moves an end joint to a model-space point (in the order given) with the chain above it
//! following; the starting pose is the rest pose, a pose file or an animation sample.

use std::path::PathBuf;

use clap::Args;
use glam::DVec3;

use super::{CliError, PoseArgs};
use crate::io::pose_file;
use crate::io::{atomic_write, OutputPlan};
use crate::rig::ik::{self, IkGoal, IkSolver};

/// Arguments of `skinlab pose`.
#[derive(Debug, Args)]
pub struct PoseCmdArgs {
    /// The model (.gltf, .glb or .obj).
    pub model: PathBuf,
    /// An IK goal JOINT=X,Y,Z: move the end joint JOINT (node name or #N) to the model-space
    /// point X,Y,Z. Repeat for several end joints (solved in the order given).
    #[arg(long = "ik", value_name = "JOINT=X,Y,Z", required = true)]
    pub ik: Vec<String>,
    /// A pole point X,Y,Z in model space toward which the chain bends (the knee or elbow points
    /// at it); by default each chain keeps the plane it bends in now.
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    pub pole: Option<String>,
    /// Bones in each chain (2: the analytic two-bone solver; more: FABRIK; 1 to 1000).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = super::whole(1, 1000))]
    pub chain: usize,
    /// Use FABRIK even for two-bone chains.
    #[arg(long)]
    pub fabrik: bool,
    /// A joint that keeps its position (node name or #N); a pinned joint inside a chain becomes
    /// that chain's root. Repeatable.
    #[arg(long = "pin", value_name = "JOINT")]
    pub pins: Vec<String>,
    /// The starting pose (the rest pose by default).
    #[command(flatten)]
    pub start: PoseArgs,
    /// The pose file to write (JSON, the contract's format).
    #[arg(long, value_name = "POSE.json")]
    pub out: PathBuf,
}

/// Parses `X,Y,Z` as three finite numbers.
fn point(what: &str, token: &str) -> Result<DVec3, String> {
    let parts: Vec<&str> = token.split(',').collect();
    let nums: Vec<f64> = parts.iter().filter_map(|p| p.trim().parse::<f64>().ok()).collect();
    match nums.as_slice() {
        [x, y, z] if parts.len() == 3 && nums.iter().all(|v| v.is_finite()) => Ok(DVec3::new(*x, *y, *z)),
        _ => Err(format!("{what} {token:?}: not a point X,Y,Z of three finite numbers")),
    }
}

/// Runs `skinlab pose`.
pub fn run(args: &PoseCmdArgs) -> Result<(), CliError> {
    let mut plan = OutputPlan::new();
    args.start.record_input(&mut plan);
    plan.write("--out", &args.out);
    let model = super::load_model_checked(&mut plan, &args.model)?;
    let tree = &model.nodes;
    let mut pose = args.start.resolve_for_file(&model, &args.model)?;
    let pole = args.pole.as_deref().map(|p| point("--pole", p)).transpose()?;
    let mut pinned = Vec::new();
    for key in &args.pins {
        pinned.push(tree.find(key).map_err(|e| format!("--pin {key:?}: {e}"))?);
    }
    let mut goals = Vec::new();
    for spec in &args.ik {
        let (joint, at) = spec.split_once('=').ok_or_else(|| format!("--ik {spec:?}: expected JOINT=X,Y,Z"))?;
        let end = tree.find(joint).map_err(|e| format!("--ik {spec:?}: {e}"))?;
        let target = point("--ik", at)?;
        let solver = if args.fabrik { IkSolver::Fabrik } else { IkSolver::Auto };
        goals.push((spec, IkGoal { end, target, chain: args.chain, pole, solver }));
    }
    let mut report = Vec::new();
    for (spec, goal) in &goals {
        let outcome = ik::solve(tree, &mut pose, goal, &pinned).map_err(|e| format!("--ik {spec:?}: {e}"))?;
        let names: Vec<String> = outcome.chain.iter().map(|&n| tree.key(n)).collect();
        let reached = outcome.distance <= 1e-6 * outcome.chain_length.max(f64::MIN_POSITIVE);
        report.push(format!(
            "{}: {} ({:.6} from the target; chain {})",
            tree.key(goal.end),
            if reached { "reached" } else { "out of reach, nearest pose" },
            outcome.distance,
            names.join(" > ")
        ));
    }
    let text = pose_file::pose_to_json(&pose, tree);
    atomic_write(&args.out, |w| w.write_all(text.as_bytes())).map_err(|e| format!("{}: {e}", args.out.display()))?;
    for line in report {
        crate::outln!("{line}");
    }
    crate::outln!("wrote {}", args.out.display());
    Ok(())
}
