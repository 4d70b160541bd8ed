//! Sampling an animation clip into a pose with glTF's interpolation rules: STEP, LINEAR
//! (shortest-path slerp for rotations) and CUBICSPLINE; each sampler holds its end values outside
//! its keys, and the time is clamped to the clip's range. Morph-target weights interpolate
//! component-wise by the same rules.

use glam::{DQuat, DVec3};

use super::Pose;
use crate::model::{Channel, ChannelPath, Clip, Interpolation, WeightsChannel};

/// Samples `clip` at `time_secs` (clamped to the clip's range) into `pose`, replacing the animated
/// components of the animated nodes. Later channels win over earlier ones on the same target.
pub fn sample_clip(clip: &Clip, time_secs: f64, pose: &mut Pose) {
    let (start, end) = clip.range();
    let t = if time_secs.is_nan() { start } else { time_secs.clamp(start, end) };
    for channel in &clip.channels {
        let value = sample_channel(channel, t);
        let o = pose.overrides.entry(channel.node).or_default();
        match channel.path {
            ChannelPath::Translation => o.translation = Some(DVec3::new(value[0], value[1], value[2])),
            ChannelPath::Rotation => {
                o.rotation = Some(DQuat::from_xyzw(value[0], value[1], value[2], value[3]).normalize());
            }
            ChannelPath::Scale => o.scale = Some(DVec3::new(value[0], value[1], value[2])),
        }
    }
    for channel in &clip.weights {
        let weights = pose.morph_weights.entry(channel.node).or_default();
        sample_weights(channel, t, weights);
    }
}

/// Samples a morph-weight channel at time `t` into `out` (one weight per target).
pub fn sample_weights(channel: &WeightsChannel, t: f64, out: &mut Vec<f32>) {
    let (times, v, n) = (&channel.times, &channel.values, channel.targets);
    out.clear();
    let Some(last) = times.len().checked_sub(1) else { return };
    let cubic = channel.interpolation == Interpolation::CubicSpline;
    let (stride, offset) = if cubic { (3 * n, n) } else { (n, 0) };
    let value = |k: usize, i: usize| v.get(k * stride + offset + i).copied().unwrap_or(0.0);
    let k = times.partition_point(|&x| x <= t).saturating_sub(1);
    if t <= times[0] || t >= times[last] || channel.interpolation == Interpolation::Step {
        let k = if t >= times[last] { last } else { k };
        out.extend((0..n).map(|i| value(k, i) as f32));
        return;
    }
    let (t0, t1) = (times[k], times[k + 1]);
    let dt = t1 - t0;
    let u = if dt > 0.0 { (t - t0) / dt } else { 0.0 };
    if !cubic {
        out.extend((0..n).map(|i| (value(k, i) + (value(k + 1, i) - value(k, i)) * u) as f32));
        return;
    }
    let at = |j: usize| v.get(j).copied().unwrap_or(0.0);
    let (u2, u3) = (u * u, u * u * u);
    let (h00, h10, h01, h11) = (2.0 * u3 - 3.0 * u2 + 1.0, u3 - 2.0 * u2 + u, -2.0 * u3 + 3.0 * u2, u3 - u2);
    out.extend((0..n).map(|i| {
        let (p0, b0) = (at(3 * k * n + n + i), at(3 * k * n + 2 * n + i));
        let (a1, p1) = (at(3 * (k + 1) * n + i), at(3 * (k + 1) * n + n + i));
        (h00 * p0 + h10 * dt * b0 + h01 * p1 + h11 * dt * a1) as f32
    }));
}

/// Element `k` of a channel's output (the value, not a tangent, for cubic splines).
fn key_value(channel: &Channel, k: usize) -> [f64; 4] {
    let w = channel.path.width();
    let stride = if channel.interpolation == Interpolation::CubicSpline { 3 * w } else { w };
    let offset = if channel.interpolation == Interpolation::CubicSpline { w } else { 0 };
    element(&channel.values, k * stride + offset, w)
}

fn element(values: &[f64], at: usize, w: usize) -> [f64; 4] {
    let mut out = [0.0; 4];
    out[..w].copy_from_slice(&values[at..at + w]);
    out
}

fn quat(v: [f64; 4]) -> DQuat {
    DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize()
}

