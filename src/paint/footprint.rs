//! The brush footprint: which vertices a dab touches and at what distance from its centre, in
//! model units on the deformed mesh. Surface mode walks edges from the hit triangle (so the other
//! side of a thin limb is left alone); whole-volume mode takes every vertex inside the sphere.
//! Front-faces-only keeps vertices whose deformed normal faces the viewer.

use glam::Vec3;

use super::adjacency::Adjacency;
use super::pick::Hit;
use super::surface::{bounded_distances, SurfaceScratch};
use crate::prefetch::{prefetch, AHEAD};

/// Where the viewer is, for the front-face test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum View {
    /// A perspective camera at `eye` (model space).
    Perspective {
        /// Eye position.
        eye: Vec3,
    },
    /// An orthographic camera looking along `direction`.
    Orthographic {
        /// View direction (from the camera into the scene).
        direction: Vec3,
    },
}

impl View {
    /// Whether a surface at `p` with normal `n` faces the viewer (a zero normal counts as facing).
    #[must_use]
    pub fn faces(&self, p: Vec3, n: Vec3) -> bool {
        let towards_scene = match *self {
            Self::Perspective { eye } => p - eye,
            Self::Orthographic { direction } => direction,
        };
        n.dot(towards_scene) <= 0.0
    }
}

/// How to gather a footprint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootprintOptions {
    /// Brush radius in model units.
    pub radius: f32,
    /// Every vertex inside the sphere, not only the connected surface.
    pub whole_volume: bool,
    /// Only vertices facing the viewer (needs `view` and normals).
    pub front_faces_only: bool,
    /// The viewer, for `front_faces_only`.
    pub view: Option<View>,
}

/// One touched vertex and its distance from the brush centre (surface or straight-line).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    /// Vertex index.
    pub vertex: u32,
    /// Distance from the centre in model units.
    pub distance: f32,
}

/// Gathers the vertices of one primitive touched by a dab centred on `hit`, into `out` (one entry
/// per vertex, welded copies included). `positions` and `normals` are the deformed ones (`normals`
/// may be empty, and then the front-face test is skipped); `triangles` are the primitive's.
#[allow(clippy::too_many_arguments)]
pub fn footprint(
    hit: &Hit,
    positions: &[Vec3],
    normals: &[Vec3],
    triangles: &[[u32; 3]],
    adjacency: &Adjacency,
    options: &FootprintOptions,
    scratch: &mut SurfaceScratch,
    out: &mut Vec<Touch>,
) {
    out.clear();
    let r = options.radius;
    if r.is_nan() || r <= 0.0 || !hit.point.is_finite() {
        return;
    }
    let centre = hit.point;
    if options.whole_volume {
        for (v, p) in positions.iter().enumerate() {
            let d = p.distance(centre);
            if d <= r {
                out.push(Touch { vertex: v as u32, distance: d });
            }
        }
    } else {
        let Some(tri) = triangles.get(hit.triangle) else { return };
        if tri.iter().any(|&k| k as usize >= positions.len()) {
            return;
        }
        let seeds = tri.map(|k| (k, positions[k as usize].distance(centre)));
        let mut reached = std::mem::take(&mut scratch.reached);
        bounded_distances(adjacency, positions, &seeds, r, scratch, &mut reached);
        let facing = match (options.front_faces_only, options.view) {
            (true, Some(view)) if normals.len() == positions.len() => Some(view),
            _ => None,
        };
        for (i, &(rep, d)) in reached.iter().enumerate() {
            // The walk visited the groups in order of distance, scattered over the arrays: ask
            // for a later group's members and normal while this one is tested.
            if let Some(&(ahead, _)) = reached.get(i + AHEAD) {
                adjacency.prefetch_group(ahead);
                prefetch(normals, ahead as usize);
            }
            for &v in adjacency.group(rep) {
                let keep = facing.is_none_or(|view| view.faces(positions[v as usize], normals[v as usize]));
                if keep {
                    out.push(Touch { vertex: v, distance: d });
                }
            }
        }
        scratch.reached = reached;
        return;
    }
    if let (true, Some(view), true) = (options.front_faces_only, options.view, normals.len() == positions.len()) {
        out.retain(|t| view.faces(positions[t.vertex as usize], normals[t.vertex as usize]));
    }
}

