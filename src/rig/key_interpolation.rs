//! Per-key interpolation, as an animator sets it: the keys of chosen joints (all of them, or
//! those at one time) become step, linear or cubic spline, glTF's three samplers. A key's
//! interpolation governs the stretch from it to the next key (as in Blender).
//!
//! A channel whose keys all share one interpolation keeps it as the channel's own (glTF's
//! sampler). A channel whose keys differ holds cubic-spline values with per-key interpolation
//! (`model::Channel::key_interpolation`); glTF has one interpolation per sampler, so the exporter
//! writes such a channel through [`gltf_form`]: one CUBICSPLINE sampler that follows every
//! stretch (see `docs/animation.md`).
//!
//! Tangents made here (a key turned cubic, a channel turned into a spline) are Catmull-Rom slopes,
//! clamped: zero at the first and last key and, per component, where a key is a peak or a dip,
//! so a curve through the keys never overshoots them. Rotation keys are put into one hemisphere
//! first (a change of sign that step and linear keys do not see). Tangents are rounded to f32, as
//! keys are (glTF stores f32).

use glam::DQuat;

use super::keys::{f32_exact, key_at, KEY_TIME_TOLERANCE};
use crate::model::{Channel, ChannelPath, Clip, Interpolation};

/// How long a step written into a cubic spline takes to jump to the next key, seconds (at most
/// half the stretch).
pub const STEP_JUMP_SECS: f64 = KEY_TIME_TOLERANCE;

/// The largest turn (radians) between the keys [`gltf_form`] writes for a linear rotation stretch
/// (10°: the spline's normalised path then stays within 0.002° of the slerp).
const LINEAR_PIECE_RAD: f64 = 10.0 * std::f64::consts::PI / 180.0;

/// Sets the interpolation of the chosen nodes' keys (every channel's with `nodes` `None`): all
/// their keys, or with `time_secs` only those at that time. Returns whether anything changed.
pub fn set_interpolation(
    clip: &mut Clip,
    nodes: Option<&[usize]>,
    time_secs: Option<f64>,
    mode: Interpolation,
) -> bool {
    let mut changed = false;
    for channel in clip.channels.iter_mut().filter(|c| nodes.is_none_or(|n| n.contains(&c.node))) {
        let chosen: Vec<usize> = match time_secs {
            Some(t) => key_at(channel, t).into_iter().collect(),
            None => (0..channel.times.len()).collect(),
        };
        if chosen.iter().all(|&k| channel.interpolation_after(k) == mode) {
            continue;
        }
        let mut modes: Vec<Interpolation> = (0..channel.times.len()).map(|k| channel.interpolation_after(k)).collect();
        let was_spline = channel.interpolation == Interpolation::CubicSpline;
        if !was_spline {
            to_spline(channel);
        }
        for &k in &chosen {
            if mode == Interpolation::CubicSpline && was_spline && modes[k] != Interpolation::CubicSpline {
                smooth_from(channel, &modes, k);
            }
            modes[k] = mode;
        }
        channel.key_interpolation = modes;
        channel.settle_interpolation();
        changed = true;
    }
    changed
}

/// The interpolation of the chosen keys: `Some` when they all share one (`None` for none or
/// several). `time_secs` as in [`set_interpolation`].
#[must_use]
pub fn interpolation_of(clip: &Clip, nodes: Option<&[usize]>, time_secs: Option<f64>) -> Option<Interpolation> {
    let mut modes = clip.channels.iter().filter(|c| nodes.is_none_or(|n| n.contains(&c.node))).flat_map(|c| {
        let keys: Vec<usize> = match time_secs {
            Some(t) => key_at(c, t).into_iter().collect(),
            None => (0..c.times.len()).collect(),
        };
        keys.into_iter().map(|k| c.interpolation_after(k))
    });
    let first = modes.next()?;
    modes.all(|m| m == first).then_some(first)
}

/// Element `k`'s value (not a tangent) of a channel stored as a cubic spline.
fn spline_value(channel: &Channel, k: usize) -> [f64; 4] {
    let w = channel.path.width();
    let mut out = [0.0; 4];
    out[..w].copy_from_slice(&channel.values[(3 * k + 1) * w..(3 * k + 2) * w]);
    out
}

