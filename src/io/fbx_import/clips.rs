//! FBX animation stacks as glTF animations: each stack sampled at the file's frame rate over its
//! own time span (a stack that starts at frame 10 starts at 10/fps s), every node whose local
//! transform moves as LINEAR translation, rotation and scale channels (ufbx evaluates layers,
//! pre/post-rotations, pivots and inherit-mode compensation), every blend channel whose weight
//! moves as a `weights` channel of its mesh node.

use glam::DQuat;
use serde_json::{json, Value};

use super::builder::Builder;

/// Most samples per stack (a longer stack is sampled more coarsely, and said so).
const MAX_FRAMES: usize = 100_000;
/// Most evaluations (animated things × samples) per stack.
const MAX_EVALUATIONS: usize = 20_000_000;

/// A mesh node's blend channels, in target order.
pub(super) struct MorphNode<'a> {
    /// The glTF node.
    pub node: usize,
    /// Its channels.
    pub channels: Vec<&'a ufbx::BlendChannel>,
}

/// The sample times of `stack`: every frame at `fps` from its start to its end (both kept),
/// at most [`MAX_FRAMES`] and [`MAX_EVALUATIONS`] / `things`.
fn sample_times(stack: &ufbx::AnimStack, fps: f64, things: usize, coarse: &mut bool) -> Vec<f64> {
    let (begin, end) = (stack.time_begin, stack.time_end);
    if !(begin.is_finite() && end.is_finite()) || end <= begin {
        return vec![if begin.is_finite() { begin } else { 0.0 }];
    }
    let frames = ((end - begin) * fps).round().clamp(1.0, 1e12) as usize;
    let limit = MAX_FRAMES.min(MAX_EVALUATIONS / things.max(1)).max(2);
    let step = frames.div_ceil(limit - 1).max(1);
    *coarse |= step > 1;
    let mut times: Vec<f64> = (0..frames).step_by(step).map(|k| begin + k as f64 / fps).collect();
    times.push(end);
    times.dedup_by(|a, b| (*a as f32) <= (*b as f32));
    times
}

/// One glTF animation per stack that moves something.
pub(super) fn animations(
    b: &mut Builder,
    scene: &ufbx::Scene,
    morphs: &[MorphNode<'_>],
    coarse: &mut bool,
) -> Vec<Value> {
    let fps = if scene.settings.frames_per_second.is_finite() && scene.settings.frames_per_second > 0.0 {
        scene.settings.frames_per_second
    } else {
        30.0
    };
    let mut out = Vec::new();
    for stack in scene.anim_stacks.iter() {
        let things = scene.nodes.len() + morphs.iter().map(|m| m.channels.len()).sum::<usize>();
        let times = sample_times(stack, fps, things, coarse);
        let input_values: Vec<f32> = times.iter().map(|&t| t as f32).collect();
        let mut input = None;
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let mut push = |b: &mut Builder, node: usize, path: &str, values: Vec<f32>, kind: &str, width: usize| {
            let input = *input.get_or_insert_with(|| b.floats(&input_values, "SCALAR", 1, true));
            let output = b.floats(&values, kind, width, false);
            channels.push(json!({"sampler": samplers.len(), "target": {"node": node, "path": path}}));
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
        };
        for (i, node) in scene.nodes.iter().enumerate() {
            let rest = node.local_transform;
            let samples: Vec<ufbx::Transform> =
                times.iter().map(|&t| ufbx::evaluate_transform(&stack.anim, node, t)).collect();
            if samples.iter().any(|s| !finite(s)) {
                continue;
            }
            let moved = |f: &dyn Fn(&ufbx::Transform) -> [f64; 4]| {
                let r = f(&rest);
                samples.iter().any(|s| f(s).iter().zip(&r).any(|(a, b)| (a - b).abs() > 1e-9 * (1.0 + b.abs())))
            };
            let t = |s: &ufbx::Transform| [s.translation.x, s.translation.y, s.translation.z, 0.0];
            let r = |s: &ufbx::Transform| [s.rotation.x, s.rotation.y, s.rotation.z, s.rotation.w];
            let sc = |s: &ufbx::Transform| [s.scale.x, s.scale.y, s.scale.z, 0.0];
            if moved(&t) {
                push(
                    b,
                    i,
                    "translation",
                    samples.iter().flat_map(|s| t(s)[..3].to_vec()).map(|v| v as f32).collect(),
                    "VEC3",
                    3,
                );
            }
            if moved(&r) {
                let mut prev = DQuat::IDENTITY;
                let mut values = Vec::with_capacity(4 * samples.len());
                for (k, s) in samples.iter().enumerate() {
                    let mut q = DQuat::from_array(r(s)).normalize();
                    if k > 0 && q.dot(prev) < 0.0 {
                        q = -q;
                    }
                    prev = q;
                    values.extend(q.to_array().map(|v| v as f32));
                }
                push(b, i, "rotation", values, "VEC4", 4);
            }
            if moved(&sc) {
                push(
                    b,
                    i,
                    "scale",
                    samples.iter().flat_map(|s| sc(s)[..3].to_vec()).map(|v| v as f32).collect(),
                    "VEC3",
                    3,
                );
            }
        }
        for m in morphs {
            let mut values = Vec::with_capacity(times.len() * m.channels.len());
            for &t in &times {
                for c in &m.channels {
                    let w = ufbx::evaluate_blend_weight(&stack.anim, c, t);
                    values.push(if w.is_finite() { w as f32 } else { 0.0 });
                }
            }
            let rest: Vec<f32> = m.channels.iter().map(|c| c.weight as f32).collect();
            if values.chunks(rest.len().max(1)).any(|k| k != rest.as_slice()) {
                push(b, m.node, "weights", values, "SCALAR", 1);
            }
        }
        if channels.is_empty() {
            continue;
        }
        out.push(json!({"name": stack.element.name.as_ref(), "channels": channels, "samplers": samplers}));
    }
    out
}

fn finite(t: &ufbx::Transform) -> bool {
    [t.translation.x, t.translation.y, t.translation.z, t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w]
        .iter()
        .chain(&[t.scale.x, t.scale.y, t.scale.z])
        .all(|v| v.is_finite())
}
