//! Two weightings of the same meshes: a model's skinned meshes in order (the first instance of
//! each mesh, in increasing node index), and a second model's weights carried onto the first
//! model's skins by joint name. Meshes and primitives are matched by order and vertex count, and
//! their rest positions must agree; anything else is refused with one [`MatchError`].

use std::collections::HashMap;

use crate::model::influences::{VertexInfluences, MAX_SLOTS};
use crate::model::{InfluenceError, Influences, JointSetTable, Model};

/// One vertex's influences: `(joint index in its skin, weight)`, weights positive and summing to
/// 1; empty for a vertex without weight.
pub type VertexWeights = Vec<(u16, f32)>;

/// The weights of one skinned mesh, as drawn by its first instance.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshWeights {
    /// Index into `Model::meshes`.
    pub mesh: usize,
    /// Index into `Model::skins` (joint indices below are into its joint list).
    pub skin: usize,
    /// Per primitive, per vertex (a primitive without skinning data has only empty vertices).
    pub primitives: Vec<Vec<VertexWeights>>,
}

/// Why a second weighting cannot be compared with the first.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MatchError {
    /// The models have different numbers of skinned meshes.
    #[error("{found} skinned meshes where the reference has {expected}")]
    MeshCount {
        /// The reference's count.
        expected: usize,
        /// The compared model's count.
        found: usize,
    },
    /// A mesh has a different number of primitives.
    #[error("skinned mesh {mesh} has {found} primitives where the reference has {expected}")]
    PrimitiveCount {
        /// Position of the mesh among the skinned meshes.
        mesh: usize,
        /// The reference's count.
        expected: usize,
        /// The compared model's count.
        found: usize,
    },
    /// A primitive has a different number of vertices.
    #[error("skinned mesh {mesh} primitive {primitive} has {found} vertices where the reference has {expected}")]
    VertexCount {
        /// Position of the mesh among the skinned meshes.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// The reference's count.
        expected: usize,
        /// The compared model's count.
        found: usize,
    },
    /// A vertex lies elsewhere: not the same mesh.
    #[error(
        "skinned mesh {mesh} primitive {primitive} vertex {vertex} lies {share:.2e} of the bounding-box diagonal \
         from the reference's (not the same mesh)"
    )]
    Moved {
        /// Position of the mesh among the skinned meshes.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// Vertex index (in the file).
        vertex: usize,
        /// Distance as a share of the reference's rest bounding-box diagonal.
        share: f64,
    },
    /// A weighted joint has no joint of the same name in the reference skin.
    #[error("joint {joint:?} (skin {skin}) carries weight but the reference's skin {reference_skin} has no joint of that name")]
    UnknownJoint {
        /// The joint's key (name, or `#N`).
        joint: String,
        /// The compared model's skin.
        skin: usize,
        /// The reference skin it was matched against.
        reference_skin: usize,
    },
    /// Several joints of the reference skin carry the name.
    #[error("joint name {joint:?} names several joints of the reference's skin {reference_skin}")]
    AmbiguousJoint {
        /// The name.
        joint: String,
        /// The reference skin.
        reference_skin: usize,
    },
    /// Neither model has a skinned mesh.
    #[error("no skinned mesh to compare")]
    NothingSkinned,
}

/// `(mesh, skin)` of every skinned mesh, first instance of each mesh, in increasing node index.
#[must_use]
pub fn skinned_meshes(model: &Model) -> Vec<(usize, usize)> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for inst in &model.instances {
        if !seen.contains(&inst.mesh) {
            seen.push(inst.mesh);
            out.push((inst.mesh, inst.skin));
        }
    }
    out
}

/// The weights of every skinned mesh of `model`, joints indexing each mesh's own skin.
#[must_use]
pub fn weights_of(model: &Model) -> Vec<MeshWeights> {
    skinned_meshes(model)
        .into_iter()
        .map(|(mesh, skin)| {
            let table = &model.skins[skin].sets;
            let primitives = model.meshes[mesh]
                .primitives
                .iter()
                .map(|p| match &p.influences {
                    Some(inf) => {
                        (0..inf.len()).map(|v| inf.vertex(v, table).filter(|&(_, w)| w > 0.0).collect()).collect()
                    }
                    None => vec![Vec::new(); p.positions.len()],
                })
                .collect();
            MeshWeights { mesh, skin, primitives }
        })
        .collect()
}

