//! What spherical blend skinning computes per joint set in one pose (`skinlab info --sets`, the
//! editor's sets panel): for every distinct set of two or more joints that some vertex uses, its
//! members, vertex count, the singular values and condition number of the least-squares centre
//! system `(R_a − R_b) r = t_b − t_a` (spec "sbs" step 2), the centre the engine solved (bind space,
//! and its image in model space), how far it lies in skin extents, whether the far-centre f64 path
//! evaluates its vertices, and a warning when the system is (nearly) singular.
//!
//! Conditioning. A two-joint system has rank 2 by construction (the centre may slide along the
//! relative rotation axis; the minimum-norm point is taken), a larger one rank 3. With σ₁ ≥ σ₂ ≥ σ₃
//! the singular values and σ_r the one at that structural rank (σ₂ for two joints, σ₃ otherwise),
//! the condition number is σ₁ / σ_r, infinite when σ_r falls under the solve's truncation
//! threshold (1e-6). A set whose largest singular value is under [`AGREE_SIGMA`] needs no centre
//! (`no_centre_needed`): its members' rotations agree to rounding, as they do in the rest pose,
//! so every centre gives the same vertices (SBS equals LBS there); it is not warned about. A set
//! is flagged
//! - [`SetWarning::NearSingular`] when σ_r < [`NEAR_SINGULAR_SIGMA`] (relative rotations under
//!   about 0.06°: the centre follows rounding of the translations) or the condition number exceeds
//!   [`MAX_CONDITION`] (rotations nearly about one axis: the centre runs off along it, Fox's
//!   8,000-extent centres).

use glam::{DMat3, DVec3};
use serde::Serialize;

use crate::maths;
use crate::model::{Model, EMPTY_SET};
use crate::rig::Pose;
use crate::skinning::frame::{FAR_CENTRE_EXTENTS, SET_FAR_CENTRE, SET_LBS_FALLBACK};
use crate::skinning::{Deformer, SkinningMethod};

/// σ_r below this flags a set as near-singular (about 0.06° of relative rotation).
pub const NEAR_SINGULAR_SIGMA: f64 = 1e-3;
/// A condition number above this flags a set as near-singular.
pub const MAX_CONDITION: f64 = 1e3;
/// σ₁ below this: the members' rotations agree to rounding (about 0.0006°, as at rest), and the
/// set needs no centre.
pub const AGREE_SIGMA: f64 = 1e-5;

/// Why a set's centre is unreliable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SetWarning {
    /// The system is nearly singular: small relative rotations, or rotations nearly about one axis.
    NearSingular,
}

impl SetWarning {
    /// A short description for tables.
    #[must_use]
    pub fn text(self) -> &'static str {
        match self {
            Self::NearSingular => "near-singular",
        }
    }
}

/// One joint set's row of the table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SetRow {
    /// The set's id in its skin's joint-set table.
    pub set: u32,
    /// Member joints' node keys (name, or `#N`), in set order (joint index ascending).
    pub members: Vec<String>,
    /// Member joints' node indices.
    pub nodes: Vec<usize>,
    /// Vertices using the set (each mesh counted once).
    pub vertices: usize,
    /// Singular values of the centre system, largest first.
    pub singular_values: [f64; 3],
    /// σ₁ / σ_r (see the module docs); `None` when infinite.
    pub condition: Option<f64>,
    /// The centre r_c the engine uses, in bind space.
    pub centre_bind: [f64; 3],
    /// The centre in model space: the mean of the members' images D_i r_c.
    pub centre_model: [f64; 3],
    /// |r_c| in skin extents (the far-centre test's measure).
    pub centre_distance: f64,
    /// The set's vertices are evaluated by the far-centre f64 path (distance > 32).
    pub far_path: bool,
    /// A member has no rigid part (non-positive determinant): the set is deformed by LBS.
    pub lbs_fallback: bool,
    /// A warning mark, if any.
    pub warning: Option<SetWarning>,
    /// The members' rotations agree to rounding (as at rest): no centre is needed.
    pub no_centre_needed: bool,
}

/// The table of one skin.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkinSets {
    /// The skin's index.
    pub skin: usize,
    /// The skin's name, if any.
    pub name: Option<String>,
    /// The skin's extent in this pose (model units), the unit of `centre_distance`.
    pub extent: f64,
    /// Vertices whose set has one joint (no centre needed).
    pub single_joint_vertices: usize,
    /// One row per set of two or more joints used by a vertex, in set id order.
    pub rows: Vec<SetRow>,
}

/// Vertices per set id of skin `skin` (each mesh counted once).
#[must_use]
pub fn set_vertex_counts(model: &Model, skin: usize) -> Vec<usize> {
    let Some(s) = model.skins.get(skin) else { return Vec::new() };
    let mut counts = vec![0usize; s.sets.len()];
    for (i, inst) in model.instances.iter().enumerate() {
        if inst.skin != skin || model.instances[..i].iter().any(|e| e.mesh == inst.mesh) {
            continue;
        }
        for p in &model.meshes[inst.mesh].primitives {
            if let Some(inf) = &p.influences {
                for v in 0..inf.len() {
                    if let Some(c) = counts.get_mut(inf.set_of(v) as usize) {
                        *c += 1;
                    }
                }
            }
        }
    }
    counts
}

