//! `skinlab bench`: time whole deformation frames (FK, per-set preparation, the per-vertex pass)
//! of a model or a synthetic rig over changing poses, the methods interleaved frame by frame so
//! that their ratios come from one run; optionally measure the memory-bandwidth bound.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::bench_motion::Motion;
use super::{load, CliError};
use crate::bandwidth::{self, StreamBytes};
use crate::maths::median;
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::frame::{SET_LBS_FALLBACK, SET_ONE_JOINT, SET_STRETCH, SET_UNIFORM_STRETCH};
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
use crate::synthetic::{animate, animate_moving, SyntheticRig};

/// Arguments of `skinlab bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The model (.glb, .gltf, .fbx or .obj); or use --synthetic.
    #[arg(required_unless_present = "synthetic", conflicts_with = "synthetic")]
    pub model: Option<PathBuf>,
    /// Bench a deterministic synthetic rig with this many vertices instead of a model (1 to
    /// 5000000), its vertices in joint-set order as a loaded file's.
    #[arg(long, value_name = "N", value_parser = super::whole(1, super::MAX_VERTICES))]
    pub synthetic: Option<usize>,
    /// Joints of the synthetic rig (1 to 65535).
    #[arg(long, default_value_t = 64, value_name = "J", value_parser = super::whole(1, 65_535))]
    pub joints: usize,
    /// Give the synthetic rig at least this many distinct joint sets (painted-like weights; 1 to
    /// 5000000).
    #[arg(long, value_name = "S", requires = "synthetic", value_parser = super::whole(1, super::MAX_VERTICES))]
    pub sets: Option<usize>,
    /// Influences per vertex of the synthetic rig (1 to 16).
    #[arg(long, default_value_t = 4, value_name = "K", value_parser = super::whole(1, 16))]
    pub influences: usize,
    /// Methods to time, comma-separated (interleaved frame by frame).
    #[arg(long, value_delimiter = ',', default_value = "lbs,dqs,sbs")]
    pub method: Vec<SkinningMethod>,
    /// Timed frames per method (after two warm-up frames; 1 to 100000).
    #[arg(long, default_value_t = 50, value_name = "F", value_parser = super::whole(1, 100_000))]
    pub frames: usize,
    /// Worker threads (default: one per core); several, comma-separated (1,2,4,8,16), time the
    /// same frames on one pool per count, interleaved frame by frame, and print the speed-ups
    /// (each 1 to 256).
    #[arg(long, value_name = "T", value_delimiter = ',', value_parser = super::whole(1, 256))]
    pub threads: Vec<usize>,
    /// Run the SSE2 variant of the per-vertex pass even where the CPU has AVX2 and FMA.
    #[arg(long)]
    pub sse2: bool,
    /// Also measure the read+write memory bandwidth and each method's time as a multiple of the
    /// bound it sets.
    #[arg(long)]
    pub bandwidth: bool,
    /// Densify the model in memory first (as `skinlab densify`) to at least this many skinned
    /// vertices (1 to 5000000).
    #[arg(long, value_name = "N", conflicts_with = "synthetic", value_parser = super::whole(1, super::MAX_VERTICES))]
    pub densify: Option<usize>,
    /// Measure automatic rigging with this template (humanoid or quadruped): a rigged model is
    /// stripped to its meshes in the rest pose and rigged without and with markers from the
    /// artist's joints (landmark errors, CD-J2J); an unrigged one is timed (fit and bind)
    #[arg(long, value_name = "TEMPLATE")]
    pub autorig: Option<String>,
    /// Time automatic weights (bone heat, every joint of every skin) instead of deformation
    /// frames; `--frames` is the number of timed binds.
    #[arg(long)]
    pub bind: bool,
    /// Move only this many joints per frame (spread evenly over the first skin's joints; the
    /// others hold their first pose), as the editor's usual frame does: the preparation then
    /// recomputes only the joints that moved and the sets that contain them (1 to 65535).
    #[arg(long, value_name = "N", value_parser = super::whole(1, 65_535))]
    pub moving: Option<usize>,
    /// Prepare every pose from scratch (no parts or set tables kept across poses), to measure
    /// what keeping them saves.
    #[arg(long)]
    pub no_reuse: bool,
    /// Time loading the model file to its first deformed buffers, per stage (read, parse,
    /// import, joint sets, first deformation); `--frames` loads, at most 10.
    #[arg(long, conflicts_with_all = ["synthetic", "bind"], requires = "model")]
    pub load: bool,
    /// Give the synthetic rig one morph target moving this share of its vertices (above 0, at
    /// most 1), its weight changing every frame, and time each frame with and without it.
    #[arg(long, value_name = "FRACTION", requires = "synthetic", value_parser = super::bench_morph::fraction)]
    pub morph_target: Option<f64>,
    /// The morph target of --morph-target moves the normals too.
    #[arg(long, requires = "morph_target")]
    pub morph_normals: bool,
}

