//! Live rigs: per helper, a map from joint rotations to its local transform (`model::driver`),
//! fitted by ridge-regularised least squares over every exported sample's keyed transform, so
//! that an engine (or skinlab posing by hand) can drive the helpers without keys. The inputs are
//! the helper's parent and the parent's child joints (a region near an elbow moves with the
//! joints on both sides). The map is a fit of the keyed motion: what those rotations do not
//! explain (a pose the clips never showed, motion that depends on other joints) is left out.

use glam::{DAffine3, DQuat, DVec3};

use super::apply::ClipKeys;
use super::subject::clip_pose;
use crate::model::driver::{features, DriverInput, FEATURES, OUTPUTS};
use crate::model::{HelperDriver, Model};

/// The ridge term, relative to the mean diagonal of the features' Gram matrix.
pub const RIDGE: f64 = 1e-4;

/// The input nodes of a helper of `parent`: the parent, then its child joints (nodes some skin
/// uses that have no driver themselves), in node order.
#[must_use]
pub fn inputs_of(model: &Model, parent: usize) -> Vec<usize> {
    let mut out = vec![parent];
    if let Some(p) = model.nodes.nodes.get(parent) {
        out.extend(
            p.children.iter().copied().filter(|&c| {
                model.nodes.nodes[c].driver.is_none() && model.skins.iter().any(|s| s.joints.contains(&c))
            }),
        );
    }
    out
}

/// Each node of `nodes`' local rotation at every key of `keys` (clip by clip, time by time).
#[must_use]
pub fn local_rotations(model: &Model, nodes: &[usize], keys: &[ClipKeys]) -> Vec<Vec<DQuat>> {
    let mut out = vec![Vec::new(); nodes.len()];
    for k in keys {
        for &t in &k.times {
            let pose = clip_pose(model, k.clip, t);
            for (rotations, &n) in out.iter_mut().zip(nodes) {
                rotations.push(pose.local_trs(&model.nodes, n).rotation);
            }
        }
    }
    out
}

/// Fits one helper's driver. `inputs`: its input nodes (`inputs_of`) with each one's local
/// rotation at every key; `transforms`: its keyed transform (in the parent's frame) at every key;
/// `centre`: its rest translation; `pivot`: the point (parent's frame) whose motion the map's
/// translation fits (its users' weighted centroid).
#[must_use]
pub fn fit_driver(
    model: &Model,
    inputs: &[(usize, &[DQuat])],
    transforms: &[DAffine3],
    centre: DVec3,
    pivot: DVec3,
) -> HelperDriver {
    let driver_inputs: Vec<DriverInput> = inputs
        .iter()
        .map(|&(n, _)| DriverInput {
            node: model.nodes.unique_key(n),
            rest_rotation: model.nodes.nodes.get(n).map_or(DQuat::IDENTITY, |node| node.rest.to_trs().rotation),
        })
        .collect();
    let m = FEATURES * inputs.len();
    let mut gram = vec![0.0; m * m];
    let mut rhs = vec![vec![0.0; m]; OUTPUTS];
    let mut f = vec![0.0; m];
    for (k, x) in transforms.iter().enumerate() {
        for (j, ((_, rotations), input)) in inputs.iter().zip(&driver_inputs).enumerate() {
            let q = rotations.get(k).copied().unwrap_or(input.rest_rotation);
            f[j * FEATURES..(j + 1) * FEATURES].copy_from_slice(&features(input.rest_rotation, q));
        }
        let t = x.transform_point3(pivot) - pivot;
        let mut r = DQuat::from_mat3(&x.matrix3).normalize();
        if r.w < 0.0 {
            r = -r;
        }
        let o = [t.x, t.y, t.z, r.x, r.y, r.z];
        for a in 0..m {
            for b in 0..m {
                gram[a * m + b] += f[a] * f[b];
            }
            for (row, &value) in rhs.iter_mut().zip(&o) {
                row[a] += f[a] * value;
            }
        }
    }
    let scale = (0..m).map(|a| gram[a * m + a]).sum::<f64>() / m.max(1) as f64;
    for a in 0..m {
        gram[a * m + a] += RIDGE * scale + 1e-12;
    }
    let mut matrix = Vec::with_capacity(OUTPUTS * m);
    for row in &rhs {
        matrix.extend(crate::maths::solve_spd(&gram, row, m).unwrap_or_else(|| vec![0.0; m]));
    }
    HelperDriver { inputs: driver_inputs, rest_translation: centre, pivot: pivot - centre, matrix }
}
