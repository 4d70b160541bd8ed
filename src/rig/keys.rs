//! Keyframes on animation clips, as an animator sets them: a key of the current pose for chosen
//! joints at a time (translation, rotation and scale, like Blender's LocRotScale) or of a mesh
//! node's morph-target weights (a `weights` channel), moving and deleting the keys at a time. Clips stay `model::Clip` (the shared representation every
//! sampler, exporter and generator uses).
//!
//! Keys added here are LINEAR (slerp for rotations) on new channels, and keep a channel's own
//! interpolation on existing ones (a CUBICSPLINE key gets the curve's slope as tangents, so keying
//! the value a curve already has leaves the curve unchanged). Times and values are rounded to f32
//! when keyed, so an exported clip (glTF stores f32) samples bit for bit as it did in the editor.
//! A rotation key takes the sign nearer its previous key, so every viewer interpolates the short way.

use glam::DQuat;

use super::sample::{sample_channel, sample_weights};
use super::Pose;
use crate::model::{Channel, ChannelPath, Clip, Interpolation, Model, NodeTree, WeightsChannel};

/// Keys closer than this (seconds) are the same key (a quarter of a frame at 240 fps).
pub const KEY_TIME_TOLERANCE: f64 = 1e-3;

/// `v` rounded to the nearest f32, as glTF stores it.
#[must_use]
pub fn f32_exact(v: f64) -> f64 {
    f64::from(v as f32)
}

/// The nodes a "whole pose" key covers: every joint of every skin (each once, in index order), or
/// every node with a pose override when the model has no skin.
#[must_use]
pub fn posable_nodes(model: &Model, pose: &Pose) -> Vec<usize> {
    let mut nodes: Vec<usize> = model.skins.iter().flat_map(|s| s.joints.iter().copied()).collect();
    if nodes.is_empty() {
        nodes = pose.overrides.keys().copied().collect();
    }
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}

/// Sets a key of `pose` for each of `nodes` at `time_secs` (clamped to ≥ 0): their local
/// translation, rotation and scale. An existing key within [`KEY_TIME_TOLERANCE`] is replaced.
pub fn set_keys(clip: &mut Clip, tree: &NodeTree, pose: &Pose, nodes: &[usize], time_secs: f64) {
    let time = f32_exact(if time_secs.is_finite() { time_secs.max(0.0) } else { 0.0 });
    for &node in nodes.iter().filter(|&&n| n < tree.len()) {
        let trs = pose.local_trs(tree, node);
        let r = trs.rotation.normalize();
        let values: [(ChannelPath, [f64; 4]); 3] = [
            (ChannelPath::Translation, [trs.translation.x, trs.translation.y, trs.translation.z, 0.0]),
            (ChannelPath::Rotation, [r.x, r.y, r.z, r.w]),
            (ChannelPath::Scale, [trs.scale.x, trs.scale.y, trs.scale.z, 0.0]),
        ];
        for (path, value) in values {
            let channel = match clip.channels.iter().rposition(|c| c.node == node && c.path == path) {
                Some(i) => &mut clip.channels[i],
                None => {
                    clip.channels.push(Channel {
                        node,
                        path,
                        interpolation: Interpolation::Linear,
                        times: Vec::new(),
                        values: Vec::new(),
                        key_interpolation: Vec::new(),
                    });
                    let last = clip.channels.len() - 1;
                    &mut clip.channels[last]
                }
            };
            insert_key(channel, time, value);
        }
    }
}

/// Values per key in the channel's storage (three elements per key for cubic splines).
#[must_use]
pub fn stride(channel: &Channel) -> usize {
    let w = channel.path.width();
    if channel.interpolation == Interpolation::CubicSpline {
        3 * w
    } else {
        w
    }
}

/// Index of the key at `time` (the nearest within [`KEY_TIME_TOLERANCE`]), if any.
#[must_use]
pub fn key_at(channel: &Channel, time: f64) -> Option<usize> {
    key_in(&channel.times, time)
}

