//! A sweep driven by a clip (`skinlab sweep --clip NAME`, typically the range-of-motion clip of
//! `analysis::rom`): instead of turning each joint through its own steps, the sweep measures the
//! clip's poses at its key times. For each chosen joint and motion it keeps, in time order, the
//! keys at which the joint is turned (relative to the bind pose, in model space) about that
//! motion's axis, with the unturned keys beside them (a motion's start and end), and measures the
//! same metrics there; `angle_deg` is the signed turn about the axis and `time_secs` the key time.

use glam::DVec3;

use super::region::Region;
use super::{motion_axis, JointSweep, MethodCurve, Motion, Setup, StepMetrics, SweepReport, SweepRequest};
use crate::analysis::deformation::deform_held;
use crate::analysis::rom::sample_on_bind;
use crate::analysis::volume::model_volume;
use crate::model::{Clip, Model, Trs};
use crate::rig::fk;

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

/// `node`'s turn from its bind rotation in model space at each of `times`: (angle, unit axis),
/// the angle in [0, π].
fn turns(model: &Model, clip: &Clip, bind: &[glam::DMat4], node: usize, times: &[f64]) -> Vec<(f64, DVec3)> {
    let bind_rotation = Trs::from_matrix(bind[node]).rotation;
    let mut globals = Vec::new();
    times
        .iter()
        .map(|&t| {
            fk::model_from_node(&model.nodes, &sample_on_bind(model, clip, t), &mut globals);
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
    let Setup { globals, placements, mut deformer, rest, origin, rest_volume, .. } = Setup::new(model);
    let times = key_times(clip);
    let (mut out, mut previous) = (Vec::new(), Vec::new());
    let mut sweeps = Vec::new();
    let mut largest: f64 = 0.0;
    for &node in &request.joints {
        let turns = turns(model, clip, &globals, node, &times);
        for &motion in request.motions.iter().filter(|&&m| m != Motion::Weight) {
            let axis = motion_axis(model, &globals, node, motion);
            let keys = keys_about(&turns, axis);
            if keys.is_empty() {
                continue;
            }
            let Some(region) = Region::new(model, &globals, node, axis, &rest) else { continue };
            largest = keys.iter().map(|k| k.1.abs()).fold(largest, f64::max);
            let mut curves = Vec::new();
            for &method in &request.methods {
                let mut metrics = Vec::with_capacity(keys.len());
                for (n, &(i, angle)) in keys.iter().enumerate() {
                    let pose = sample_on_bind(model, clip, times[i]);
                    deform_held(&mut deformer, model, &pose, method, &placements, &mut out);
                    let (collapse, bulge) = region.collapse_and_bulge(&out, &globals, deformer.model_from_node());
                    let volume = model_volume(model, &out, origin);
                    let volume_change = if rest_volume != 0.0 { volume / rest_volume - 1.0 } else { 0.0 };
                    // The flip compares consecutive keys of one run only.
                    let flip = match n.checked_sub(1).map(|p| keys[p]) {
                        Some((j, before)) if j + 1 == i => region.flip(&previous, &out, angle - before),
                        _ => 0.0,
                    };
                    metrics.push(StepMetrics {
                        angle_deg: angle.to_degrees(),
                        collapse,
                        volume_change,
                        bulge,
                        flip,
                        time_secs: Some(times[i]),
                    });
                    std::mem::swap(&mut out, &mut previous);
                }
                curves.push(MethodCurve { method, steps: metrics, weight_steps: Vec::new() });
            }
            sweeps.push(JointSweep {
                joint: model.nodes.key(node),
                node,
                motion,
                axis: axis.to_array(),
                influenced_vertices: region.len(),
                rest_radius: region.rest_radius(),
                curves,
            });
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