/// Timings of one method over the timed frames.
#[derive(Clone, Debug, Default)]
pub struct MethodTimes {
    /// Whole-frame seconds, one per frame.
    pub frame_secs: Vec<f64>,
    /// Seconds spent solving SBS centres, one per frame.
    pub centre_secs: Vec<f64>,
    /// Seconds in FK and preparation (centres included), one per frame.
    pub prepare_secs: Vec<f64>,
    /// Centres solved, one per frame.
    pub centre_solves: Vec<f64>,
    /// Seconds of forward kinematics, one per frame.
    pub fk_secs: Vec<f64>,
    /// Seconds of `model_from_bind` and joint parts, one per frame.
    pub parts_secs: Vec<f64>,
    /// Seconds of per-set flags and member tables, one per frame.
    pub tables_secs: Vec<f64>,
    /// Joint parts computed per frame (every skin).
    pub joint_parts: usize,
    /// Joint sets in the tables (every skin).
    pub sets: usize,
    /// Joint sets whose tables were computed, one per frame (the others were kept).
    pub sets_computed: Vec<f64>,
    /// Joint parts computed, one per frame.
    pub parts_computed: Vec<f64>,
    /// Seconds of the per-vertex pass, one per frame.
    pub pass_secs: Vec<f64>,
    /// How the last frame's pass was spread over threads.
    pub split: crate::skinning::deformer::PassSplit,
    /// The deformer's estimate of the method's cost per vertex after the last frame (seconds).
    pub secs_per_vertex: f64,
}

/// Deforms `frames` + 2 frames of changing poses with every method (interleaved, one deformer
/// per method as the editor has one per panel) and returns the timings of the timed frames,
/// showing a progress bar on stderr for long runs.
pub fn time_methods(model: &Model, methods: &[SkinningMethod], frames: usize, motion: Motion) -> Vec<MethodTimes> {
    const WARM_UP: usize = 2;
    let mut deformers: Vec<Deformer> = methods.iter().map(|_| Deformer::new()).collect();
    for d in &mut deformers {
        d.disable_reuse(motion.no_reuse);
    }
    let mut outs: Vec<Vec<Vec<DeformedPrimitive>>> = vec![Vec::new(); methods.len()];
    let mut times = vec![MethodTimes::default(); methods.len()];
    let mut pose = Pose::rest();
    let mut bar = super::progress::Progress::new(
        "bench: frame {pos}/{len} ({elapsed} elapsed)",
        (frames + WARM_UP) as u64,
        std::time::Duration::from_secs(1),
    );
    for frame in 0..frames + WARM_UP {
        animate_moving(model, frame, motion.moving.unwrap_or(usize::MAX), &mut pose);
        for (m, &method) in methods.iter().enumerate() {
            let deformer = &mut deformers[m];
            let t0 = Instant::now();
            deformer.deform_all(model, &pose, method, &mut outs[m]);
            let secs = t0.elapsed().as_secs_f64();
            if frame >= WARM_UP {
                let t = &mut times[m];
                t.frame_secs.push(secs);
                t.centre_secs.push(deformer.stats.centre_secs);
                t.prepare_secs.push(deformer.stats.prepare_secs);
                t.centre_solves.push(deformer.stats.centre_solves as f64);
                t.fk_secs.push(deformer.stats.fk_secs);
                t.parts_secs.push(deformer.stats.parts_secs);
                t.tables_secs.push(deformer.stats.tables_secs);
                t.joint_parts = deformer.stats.joint_parts;
                t.sets = deformer.stats.sets;
                t.sets_computed.push(deformer.stats.sets_computed as f64);
                t.parts_computed.push(deformer.stats.joint_parts as f64);
                t.pass_secs.push(deformer.stats.pass_secs);
                t.split = deformer.stats.split;
                t.secs_per_vertex = deformer.work_estimate().secs_per_vertex(method);
            }
        }
        bar.set(frame as u64 + 1);
    }
    bar.finish();
    times
}