/// Index of the time in `times` (increasing) nearest `time` within [`KEY_TIME_TOLERANCE`], if any.
fn key_in(times: &[f64], time: f64) -> Option<usize> {
    let k = times.partition_point(|&t| t < time - KEY_TIME_TOLERANCE);
    let near = |k: usize| times.get(k).map(|&t| (t - time).abs()).filter(|&d| d <= KEY_TIME_TOLERANCE);
    match (near(k), near(k + 1)) {
        (Some(a), Some(b)) if b < a => Some(k + 1),
        (Some(_), _) => Some(k),
        _ => None,
    }
}

/// Values per key of a weights channel (three elements per key for cubic splines).
fn weights_stride(channel: &WeightsChannel) -> usize {
    channel.targets * if channel.interpolation == Interpolation::CubicSpline { 3 } else { 1 }
}

/// Sets a key of `weights` (one per morph target) on `node`'s weights channel at `time_secs`
/// (clamped to ≥ 0), as [`set_keys`] does for joints: a key within [`KEY_TIME_TOLERANCE`] is
/// replaced, a new channel is LINEAR, a cubic one gets the curve's slope as tangents.
pub fn set_weight_keys(clip: &mut Clip, node: usize, weights: &[f32], time_secs: f64) {
    let n = weights.len();
    if n == 0 {
        return;
    }
    let time = f32_exact(if time_secs.is_finite() { time_secs.max(0.0) } else { 0.0 });
    // A channel for another number of targets cannot hold this key: it goes.
    clip.weights.retain(|c| c.node != node || c.targets == n);
    let i = clip.weights.iter().rposition(|c| c.node == node).unwrap_or_else(|| {
        clip.weights.push(WeightsChannel {
            node,
            interpolation: Interpolation::Linear,
            times: Vec::new(),
            values: Vec::new(),
            targets: n,
        });
        clip.weights.len() - 1
    });
    let channel = &mut clip.weights[i];
    let value: Vec<f64> = weights.iter().map(|&w| f32_exact(f64::from(w))).collect();
    let (s, cubic) = (weights_stride(channel), channel.interpolation == Interpolation::CubicSpline);
    if let Some(k) = key_in(&channel.times, time) {
        let at = k * s + if cubic { n } else { 0 };
        channel.values[at..at + n].copy_from_slice(&value);
        return;
    }
    let element = if cubic {
        let slope = weights_slope(channel, time);
        [slope.clone(), value, slope].concat()
    } else {
        value
    };
    let k = channel.times.partition_point(|&t| t < time);
    channel.times.insert(k, time);
    channel.values.splice(k * s..k * s, element);
}

/// The derivative (per second, rounded to f32) of a weights channel's curve at `time`; zero
/// outside its keys.
fn weights_slope(channel: &WeightsChannel, time: f64) -> Vec<f64> {
    let (Some(&first), Some(&last)) = (channel.times.first(), channel.times.last()) else {
        return vec![0.0; channel.targets];
    };
    if time <= first || time >= last {
        return vec![0.0; channel.targets];
    }
    let h = 1e-4 * (last - first);
    let (t0, t1) = ((time - h).max(first), (time + h).min(last));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    sample_weights(channel, t0, &mut a);
    sample_weights(channel, t1, &mut b);
    a.iter().zip(&b).map(|(&a, &b)| f32_exact(f64::from(b - a) / (t1 - t0))).collect()
}

