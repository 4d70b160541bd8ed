//! A sweep driven by a clip (`skinlab sweep --clip NAME`, typically the range-of-motion clip of
//! `analysis::rom`): instead of turning each joint through its own steps, the sweep measures the
//! clip's poses at its key times. For each chosen joint and motion it keeps, in time order, the
//! keys at which the joint is turned (relative to the bind pose, in model space) about that
//! motion's axis, with the unturned keys beside them (a motion's start and end), and measures the
//! same metrics there; `angle_deg` is the signed turn about the axis and `time_secs` the key time.

use glam::DVec3;

use super::region::Region;
use super::{motion_axis, Motion, Sample, Setup, SweepReport, SweepRequest};
use crate::analysis::rom::sample_on_bind;
use crate::model::{Clip, Model, Trs};
use crate::rig::{fk, Pose};

/// A turn smaller than this (radians) counts as none.
const UNTURNED_RAD: f64 = 1e-6;
/// A turn counts as about a motion's axis when its own axis is this parallel to it (|cos|).
const SAME_AXIS_COS: f64 = 0.999;

/// The clip's key times, ascending, each once.
fn key_times(clip: &Clip) -> Vec<f64> {
    let mut times: Vec<f64> = clip.channels.iter().flat_map(|c| c.times.iter().copied()).collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

/// `node`'s turn from its bind rotation in model space in each of `poses`: (angle, unit axis), the
/// angle in [0, π].
fn turns(model: &Model, poses: &[Pose], bind: &[glam::DMat4], node: usize) -> Vec<(f64, DVec3)> {
    let bind_rotation = Trs::from_matrix(bind[node]).rotation;
    let mut globals = Vec::new();
    poses
        .iter()
        .map(|pose| {
            fk::model_from_node(&model.nodes, pose, &mut globals);
            let q = (Trs::from_matrix(globals[node]).rotation * bind_rotation.conjugate()).normalize();
            let q = if q.w < 0.0 { -q } else { q };
            let v = DVec3::new(q.x, q.y, q.z);
            (2.0 * v.length().atan2(q.w), v.normalize_or_zero())
        })
        .collect()
}

/// The keys (indices into the key times) at which a joint with these `turns` moves about `axis`,
/// with the unturned keys beside them, ascending; and each one's signed angle.
fn keys_about(turns: &[(f64, DVec3)], axis: DVec3) -> Vec<(usize, f64)> {
    let about = |i: usize| turns[i].0 > UNTURNED_RAD && turns[i].1.dot(axis).abs() >= SAME_AXIS_COS;
    let still = |i: usize| turns[i].0 <= UNTURNED_RAD;
    (0..turns.len())
        .filter(|&i| about(i) || (still(i) && ((i > 0 && about(i - 1)) || (i + 1 < turns.len() && about(i + 1)))))
        .map(|i| (i, if still(i) { 0.0 } else { turns[i].0.copysign(turns[i].1.dot(axis)) }))
        .collect()
}

/// Runs the sweep on `clip`'s poses (see the module). `request.steps` and `max_angle_rad` are not
/// used; the `weight` motion, which turns nothing, is skipped. Joints the clip never turns about
/// a motion's axis get no entry for it.
#[must_use]
pub fn sweep_clip(model: &Model, title: &str, clip: &Clip, request: &SweepRequest) -> SweepReport {
    let mut setup = Setup::new(model);
    let globals = setup.globals.clone();
    let times = key_times(clip);
    let poses: Vec<_> = times.iter().map(|&t| sample_on_bind(model, clip, t)).collect();
    let mut sweeps = Vec::new();
    let mut largest: f64 = 0.0;
    for &node in &request.joints {
        let turns = turns(model, &poses, &globals, node);
        for &motion in request.motions.iter().filter(|&&m| m != Motion::Weight) {
            let axis = motion_axis(model, &globals, node, motion);
            let keys = keys_about(&turns, axis);
            if keys.is_empty() {
                continue;
            }
            let Some(region) = Region::new(model, &globals, node, axis, &setup.rest) else { continue };
            largest = keys.iter().map(|k| k.1.abs()).fold(largest, f64::max);
            // The flip compares consecutive keys of one run only.
            let samples: Vec<Sample> = keys
                .iter()
                .enumerate()
                .map(|(n, &(i, angle))| Sample {
                    pose: poses[i].clone(),
                    angle_rad: angle,
                    arc_rad: n.checked_sub(1).map(|p| keys[p]).filter(|&(j, _)| j + 1 == i).map(|(_, b)| angle - b),
                    time_secs: Some(times[i]),
                })
                .collect();
            sweeps.push(setup.measure(model, (node, motion, axis), &region, &request.methods, &samples));
        }
    }
    SweepReport { model: title.to_owned(), max_angle_deg: largest.to_degrees(), steps: times.len(), sweeps }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_about_an_axis_keep_the_still_keys_beside_them() {
        let x = DVec3::X;
        let turns = [(0.0, DVec3::ZERO), (0.5, x), (1.0, -x), (0.0, DVec3::ZERO), (0.0, DVec3::ZERO), (0.7, DVec3::Y)];
        let keys = keys_about(&turns, x);
        assert_eq!(keys, vec![(0, 0.0), (1, 0.5), (2, -1.0), (3, 0.0)]);
        assert_eq!(keys_about(&turns, DVec3::Z), vec![]);
    }
}
