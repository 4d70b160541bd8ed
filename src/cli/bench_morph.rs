//! `skinlab bench --synthetic N --morph-target FRACTION`: what one active morph target adds to a
//! frame. The synthetic rig gets one target moving that share of its vertices (the first ones in
//! the file's order: one region of the body, as a face's expression moves the head), its weight
//! changing every frame; each frame deforms the rig with the target
//! and the same rig without it, method by method, alternating which goes first, so that the ratio
//! comes from the same minutes of the machine.

use std::time::Instant;

use glam::Vec3;

use super::bench_motion::Motion;
use super::CliError;
use crate::maths::median;
use crate::model::{MeshMorphs, Model, MorphTarget};
use crate::rig::Pose;
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
use crate::synthetic::animate_moving;

/// Frames deformed before the timed ones.
const WARM_UP: usize = 2;

/// Parses `--morph-target`: a share of the vertices, above 0 and at most 1.
pub fn fraction(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 1.0 => Ok(f),
        _ => Err(format!("{text:?} is not a share of the vertices (expected a number above 0 and at most 1)")),
    }
}

/// `model` with one morph target on its first mesh's first primitive moving `fraction` of the
/// vertices (the first in the file's order), by a small displacement that varies from vertex to
/// vertex; with `normals`, the target moves the normals
/// too. Returns the model and how many vertices the target moves.
#[must_use]
pub fn with_target(model: &Model, fraction: f64, normals: bool) -> (Model, usize) {
    let mut out = model.clone();
    let Some(mesh) = out.meshes.first_mut() else { return (out, 0) };
    let n = mesh.primitives.first().map_or(0, |p| p.positions.len());
    let mut target = MorphTarget::default();
    let moved = ((n as f64 * fraction).round() as usize).clamp(1, n.max(1));
    for v in 0..moved.min(n) {
        let t = v as f32 * 0.001;
        target.vertices.push(v as u32);
        target.positions.push(0.05 * Vec3::new(t.sin(), (1.3 * t).cos(), (0.7 * t).sin()));
        if normals {
            target.normals.push(0.1 * Vec3::new((0.9 * t).cos(), t.sin(), 0.0));
        }
    }
    let moved = target.vertices.len();
    let mut primitives = vec![Vec::new(); mesh.primitives.len()];
    primitives[0] = vec![target];
    mesh.morphs = MeshMorphs { names: vec![Some("bench".to_owned())], default_weights: vec![0.0], primitives };
    (out, moved)
}

/// Times `frames` frames of `plain` and `morphed` (the same rig with one target on the mesh of its
/// first instance) with every method, interleaved, and prints each method's medians and what the
/// target adds.
pub fn report(
    plain: &Model,
    morphed: &Model,
    methods: &[SkinningMethod],
    frames: usize,
    motion: Motion,
) -> Result<(), CliError> {
    let node = morphed.instances.first().map(|i| i.node);
    let mut deformers: Vec<[Deformer; 2]> = methods.iter().map(|_| [Deformer::new(), Deformer::new()]).collect();
    for pair in &mut deformers {
        for d in pair {
            d.disable_reuse(motion.no_reuse);
        }
    }
    let mut outs: Vec<[Vec<Vec<DeformedPrimitive>>; 2]> = methods.iter().map(|_| Default::default()).collect();
    // Per method: frame seconds without and with the target.
    let mut secs: Vec<[Vec<f64>; 2]> = methods.iter().map(|_| Default::default()).collect();
    let mut pose = Pose::rest();
    for frame in 0..frames + WARM_UP {
        animate_moving(plain, frame, motion.moving.unwrap_or(usize::MAX), &mut pose);
        if let Some(node) = node {
            // Never zero, different every frame.
            pose.morph_weights.insert(node, vec![0.55 + 0.4 * (0.3 * frame as f32).sin()]);
        }
        for (m, &method) in methods.iter().enumerate() {
            for k in [frame % 2, 1 - frame % 2] {
                let model = if k == 0 { plain } else { morphed };
                let t0 = Instant::now();
                deformers[m][k].deform_all(model, &pose, method, &mut outs[m][k]);
                let s = t0.elapsed().as_secs_f64();
                if frame >= WARM_UP {
                    secs[m][k].push(s);
                }
            }
        }
    }
    crate::outln!(
        "{:<6} {:>14} {:>14} {:>8} {:>20}",
        "method",
        "plain ms",
        "morphed ms",
        "adds",
        "min plain / morphed"
    );
    for (&method, [a, b]) in methods.iter().zip(&secs) {
        let (ma, mb) = (median(a), median(b));
        let min = |s: &[f64]| s.iter().copied().fold(f64::INFINITY, f64::min) * 1e3;
        crate::outln!(
            "{:<6} {:>14.3} {:>14.3} {:>7.1}% {:>20}",
            method.name(),
            ma * 1e3,
            mb * 1e3,
            (mb / ma - 1.0) * 100.0,
            format!("{:.3} / {:.3}", min(a), min(b))
        );
    }
    Ok(())
}
