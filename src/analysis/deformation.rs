//! The deformation distance between two weightings of the same model: both deformed by LBS through
//! the same poses, the per-vertex distance between the results, as a share of the diagonal of the
//! skinned meshes' bounding box in the bind pose.

use glam::Vec3;
use serde::Serialize;

use super::poses::bind_pose;
use crate::model::Model;
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

/// The bounding-box diagonal of `model`'s skinned meshes deformed by LBS in the bind pose.
#[must_use]
pub fn bind_diagonal(model: &Model) -> f64 {
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(model, &bind_pose(model), SkinningMethod::Lbs, &mut out);
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
    let (mut da, mut db) = (Deformer::new(), Deformer::new());
    let (mut oa, mut ob) = (Vec::new(), Vec::new());
    let mut sum = 0.0;
    let mut count = 0usize;
    let mut out = DeformationDistance { poses: poses.len(), diagonal, ..DeformationDistance::default() };
    let mut max = 0.0f64;
    for (k, pose) in poses.iter().enumerate() {
        da.deform_all(reference, pose, SkinningMethod::Lbs, &mut oa);
        db.deform_all(compared, pose, SkinningMethod::Lbs, &mut ob);
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
