//! Normals for shading the skinned primitives that carry none: the area-weighted vertex normals of
//! each such primitive's rest mesh, which the deformer then deforms with every method as it deforms
//! a file's normals (three.js shades such meshes the same way). The editor gets them from the
//! skinning pass, in its lanes, instead of recomputing them from each panel's deformed triangles
//! every frame (1M-vertex Fox in split view: 43–46 ms per frame on the main thread).

use glam::Vec3;

use crate::model::mesh::vertex_normals;
use crate::model::{Model, Topology};

/// Rest normals for the skinned triangle primitives without normals, by mesh and primitive.
#[derive(Clone, Debug, Default)]
pub struct ShadingNormals {
    normals: Vec<Vec<Option<Vec<Vec3>>>>,
}

impl ShadingNormals {
    /// The rest normals of every primitive of `model` that has influences and triangles but no
    /// normals (`+Y` where a vertex lies on no proper triangle, as the editor's shading).
    #[must_use]
    pub fn of(model: &Model) -> Self {
        let normals = model
            .meshes
            .iter()
            .map(|mesh| {
                mesh.primitives
                    .iter()
                    .map(|p| {
                        let wanted = p.normals.is_none()
                            && p.influences.is_some()
                            && p.topology == Topology::Triangles
                            && !p.triangles.is_empty();
                        wanted.then(|| {
                            let mut n = Vec::new();
                            vertex_normals(&p.positions, &p.triangles, Vec3::Y, &mut n);
                            n
                        })
                    })
                    .collect()
            })
            .collect();
        Self { normals }
    }

    /// The rest normals of primitive `prim` of mesh `mesh`, if it has them for `vertices` vertices.
    #[must_use]
    pub fn get(&self, mesh: usize, prim: usize, vertices: usize) -> Option<&[Vec3]> {
        let n = self.normals.get(mesh)?.get(prim)?.as_deref()?;
        (n.len() == vertices).then_some(n)
    }
}