/// Inserts (or replaces) one key of `value` at `time` in `channel`.
fn insert_key(channel: &mut Channel, time: f64, value: [f64; 4]) {
    let w = channel.path.width();
    let cubic = channel.interpolation == Interpolation::CubicSpline;
    let mut value = value;
    let existing = key_at(channel, time);
    let k = existing.unwrap_or_else(|| channel.times.partition_point(|&t| t < time));
    if channel.path == ChannelPath::Rotation {
        // The sign nearer the previous key (or the next one when this is the first).
        let neighbour = if k > 0 {
            Some(k - 1)
        } else if existing.is_some() {
            (k + 1 < channel.times.len()).then_some(k + 1)
        } else {
            (!channel.times.is_empty()).then_some(0)
        };
        if let Some(n) = neighbour {
            let at = n * stride(channel) + if cubic { w } else { 0 };
            let q = DQuat::from_xyzw(value[0], value[1], value[2], value[3]);
            let p = DQuat::from_slice(&channel.values[at..at + 4]);
            if q.dot(p) < 0.0 {
                value = [-value[0], -value[1], -value[2], -value[3]];
            }
        }
    }
    let value: Vec<f64> = value[..w].iter().map(|&v| f32_exact(v)).collect();
    let s = stride(channel);
    if let Some(k) = existing {
        let at = k * s + if cubic { w } else { 0 };
        channel.values[at..at + w].copy_from_slice(&value);
        return;
    }
    let element: Vec<f64> = if cubic {
        // The curve's slope at `time` as both tangents (zero outside the keyed range, where the
        // curve holds its end values).
        let slope = slope_at(channel, time);
        let tangent: Vec<f64> = slope[..w].iter().map(|&v| f32_exact(v)).collect();
        [tangent.clone(), value, tangent].concat()
    } else {
        value
    };
    if !channel.key_interpolation.is_empty() {
        // A new key continues the interpolation of the stretch it lands in.
        let mode = channel.key_interpolation[k.saturating_sub(1)];
        channel.key_interpolation.insert(k, mode);
    }
    channel.times.insert(k, time);
    channel.values.splice(k * s..k * s, element);
}

/// The derivative (per second) of a channel's curve at `time`; zero outside its keys.
fn slope_at(channel: &Channel, time: f64) -> [f64; 4] {
    let (Some(&first), Some(&last)) = (channel.times.first(), channel.times.last()) else {
        return [0.0; 4];
    };
    if time <= first || time >= last {
        return [0.0; 4];
    }
    let h = 1e-4 * (last - first);
    let (a, b) = (sample_channel(channel, (time - h).max(first)), sample_channel(channel, (time + h).min(last)));
    let span = (time + h).min(last) - (time - h).max(first);
    let mut out = [0.0; 4];
    for i in 0..4 {
        out[i] = (b[i] - a[i]) / span;
    }
    out
}

/// The frame rates a clip's keys are tried against, most usual first (30 also where the keys fit
/// several, as whole seconds do).
const FRAME_RATES: [f64; 8] = [30.0, 24.0, 25.0, 60.0, 50.0, 48.0, 120.0, 15.0];

/// Frames per second when a clip's key spacing does not tell.
pub const DEFAULT_FRAME_RATE: f64 = 30.0;

/// The clip's frame rate, read from its key times: the first of 30, 24, 25, 60, 50, 48, 120 and
/// 15 fps that puts every key on a whole frame (within a hundredth of a frame), else the whole
/// rate of the closest two keys if every key is on its frames, else [`DEFAULT_FRAME_RATE`].
#[must_use]
pub fn frame_rate(clip: &Clip) -> f64 {
    let times: Vec<f64> = clip
        .channels
        .iter()
        .flat_map(|c| c.times.iter())
        .chain(clip.weights.iter().flat_map(|c| c.times.iter()))
        .copied()
        .collect();
    let fits = |fps: f64| times.iter().all(|&t| ((t * fps) - (t * fps).round()).abs() <= 0.01);
    if let Some(&fps) = FRAME_RATES.iter().find(|&&fps| fits(fps)) {
        return fps;
    }
    let closest = key_times(clip, None).windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
    let fps = (1.0 / closest).round();
    if (1.0..=1000.0).contains(&fps) && ((1.0 / closest) - fps).abs() <= 0.01 * fps && fits(fps) {
        fps
    } else {
        DEFAULT_FRAME_RATE
    }
}

/// Sets the value of `node`'s `path` key at `time_secs` (the nearest within the tolerance;
/// tangents kept, a rotation in its previous key's hemisphere, rounded to f32). Returns whether
/// there was such a key.
pub fn set_key_value(clip: &mut Clip, node: usize, path: ChannelPath, time_secs: f64, value: [f64; 4]) -> bool {
    let Some(channel) = clip.channels.iter_mut().rev().find(|c| c.node == node && c.path == path) else {
        return false;
    };
    let Some(k) = key_at(channel, time_secs) else { return false };
    let time = channel.times[k];
    insert_key(channel, time, value);
    true
}

