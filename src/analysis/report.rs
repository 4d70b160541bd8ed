//! The two reports: [`Comparison`] (a weighting against a reference, `skinlab weights compare`)
//! and [`Evaluation`] (one weighting alone, `skinlab weights evaluate`), each printable as text
//! (`Display`) or as JSON (`serde`).

use std::fmt;

use serde::Serialize;

use super::deformation::{deformation_distance, DeformationDistance};
use super::matching::{carry_weights, weights_of, with_weights, MatchError};
use super::metrics::{agreement, influence_histogram, unweighted, WeightAgreement, INFLUENCE_THRESHOLD};
use super::poses::{poses, PoseSet};
use super::smoothness::dirichlet_energy;
use super::volume::{bend_volumes, BendVolume};
use crate::model::{InfluenceError, Model};
use crate::skinning::SkinningMethod;

/// Which smoothness energy the reports give (see `analysis::smoothness`).
pub const SMOOTHNESS: &str = "cotangent Laplacian: Dirichlet energy sum_j integral |grad w_j|^2 dA (dimensionless)";
/// Which volume the bend figures measure (see `analysis::volume`).
pub const VOLUME: &str = "signed volume of the whole skinned surface about the bind-pose bounding-box centre";

/// Why two weightings could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The models do not hold the same meshes and joints.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The carried weights do not fit the reference's skins.
    #[error("{0}")]
    Influences(#[from] InfluenceError),
}

/// A weighting compared with a reference weighting of the same meshes.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The reference (for example the artist's file).
    pub reference: String,
    /// The compared weighting (for example automatic weights).
    pub compared: String,
    /// Skinned meshes compared (first instance of each).
    pub skinned_meshes: usize,
    /// Vertices compared.
    pub vertices: usize,
    /// Reference vertices without weight.
    pub unweighted_reference: usize,
    /// Compared vertices without weight.
    pub unweighted_compared: usize,
    /// The influence threshold of precision and recall.
    pub influence_threshold: f32,
    /// Weight L1, precision and recall.
    pub weights: WeightAgreement,
    /// Which smoothness energy.
    pub smoothness_energy: &'static str,
    /// The reference's smoothness energy.
    pub smoothness_reference: f64,
    /// The compared weighting's smoothness energy.
    pub smoothness_compared: f64,
    /// The poses of the deformation distance.
    pub poses: String,
    /// The deformation distance (LBS, reference skeleton and poses for both weightings).
    pub deformation: DeformationDistance,
}

/// Compares `compared`'s weights, carried onto `reference` by mesh order and joint name, with
/// `reference`'s own, deforming both with `reference`'s skeleton through `pose_set`.
pub fn compare(reference: &Model, compared: &Model, pose_set: PoseSet) -> Result<Comparison, CompareError> {
    let ours = weights_of(reference);
    let theirs = carry_weights(reference, compared)?;
    let carried = with_weights(reference, &theirs)?;
    let (poses, description) = poses(reference, pose_set);
    Ok(Comparison {
        reference: String::new(),
        compared: String::new(),
        skinned_meshes: ours.len(),
        vertices: ours.iter().flat_map(|m| &m.primitives).map(Vec::len).sum(),
        unweighted_reference: unweighted(&ours),
        unweighted_compared: unweighted(&theirs),
        influence_threshold: INFLUENCE_THRESHOLD,
        weights: agreement(&ours, &theirs),
        smoothness_energy: SMOOTHNESS,
        smoothness_reference: dirichlet_energy(reference, &ours),
        smoothness_compared: dirichlet_energy(reference, &theirs),
        poses: description,
        deformation: deformation_distance(reference, &carried, &poses),
    })
}

