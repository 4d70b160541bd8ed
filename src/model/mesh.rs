//! Mesh geometry: per-primitive rest positions, normals, triangles and influences.

use glam::Vec3;

use super::influences::Influences;
use super::morph::MeshMorphs;
use super::vertex_order::VertexOrder;

/// How a primitive's indices form elements (glTF primitive modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Triangles (lists, strips and fans are all converted to lists at import).
    Triangles,
    /// Lines, line loops and line strips: no faces.
    Lines,
    /// Points: no faces.
    Points,
}

/// One primitive of a mesh.
#[derive(Clone, Debug)]
pub struct Primitive {
    /// Rest positions (bind space), one per vertex in model order (`order` maps it to the file).
    pub positions: Vec<Vec3>,
    /// Rest normals from the file, if it has them.
    pub normals: Option<Vec<Vec3>>,
    /// Triangles as vertex indices (counter-clockwise), empty for lines and points.
    pub triangles: Vec<[u32; 3]>,
    /// The primitive's topology.
    pub topology: Topology,
    /// Skinning influences (present when the file has JOINTS_0/WEIGHTS_0).
    pub influences: Option<Influences>,
    /// Where each vertex sits in the file (the importer orders skinned vertices by joint set).
    pub order: VertexOrder,
}

/// One mesh: a list of primitives.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// The mesh's name, if any.
    pub name: Option<String>,
    /// Primitives in file order.
    pub primitives: Vec<Primitive>,
    /// Morph targets (none for most meshes).
    pub morphs: MeshMorphs,
}

/// Area-weighted vertex normals of a triangle mesh into `out`: per vertex, the normalised sum of
/// `(b − a) × (c − a)` over its triangles in triangle order, `fallback` where the sum has no
/// direction (a vertex on no triangle, or only on degenerate ones). Triangles with an index out of
/// range count for no vertex.
pub fn vertex_normals(positions: &[Vec3], triangles: &[[u32; 3]], fallback: Vec3, out: &mut Vec<Vec3>) {
    out.clear();
    out.resize(positions.len(), Vec3::ZERO);
    for t in triangles {
        if t.iter().any(|&k| k as usize >= positions.len()) {
            continue;
        }
        let [a, b, c] = t.map(|k| positions[k as usize]);
        let n = (b - a).cross(c - a);
        for &k in t {
            out[k as usize] += n;
        }
    }
    for n in out.iter_mut() {
        *n = n.normalize_or(fallback);
    }
}