/// Whether a channel is one of `nodes` (every channel when `nodes` is `None`).
fn chosen(channel: &Channel, nodes: Option<&[usize]>) -> bool {
    nodes.is_none_or(|n| n.contains(&channel.node))
}

/// The distinct key times of the chosen nodes' channels, joints' and morph weights' (every
/// channel with `None`), sorted.
#[must_use]
pub fn key_times(clip: &Clip, nodes: Option<&[usize]>) -> Vec<f64> {
    let joints = clip.channels.iter().filter(|c| chosen(c, nodes)).flat_map(|c| c.times.iter().copied());
    let weights =
        clip.weights.iter().filter(|c| nodes.is_none_or(|n| n.contains(&c.node))).flat_map(|c| c.times.iter().copied());
    let mut times: Vec<f64> = joints.chain(weights).collect();
    times.sort_by(f64::total_cmp);
    times.dedup_by(|a, b| (*a - *b).abs() <= KEY_TIME_TOLERANCE);
    times
}

/// Deletes the chosen nodes' keys at `time_secs` (joints' and morph weights'); channels left
/// without keys are removed. Returns whether any key was deleted.
pub fn delete_keys(clip: &mut Clip, nodes: Option<&[usize]>, time_secs: f64) -> bool {
    let mut deleted = false;
    for channel in clip.channels.iter_mut().filter(|c| chosen(c, nodes)) {
        if let Some(k) = key_at(channel, time_secs) {
            let s = stride(channel);
            channel.times.remove(k);
            channel.values.drain(k * s..(k + 1) * s);
            if !channel.key_interpolation.is_empty() {
                channel.key_interpolation.remove(k);
                channel.settle_interpolation();
            }
            deleted = true;
        }
    }
    clip.channels.retain(|c| !c.times.is_empty());
    for channel in clip.weights.iter_mut().filter(|c| nodes.is_none_or(|n| n.contains(&c.node))) {
        if let Some(k) = key_in(&channel.times, time_secs) {
            let s = weights_stride(channel);
            channel.times.remove(k);
            channel.values.drain(k * s..(k + 1) * s);
            deleted = true;
        }
    }
    clip.weights.retain(|c| !c.times.is_empty());
    deleted
}

/// Moves the chosen nodes' keys at `from_secs` to `to_secs` (clamped to ≥ 0), joints' and morph
/// weights', replacing keys already there. Returns whether any key moved.
pub fn move_keys(clip: &mut Clip, nodes: Option<&[usize]>, from_secs: f64, to_secs: f64) -> bool {
    let to = f32_exact(if to_secs.is_finite() { to_secs.max(0.0) } else { 0.0 });
    let mut moved = false;
    for channel in clip.channels.iter_mut().filter(|c| chosen(c, nodes)) {
        let s = stride(channel);
        let Some(k) = key_at(channel, from_secs) else { continue };
        let element: Vec<f64> = channel.values.drain(k * s..(k + 1) * s).collect();
        channel.times.remove(k);
        let modes = &mut channel.key_interpolation;
        let mode = (!modes.is_empty()).then(|| modes.remove(k));
        if let Some(j) = key_at(channel, to) {
            channel.times.remove(j);
            channel.values.drain(j * s..(j + 1) * s);
            if mode.is_some() {
                channel.key_interpolation.remove(j);
            }
        }
        let j = channel.times.partition_point(|&t| t < to);
        channel.times.insert(j, to);
        channel.values.splice(j * s..j * s, element);
        if let Some(mode) = mode {
            channel.key_interpolation.insert(j, mode);
            channel.settle_interpolation();
        }
        moved = true;
    }
    for channel in clip.weights.iter_mut().filter(|c| nodes.is_none_or(|n| n.contains(&c.node))) {
        let s = weights_stride(channel);
        moved |= move_key(&mut channel.times, &mut channel.values, s, from_secs, to);
    }
    moved
}