/// What the singular values of a system of `members` joints say.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Conditioning {
    /// The rotations agree to rounding ([`AGREE_SIGMA`]): no centre is needed.
    NoCentreNeeded,
    /// The condition number (`None`: infinite) and the warning, if any.
    Centre(Option<f64>, Option<SetWarning>),
}

/// Condition number and warning from the singular values of a system of `members` joints.
#[must_use]
pub fn classify(singular_values: [f64; 3], members: usize) -> Conditioning {
    let eps = maths::CENTRE_SINGULAR_EPS;
    if singular_values[0].is_nan() || singular_values[0] < AGREE_SIGMA.max(eps) {
        return Conditioning::NoCentreNeeded;
    }
    let rank_value = singular_values[if members == 2 { 1 } else { 2 }];
    let condition = (rank_value >= eps).then(|| singular_values[0] / rank_value);
    let near = rank_value.is_nan() || rank_value < NEAR_SINGULAR_SIGMA || condition.is_none_or(|c| c > MAX_CONDITION);
    Conditioning::Centre(condition, near.then_some(SetWarning::NearSingular))
}

/// The set table of every skin of `model` in `pose`.
#[must_use]
pub fn joint_set_table(model: &Model, pose: &Pose) -> Vec<SkinSets> {
    let mut deformer = Deformer::new();
    deformer.prepare(model, pose, SkinningMethod::Sbs);
    model
        .skins
        .iter()
        .enumerate()
        .map(|(si, skin)| {
            let frame = deformer.skin_frame(si);
            let counts = set_vertex_counts(model, si);
            let extent = frame.skin_extent();
            let parts: Vec<Option<(DMat3, DVec3)>> = frame
                .model_from_bind
                .iter()
                .map(|c| maths::polar_rotation(DMat3::from_mat4(*c)).map(|r| (r, c.w_axis.truncate())))
                .collect();
            let mut single = 0;
            let mut rows = Vec::new();
            for (set, &vertices) in counts.iter().enumerate() {
                let joints = skin.sets.joints(set as u32);
                if set as u32 == EMPTY_SET || vertices == 0 {
                    continue;
                }
                if joints.len() < 2 {
                    single += vertices;
                    continue;
                }
                let flags = frame.flags.get(set).copied().unwrap_or(0);
                let lbs_fallback = flags & SET_LBS_FALLBACK != 0;
                let member_parts: Vec<(DMat3, DVec3)> =
                    joints.iter().filter_map(|&j| parts.get(usize::from(j)).copied().flatten()).collect();
                let rotations: Vec<DMat3> = member_parts.iter().map(|p| p.0).collect();
                let singular_values = maths::centre_system_singular_values(&rotations);
                let conditioning = classify(singular_values, joints.len());
                let (condition, warning) = match conditioning {
                    Conditioning::NoCentreNeeded => (None, None),
                    Conditioning::Centre(c, w) => (c, w),
                };
                let centre = frame.far_centres.get(set).copied().unwrap_or(DVec3::ZERO);
                let centre_model = if member_parts.is_empty() {
                    centre
                } else {
                    member_parts.iter().map(|(r, t)| *r * centre + *t).sum::<DVec3>() / member_parts.len() as f64
                };
                let nodes: Vec<usize> =
                    joints.iter().filter_map(|&j| skin.joints.get(usize::from(j)).copied()).collect();
                rows.push(SetRow {
                    set: set as u32,
                    members: nodes.iter().map(|&n| model.nodes.key(n)).collect(),
                    nodes,
                    vertices,
                    singular_values,
                    condition,
                    centre_bind: centre.to_array(),
                    centre_model: centre_model.to_array(),
                    centre_distance: if extent > 0.0 { centre.length() / extent } else { 0.0 },
                    far_path: flags & SET_FAR_CENTRE != 0,
                    lbs_fallback,
                    warning: if lbs_fallback { None } else { warning },
                    no_centre_needed: conditioning == Conditioning::NoCentreNeeded,
                });
            }
            SkinSets { skin: si, name: skin.name.clone(), extent, single_joint_vertices: single, rows }
        })
        .collect()
}

/// The far-centre threshold in skin extents (for table legends).
#[must_use]
pub fn far_centre_extents() -> f64 {
    FAR_CENTRE_EXTENTS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreeing_rotations_need_no_centre_and_near_singular_systems_are_flagged() {
        use Conditioning::{Centre, NoCentreNeeded};
        assert_eq!(classify([0.0; 3], 3), NoCentreNeeded);
        assert_eq!(classify([3e-7, 1e-7, 0.0], 2), NoCentreNeeded, "rounding at rest");
        assert_eq!(classify([1.0, 1.0, 0.0], 2), Centre(Some(1.0), None));
        assert_eq!(classify([1.0, 1.0, 0.0], 3), Centre(None, Some(SetWarning::NearSingular)));
        assert!(matches!(classify([1.0, 0.5, 1e-4], 3), Centre(Some(_), Some(SetWarning::NearSingular))));
        assert_eq!(classify([2e-4, 2e-4, 0.0], 2), Centre(Some(1.0), Some(SetWarning::NearSingular)));
        assert_eq!(classify([1.0, 0.5, 0.25], 3), Centre(Some(4.0), None));
    }
}