/// Bytes streamed per frame by the skinning pass over every skinned primitive, and their vertices.
#[must_use]
pub fn streamed_bytes(model: &Model) -> (usize, usize) {
    let mut bytes = 0;
    let mut vertices = 0;
    for inst in &model.instances {
        for p in &model.meshes[inst.mesh].primitives {
            let n = p.positions.len();
            vertices += n;
            let normals = if p.normals.is_some() { 12 } else { 0 };
            let slots = p.influences.as_ref().map_or(0, |i| 4 * i.slots() + 4);
            bytes += n * (12 + normals + slots + 12 + normals);
        }
    }
    (bytes, vertices)
}

/// Runs `skinlab bench`.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    if args.frames == 0 {
        return Err("--frames 0: need at least one frame".into());
    }
    if args.method.is_empty() {
        return Err("--method: name at least one method".into());
    }
    let several = args.threads.len() > 1;
    if several && (args.load || args.bind || args.bandwidth || args.morph_target.is_some()) {
        return Err(
            "--threads with several counts times deformation frames only (not --load, --bind, --bandwidth or --morph-target)".into()
        );
    }
    // The pool of the one thread count (by default one thread per core).
    let pool = || -> Result<rayon::ThreadPool, CliError> {
        let builder = rayon::ThreadPoolBuilder::new();
        Ok(match args.threads.as_slice() {
            [t] => builder.num_threads(*t),
            _ => builder,
        }
        .build()?)
    };
    if let (true, Some(path)) = (args.load, &args.model) {
        return pool()?.install(|| super::bench_load::report(path, args.frames.min(10)));
    }
    let (model, title) = match (&args.model, args.synthetic) {
        (_, Some(n)) => {
            let rig = SyntheticRig { vertices: n, joints: args.joints, influences: args.influences };
            let mut model = rig.build()?;
            let mut title =
                format!("synthetic rig: {n} vertices, {} joints, {} influences", rig.joints, rig.influences);
            if let Some(sets) = args.sets {
                let made = crate::synthetic::diversify_sets(&mut model, sets)?;
                title += &format!(", {made} joint sets (asked for {sets})");
            }
            // Held as the importer holds every loaded file: skinned vertices in joint-set order.
            model.order_by_joint_set();
            (model, title)
        }
        (Some(path), None) => match args.densify {
            Some(n) => {
                let model = load(path)?;
                let before = model.skinned_vertex_count();
                let mut dense = crate::model::densify(&model, n).map_err(|e| format!("{}: {e}", path.display()))?;
                // As the importer orders a loaded file (the new vertices follow their edges).
                dense.model.order_by_joint_set();
                (dense.model, format!("{} densified from {before} vertices ({} rounds)", path.display(), dense.rounds))
            }
            None => (load(path)?, path.display().to_string()),
        },
        (None, None) => return Err("give a MODEL or --synthetic N".into()),
    };
    if args.bind {
        return pool()?.install(|| super::bench_bind::report(&model, &title, args.frames.min(20)));
    }
    if let Some(template) = &args.autorig {
        let template = template.parse().map_err(|e| format!("--autorig: {e}"))?;
        return pool()?.install(|| super::bench_autorig::report(&model, &title, template));
    }
    crate::skinning::set_wide_simd(!args.sse2);
    let motion = Motion { moving: args.moving, no_reuse: args.no_reuse };
    if let Some(fraction) = args.morph_target {
        let (morphed, moved) = super::bench_morph::with_target(&model, fraction, args.morph_normals);
        return pool()?.install(|| {
            crate::outln!("model: {title}");
            crate::outln!(
                "morph target: {moved} vertices moved{}, weight changing every frame; {} threads, {} frames per method (+2 warm-up), with and without the target interleaved",
                if args.morph_normals { " (positions and normals)" } else { "" },
                rayon::current_num_threads(),
                args.frames
            );
            super::bench_morph::report(&model, &morphed, &args.method, args.frames, motion)
        });
    }
    if several {
        return super::bench_threads::report(&model, &title, &args.method, &args.threads, args.frames, motion);
    }
    pool()?.install(|| report(args, &model, &title))
}

