//! Morph targets (glTF) and blend shapes (FBX): each mesh's target names and default weights, each
//! primitive's targets as sparse displacements (`skinning::morph` adds them to the rest surface
//! skinning deforms: glTF morphs first, then skins). Displacements name vertices by their index in the
//! file (`VertexOrder::model_index` finds them in the model), so reordering the model's vertices
//! never touches them and the exporter writes them as read.

use glam::Vec3;

/// One target of one primitive: the vertices it moves and by how much.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// File indices of the vertices with a non-zero displacement, increasing.
    pub vertices: Vec<u32>,
    /// Position displacement per listed vertex.
    pub positions: Vec<Vec3>,
    /// Normal displacement per listed vertex (empty: the target moves no normal).
    pub normals: Vec<Vec3>,
}

impl MorphTarget {
    /// A target from dense per-vertex displacements in the file's order (`normals` empty or as long
    /// as `positions`): only the vertices with a non-zero displacement are kept.
    #[must_use]
    pub fn from_dense(positions: &[Vec3], normals: &[Vec3]) -> Self {
        let mut target = Self::default();
        for (v, &d) in positions.iter().enumerate() {
            let n = normals.get(v).copied().unwrap_or(Vec3::ZERO);
            if d != Vec3::ZERO || n != Vec3::ZERO {
                target.vertices.push(v as u32);
                target.positions.push(d);
                if !normals.is_empty() {
                    target.normals.push(n);
                }
            }
        }
        target
    }

    /// Dense position displacements of `count` file vertices.
    #[must_use]
    pub fn dense_positions(&self, count: usize) -> Vec<Vec3> {
        dense(&self.vertices, &self.positions, count)
    }

    /// Dense normal displacements of `count` file vertices (`None` when the target moves none).
    #[must_use]
    pub fn dense_normals(&self, count: usize) -> Option<Vec<Vec3>> {
        (!self.normals.is_empty()).then(|| dense(&self.vertices, &self.normals, count))
    }
}

fn dense(vertices: &[u32], values: &[Vec3], count: usize) -> Vec<Vec3> {
    let mut out = vec![Vec3::ZERO; count];
    for (&v, &d) in vertices.iter().zip(values) {
        if let Some(o) = out.get_mut(v as usize) {
            *o = d;
        }
    }
    out
}

/// A mesh's morph targets (the same number in every primitive, as glTF requires).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshMorphs {
    /// Each target's name (glTF `extras.targetNames`, FBX channel names).
    pub names: Vec<Option<String>>,
    /// The weights used where no pose or clip gives any (glTF `mesh.weights`; zero by default).
    pub default_weights: Vec<f32>,
    /// Per primitive, its targets (`names.len()` of them, or none for a primitive without).
    pub primitives: Vec<Vec<MorphTarget>>,
}

impl MeshMorphs {
    /// The number of targets.
    #[must_use]
    pub fn len(&self) -> usize {
        self.default_weights.len()
    }

    /// Whether the mesh has no morph targets.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.default_weights.is_empty()
    }

    /// Target `t`'s name for the user: its own, or `target N`.
    #[must_use]
    pub fn label(&self, t: usize) -> String {
        self.names.get(t).cloned().flatten().unwrap_or_else(|| format!("target {t}"))
    }
}
