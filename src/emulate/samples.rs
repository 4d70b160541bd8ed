//! When a clip is sampled for the fit: every key time of its channels plus a uniform grid
//! ([`SAMPLES_PER_SECOND`]), merged where two lie closer than [`MIN_GAP_SECS`], each rounded to
//! f32 (the exported key times) and strictly increasing in f32. A runtime interpolates the helpers'
//! keys linearly between these times, so the denser grid keeps it near the fitted motion.

use crate::model::Clip;

/// Uniform samples per second between the clip's own keys.
pub const SAMPLES_PER_SECOND: f64 = 30.0;
/// Sample times closer than this are merged (the earlier kept).
pub const MIN_GAP_SECS: f64 = 1e-3;

/// The sample times of `clip` (seconds, f32-exact, strictly increasing; one time for a clip of
/// zero length).
#[must_use]
pub fn sample_times(clip: &Clip) -> Vec<f64> {
    let (start, end) = clip.range();
    let mut times: Vec<f64> = clip.channels.iter().flat_map(|c| c.times.iter().copied()).collect();
    let span = (end - start).max(0.0);
    let steps = (span * SAMPLES_PER_SECOND).ceil() as usize;
    for k in 0..=steps {
        times.push(if steps == 0 { start } else { start + span * k as f64 / steps as f64 });
    }
    times.retain(|t| t.is_finite() && *t >= start && *t <= end);
    times.sort_by(f64::total_cmp);
    let mut out: Vec<f64> = Vec::with_capacity(times.len());
    for t in times {
        let t = f64::from(t as f32);
        match out.last() {
            Some(&last) if t - last < MIN_GAP_SECS || (t as f32) <= (last as f32) => {}
            _ => out.push(t),
        }
    }
    if out.is_empty() {
        out.push(f64::from(start as f32));
    }
    out
}

/// `count` indices spread evenly over `0..len` (all of them when `len <= count`), ascending.
#[must_use]
pub fn spread(len: usize, count: usize) -> Vec<usize> {
    if len <= count {
        return (0..len).collect();
    }
    let mut out: Vec<usize> = (0..count).map(|k| (k * (len - 1)) / (count - 1).max(1)).collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Channel, ChannelPath, Interpolation};

    fn clip(times: Vec<f64>) -> Clip {
        let values = times.iter().flat_map(|_| [0.0, 0.0, 0.0, 1.0]).collect();
        let channel = Channel {
            node: 0,
            path: ChannelPath::Rotation,
            interpolation: Interpolation::Linear,
            times,
            values,
            key_interpolation: Vec::new(),
        };
        Clip { name: None, channels: vec![channel], weights: Vec::new() }
    }

    #[test]
    fn keys_and_a_grid_increase_strictly() {
        let t = sample_times(&clip(vec![0.0, 0.25, 1.0]));
        assert!(t.windows(2).all(|w| (w[0] as f32) < (w[1] as f32)));
        assert!(t.contains(&0.25) && t.contains(&0.0) && t.contains(&1.0));
        assert_eq!(t.len(), 32);
        assert_eq!(sample_times(&clip(vec![0.5])), vec![0.5]);
    }

    #[test]
    fn spread_keeps_the_ends() {
        assert_eq!(spread(3, 5), vec![0, 1, 2]);
        assert_eq!(spread(10, 4), vec![0, 3, 6, 9]);
    }
}