/// Turns a step or linear channel into cubic-spline storage (rotation keys in one hemisphere,
/// clamped Catmull-Rom tangents); its per-key interpolation keeps how it sampled.
fn to_spline(channel: &mut Channel) {
    let w = channel.path.width();
    let mut keys: Vec<[f64; 4]> = channel
        .values
        .chunks_exact(w)
        .map(|v| {
            let mut out = [0.0; 4];
            out[..w].copy_from_slice(v);
            out
        })
        .collect();
    if channel.path == ChannelPath::Rotation {
        for k in 1..keys.len() {
            if (0..4).map(|i| keys[k][i] * keys[k - 1][i]).sum::<f64>() < 0.0 {
                keys[k] = keys[k].map(|v| -v);
            }
        }
    }
    let n = keys.len();
    channel.key_interpolation = vec![channel.interpolation; n];
    channel.interpolation = Interpolation::CubicSpline;
    channel.values = Vec::with_capacity(3 * w * n);
    for k in 0..n {
        let slope = clamped_slope(&channel.times, &keys, k);
        channel.values.extend(slope[..w].iter().chain(&keys[k][..w]).chain(&slope[..w]).map(|&v| f32_exact(v)));
    }
}

/// The clamped Catmull-Rom slope (per second) at key `k` of the values `keys` at `times`.
fn clamped_slope(times: &[f64], keys: &[[f64; 4]], k: usize) -> [f64; 4] {
    if k == 0 || k + 1 >= keys.len() {
        return [0.0; 4];
    }
    let span = times[k + 1] - times[k - 1];
    let mut out = [0.0; 4];
    for i in 0..4 {
        let (before, after) = (keys[k][i] - keys[k - 1][i], keys[k + 1][i] - keys[k][i]);
        if before * after > 0.0 && span > 0.0 {
            out[i] = (keys[k + 1][i] - keys[k - 1][i]) / span;
        }
    }
    out
}

/// Key `k` of a spline-stored channel turns cubic (its stretch was step or linear): its
/// out-tangent continues its in-tangent where the stretch before it is cubic, else both take the
/// clamped slope; the next key's in-tangent, which only this stretch used, continues that key's
/// out-tangent if it is cubic, else takes the clamped slope.
fn smooth_from(channel: &mut Channel, modes: &[Interpolation], k: usize) {
    let w = channel.path.width();
    let keys: Vec<[f64; 4]> = (0..channel.times.len()).map(|j| spline_value(channel, j)).collect();
    let cubic = |j: usize| modes.get(j) == Some(&Interpolation::CubicSpline);
    let v = &mut channel.values;
    if k > 0 && cubic(k - 1) {
        v.copy_within(3 * k * w..(3 * k + 1) * w, (3 * k + 2) * w);
    } else {
        let s = clamped_slope(&channel.times, &keys, k);
        for i in 0..w {
            v[3 * k * w + i] = f32_exact(s[i]);
            v[(3 * k + 2) * w + i] = f32_exact(s[i]);
        }
    }
    let next = k + 1;
    if next < keys.len() {
        if cubic(next) {
            v.copy_within((3 * next + 2) * w..(3 * next + 3) * w, 3 * next * w);
        } else {
            let s = clamped_slope(&channel.times, &keys, next);
            for i in 0..w {
                v[3 * next * w + i] = f32_exact(s[i]);
            }
        }
    }
}