/// Samples one channel at time `t`.
#[must_use]
pub fn sample_channel(channel: &Channel, t: f64) -> [f64; 4] {
    let times = &channel.times;
    let last = times.len() - 1;
    if t <= times[0] {
        return key_value(channel, 0);
    }
    if t >= times[last] {
        return key_value(channel, last);
    }
    // times[k] <= t < times[k + 1]
    let k = times.partition_point(|&x| x <= t) - 1;
    let (t0, t1) = (times[k], times[k + 1]);
    let dt = t1 - t0;
    let u = if dt > 0.0 { (t - t0) / dt } else { 0.0 };
    let w = channel.path.width();
    match channel.interpolation_after(k) {
        Interpolation::Step => key_value(channel, k),
        Interpolation::Linear => {
            let (a, b) = (key_value(channel, k), key_value(channel, k + 1));
            if channel.path == ChannelPath::Rotation {
                let q = quat(a).slerp(quat(b), u);
                [q.x, q.y, q.z, q.w]
            } else {
                let mut out = [0.0; 4];
                for i in 0..w {
                    out[i] = a[i] + (b[i] - a[i]) * u;
                }
                out
            }
        }
        Interpolation::CubicSpline => {
            let v = &channel.values;
            let p0 = element(v, (3 * k + 1) * w, w);
            let b0 = element(v, (3 * k + 2) * w, w);
            let a1 = element(v, 3 * (k + 1) * w, w);
            let p1 = element(v, (3 * (k + 1) + 1) * w, w);
            let (u2, u3) = (u * u, u * u * u);
            let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
            let h10 = u3 - 2.0 * u2 + u;
            let h01 = -2.0 * u3 + 3.0 * u2;
            let h11 = u3 - u2;
            let mut out = [0.0; 4];
            for i in 0..w {
                out[i] = h00 * p0[i] + h10 * dt * b0[i] + h01 * p1[i] + h11 * dt * a1[i];
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(interpolation: Interpolation, path: ChannelPath, times: Vec<f64>, values: Vec<f64>) -> Channel {
        Channel { node: 0, path, interpolation, times, values, key_interpolation: Vec::new() }
    }

    #[test]
    fn weights_interpolate_per_target() {
        let c = WeightsChannel {
            node: 0,
            interpolation: Interpolation::Linear,
            times: vec![1.0, 3.0],
            values: vec![0.0, 1.0, 1.0, 0.0],
            targets: 2,
        };
        let mut w = Vec::new();
        sample_weights(&c, 2.0, &mut w);
        assert_eq!(w, vec![0.5, 0.5]);
        sample_weights(&c, 0.0, &mut w);
        assert_eq!(w, vec![0.0, 1.0]);
        sample_weights(&c, 5.0, &mut w);
        assert_eq!(w, vec![1.0, 0.0]);
        let c = WeightsChannel { interpolation: Interpolation::Step, ..c };
        sample_weights(&c, 2.9, &mut w);
        assert_eq!(w, vec![0.0, 1.0]);
    }

    #[test]
    fn linear_step_and_hold() {
        let c = channel(
            Interpolation::Linear,
            ChannelPath::Translation,
            vec![1.0, 3.0],
            vec![0.0, 0.0, 0.0, 2.0, 4.0, 6.0],
        );
        assert_eq!(sample_channel(&c, 2.0), [1.0, 2.0, 3.0, 0.0]);
        assert_eq!(sample_channel(&c, 0.0), [0.0; 4]);
        assert_eq!(sample_channel(&c, 9.0), [2.0, 4.0, 6.0, 0.0]);
        let c = Channel { interpolation: Interpolation::Step, ..c };
        assert_eq!(sample_channel(&c, 2.9), [0.0; 4]);
    }

    #[test]
    fn rotation_takes_the_shortest_path() {
        let a = DQuat::IDENTITY;
        let b = -DQuat::from_rotation_z(1.0); // same rotation, far hemisphere
        let c = channel(
            Interpolation::Linear,
            ChannelPath::Rotation,
            vec![0.0, 1.0],
            vec![a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w],
        );
        let mid = quat(sample_channel(&c, 0.5));
        assert!(mid.angle_between(DQuat::from_rotation_z(0.5)) < 1e-9);
    }

    #[test]
    fn cubic_spline_hits_keys_and_uses_tangents() {
        // values: [in, value, out] per key, scalar-like in x.
        let vals = vec![
            0.0, 0.0, 0.0, /*v0*/ 0.0, 0.0, 0.0, /*out0*/ 1.0, 0.0, 0.0, /*in1*/ 1.0, 0.0, 0.0,
            /*v1*/ 1.0, 0.0, 0.0, /*out1*/ 0.0, 0.0, 0.0,
        ];
        let c = channel(Interpolation::CubicSpline, ChannelPath::Translation, vec![0.0, 1.0], vals);
        assert_eq!(sample_channel(&c, 0.0)[0], 0.0);
        assert!((sample_channel(&c, 0.5)[0] - 0.5).abs() < 1e-12, "tangents of slope 1 give a straight line");
        assert_eq!(sample_channel(&c, 1.0)[0], 1.0);
    }
}