fn report(args: &BenchArgs, model: &Model, title: &str) -> Result<(), CliError> {
    let threads = rayon::current_num_threads();
    let vertices = model.skinned_vertex_count();
    crate::outln!("model: {title}");
    for (si, skin) in model.skins.iter().enumerate() {
        let (distinct, nontrivial) = skin.sets.counts(|a, b| skin.adjacent(&model.nodes, a, b));
        crate::outln!(
            "skin {si}: {} joints, {} weight slots, joint sets: {distinct} distinct, {nontrivial} non-trivial",
            skin.joints.len(),
            skin.sets.slots()
        );
    }
    print_joint_kinds(model)?;
    let mut first_pose = Pose::rest();
    animate(model, 0, &mut first_pose);
    for line in super::bench_lanes::LaneBreakdown::of(model, &first_pose).lines() {
        crate::outln!("{line}");
    }
    crate::outln!(
        "vertices: {vertices}, threads: {threads}, frames: {} per method (+2 warm-up), interleaved{}",
        args.frames,
        if args.sse2 { ", SSE2 variant" } else { "" }
    );
    let motion = Motion { moving: args.moving, no_reuse: args.no_reuse };
    if let Some(m) = args.moving {
        crate::outln!(
            "moving: {m} joints per frame (the others hold their pose){}",
            if args.no_reuse { ", no reuse" } else { "" }
        );
    } else if args.no_reuse {
        crate::outln!("no reuse: every pose prepared from scratch");
    }
    let times = time_methods(model, &args.method, args.frames, motion);
    crate::outln!(
        "{:<6} {:>10} {:>10} {:>10} {:>12} {:>11}",
        "method",
        "median ms",
        "min ms",
        "max ms",
        "Mvertices/s",
        "prepare ms"
    );
    let mut medians = Vec::new();
    for (&method, t) in args.method.iter().zip(&times) {
        let med = median(&t.frame_secs);
        let min = t.frame_secs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = t.frame_secs.iter().copied().fold(0.0, f64::max);
        medians.push((method, med));
        crate::outln!(
            "{:<6} {:>10.3} {:>10.3} {:>10.3} {:>12.1} {:>11.3}",
            method.name(),
            med * 1e3,
            min * 1e3,
            max * 1e3,
            vertices as f64 / med / 1e6,
            median(&t.prepare_secs) * 1e3
        );
        if method == SkinningMethod::Sbs {
            crate::outln!(
                "       sbs centres: {} solved per frame, {:.3} ms median",
                median(&t.centre_solves),
                median(&t.centre_secs) * 1e3
            );
        }
    }
    if let Some(&(_, lbs)) = medians.iter().find(|(m, _)| *m == SkinningMethod::Lbs) {
        for &(m, med) in medians.iter().filter(|(m, _)| *m != SkinningMethod::Lbs) {
            crate::outln!("ratio {}/lbs: {:.3}", m.name(), med / lbs);
        }
    }
    print_preparation(&args.method, &times)?;
    for (&method, t) in args.method.iter().zip(&times) {
        let split = if t.split.parallel {
            format!(
                "rayon's {threads} threads, tasks of ≥ {} vertices (up to {} busy)",
                t.split.task_vertices, t.split.workers
            )
        } else {
            "the calling thread (too little work to wake the pool)".to_string()
        };
        crate::outln!(
            "pass {:<6} {:.3} ms median on {split}; measured {:.2} ns per vertex",
            method.name(),
            median(&t.pass_secs) * 1e3,
            t.secs_per_vertex * 1e9
        );
    }
    if args.bandwidth {
        let (bytes, _) = streamed_bytes(model);
        let slots = model.skins.iter().map(|s| s.sets.slots()).max().unwrap_or(4);
        let bw = bandwidth::measure(4_000_000, slots, 5);
        let bound = bytes as f64 / bw.bytes_per_sec;
        let per_vertex = StreamBytes::with_normals(slots);
        crate::outln!(
            "bandwidth: {:.1} GB/s read+write ({} threads, best of 5 passes over {} MB in the same layout)",
            bw.bytes_per_sec / 1e9,
            bw.threads,
            bw.vertices * bw.bytes_per_vertex / 1_000_000
        );
        crate::outln!(
            "streamed per frame: {:.1} MB ({} B read + {} B written per vertex with normals, {slots} slots); bound: {:.3} ms",
            bytes as f64 / 1e6,
            per_vertex.read,
            per_vertex.written,
            bound * 1e3
        );
        for &(m, med) in &medians {
            crate::outln!("{} / bound: {:.2}", m.name(), med / bound);
        }
    }
    Ok(())
}

