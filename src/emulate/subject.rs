//! What the fit works on: every skinned vertex (each mesh once, in instance order) with its rest
//! position, skin and source weights, and one evaluated time of a clip: node globals, each skin's
//! joint matrices `C_j = G_j · IBM_j` and the target method's deformed positions.

use glam::{DMat4, DVec3, Vec3};

use crate::model::Model;
use crate::rig::{fk, sample::sample_clip, Pose};
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

/// Where one fitted vertex lives in the deformer's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexRef {
    /// Index into `Model::instances`.
    pub instance: usize,
    /// Primitive of the instance's mesh.
    pub primitive: usize,
    /// Vertex of the primitive (model order).
    pub vertex: usize,
}

/// The skinned vertices of a model, flattened.
#[derive(Clone, Debug, Default)]
pub struct Subject {
    /// Where each vertex lives.
    pub refs: Vec<VertexRef>,
    /// The skin of each vertex.
    pub skin: Vec<usize>,
    /// Rest (bind-space) position of each vertex.
    pub rest: Vec<DVec3>,
    /// Source influences of each vertex: (joint index in its skin, weight).
    pub pairs: Vec<Vec<(u16, f64)>>,
}

impl Subject {
    /// Every vertex with influences of every skinned instance whose mesh no earlier instance draws.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let mut out = Self::default();
        for (i, inst) in model.instances.iter().enumerate() {
            if model.instances[..i].iter().any(|e| e.mesh == inst.mesh) {
                continue;
            }
            let (Some(skin), Some(mesh)) = (model.skins.get(inst.skin), model.meshes.get(inst.mesh)) else { continue };
            for (p, prim) in mesh.primitives.iter().enumerate() {
                let Some(inf) = &prim.influences else { continue };
                for (v, pos) in prim.positions.iter().enumerate().take(inf.len()) {
                    let pairs: Vec<(u16, f64)> =
                        inf.vertex(v, &skin.sets).filter(|p| p.1 > 0.0).map(|(j, w)| (j, f64::from(w))).collect();
                    if pairs.is_empty() {
                        continue;
                    }
                    out.refs.push(VertexRef { instance: i, primitive: p, vertex: v });
                    out.skin.push(inst.skin);
                    out.rest.push(pos.as_dvec3());
                    out.pairs.push(pairs);
                }
            }
        }
        out
    }

    /// Number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.refs.len()
    }

    /// Whether there is no vertex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.refs.is_empty()
    }

    /// The positions of every vertex in a deformer's output (zero where missing).
    #[must_use]
    pub fn gather(&self, out: &[Vec<DeformedPrimitive>]) -> Vec<Vec3> {
        self.refs
            .iter()
            .map(|r| {
                out.get(r.instance)
                    .and_then(|d| d.get(r.primitive))
                    .and_then(|d| d.positions.get(r.vertex))
                    .copied()
                    .unwrap_or(Vec3::ZERO)
            })
            .collect()
    }
}

/// One evaluated time of a clip.
#[derive(Clone, Debug)]
pub struct Evaluated {
    /// `model_from_node` of every node.
    pub globals: Vec<DMat4>,
    /// Each skin's `model_from_bind` per joint.
    pub joints: Vec<Vec<DMat4>>,
    /// The target method's position of every subject vertex.
    pub targets: Vec<Vec3>,
}

/// The pose a runtime plays for `clip` at `time_secs`: the rest pose with the clip's channels.
#[must_use]
pub fn clip_pose(model: &Model, clip: usize, time_secs: f64) -> Pose {
    let mut pose = Pose::rest();
    if let Some(c) = model.clips.get(clip) {
        sample_clip(c, time_secs, &mut pose);
    }
    pose
}

/// Evaluates `pose`: globals, joint matrices and the `method`'s deformation of the subject.
pub fn evaluate(
    model: &Model,
    subject: &Subject,
    pose: &Pose,
    method: SkinningMethod,
    deformer: &mut Deformer,
    out: &mut Vec<Vec<DeformedPrimitive>>,
) -> Evaluated {
    let mut globals = Vec::new();
    fk::model_from_node(&model.nodes, pose, &mut globals);
    let joints = model
        .skins
        .iter()
        .map(|s| {
            let mut m = Vec::new();
            fk::model_from_bind(s, &globals, &mut m);
            m
        })
        .collect();
    deformer.deform_all(model, pose, method, out);
    Evaluated { globals, joints, targets: subject.gather(out) }
}

/// The bounding-box diagonal of `points` (1 when it is empty or zero).
#[must_use]
pub fn diagonal(points: &[Vec3]) -> f64 {
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for p in points {
        lo = lo.min(p.as_dvec3());
        hi = hi.max(p.as_dvec3());
    }
    let d = (hi - lo).length();
    if d.is_finite() && d > 0.0 {
        d
    } else {
        1.0
    }
}
