//! The range-of-motion clip (`skinlab rom`, the sweep panel's "Add ROM clip"): an ordinary
//! [`Clip`] that takes each chosen joint, one after another, through its twist about its bone and
//! its two bends about the axes perpendicular to it, each motion rest → +max → rest → −max → rest
//! in `seconds_per_motion` seconds, every other joint at rest. The axes are the sweep's
//! (`analysis::sweep::motion_axis`: the bone from `analysis::poses::bone`, the first bend about
//! `perpendicular(bone)`, the second about `bone × that`), applied to the bind pose as the sweep's
//! steps are, so the clip at an angle poses the model exactly as the sweep's step at that angle.
//!
//! Keys are LINEAR rotation channels in glTF's animation model (one channel per chosen joint, keys
//! only within its own motions: glTF holds the first and last value outside them). Each leg is cut
//! into keys at most 45° apart, so slerp between neighbouring keys never meets the ambiguous 180°
//! case and, with a fixed axis, turns at a constant rate: the clip sampled at any time is the
//! rotation by the linearly interpolated angle. Times and values are rounded to f32 (`keys::f32_exact`)
//! so an exported clip samples bit for bit as generated.

use glam::{DMat4, DVec3};
use serde::Serialize;

use super::poses::{bend, bind_globals, bind_pose, bone, perpendicular};
use crate::model::{Channel, ChannelPath, Clip, Interpolation, Model};
use crate::rig::keys::f32_exact;
use crate::rig::Pose;

/// The clip's name when added to a model.
pub const ROM_CLIP_NAME: &str = "ROM";
/// Keys of one leg are at most this far apart (degrees).
pub const MAX_KEY_STEP_DEG: f64 = 45.0;

/// One motion of the range of motion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RomMotion {
    /// About the bone (the sweep's twist).
    Twist,
    /// About `perpendicular(bone)` (the sweep's bend).
    Bend,
    /// About `bone × perpendicular(bone)`.
    SideBend,
}

impl RomMotion {
    /// The motions of each joint, in clip order.
    pub const ALL: [Self; 3] = [Self::Twist, Self::Bend, Self::SideBend];

    /// Its name in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Twist => "twist",
            Self::Bend => "bend",
            Self::SideBend => "side-bend",
        }
    }

    /// The model-space axis of this motion for a bone along `dir` (unit).
    #[must_use]
    pub fn axis(self, dir: DVec3) -> DVec3 {
        match self {
            Self::Twist => dir,
            Self::Bend => perpendicular(dir),
            Self::SideBend => dir.cross(perpendicular(dir)).normalize_or_zero(),
        }
    }
}

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct RomRequest {
    /// Joint nodes, in clip order.
    pub joints: Vec<usize>,
    /// The largest angle of each motion, radians (0 < angle ≤ π).
    pub max_angle_rad: f64,
    /// Seconds per motion (> 0).
    pub seconds_per_motion: f64,
}

/// One motion's place in the clip.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RomSegment {
    /// The joint node.
    pub node: usize,
    /// The motion.
    pub motion: RomMotion,
    /// Its model-space axis (unit), through the joint's bind-pose head.
    pub axis: [f64; 3],
    /// Its key times (seconds) and the angle (radians) at each.
    pub keys: Vec<(f64, f64)>,
}

/// The generated clip and where each motion lies in it.
#[derive(Clone, Debug, PartialEq)]
pub struct RomClip {
    /// The clip (named [`ROM_CLIP_NAME`], or `ROM.001`, … when taken).
    pub clip: Clip,
    /// Its motions in time order.
    pub segments: Vec<RomSegment>,
}

/// The angles of one motion's keys, in order: 0 → +max → 0 → −max → 0, legs cut at most
/// [`MAX_KEY_STEP_DEG`] apart.
#[must_use]
pub fn motion_angles(max_angle_rad: f64) -> Vec<f64> {
    let per_leg = (max_angle_rad.abs().to_degrees() / MAX_KEY_STEP_DEG).ceil().max(1.0) as usize;
    let mut angles = vec![0.0];
    for (from, to) in [(0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)] {
        for k in 1..=per_leg {
            let s = k as f64 / per_leg as f64;
            angles.push(max_angle_rad * (from + (to - from) * s));
        }
    }
    angles
}

/// The local rotation `node` has with its bind rotation turned by `angle_rad` about `axis`
/// (model space), as `[x, y, z, w]` rounded to f32, its sign kept nearest `previous`.
fn key_value(
    model: &Model,
    base: &Pose,
    globals: &[DMat4],
    node: usize,
    axis: DVec3,
    angle_rad: f64,
    previous: Option<[f64; 4]>,
) -> [f64; 4] {
    let pose = bend(model, base, globals, node, axis, angle_rad);
    let mut q = pose.local_trs(&model.nodes, node).rotation.normalize();
    if let Some(p) = previous {
        if p[0] * q.x + p[1] * q.y + p[2] * q.z + p[3] * q.w < 0.0 {
            q = -q;
        }
    }
    [f32_exact(q.x), f32_exact(q.y), f32_exact(q.z), f32_exact(q.w)]
}

