//! The poses the weight measures deform through: the bind pose (each skin's joints placed by its
//! inverse bind matrices), seeded random poses after the recipe of `shared/notes/
//! blender-autoweights.md` (every joint rotated about its head by a random axis uniform on the
//! sphere and an angle uniform in 0–45°, on top of the bind pose), evenly spaced samples of every
//! animation clip, and a single joint bent about an axis perpendicular to its bone.

use std::collections::BTreeSet;

use glam::{DMat4, DQuat, DVec3};

use crate::model::{Clip, Model, Trs};
use crate::rig::{sample, Pose};

/// The seed of the random poses (the shared note's recipe).
pub const RANDOM_POSE_SEED: u64 = 1;
/// How many random poses are used when the model has no clip.
pub const RANDOM_POSES: usize = 10;
/// Samples per animation clip (evenly spaced, both ends included).
pub const SAMPLES_PER_CLIP: usize = 10;
/// Samples of the first clip in the shared note's recipe ([`PoseSet::Note`]).
pub const NOTE_SAMPLES_OF_FIRST_CLIP: usize = 5;
/// The largest random rotation of one joint (45°).
pub const MAX_RANDOM_ANGLE_RAD: f64 = std::f64::consts::FRAC_PI_4;

/// SplitMix64: a small, fixed, portable generator, so that a seed gives the same poses everywhere.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator with this seed.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number uniform in [0, 1) (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A unit vector uniform on the sphere.
    pub fn unit_vector(&mut self) -> DVec3 {
        let z = 2.0 * self.next_f64() - 1.0;
        let phi = std::f64::consts::TAU * self.next_f64();
        let r = (1.0 - z * z).max(0.0).sqrt();
        DVec3::new(r * phi.cos(), r * phi.sin(), z)
    }
}

/// Every joint node of every skin, ascending.
#[must_use]
pub fn joint_nodes(model: &Model) -> Vec<usize> {
    let set: BTreeSet<usize> = model.skins.iter().flat_map(|s| s.joints.iter().copied()).collect();
    set.into_iter().filter(|&n| n < model.nodes.len()).collect()
}

/// Each skin's bind placement: the `model_from_bind` every one of its joints has in the bind pose,
/// `rest_global(root) · IBM_root` for its shallowest joint (so that joint keeps its rest global).
#[must_use]
pub fn bind_placements(model: &Model) -> Vec<DMat4> {
    let tree = &model.nodes;
    let mut rest = Vec::new();
    crate::rig::fk::model_from_node(tree, &Pose::rest(), &mut rest);
    model
        .skins
        .iter()
        .map(|skin| {
            skin.joints
                .iter()
                .zip(&skin.joint_from_bind)
                .filter(|(&n, _)| n < tree.len())
                .min_by_key(|(&n, _)| tree.depth(n))
                .map_or(DMat4::IDENTITY, |(&root, ibm)| rest[root] * *ibm)
        })
        .collect()
}

/// Every node's `model_from_node` in the bind pose (see [`bind_pose`]).
#[must_use]
pub fn bind_globals(model: &Model) -> Vec<DMat4> {
    let tree = &model.nodes;
    // Each skin's joints sit at `placement · IBM⁻¹`; a joint of several skins follows the first.
    let mut bind: Vec<Option<DMat4>> = vec![None; tree.len()];
    for (skin, placement) in model.skins.iter().zip(bind_placements(model)) {
        for (&node, ibm) in skin.joints.iter().zip(&skin.joint_from_bind) {
            let inverse = ibm.inverse();
            if node < tree.len() && bind[node].is_none() && inverse.is_finite() {
                bind[node] = Some(placement * inverse);
            }
        }
    }
    let mut globals = vec![DMat4::IDENTITY; tree.len()];
    for &i in &tree.order {
        globals[i] = match (bind[i], tree.nodes[i].parent) {
            (Some(g), _) => g,
            (None, Some(p)) => globals[p] * tree.nodes[i].rest.to_matrix(),
            (None, None) => tree.nodes[i].rest.to_matrix(),
        };
    }
    globals
}

/// The bind pose: every joint's local transform set so that its global is its skin's bind
/// placement (for a model whose rest pose is its bind pose, the rest pose up to rounding).
#[must_use]
pub fn bind_pose(model: &Model) -> Pose {
    let tree = &model.nodes;
    let globals = bind_globals(model);
    let mut pose = Pose::rest();
    for node in joint_nodes(model) {
        let parent = tree.nodes[node].parent.map_or(DMat4::IDENTITY, |p| globals[p]);
        let local = parent.inverse() * globals[node];
        if !local.is_finite() {
            continue;
        }
        let trs = Trs::from_matrix(local);
        pose.set_translation(node, trs.translation);
        pose.set_rotation(node, trs.rotation);
        pose.set_scale(node, trs.scale);
    }
    pose
}

/// `count` random poses (seed `seed`): each joint's bind rotation followed by a rotation about an
/// axis uniform on the sphere by an angle uniform in [0, `max_angle_rad`), joints drawn in
/// ascending node order.
#[must_use]
pub fn random_poses(model: &Model, count: usize, seed: u64, max_angle_rad: f64) -> Vec<Pose> {
    let base = bind_pose(model);
    let joints = joint_nodes(model);
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|_| {
            let mut pose = base.clone();
            for &node in &joints {
                let axis = rng.unit_vector();
                let angle = max_angle_rad * rng.next_f64();
                let bind = base.local_trs(&model.nodes, node).rotation;
                pose.set_rotation(node, (bind * DQuat::from_axis_angle(axis, angle)).normalize());
            }
            pose
        })
        .collect()
}

