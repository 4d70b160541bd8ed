//! One welded surface from every primitive of every mesh drawn with a skin: coincident vertices
//! (seams, split normals, several primitives or meshes touching) become one surface vertex, so
//! heat flows across them and they end with equal weights.
//!
//! Invariant: `vertex_of[p][v]` is the surface vertex of vertex `v` of the `p`-th bound primitive,
//! every triangle's corners are distinct surface vertices (degenerate ones are dropped).

use std::collections::HashMap;

use glam::DVec3;

use crate::model::{Model, Topology};

/// Weld tolerance as a fraction of the bounding-box diagonal.
pub const WELD_FRACTION: f64 = 1e-6;

/// A primitive bound by the skin: `(mesh, primitive)`.
pub type PrimitiveKey = (usize, usize);

/// The welded surface.
#[derive(Clone, Debug, Default)]
pub struct Surface {
    /// The bound primitives, in mesh then primitive order.
    pub primitives: Vec<PrimitiveKey>,
    /// Surface vertex of each vertex of each bound primitive.
    pub vertex_of: Vec<Vec<u32>>,
    /// Surface vertex positions (the first welded vertex's position, bind space).
    pub positions: Vec<DVec3>,
    /// Triangles over surface vertices, distinct corners.
    pub triangles: Vec<[u32; 3]>,
    /// Bounding-box diagonal of the positions.
    pub diagonal: f64,
}

impl Surface {
    /// Number of surface vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }
}

/// The meshes drawn with skin `skin`, ascending and without repeats.
#[must_use]
pub fn meshes_of_skin(model: &Model, skin: usize) -> Vec<usize> {
    let mut meshes: Vec<usize> = model.instances.iter().filter(|i| i.skin == skin).map(|i| i.mesh).collect();
    meshes.sort_unstable();
    meshes.dedup();
    meshes.retain(|&m| m < model.meshes.len());
    meshes
}

/// Gathers and welds every primitive of the meshes drawn with skin `skin`.
#[must_use]
pub fn weld_skin_surface(model: &Model, skin: usize) -> Surface {
    let mut primitives = Vec::new();
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for m in meshes_of_skin(model, skin) {
        for (p, prim) in model.meshes[m].primitives.iter().enumerate() {
            primitives.push((m, p));
            for v in &prim.positions {
                let v = v.as_dvec3();
                if v.is_finite() {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
    }
    let diagonal = if lo.x <= hi.x { (hi - lo).length() } else { 0.0 };
    let tol = (diagonal * WELD_FRACTION).max(f64::MIN_POSITIVE);
    let cell = |p: DVec3| -> (i64, i64, i64) {
        let q = (p / tol).floor();
        (q.x as i64, q.y as i64, q.z as i64)
    };
    let mut grid: HashMap<(i64, i64, i64), Vec<u32>> = HashMap::new();
    let mut positions: Vec<DVec3> = Vec::new();
    let mut vertex_of = Vec::with_capacity(primitives.len());
    let mut triangles = Vec::new();
    for &(m, p) in &primitives {
        let prim = &model.meshes[m].primitives[p];
        let mut map = Vec::with_capacity(prim.positions.len());
        for v in &prim.positions {
            let v = v.as_dvec3();
            let v = if v.is_finite() { v } else { DVec3::ZERO };
            let c = cell(v);
            // A point within `tol` of `v` lies in `v`'s cell or a neighbour on the side `v` is
            // nearer to, so 2 x 2 x 2 cells suffice.
            let frac = v / tol - (v / tol).floor();
            let side = |f: f64| if f < 0.5 { -1 } else { 1 };
            let (sx, sy, sz) = (side(frac.x), side(frac.y), side(frac.z));
            let mut found = None;
            'search: for dx in [0, sx] {
                for dy in [0, sy] {
                    for dz in [0, sz] {
                        if let Some(list) = grid.get(&(c.0 + dx, c.1 + dy, c.2 + dz)) {
                            if let Some(&s) = list.iter().find(|&&s| (positions[s as usize] - v).length() <= tol) {
                                found = Some(s);
                                break 'search;
                            }
                        }
                    }
                }
            }
            let s = found.unwrap_or_else(|| {
                let s = positions.len() as u32;
                positions.push(v);
                grid.entry(c).or_default().push(s);
                s
            });
            map.push(s);
        }
        if prim.topology == Topology::Triangles {
            for t in &prim.triangles {
                let Some(c) = t.iter().map(|&i| map.get(i as usize).copied()).collect::<Option<Vec<u32>>>() else {
                    continue;
                };
                if c[0] != c[1] && c[1] != c[2] && c[0] != c[2] {
                    triangles.push([c[0], c[1], c[2]]);
                }
            }
        }
        vertex_of.push(map);
    }
    Surface { primitives, vertex_of, positions, triangles, diagonal }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::SyntheticRig;

    #[test]
    fn duplicates_are_welded_across_primitives() {
        let mut model = SyntheticRig { vertices: 32, joints: 2, influences: 1 }.build().unwrap();
        let copy = model.meshes[0].primitives[0].clone();
        model.meshes[0].primitives.push(copy);
        let s = weld_skin_surface(&model, 0);
        assert_eq!(s.primitives, vec![(0, 0), (0, 1)]);
        assert_eq!(s.vertex_of[0], s.vertex_of[1]);
        assert_eq!(s.len(), 32);
        assert!(s.diagonal > 0.0);
    }
}
