//! `skinlab info`: what a model holds, as a rigger wants to see it before posing: meshes,
//! primitives, vertex counts, skins, the joint tree, the influence histogram and the number of
//! distinct and non-trivial joint sets (the SBS paper's Table 2 row). With `--sets`, the SBS set
//! table of one pose instead (`info_sets`).

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use super::{load, CliError, PoseArgs};
use crate::model::{Model, Topology};

/// Arguments of `skinlab info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The model (.glb, .gltf, .fbx or .obj).
    pub model: PathBuf,
    /// Print the SBS joint-set table of one pose instead: per set of two or more joints its
    /// members, vertices, the centre system's condition number, the centre's distance in skin
    /// extents, the far-centre f64 path and a warning on near-singular sets.
    #[arg(long)]
    pub sets: bool,
    /// The pose of the set table (with --sets; default the rest pose).
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Print the set table as JSON (with --sets).
    #[arg(long, requires = "sets")]
    pub json: bool,
}

/// Runs `skinlab info`.
pub fn run(args: &InfoArgs) -> Result<(), CliError> {
    if !args.sets && (args.pose.pose.is_some() || args.pose.animation.is_some()) {
        return Err("--pose and --animation choose the pose of the set table: add --sets".into());
    }
    let model = load(&args.model)?;
    if args.sets {
        return super::info_sets::run(&args.model, &args.pose, args.json, &model);
    }
    super::print_out(&describe(&model, &args.model.display().to_string()))
}

/// The report `skinlab info` prints.
#[must_use]
pub fn describe(model: &Model, title: &str) -> String {
    let mut s = String::new();
    let prims: usize = model.meshes.iter().map(|m| m.primitives.len()).sum();
    let _ = writeln!(s, "model: {title}");
    let _ = writeln!(
        s,
        "nodes: {}, meshes: {} ({prims} primitives), skins: {}, animations: {}",
        model.nodes.len(),
        model.meshes.len(),
        model.skins.len(),
        model.clips.len()
    );
    let _ = writeln!(s, "skinned vertices: {}", model.skinned_vertex_count());
    let _ = writeln!(s, "\nskinned meshes:");
    if model.instances.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for inst in &model.instances {
        let mesh = &model.meshes[inst.mesh];
        let _ = writeln!(
            s,
            "  node {} (#{}): mesh {:?}, skin {}",
            model.nodes.key(inst.node),
            inst.node,
            mesh.name.as_deref().unwrap_or(""),
            inst.skin
        );
        for (i, p) in mesh.primitives.iter().enumerate() {
            let kind = match p.topology {
                Topology::Triangles => format!("{} triangles", p.triangles.len()),
                Topology::Lines => "lines".to_owned(),
                Topology::Points => "points".to_owned(),
            };
            let _ = writeln!(
                s,
                "    primitive {i}: {} vertices, {kind}, normals: {}",
                p.positions.len(),
                if p.normals.is_some() { "yes" } else { "no" }
            );
        }
    }
    if !model.rigid_instances.is_empty() {
        let _ = writeln!(s, "  rigid (unskinned) mesh nodes: {}", model.rigid_instances.len());
    }
    for (si, skin) in model.skins.iter().enumerate() {
        let _ = writeln!(s, "\nskin {si} {:?}: {} joints", skin.name.as_deref().unwrap_or(""), skin.joints.len());
        let _ = writeln!(s, "  joint tree:");
        let is_joint = |n: usize| skin.joints.contains(&n);
        let roots: Vec<usize> =
            skin.joints.iter().copied().filter(|&j| model.nodes.nodes[j].parent.is_none_or(|p| !is_joint(p))).collect();
        let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((n, depth)) = stack.pop() {
            let _ = writeln!(s, "    {}{} (#{n})", "  ".repeat(depth), model.nodes.key(n));
            for &c in model.nodes.nodes[n].children.iter().rev() {
                if is_joint(c) {
                    stack.push((c, depth + 1));
                }
            }
        }
        let mut histogram = vec![0usize; skin.sets.slots() + 1];
        let mut vertices = 0usize;
        for inst in model.instances.iter().filter(|i| i.skin == si) {
            for p in &model.meshes[inst.mesh].primitives {
                if let Some(inf) = &p.influences {
                    for v in 0..inf.len() {
                        histogram[inf.count(v, &skin.sets)] += 1;
                        vertices += 1;
                    }
                }
            }
        }
        let _ = write!(s, "  influences per vertex:");
        for (count, &n) in histogram.iter().enumerate().filter(|(_, &n)| n > 0) {
            let _ = write!(s, " {count}: {n} ({:.1}%)", 100.0 * n as f64 / vertices.max(1) as f64);
        }
        let _ = writeln!(s);
        let (distinct, nontrivial) = skin.sets.counts(|a, b| skin.adjacent(&model.nodes, a, b));
        let _ = writeln!(s, "  joint sets: {distinct} distinct, {nontrivial} non-trivial");
    }
    if !model.clips.is_empty() {
        let _ = writeln!(s, "\nanimations:");
        for (i, clip) in model.clips.iter().enumerate() {
            let (a, b) = clip.range();
            let _ = writeln!(
                s,
                "  #{i} {:?}: {a:.3}..{b:.3} s, {} channels",
                clip.name.as_deref().unwrap_or(""),
                clip.channels.len()
            );
        }
    }
    s
}
