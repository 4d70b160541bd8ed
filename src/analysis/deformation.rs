//! The deformation distance between two weightings of the same model: both deformed by LBS through
//! the same poses, the per-vertex distance between the results, as a share of the diagonal of the
//! skinned meshes' bounding box in the bind pose. A vertex without weight follows no joint: it is
//! held where the bind pose places it (its skin's bind placement), as Blender leaves such a vertex,
//! rather than at its raw mesh-space position, which for a scaled armature (FBX2glTF's ×100) lies
//! far from the model.

use glam::Vec3;
use serde::Serialize;

use super::poses::{bind_placements, bind_pose};
use crate::model::{Model, EMPTY_SET};
use crate::rig::Pose;
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

/// Distances between two deformations over a set of poses.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DeformationDistance {
    /// Poses deformed.
    pub poses: usize,
    /// Diagonal of the skinned meshes' bounding box in the bind pose (model units).
    pub diagonal: f64,
    /// Mean vertex distance over every vertex of every pose, as a share of the diagonal.
    pub mean: f64,
    /// Largest vertex distance, as a share of the diagonal.
    pub max: f64,
    /// Index of the pose with the largest distance.
    pub worst_pose: usize,
}

/// Deforms every skinned instance of `model` by `method` into `out`, holding each vertex without
/// weight at its skin's bind placement (`placements` from [`bind_placements`]).
pub fn deform_held(
    deformer: &mut Deformer,
    model: &Model,
    pose: &Pose,
    method: SkinningMethod,
    placements: &[glam::DMat4],
    out: &mut Vec<Vec<DeformedPrimitive>>,
) {
    deformer.deform_all(model, pose, method, out);
    for (inst, prims) in model.instances.iter().zip(out.iter_mut()) {
        let placement = placements.get(inst.skin).copied().unwrap_or(glam::DMat4::IDENTITY);
        for (prim, d) in model.meshes[inst.mesh].primitives.iter().zip(prims.iter_mut()) {
            for (v, (rest, moved)) in prim.positions.iter().zip(d.positions.iter_mut()).enumerate() {
                let unweighted = prim.influences.as_ref().is_none_or(|inf| inf.set_of(v) == EMPTY_SET);
                if unweighted {
                    *moved = placement.transform_point3(rest.as_dvec3()).as_vec3();
                }
            }
        }
    }
}

/// The bounding-box diagonal of `model`'s skinned meshes deformed by LBS in the bind pose.
#[must_use]
pub fn bind_diagonal(model: &Model) -> f64 {
    let mut out = Vec::new();
    deform_held(&mut Deformer::new(), model, &bind_pose(model), SkinningMethod::Lbs, &bind_placements(model), &mut out);
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in out.iter().flatten().flat_map(|d: &DeformedPrimitive| d.positions.iter()) {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    if lo.x > hi.x {
        0.0
    } else {
        f64::from((hi - lo).length())
    }
}

/// Deforms `reference` and `compared` (the same model with two weightings: same nodes, meshes and
/// clips) by LBS through `poses` and measures the vertex distances.
#[must_use]
pub fn deformation_distance(reference: &Model, compared: &Model, poses: &[Pose]) -> DeformationDistance {
    let diagonal = bind_diagonal(reference);
    let placements = bind_placements(reference);
    let (mut da, mut db) = (Deformer::new(), Deformer::new());
    let (mut oa, mut ob) = (Vec::new(), Vec::new());
    let mut sum = 0.0;
    let mut count = 0usize;
    let mut out = DeformationDistance { poses: poses.len(), diagonal, ..DeformationDistance::default() };
    let mut max = 0.0f64;
    for (k, pose) in poses.iter().enumerate() {
        deform_held(&mut da, reference, pose, SkinningMethod::Lbs, &placements, &mut oa);
        deform_held(&mut db, compared, pose, SkinningMethod::Lbs, &placements, &mut ob);
        for (pa, pb) in oa.iter().flatten().zip(ob.iter().flatten()) {
            for (a, b) in pa.positions.iter().zip(&pb.positions) {
                let d = f64::from(a.distance(*b));
                sum += d;
                count += 1;
                if d > max {
                    max = d;
                    out.worst_pose = k;
                }
            }
        }
    }
    if diagonal > 0.0 && count > 0 {
        out.mean = sum / count as f64 / diagonal;
        out.max = max / diagonal;
    }
    out
}