/// A name from a file with control characters escaped, so that it stays on its line.
fn printable(name: &str) -> String {
    name.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

fn percent(share: f64) -> String {
    format!("{:.2} %", 100.0 * share)
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = &self.weights;
        writeln!(f, "reference: {}", self.reference)?;
        writeln!(f, "compared:  {}", self.compared)?;
        writeln!(f, "vertices: {} in {} skinned meshes", self.vertices, self.skinned_meshes)?;
        writeln!(
            f,
            "vertices without weight: reference {}, compared {} ({})",
            self.unweighted_reference,
            self.unweighted_compared,
            percent(self.unweighted_compared as f64 / self.vertices.max(1) as f64)
        )?;
        writeln!(f, "weight L1 per vertex (0..2): mean {:.4}, max {:.4}", w.l1_mean, w.l1_max)?;
        writeln!(
            f,
            "influences above {}: precision {:.4}, recall {:.4} ({} shared; reference {}, compared {})",
            self.influence_threshold,
            w.precision,
            w.recall,
            w.shared_influences,
            w.reference_influences,
            w.compared_influences
        )?;
        writeln!(
            f,
            "smoothness ({}): reference {:.4}, compared {:.4}",
            self.smoothness_energy, self.smoothness_reference, self.smoothness_compared
        )?;
        let d = &self.deformation;
        writeln!(
            f,
            "deformation distance (LBS over {}): mean {}, max {} of the bind-pose bounding-box diagonal {:.6} \
             (worst: pose {})",
            self.poses,
            percent(d.mean),
            percent(d.max),
            d.diagonal,
            d.worst_pose
        )
    }
}

/// The measures of one weighting that need no reference.
#[derive(Clone, Debug, Serialize)]
pub struct Evaluation {
    /// The model.
    pub model: String,
    /// Skinned meshes (first instance of each).
    pub skinned_meshes: usize,
    /// Vertices.
    pub vertices: usize,
    /// Vertices without weight.
    pub unweighted: usize,
    /// `influence_histogram[k]`: vertices with `k` influences.
    pub influence_histogram: Vec<usize>,
    /// Which smoothness energy.
    pub smoothness_energy: &'static str,
    /// The smoothness energy.
    pub smoothness: f64,
    /// The skinning method of the bends.
    pub method: &'static str,
    /// Which volume.
    pub volume: &'static str,
    /// The volume in the bind pose.
    pub bind_volume: f64,
    /// One entry per joint that moves a vertex.
    pub bends: Vec<BendVolume>,
}

/// Evaluates `model`'s own weights; the bends are deformed by `method`.
#[must_use]
pub fn evaluate(model: &Model, method: SkinningMethod) -> Evaluation {
    let weights = weights_of(model);
    let (bind_volume, bends) = bend_volumes(model, method);
    Evaluation {
        model: String::new(),
        skinned_meshes: weights.len(),
        vertices: weights.iter().flat_map(|m| &m.primitives).map(Vec::len).sum(),
        unweighted: unweighted(&weights),
        influence_histogram: influence_histogram(&weights),
        smoothness_energy: SMOOTHNESS,
        smoothness: dirichlet_energy(model, &weights),
        method: method.name(),
        volume: VOLUME,
        bind_volume,
        bends,
    }
}

impl fmt::Display for Evaluation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "model: {}", self.model)?;
        writeln!(f, "vertices: {} in {} skinned meshes", self.vertices, self.skinned_meshes)?;
        writeln!(
            f,
            "vertices without weight: {} ({})",
            self.unweighted,
            percent(self.unweighted as f64 / self.vertices.max(1) as f64)
        )?;
        let hist: Vec<String> = self.influence_histogram.iter().enumerate().map(|(k, n)| format!("{k}: {n}")).collect();
        writeln!(f, "influences per vertex: {}", hist.join(", "))?;
        writeln!(f, "smoothness ({}): {:.4}", self.smoothness_energy, self.smoothness)?;
        writeln!(
            f,
            "volume at a 90° bend of each joint ({}, {}; bind pose {:.6e}):",
            self.method, self.volume, self.bind_volume
        )?;
        if self.bends.is_empty() {
            writeln!(f, "  (no joint moves a vertex)")?;
        }
        let width = self.bends.iter().map(|b| b.joint.chars().count()).max().unwrap_or(0);
        for b in &self.bends {
            writeln!(f, "  {:<width$}  {:.4}  ({:+.2} %)", printable(&b.joint), b.ratio, 100.0 * (b.ratio - 1.0))?;
        }
        if let Some(worst) = self.bends.iter().min_by(|a, b| a.ratio.total_cmp(&b.ratio)) {
            writeln!(f, "smallest ratio: {:.4} at {}", worst.ratio, printable(&worst.joint))?;
        }
        Ok(())
    }
}