/// Area-weighted vertex normals of a triangle mesh into `out` (zero for vertices on no triangle),
/// for primitives without normals: pass them to [`footprint`] so front-faces-only still works.
pub fn vertex_normals(positions: &[Vec3], triangles: &[[u32; 3]], out: &mut Vec<Vec3>) {
    crate::model::mesh::vertex_normals(positions, triangles, Vec3::ZERO, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-sided square: the front at z = 0 (normals +z) and the back at z = -0.1 (normals -z),
    /// not connected to each other.
    fn slab() -> (Vec<Vec3>, Vec<Vec3>, Vec<[u32; 3]>) {
        let mut p = Vec::new();
        let mut n = Vec::new();
        for (z, nz) in [(0.0, 1.0), (-0.1, -1.0)] {
            for y in 0..3 {
                for x in 0..3 {
                    p.push(Vec3::new(x as f32, y as f32, z));
                    n.push(Vec3::new(0.0, 0.0, nz));
                }
            }
        }
        let mut t = Vec::new();
        for side in 0..2u32 {
            let o = side * 9;
            for y in 0..2u32 {
                for x in 0..2u32 {
                    let a = o + y * 3 + x;
                    t.push([a, a + 1, a + 4]);
                    t.push([a, a + 4, a + 3]);
                }
            }
        }
        (p, n, t)
    }

    #[test]
    fn surface_volume_and_facing() {
        let (p, n, t) = slab();
        let adj = Adjacency::with_default_weld(&p, &t);
        let hit = Hit { point: Vec3::new(1.0, 1.0, 0.0), triangle: 6, vertex: 4, barycentric: [0.0; 3], t: 1.0 };
        assert_eq!(t[6], [4, 5, 8]);
        let mut scratch = SurfaceScratch::default();
        let mut out = Vec::new();
        let view = Some(View::Perspective { eye: Vec3::new(1.0, 1.0, 10.0) });
        let mut opts = FootprintOptions { radius: 1.05, whole_volume: false, front_faces_only: false, view };
        footprint(&hit, &p, &n, &t, &adj, &opts, &mut scratch, &mut out);
        let mut vs: Vec<u32> = out.iter().map(|t| t.vertex).collect();
        vs.sort_unstable();
        assert_eq!(vs, vec![1, 3, 4, 5, 7], "the connected front within one edge");
        assert_eq!(out.iter().find(|t| t.vertex == 4).map(|t| t.distance), Some(0.0));
        opts.whole_volume = true;
        footprint(&hit, &p, &n, &t, &adj, &opts, &mut scratch, &mut out);
        let mut vs: Vec<u32> = out.iter().map(|t| t.vertex).collect();
        vs.sort_unstable();
        assert_eq!(vs, vec![1, 3, 4, 5, 7, 10, 12, 13, 14, 16], "the sphere reaches through to the back");
        opts.front_faces_only = true;
        footprint(&hit, &p, &n, &t, &adj, &opts, &mut scratch, &mut out);
        assert!(out.iter().all(|t| t.vertex < 9), "back faces dropped");
        assert_eq!(out.len(), 5);
        let ortho = View::Orthographic { direction: -Vec3::Z };
        assert!(ortho.faces(Vec3::ZERO, Vec3::Z) && !ortho.faces(Vec3::ZERO, -Vec3::Z));
        let mut computed = Vec::new();
        vertex_normals(&p, &t, &mut computed);
        assert_eq!(computed[4], Vec3::Z);
        assert_eq!(computed[13], Vec3::Z, "the winding decides (the slab winds both sides alike)");
    }
}