/// Per skin: the joints its tables read and what their parts need in the first benchmark pose
/// (DQS's preparation), and the sets that leave the fast per-vertex path.
fn print_joint_kinds(model: &Model) -> Result<(), CliError> {
    let mut deformer = Deformer::new();
    let mut pose = Pose::rest();
    animate(model, 0, &mut pose);
    deformer.prepare(model, &pose, SkinningMethod::Dqs);
    for si in 0..model.skins.len() {
        let frame = deformer.skin_frame(si);
        let kinds = frame.joint_kinds();
        let flagged = |flag: u8| frame.flags.iter().filter(|&&f| f & flag != 0).count();
        crate::outln!(
            "skin {si} parts: {} joints in use, {} split through their inverse bind matrix's split, {} by a polar decomposition per pose, {} stretched ({} uniformly), {} degenerate; sets: {} stretched ({} uniformly), {} one joint, {} LBS fallback",
            kinds.used,
            kinds.through_bind,
            kinds.polar_solved,
            kinds.stretched,
            kinds.uniform,
            kinds.degenerate,
            flagged(SET_STRETCH),
            flagged(SET_UNIFORM_STRETCH),
            flagged(SET_ONE_JOINT),
            flagged(SET_LBS_FALLBACK)
        );
    }
    Ok(())
}

/// Where each method's preparation goes (medians over the timed frames, µs), per joint part,
/// per set and per centre solve.
fn print_preparation(methods: &[SkinningMethod], times: &[MethodTimes]) -> Result<(), CliError> {
    crate::outln!(
        "{:<6} {:>8} {:>22} {:>22} {:>22} {:>9}",
        "prep",
        "FK µs",
        "joint parts µs (/j ns)",
        "set tables µs (/s ns)",
        "centres µs (/c ns)",
        "total µs"
    );
    crate::outln!(
        "       (medians; parts and sets counted where computed, the others kept from the last pose; set tables and centres are CPU time over the threads)"
    );
    let per = |secs: f64, n: usize| if n == 0 { 0.0 } else { secs * 1e9 / n as f64 };
    for (&method, t) in methods.iter().zip(times) {
        let (fk, parts, tables, centres) =
            (median(&t.fk_secs), median(&t.parts_secs), median(&t.tables_secs), median(&t.centre_secs));
        let (parts_n, sets_n) = (median(&t.parts_computed) as usize, median(&t.sets_computed) as usize);
        let solves_n = median(&t.centre_solves) as usize;
        crate::outln!(
            "{:<6} {:>8.1} {:>22} {:>22} {:>22} {:>9.1}",
            method.name(),
            fk * 1e6,
            format!("{:.1} ({} × {:.0})", parts * 1e6, parts_n, per(parts, parts_n)),
            format!("{:.1} ({} × {:.0})", tables * 1e6, sets_n, per(tables, sets_n)),
            format!("{:.1} ({} × {:.0})", centres * 1e6, solves_n, per(centres, solves_n)),
            median(&t.prepare_secs) * 1e6
        );
    }
    Ok(())
}