/// `per_clip` evenly spaced samples (both ends included) of each of `clips`.
#[must_use]
pub fn clip_poses(clips: &[Clip], per_clip: usize) -> Vec<Pose> {
    let mut out = Vec::with_capacity(clips.len() * per_clip);
    for clip in clips {
        let (start, end) = clip.range();
        for i in 0..per_clip {
            let t = if per_clip < 2 { start } else { start + (end - start) * i as f64 / (per_clip - 1) as f64 };
            let mut pose = Pose::rest();
            sample::sample_clip(clip, t, &mut pose);
            out.push(pose);
        }
    }
    out
}

/// Which poses the deformation distance is measured over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PoseSet {
    /// Every clip's samples; random poses when the model has no clip.
    #[default]
    Auto,
    /// Every clip's samples (none without clips).
    Clips,
    /// The random poses only.
    Random,
    /// Random poses and every clip's samples.
    All,
    /// The shared note's recipe: the random poses plus 5 evenly spaced times of the first clip.
    Note,
}

/// The poses of `set` for `model`, with a description of them.
#[must_use]
pub fn poses(model: &Model, set: PoseSet) -> (Vec<Pose>, String) {
    let random = || random_poses(model, RANDOM_POSES, RANDOM_POSE_SEED, MAX_RANDOM_ANGLE_RAD);
    let random_text =
        format!("{RANDOM_POSES} random poses (seed {RANDOM_POSE_SEED}, each joint 0-45° about a random axis)");
    let clips_text = format!("{} clips × {SAMPLES_PER_CLIP} times", model.clips.len());
    match set {
        PoseSet::Auto if model.clips.is_empty() => (random(), random_text),
        PoseSet::Auto | PoseSet::Clips => (clip_poses(&model.clips, SAMPLES_PER_CLIP), clips_text),
        PoseSet::Random => (random(), random_text),
        PoseSet::All => {
            let mut all = random();
            all.extend(clip_poses(&model.clips, SAMPLES_PER_CLIP));
            (all, format!("{random_text} + {clips_text}"))
        }
        PoseSet::Note => {
            let mut all = random();
            all.extend(clip_poses(&model.clips[..model.clips.len().min(1)], NOTE_SAMPLES_OF_FIRST_CLIP));
            let n = if model.clips.is_empty() { 0 } else { NOTE_SAMPLES_OF_FIRST_CLIP };
            (all, format!("{random_text} + {n} times of the first clip"))
        }
    }
}

/// The head and bone direction of `node` in the bind pose: toward its child joints' centroid, a
/// leaf continuing its parent's direction, a lone joint along +Y. `globals` are [`bind_globals`].
#[must_use]
pub fn bone(model: &Model, globals: &[DMat4], node: usize) -> (DVec3, DVec3) {
    let joints: BTreeSet<usize> = joint_nodes(model).into_iter().collect();
    let head = |n: usize| globals[n].w_axis.truncate();
    let h = head(node);
    let children: Vec<DVec3> =
        model.nodes.nodes[node].children.iter().filter(|c| joints.contains(c)).map(|&c| head(c)).collect();
    if !children.is_empty() {
        let d = children.iter().copied().sum::<DVec3>() / children.len() as f64 - h;
        if d.length() > 1e-9 {
            return (h, d.normalize());
        }
    }
    if let Some(p) = model.nodes.nodes[node].parent.filter(|p| joints.contains(p)) {
        let d = h - head(p);
        if d.length() > 1e-9 {
            return (h, d.normalize());
        }
    }
    (h, DVec3::Y)
}

/// A unit axis perpendicular to `dir`: `dir × e` for the coordinate axis `e` least aligned with it
/// (the first such of X, Y, Z).
#[must_use]
pub fn perpendicular(dir: DVec3) -> DVec3 {
    let axes = [DVec3::X, DVec3::Y, DVec3::Z];
    let mut best = axes[0];
    for e in axes {
        if e.dot(dir).abs() < best.dot(dir).abs() - 1e-12 {
            best = e;
        }
    }
    dir.cross(best).normalize_or_zero()
}

/// `base` with `node` turned by `angle_rad` about `axis_in_model` (a model-space direction)
/// through its head; `globals` are the node globals of `base`.
#[must_use]
pub fn bend(model: &Model, base: &Pose, globals: &[DMat4], node: usize, axis_in_model: DVec3, angle_rad: f64) -> Pose {
    let parent_rotation =
        model.nodes.nodes[node].parent.map_or(DQuat::IDENTITY, |p| Trs::from_matrix(globals[p]).rotation);
    let turn = DQuat::from_axis_angle(axis_in_model, angle_rad);
    let local = base.local_trs(&model.nodes, node).rotation;
    let mut pose = base.clone();
    pose.set_rotation(node, (parent_rotation.inverse() * turn * parent_rotation * local).normalize());
    pose
}
