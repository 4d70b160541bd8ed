//! Volume kept at a 90° bend: each joint that moves any vertex is turned by 90° about an axis
//! perpendicular to its bone (see [`super::poses::bone`] and [`super::poses::perpendicular`]),
//! from the bind pose, and the enclosed volume of every skinned triangle together (the signed
//! volume Σ a·(b×c)/6 of the whole surface, taken about the bind-pose bounding-box centre) is
//! compared with the unbent one. For a closed surface this is its volume whether or not seams are
//! welded (duplicate vertices move together); for an open one it is the volume of the cone from
//! that centre. The ratio is that of the whole model, so a small joint's change is diluted by the
//! rest of the body: compare joints of one model, not across models. Vertices without weight are
//! held at their bind placement (see `analysis::deformation`).

use glam::DVec3;
use serde::Serialize;

use super::deformation::deform_held;
use super::matching::{weights_of, MeshWeights};
use super::poses::{bend, bind_globals, bind_placements, bind_pose, bone, joint_nodes, perpendicular};
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

/// The volume kept by one joint's 90° bend.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BendVolume {
    /// The joint's node key (name, or `#N`).
    pub joint: String,
    /// The joint's node index.
    pub node: usize,
    /// The bend axis (model space, unit).
    pub axis: [f64; 3],
    /// Bent volume / bind-pose volume.
    pub ratio: f64,
}

/// Signed volume enclosed by triangles over `positions`, about `origin`.
#[must_use]
pub fn enclosed_volume(positions: &[glam::Vec3], triangles: &[[u32; 3]], origin: DVec3) -> f64 {
    triangles
        .iter()
        .filter_map(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| positions.get(i as usize).map(|p| p.as_dvec3() - origin));
            Some(a?.dot(b?.cross(c?)) / 6.0)
        })
        .sum()
}

/// The signed volume of every skinned instance's triangles in `out` (each mesh once), about `origin`.
#[must_use]
pub fn model_volume(model: &Model, out: &[Vec<DeformedPrimitive>], origin: DVec3) -> f64 {
    let mut total = 0.0;
    for (i, (inst, prims)) in model.instances.iter().zip(out).enumerate() {
        // Each mesh counts once (its first instance), as in the weights.
        if model.instances[..i].iter().any(|earlier| earlier.mesh == inst.mesh) {
            continue;
        }
        for (prim, d) in model.meshes[inst.mesh].primitives.iter().zip(prims) {
            total += enclosed_volume(&d.positions, &prim.triangles, origin);
        }
    }
    total
}

/// The bind-pose volume of the skinned surface and each joint's [`BendVolume`], deformed by `method`.
#[must_use]
pub fn bend_volumes(model: &Model, method: SkinningMethod) -> (f64, Vec<BendVolume>) {
    let meshes = weights_of(model);
    let base = bind_pose(model);
    let globals = bind_globals(model);
    let placements = bind_placements(model);
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deform_held(&mut deformer, model, &base, method, &placements, &mut out);
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in out.iter().flatten().flat_map(|d| d.positions.iter()) {
        lo = lo.min(p.as_dvec3());
        hi = hi.max(p.as_dvec3());
    }
    let origin = if lo.x <= hi.x { (lo + hi) * 0.5 } else { DVec3::ZERO };
    let rest = model_volume(model, &out, origin);
    let moving = moving_joints(model, &meshes);
    let mut bends = Vec::new();
    for node in joint_nodes(model).into_iter().filter(|n| moving.contains(n)) {
        let (_, dir) = bone(model, &globals, node);
        let axis = perpendicular(dir);
        let pose: Pose = bend(model, &base, &globals, node, axis, std::f64::consts::FRAC_PI_2);
        deform_held(&mut deformer, model, &pose, method, &placements, &mut out);
        let v = model_volume(model, &out, origin);
        let ratio = if rest.abs() > 0.0 { v / rest } else { 1.0 };
        bends.push(BendVolume { joint: model.nodes.key(node), node, axis: axis.to_array(), ratio });
    }
    (rest, bends)
}

/// Joint nodes whose bend moves a vertex: a joint carrying weight, and all its ancestors.
fn moving_joints(model: &Model, meshes: &[MeshWeights]) -> Vec<usize> {
    let mut moving = vec![false; model.nodes.len()];
    for mw in meshes {
        let joints = &model.skins[mw.skin].joints;
        for v in mw.primitives.iter().flatten() {
            for &(j, w) in v {
                let mut node = joints.get(usize::from(j)).copied();
                while let Some(n) = node.filter(|&n| w > 0.0 && n < moving.len() && !moving[n]) {
                    moving[n] = true;
                    node = model.nodes.nodes[n].parent;
                }
            }
        }
    }
    (0..moving.len()).filter(|&n| moving[n]).collect()
}