/// Moves the key at `from` (`stride` values per key) to `to`, replacing one there; whether one
/// moved.
fn move_key(times: &mut Vec<f64>, values: &mut Vec<f64>, stride: usize, from: f64, to: f64) -> bool {
    let Some(k) = key_in(times, from) else { return false };
    let element: Vec<f64> = values.drain(k * stride..(k + 1) * stride).collect();
    times.remove(k);
    if let Some(j) = key_in(times, to) {
        times.remove(j);
        values.drain(j * stride..(j + 1) * stride);
    }
    let j = times.partition_point(|&t| t < to);
    times.insert(j, to);
    values.splice(j * stride..j * stride, element);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeTransform, Trs};
    use crate::rig::sample::sample_clip;
    use glam::DVec3;

    fn tree() -> NodeTree {
        let nodes = vec![
            Node {
                name: Some("a".into()),
                children: vec![1],
                rest: NodeTransform::Trs(Trs::default()),
                ..Node::default()
            },
            Node {
                name: Some("b".into()),
                parent: Some(0),
                rest: NodeTransform::Trs(Trs { translation: DVec3::Y, ..Trs::default() }),
                ..Node::default()
            },
        ];
        NodeTree::new(nodes, vec![0])
    }

    fn posed(angle: f64) -> Pose {
        let mut pose = Pose::rest();
        pose.set_rotation(1, DQuat::from_rotation_z(angle));
        pose
    }

    #[test]
    fn keys_sample_back_and_interpolate() {
        let t = tree();
        let mut clip = Clip { name: Some("new".into()), channels: vec![], weights: Vec::new() };
        set_keys(&mut clip, &t, &posed(0.0), &[1], 0.0);
        set_keys(&mut clip, &t, &posed(1.0), &[1], 1.0);
        assert_eq!(clip.channels.len(), 3);
        assert_eq!(key_times(&clip, None), vec![0.0, 1.0]);
        let mut p = Pose::rest();
        sample_clip(&clip, 0.5, &mut p);
        assert!(p.overrides[&1].rotation.unwrap().angle_between(DQuat::from_rotation_z(0.5)) < 1e-6);
        // Replace the key at 1 s, then move it to 2 s: the range follows.
        set_keys(&mut clip, &t, &posed(2.0), &[1], 1.0 + 1e-4);
        assert_eq!(clip.channels[1].times.len(), 2);
        assert!(move_keys(&mut clip, None, 1.0, 2.0));
        assert_eq!(clip.range(), (0.0, 2.0));
        sample_clip(&clip, 2.0, &mut p);
        assert!(p.overrides[&1].rotation.unwrap().angle_between(DQuat::from_rotation_z(2.0)) < 1e-6);
        assert!(delete_keys(&mut clip, Some(&[1]), 2.0));
        assert!(!delete_keys(&mut clip, Some(&[0]), 0.0));
        assert!(delete_keys(&mut clip, None, 0.0));
        assert!(clip.channels.is_empty());
    }

    #[test]
    fn the_frame_rate_comes_from_the_key_spacing() {
        let clip_at = |times: Vec<f64>| {
            let n = times.len();
            let c = Channel {
                node: 1,
                path: ChannelPath::Translation,
                interpolation: Interpolation::Linear,
                times,
                values: vec![0.0; 3 * n],
                key_interpolation: Vec::new(),
            };
            Clip { name: None, channels: vec![c], weights: Vec::new() }
        };
        let f32s = |fps: f64, frames: &[u32]| frames.iter().map(|&f| f32_exact(f64::from(f) / fps)).collect();
        assert_eq!(frame_rate(&clip_at(vec![0.0, 1.0, 2.0])), 30.0, "whole seconds: the default");
        assert_eq!(frame_rate(&clip_at(f32s(24.0, &[0, 1, 5, 37]))), 24.0);
        assert_eq!(frame_rate(&clip_at(f32s(25.0, &[0, 3, 7]))), 25.0);
        assert_eq!(frame_rate(&clip_at(f32s(60.0, &[0, 1, 31]))), 60.0);
        assert_eq!(frame_rate(&clip_at(f32s(7.0, &[0, 1, 2, 9]))), 7.0, "the closest keys' whole rate");
        assert_eq!(frame_rate(&clip_at(vec![0.0, 0.1234, 0.5])), DEFAULT_FRAME_RATE, "unclear");
        assert_eq!(frame_rate(&Clip { name: None, channels: vec![], weights: vec![] }), 30.0);
    }

    #[test]
    fn a_key_value_is_set_in_place() {
        let t = tree();
        let mut clip = Clip { name: None, channels: vec![], weights: Vec::new() };
        set_keys(&mut clip, &t, &posed(0.0), &[1], 0.0);
        set_keys(&mut clip, &t, &posed(1.0), &[1], 1.0);
        let q = -DQuat::from_rotation_z(0.5);
        assert!(set_key_value(&mut clip, 1, ChannelPath::Rotation, 1.0 + 1e-4, q.to_array()));
        assert!(!set_key_value(&mut clip, 1, ChannelPath::Rotation, 0.5, q.to_array()), "no key there");
        let v = &clip.channels[1].values;
        assert!(v[7] > 0.0, "in the previous key's hemisphere: {v:?}");
        assert!(DQuat::from_slice(&v[4..8]).angle_between(q) < 1e-6);
        assert_eq!(clip.channels[1].times, vec![0.0, 1.0]);
    }

    #[test]
    fn morph_weight_keys_sample_back_move_and_delete() {
        let mut clip = Clip { name: None, channels: vec![], weights: Vec::new() };
        set_weight_keys(&mut clip, 1, &[0.0, 1.0], 0.0);
        set_weight_keys(&mut clip, 1, &[1.0, 0.5], 1.0);
        assert_eq!(clip.weights.len(), 1);
        assert_eq!(key_times(&clip, Some(&[1])), vec![0.0, 1.0]);
        assert!(key_times(&clip, Some(&[0])).is_empty());
        let mut p = Pose::rest();
        sample_clip(&clip, 0.5, &mut p);
        assert_eq!(p.morph_weights[&1], vec![0.5, 0.75]);
        // Replacing the key at 1 s keeps two keys; moving it to 2 s stretches the clip.
        set_weight_keys(&mut clip, 1, &[0.25, 0.25], 1.0 + 1e-4);
        assert_eq!(clip.weights[0].times.len(), 2);
        assert!(move_keys(&mut clip, None, 1.0, 2.0));
        assert_eq!(clip.range(), (0.0, 2.0));
        sample_clip(&clip, 2.0, &mut p);
        assert_eq!(p.morph_weights[&1], vec![0.25, 0.25]);
        // Another number of targets replaces the channel.
        set_weight_keys(&mut clip, 1, &[0.5], 0.0);
        assert_eq!((clip.weights.len(), clip.weights[0].targets), (1, 1));
        assert!(delete_keys(&mut clip, Some(&[1]), 0.0));
        assert!(clip.weights.is_empty());
    }

    #[test]
    fn rotation_keys_stay_in_one_hemisphere() {
        let t = tree();
        let mut clip = Clip { name: None, channels: vec![], weights: Vec::new() };
        set_keys(&mut clip, &t, &posed(0.0), &[1], 0.0);
        let mut far = Pose::rest();
        far.set_rotation(1, -DQuat::from_rotation_z(0.5));
        set_keys(&mut clip, &t, &far, &[1], 1.0);
        let v = &clip.channels[1].values;
        assert!(v[3] * v[7] > 0.0, "w of both keys has one sign: {v:?}");
    }

    #[test]
    fn keying_a_cubic_curve_on_its_own_value_keeps_it() {
        let c = Channel {
            node: 1,
            path: ChannelPath::Translation,
            interpolation: Interpolation::CubicSpline,
            times: vec![0.0, 1.0],
            values: vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            key_interpolation: Vec::new(),
        };
        let mut clip = Clip { name: None, channels: vec![c.clone()], weights: Vec::new() };
        let v = sample_channel(&c, 0.25);
        let mut pose = Pose::rest();
        pose.set_translation(1, DVec3::new(v[0], v[1], v[2]));
        set_keys(&mut clip, &tree(), &pose, &[1], 0.25);
        let edited = &clip.channels[0];
        assert_eq!(edited.times, vec![0.0, 0.25, 1.0]);
        for t in [0.1, 0.2, 0.3, 0.6, 0.9] {
            assert!((sample_channel(edited, t)[0] - sample_channel(&c, t)[0]).abs() < 1e-5, "t = {t}");
        }
    }
}