/// The channel as one glTF sampler can hold it: itself when its keys share one interpolation;
/// else a CUBICSPLINE channel through the same keys that follows every stretch: cubic stretches
/// keep their tangents; linear ones get the chord as both tangents (a straight line: exact for
/// translation and scale; a rotation stretch is cut into pieces of at most 10°, whose normalised
/// chords stay within 0.002° of the slerp); a step holds with zero tangents up to a key
/// [`STEP_JUMP_SECS`] before the next key (at most half the stretch) and jumps from there.
#[must_use]
pub fn gltf_form(channel: &Channel) -> Channel {
    if channel.key_interpolation.is_empty() {
        return channel.clone();
    }
    let w = channel.path.width();
    let n = channel.times.len();
    let tangent = |k: usize, out: bool| {
        let at = (3 * k + if out { 2 } else { 0 }) * w;
        let mut t = [0.0; 4];
        t[..w].copy_from_slice(&channel.values[at..at + w]);
        t
    };
    // Per stretch, the points it passes (times and values, both keys included) for a linear one.
    let pieces = |k: usize| -> Vec<(f64, [f64; 4])> {
        let (t0, t1) = (channel.times[k], channel.times[k + 1]);
        let (a, b) = (spline_value(channel, k), spline_value(channel, k + 1));
        let count = if channel.path == ChannelPath::Rotation {
            let (qa, qb) = (DQuat::from_array(a).normalize(), DQuat::from_array(b).normalize());
            (qa.angle_between(qb) / LINEAR_PIECE_RAD).ceil().max(1.0) as usize
        } else {
            1
        };
        (0..=count)
            .map(|i| {
                let u = i as f64 / count as f64;
                let t = if i == count { t1 } else { f32_exact(t0 + (t1 - t0) * u) };
                let v = if i == 0 {
                    a
                } else if i == count {
                    b
                } else {
                    let q = DQuat::from_array(a).normalize().slerp(DQuat::from_array(b).normalize(), u);
                    let q = if q.dot(DQuat::from_array(a)) < 0.0 { -q } else { q };
                    q.to_array().map(f32_exact)
                };
                (t, v)
            })
            .collect()
    };
    let chord = |(ta, a): (f64, [f64; 4]), (tb, b): (f64, [f64; 4])| {
        let dt = tb - ta;
        let mut out = [0.0; 4];
        for i in 0..4 {
            out[i] = if dt > 0.0 { (b[i] - a[i]) / dt } else { 0.0 };
        }
        out
    };
    let mut times = Vec::new();
    let mut values = Vec::new();
    let mut push = |t: f64, tin: [f64; 4], v: [f64; 4], tout: [f64; 4]| {
        times.push(t);
        values.extend(tin[..w].iter().chain(&v[..w]).chain(&tout[..w]).map(|&x| f32_exact(x)));
    };
    let mut incoming = tangent(0, false);
    for k in 0..n {
        let value = spline_value(channel, k);
        if k + 1 == n {
            push(channel.times[k], incoming, value, tangent(k, true));
            break;
        }
        match channel.interpolation_after(k) {
            Interpolation::CubicSpline => {
                push(channel.times[k], incoming, value, tangent(k, true));
                incoming = tangent(k + 1, false);
            }
            Interpolation::Step => {
                push(channel.times[k], incoming, value, [0.0; 4]);
                let (t0, t1) = (channel.times[k], channel.times[k + 1]);
                let hold = f32_exact(t1 - STEP_JUMP_SECS.min(0.5 * (t1 - t0)));
                if hold > t0 {
                    push(hold, [0.0; 4], value, [0.0; 4]);
                }
                incoming = [0.0; 4];
            }
            Interpolation::Linear => {
                let points = pieces(k);
                push(points[0].0, incoming, value, chord(points[0], points[1]));
                for i in 1..points.len() - 1 {
                    push(points[i].0, chord(points[i - 1], points[i]), points[i].1, chord(points[i], points[i + 1]));
                }
                let last = points.len() - 1;
                incoming = chord(points[last - 1], points[last]);
            }
        }
    }
    Channel {
        node: channel.node,
        path: channel.path,
        interpolation: Interpolation::CubicSpline,
        times,
        values,
        key_interpolation: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::sample::sample_channel;

    fn linear_x(times: Vec<f64>, xs: &[f64]) -> Channel {
        Channel {
            node: 0,
            path: ChannelPath::Translation,
            interpolation: Interpolation::Linear,
            times,
            values: xs.iter().flat_map(|&x| [x, 0.0, 0.0]).collect(),
            key_interpolation: Vec::new(),
        }
    }

    fn clip(c: Channel) -> Clip {
        Clip { name: None, channels: vec![c], weights: Vec::new() }
    }

    #[test]
    fn one_key_turns_step_and_the_rest_keep_sampling() {
        let mut c = clip(linear_x(vec![0.0, 1.0, 2.0], &[0.0, 1.0, 3.0]));
        let before = c.channels[0].clone();
        assert!(set_interpolation(&mut c, None, Some(1.0), Interpolation::Step));
        let ch = &c.channels[0];
        assert_eq!(ch.key_interpolation, vec![Interpolation::Linear, Interpolation::Step, Interpolation::Linear]);
        assert_eq!(ch.check(), Ok(()));
        for t in [0.0, 0.25, 0.5, 0.99] {
            assert_eq!(sample_channel(ch, t), sample_channel(&before, t), "t = {t}");
        }
        assert_eq!(sample_channel(ch, 1.5)[0], 1.0, "the step holds");
        assert_eq!(sample_channel(ch, 2.0)[0], 3.0);
        assert_eq!(interpolation_of(&c, None, Some(1.0)), Some(Interpolation::Step));
        assert_eq!(interpolation_of(&c, None, None), None);
        // All keys step: the channel is a STEP sampler again, without tangents.
        assert!(set_interpolation(&mut c, None, None, Interpolation::Step));
        let ch = &c.channels[0];
        assert_eq!(
            (ch.interpolation, ch.key_interpolation.is_empty(), ch.values.len()),
            (Interpolation::Step, true, 9)
        );
        assert!(!set_interpolation(&mut c, None, None, Interpolation::Step), "nothing changes");
    }

    #[test]
    fn cubic_keys_pass_through_the_keys_smoothly_without_overshoot() {
        let mut c = clip(linear_x(vec![0.0, 1.0, 2.0, 3.0], &[0.0, 1.0, 2.0, 0.0]));
        assert!(set_interpolation(&mut c, None, None, Interpolation::CubicSpline));
        let ch = &c.channels[0];
        assert_eq!(ch.interpolation, Interpolation::CubicSpline);
        assert!(ch.key_interpolation.is_empty());
        assert_eq!(sample_channel(ch, 1.0)[0], 1.0);
        // Slope 1 at key 1 (Catmull-Rom), zero at the peak (clamped) and at the ends.
        assert_eq!(ch.values[9..18], [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(ch.values[18..21], [0.0; 3]);
        let peak = (0..=100).map(|i| sample_channel(ch, 1.0 + f64::from(i) / 50.0)[0]).fold(f64::MIN, f64::max);
        assert!(peak <= 2.0 + 1e-12, "no overshoot: {peak}");
    }

    #[test]
    fn mixed_channels_are_written_as_one_spline_that_follows_every_stretch() {
        let q = |deg: f64| DQuat::from_rotation_z(deg.to_radians());
        let keys = [q(0.0), q(90.0), q(100.0), q(40.0)];
        let mut rot = Channel {
            node: 0,
            path: ChannelPath::Rotation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0, 2.0, 3.0],
            values: keys.iter().flat_map(|k| k.to_array().map(f32_exact)).collect(),
            key_interpolation: Vec::new(),
        };
        let mut tr = linear_x(vec![0.0, 1.0, 2.0, 3.0], &[0.0, 2.0, 1.0, 5.0]);
        for c in [&mut rot, &mut tr] {
            let mut cl = clip(c.clone());
            assert!(set_interpolation(&mut cl, None, Some(1.0), Interpolation::Step));
            assert!(set_interpolation(&mut cl, None, Some(2.0), Interpolation::CubicSpline));
            *c = cl.channels.pop().unwrap();
            assert_eq!(
                c.key_interpolation,
                vec![Interpolation::Linear, Interpolation::Step, Interpolation::CubicSpline, Interpolation::Linear]
            );
        }
        for c in [&rot, &tr] {
            let g = gltf_form(c);
            assert_eq!(g.check(), Ok(()));
            assert!(g.key_interpolation.is_empty() && g.interpolation == Interpolation::CubicSpline);
            for i in 0..=300 {
                let t = f64::from(i) / 100.0;
                if (t - 2.0).abs() < 1.1e-3 {
                    continue; // the step's jump
                }
                let (a, b) = (sample_channel(c, t), sample_channel(&g, t));
                let err = if c.path == ChannelPath::Rotation {
                    DQuat::from_array(a).normalize().angle_between(DQuat::from_array(b).normalize()).to_degrees()
                } else {
                    (a[0] - b[0]).abs()
                };
                assert!(err < 2e-3, "{:?} at {t}: {a:?} vs {b:?}", c.path);
            }
        }
    }
}