/// The weights of `other` carried onto `reference`'s skinned meshes: meshes and primitives by
/// order, vertices by file index, joints by name (a joint of `other` that carries no weight need not
/// exist in `reference`). Rest positions must agree within 1e-4 of the bounding-box diagonal.
pub fn carry_weights(reference: &Model, other: &Model) -> Result<Vec<MeshWeights>, MatchError> {
    let ref_meshes = skinned_meshes(reference);
    let other_weights = weights_of(other);
    if ref_meshes.is_empty() && other_weights.is_empty() {
        return Err(MatchError::NothingSkinned);
    }
    if ref_meshes.len() != other_weights.len() {
        return Err(MatchError::MeshCount { expected: ref_meshes.len(), found: other_weights.len() });
    }
    let (lo, hi) = reference.rest_bounds();
    let diagonal = f64::from((hi - lo).length()).max(f64::MIN_POSITIVE);
    let mut out = Vec::with_capacity(ref_meshes.len());
    for (m, (&(mesh, skin), theirs)) in ref_meshes.iter().zip(other_weights).enumerate() {
        let ours = &reference.meshes[mesh].primitives;
        let other_prims = &other.meshes[theirs.mesh].primitives;
        if ours.len() != other_prims.len() {
            return Err(MatchError::PrimitiveCount { mesh: m, expected: ours.len(), found: other_prims.len() });
        }
        for (p, (a, b)) in ours.iter().zip(other_prims).enumerate() {
            if a.positions.len() != b.positions.len() {
                return Err(MatchError::VertexCount {
                    mesh: m,
                    primitive: p,
                    expected: a.positions.len(),
                    found: b.positions.len(),
                });
            }
            // Vertices are matched by file index (each model may order them its own way:
            // `model::vertex_order`).
            if let Some((vertex, d)) = (0..a.positions.len())
                .map(|f| {
                    let (x, y) = (a.positions[a.order.model_index(f)], b.positions[b.order.model_index(f)]);
                    (f, f64::from(x.distance(y)))
                })
                .find(|&(_, d)| d.is_nan() || d > 1e-4 * diagonal)
            {
                return Err(MatchError::Moved { mesh: m, primitive: p, vertex, share: d / diagonal });
            }
        }
        let map = joint_map(reference, skin, other, theirs.skin);
        let primitives = theirs
            .primitives
            .into_iter()
            .zip(ours.iter().zip(other_prims))
            .map(|(verts, (a, b))| {
                (0..verts.len())
                    .map(|v| &verts[b.order.model_index(a.order.file_index(v))])
                    .map(|pairs| {
                        pairs
                            .iter()
                            .copied()
                            .map(|(j, w)| match map.get(usize::from(j)) {
                                Some(Ok(mapped)) => Ok((*mapped, w)),
                                Some(Err(e)) => Err(e.clone()),
                                None => Err(MatchError::UnknownJoint {
                                    joint: format!("#{j}"),
                                    skin: theirs.skin,
                                    reference_skin: skin,
                                }),
                            })
                            .collect::<Result<VertexWeights, MatchError>>()
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(MeshWeights { mesh, skin, primitives });
    }
    Ok(out)
}

/// For each joint of `other`'s skin `other_skin`: the joint of `reference`'s skin `skin` with the
/// same key, or why there is none.
fn joint_map(reference: &Model, skin: usize, other: &Model, other_skin: usize) -> Vec<Result<u16, MatchError>> {
    let mut by_key: HashMap<String, Vec<u16>> = HashMap::new();
    for (j, &node) in reference.skins[skin].joints.iter().enumerate() {
        by_key.entry(reference.nodes.key(node)).or_default().push(j as u16);
    }
    other.skins[other_skin]
        .joints
        .iter()
        .map(|&node| {
            let key = other.nodes.key(node);
            match by_key.get(&key).map(Vec::as_slice) {
                Some([one]) => Ok(*one),
                Some(_) => Err(MatchError::AmbiguousJoint { joint: key, reference_skin: skin }),
                None => Err(MatchError::UnknownJoint { joint: key, skin: other_skin, reference_skin: skin }),
            }
        })
        .collect()
}

/// A copy of `model` whose skinned meshes carry `weights` (as made by [`weights_of`] or
/// [`carry_weights`] for this model). Each skin's joint-set table is rebuilt; a vertex with more
/// than 16 influences keeps its 16 largest, renormalised.
pub fn with_weights(model: &Model, weights: &[MeshWeights]) -> Result<Model, InfluenceError> {
    let mut out = model.clone();
    let mut slots_of_skin: HashMap<usize, usize> = HashMap::new();
    for mw in weights {
        let need = mw.primitives.iter().flatten().map(Vec::len).max().unwrap_or(0).min(MAX_SLOTS);
        let slot = slots_of_skin.entry(mw.skin).or_insert(1);
        *slot = (*slot).max(need);
    }
    let mut tables: HashMap<usize, JointSetTable> =
        slots_of_skin.iter().map(|(&skin, &slots)| (skin, JointSetTable::new(slots))).collect();
    for mw in weights {
        let Some(table) = tables.get_mut(&mw.skin) else { continue };
        let joint_count = model.skins[mw.skin].joints.len();
        for (p, verts) in mw.primitives.iter().enumerate() {
            let Some(prim) = out.meshes[mw.mesh].primitives.get_mut(p) else { continue };
            if prim.influences.is_none() && verts.iter().all(Vec::is_empty) {
                continue;
            }
            let vertices = verts
                .iter()
                .enumerate()
                .map(|(v, pairs)| {
                    let mut pairs = pairs.clone();
                    if pairs.len() > MAX_SLOTS {
                        pairs.sort_by(|a, b| b.1.total_cmp(&a.1));
                        pairs.truncate(MAX_SLOTS);
                    }
                    let joints: Vec<u32> = pairs.iter().map(|p| u32::from(p.0)).collect();
                    let ws: Vec<f32> = pairs.iter().map(|p| p.1).collect();
                    VertexInfluences::from_slots(v, &joints, &ws, joint_count)
                })
                .collect::<Result<Vec<_>, _>>()?;
            prim.influences = Some(Influences::from_vertices(&vertices, table)?);
        }
    }
    for (skin, table) in tables {
        out.skins[skin].sets = table;
    }
    Ok(out)
}