/// Generates the range-of-motion clip. Joints must be nodes of `model` (checked by the caller);
/// the angle is clamped to (0, π] and the duration to at least 1 ms.
/// The clip is named by [`unused_rom_name`].
#[must_use]
pub fn rom_clip(model: &Model, request: &RomRequest) -> RomClip {
    let globals = bind_globals(model);
    let base = bind_pose(model);
    // The parents' frames as the clip plays them (forward kinematics of the bind pose): with f32
    // bind matrices these differ from `globals` by ~1e-4 rad, and turning in them makes the
    // played rotation exactly the intended one about the sweep's axis.
    let mut played = Vec::new();
    crate::rig::fk::model_from_node(&model.nodes, &base, &mut played);
    let max = request.max_angle_rad.clamp(1e-6, std::f64::consts::PI);
    let seconds = request.seconds_per_motion.max(1e-3);
    let angles = motion_angles(max);
    let mut clip = Clip { name: Some(unused_rom_name(model)), channels: Vec::new(), weights: Vec::new() };
    let mut segments = Vec::new();
    let mut start = 0.0;
    for &node in request.joints.iter().filter(|&&n| n < model.nodes.len()) {
        let (_, dir) = bone(model, &globals, node);
        let mut channel = Channel {
            node,
            path: ChannelPath::Rotation,
            interpolation: Interpolation::Linear,
            times: Vec::new(),
            values: Vec::new(),
            key_interpolation: Vec::new(),
        };
        for motion in RomMotion::ALL {
            let axis = motion.axis(dir);
            let mut keys = Vec::with_capacity(angles.len());
            for (k, &angle) in angles.iter().enumerate() {
                let t = f32_exact(start + seconds * k as f64 / (angles.len() - 1) as f64);
                // Motions meet at rest: the next motion's first key is the previous one's last.
                if channel.times.last().is_some_and(|&last| last >= t) {
                    keys.push((t, angle));
                    continue;
                }
                let previous =
                    channel.values.len().checked_sub(4).map(|i| {
                        [channel.values[i], channel.values[i + 1], channel.values[i + 2], channel.values[i + 3]]
                    });
                let value = key_value(model, &base, &played, node, axis, angle, previous);
                channel.times.push(t);
                channel.values.extend_from_slice(&value);
                keys.push((t, angle));
            }
            segments.push(RomSegment { node, motion, axis: axis.to_array(), keys });
            start += seconds;
        }
        clip.channels.push(channel);
    }
    RomClip { clip, segments }
}

/// "ROM", or the first of "ROM.001", "ROM.002", … that no clip of `model` carries.
#[must_use]
pub fn unused_rom_name(model: &Model) -> String {
    let taken = |n: &str| model.clips.iter().any(|c| c.name.as_deref() == Some(n));
    std::iter::once(ROM_CLIP_NAME.to_owned())
        .chain((1..).map(|i| format!("{ROM_CLIP_NAME}.{i:03}")))
        .find(|n| !taken(n))
        .unwrap_or_default()
}

/// The clip's sampled pose at `time_secs` on the bind pose (the base the sweep turns joints from).
#[must_use]
pub fn sample_on_bind(model: &Model, clip: &Clip, time_secs: f64) -> Pose {
    let mut pose = bind_pose(model);
    crate::rig::sample::sample_clip(clip, time_secs, &mut pose);
    pose
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legs_are_cut_into_keys_at_most_45_degrees_apart() {
        let a = motion_angles(90f64.to_radians());
        assert_eq!(a.len(), 9);
        assert_eq!(a[2], 90f64.to_radians());
        assert_eq!(a[6], -90f64.to_radians());
        assert!(a.windows(2).all(|w| (w[1] - w[0]).abs() <= 45.000_001f64.to_radians()));
        assert_eq!(motion_angles(10f64.to_radians()).len(), 5);
        assert_eq!(*motion_angles(1.0).last().unwrap(), 0.0);
    }

    #[test]
    fn side_bend_is_perpendicular_to_both() {
        let dir = DVec3::new(0.3, 0.9, -0.2).normalize();
        let (b, s) = (RomMotion::Bend.axis(dir), RomMotion::SideBend.axis(dir));
        assert!(b.dot(dir).abs() < 1e-12 && s.dot(dir).abs() < 1e-12 && s.dot(b).abs() < 1e-12);
        assert!((s.length() - 1.0).abs() < 1e-12);
    }
}
