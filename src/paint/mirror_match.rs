//! Mirror matching that survives real rigs: joints by mirrored bind position (names only where
//! the position is ambiguous or missing, and every case where the two disagree is reported), and
//! vertices without an exact mirror matched to the closest point of the mirrored surface
//! (triangle corners and barycentric weights, for interpolation).

use glam::{DVec3, Vec3};
use rayon::prelude::*;

use super::model_surface::ModelSurface;
use crate::maths::point_grid::{relative_tolerance, PointGrid};
use crate::maths::triangle::closest_on_triangle;
use crate::model::Model;

/// Joint mirror tolerance as a fraction of the rest diagonal (joints are placed less exactly than
/// vertices).
pub const JOINT_MIRROR_FRACTION: f32 = 0.01;

/// The joint mirror map over surface joints and how it was found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JointMirror {
    /// Each surface joint's mirror joint (itself when none).
    pub map: Vec<u16>,
    /// Joints whose mirror by name is not at the mirrored position: `(joint, by name, by
    /// position)`; the position wins.
    pub disagreements: Vec<(u16, u16, u16)>,
}

/// Bind-space position of every surface joint (the origin of its inverse bind matrix's inverse,
/// from the first skin that has it).
#[must_use]
pub fn joint_bind_positions(model: &Model, surface: &ModelSurface) -> Vec<Option<Vec3>> {
    (0..surface.joint_nodes().len() as u16)
        .map(|j| {
            model.skins.iter().enumerate().find_map(|(s, skin)| {
                let local = surface.skin_joint(s, j)?;
                let ibm = skin.joint_from_bind.get(local as usize)?;
                let p = ibm.inverse().transform_point3(DVec3::ZERO).as_vec3();
                p.is_finite().then_some(p)
            })
        })
        .collect()
}

/// Mirrors joints across the plane normal to `axis`: a joint's mirror is its name partner
/// (`by_name`) when that one sits at the mirrored bind position, else the joint nearest to the
/// mirrored position (within [`JOINT_MIRROR_FRACTION`] of the diagonal), else the name partner.
#[must_use]
pub fn joint_mirror_by_position(model: &Model, surface: &ModelSurface, axis: usize, by_name: &[u16]) -> JointMirror {
    let positions = joint_bind_positions(model, surface);
    let tol = relative_tolerance(surface.rest_positions(), JOINT_MIRROR_FRACTION);
    let mut out = JointMirror { map: by_name.to_vec(), disagreements: Vec::new() };
    out.map.resize(positions.len(), 0);
    for (j, p) in positions.iter().enumerate() {
        let name = by_name.get(j).copied().unwrap_or(j as u16);
        out.map[j] = name;
        let Some(mut q) = *p else { continue };
        q[axis.min(2)] = -q[axis.min(2)];
        let near = |k: usize| positions[k].map(|pk| pk.distance(q)).filter(|&d| d <= tol);
        if near(name as usize).is_some() {
            continue;
        }
        let best = (0..positions.len()).filter_map(|k| near(k).map(|d| (d, k))).min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, k)) = best {
            out.map[j] = k as u16;
            if name as usize != j {
                out.disagreements.push((j as u16, name, k as u16));
            }
        }
    }
    out
}

/// A vertex without an exact mirror: the closest point of the mirrored surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestMirror {
    /// The surface vertex.
    pub vertex: u32,
    /// The corners of the triangle holding the closest point to its mirror image.
    pub corners: [u32; 3],
    /// Barycentric weights of that point.
    pub barycentric: [f32; 3],
}

impl ClosestMirror {
    /// The corner nearest to the point (the largest barycentric weight).
    #[must_use]
    pub fn nearest_corner(&self) -> u32 {
        let b = self.barycentric;
        let k = if b[0] >= b[1] && b[0] >= b[2] {
            0
        } else if b[1] >= b[2] {
            1
        } else {
            2
        };
        self.corners[k]
    }
}

/// How many of the vertices nearest to a mirrored point [`closest_mirrors`] tries the triangles of.
const NEAREST_CORNERS: usize = 8;

/// The first grid [`closest_mirrors`] searches, ring by ring, has cells this many times narrower
/// than its tolerance: rings `0..=FINE_RINGS` see every vertex within the tolerance.
const FINE_RINGS: i64 = 4;

/// The [`NEAREST_CORNERS`] nearest of the points offered, by distance, then index (a total order,
/// so the answer does not depend on the order of the offers).
#[derive(Default)]
struct Nearest {
    near: Vec<(f32, u32)>,
    /// The largest distance among the kept points once [`NEAREST_CORNERS`] are kept: a point
    /// farther than that cannot be among the nearest.
    limit: f32,
}

impl Nearest {
    /// Kept points before they are cut back to the nearest.
    const BATCH: usize = 64;

    fn clear(&mut self) {
        self.near.clear();
        self.limit = f32::INFINITY;
    }

    /// Considers point `id` at squared distance `d`.
    #[inline]
    fn offer(&mut self, d: f32, id: u32) {
        if d <= self.limit {
            self.near.push((d, id));
            if self.near.len() >= Self::BATCH {
                self.cut();
            }
        }
    }

    /// Keeps the nearest only.
    fn cut(&mut self) {
        if self.near.len() > NEAREST_CORNERS {
            self.near.select_nth_unstable_by(NEAREST_CORNERS - 1, by_distance);
            self.near.truncate(NEAREST_CORNERS);
        }
        if self.near.len() == NEAREST_CORNERS {
            self.limit = self.near.iter().map(|n| n.0).fold(0.0, f32::max);
        }
    }

    /// The squared distance of the farthest of the nearest, once there are that many.
    fn eighth(&mut self) -> Option<f32> {
        self.cut();
        (self.near.len() == NEAREST_CORNERS).then_some(self.limit)
    }

    /// The nearest points found, nearest first.
    fn take(&mut self) -> Vec<(f32, u32)> {
        self.cut();
        let mut near = std::mem::take(&mut self.near);
        near.sort_unstable_by(by_distance);
        near
    }
}

/// Orders points by distance, then index.
fn by_distance(a: &(f32, u32), b: &(f32, u32)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// For every vertex in `unmatched`, the closest point of the surface to its mirror image across
/// `axis` (searched on the triangles around the vertices nearest to the image).
#[must_use]
pub fn closest_mirrors(surface: &ModelSurface, axis: usize, unmatched: &[u32]) -> Vec<ClosestMirror> {
    mirrors_searched(surface, axis, unmatched, true)
}

/// [`closest_mirrors`], with or without the fine grid first (`fine_first`: the same result, faster).
fn mirrors_searched(surface: &ModelSurface, axis: usize, unmatched: &[u32], fine_first: bool) -> Vec<ClosestMirror> {
    let rest = surface.rest_positions();
    let tris = surface.triangles();
    if unmatched.is_empty() || tris.is_empty() {
        return Vec::new();
    }
    // Vertex → incident triangles (compressed rows).
    let mut start = vec![0u32; rest.len() + 1];
    for t in tris.iter().filter(|t| t.iter().all(|&k| (k as usize) < rest.len())) {
        for &k in t {
            start[k as usize + 1] += 1;
        }
    }
    for i in 0..rest.len() {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut incident = vec![0u32; start[rest.len()] as usize];
    for (ti, t) in tris.iter().enumerate().filter(|(_, t)| t.iter().all(|&k| (k as usize) < rest.len())) {
        for &k in t {
            incident[fill[k as usize] as usize] = ti as u32;
            fill[k as usize] += 1;
        }
    }
    let cell = relative_tolerance(rest, 0.02);
    let mut grid = PointGrid::new(cell);
    // A finer grid answers first, ring by ring: a dense mesh puts thousands of vertices within
    // `cell` of a point (Knight densified to 1M: 95 s sorting them all, 18 s selecting).
    let mut fine = PointGrid::new(cell / (2 * FINE_RINGS) as f32);
    let width = fine.cell_width();
    for (i, &p) in rest.iter().enumerate() {
        grid.insert(p, i as u32);
        fine.insert(p, i as u32);
    }
    let axis = axis.min(2);
    // Every vertex on its own, over rayon's threads (each with its own nearest list); `collect`
    // keeps the order of `unmatched`.
    unmatched
        .par_iter()
        .with_min_len(PER_TASK)
        .map_init(Nearest::default, |near, &v| {
            let mut q = *rest.get(v as usize)?;
            q[axis] = -q[axis];
            near.clear();
            // Rings `0..=r` of the fine grid hold every vertex within `seen` of `q`: once the
            // eighth nearest lies within that, these are the eight nearest of all, which the
            // coarse grid (every vertex within `cell`, FINE_RINGS rings) would find too.
            let mut found = false;
            for r in (0..=FINE_RINGS).take_while(|_| fine_first) {
                fine.for_each_in_ring(q, r, |id| near.offer(rest[id as usize].distance_squared(q), id));
                let seen = (r as f32 - 0.01) * width;
                if near.eighth().is_some_and(|d| d <= seen * seen) {
                    found = true;
                    break;
                }
            }
            if !found {
                near.clear();
                grid.for_each_near(q, |id| near.offer(rest[id as usize].distance_squared(q), id));
            }
            let mut near = near.take();
            if near.is_empty() {
                let nearest = (0..rest.len() as u32).min_by(|&a, &b| {
                    rest[a as usize].distance_squared(q).total_cmp(&rest[b as usize].distance_squared(q))
                })?;
                near.push((0.0, nearest));
            }
            let mut best: Option<(f32, ClosestMirror)> = None;
            for &(_, k) in &near {
                for &ti in &incident[start[k as usize] as usize..start[k as usize + 1] as usize] {
                    let corners = tris[ti as usize];
                    let [a, b, c] = corners.map(|i| rest[i as usize]);
                    let bary =
                        closest_on_triangle(q.as_dvec3(), a.as_dvec3(), b.as_dvec3(), c.as_dvec3()).map(|x| x as f32);
                    let point = a * bary[0] + b * bary[1] + c * bary[2];
                    let d = point.distance_squared(q);
                    if best.as_ref().is_none_or(|bst| d < bst.0) {
                        best = Some((d, ClosestMirror { vertex: v, corners, barycentric: bary }));
                    }
                }
            }
            best.map(|b| b.1)
        })
        .flatten()
        .collect()
}

/// Unmatched vertices per rayon task (a few milliseconds of searching at 1M vertices).
const PER_TASK: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    /// The fine grid changes nothing: on a dense, lopsided synthetic rig (mirror images near the
    /// surface, off it, and far from it), every vertex's closest mirror is the one the coarse
    /// grid alone finds.
    #[test]
    fn the_fine_grid_finds_what_the_coarse_grid_finds() {
        let mut model = crate::synthetic::SyntheticRig { vertices: 12_000, joints: 8, influences: 2 }.build().unwrap();
        for p in &mut model.meshes[0].primitives[0].positions {
            // Lopsided: one side stretched, so that many images miss the surface.
            if p.x > 0.0 {
                p.x *= 1.3;
                p.y += 0.05 * p.x;
            }
        }
        let surface = ModelSurface::new(&model);
        let all: Vec<u32> = (0..surface.len() as u32).collect();
        for axis in 0..3 {
            let fast = mirrors_searched(&surface, axis, &all, true);
            let coarse = mirrors_searched(&surface, axis, &all, false);
            assert_eq!(fast.len(), coarse.len(), "axis {axis}");
            // Searched in parallel, listed in the order asked (the caches look them up by vertex).
            assert!(fast.windows(2).all(|w| w[0].vertex < w[1].vertex), "axis {axis}: out of order");
            for (a, b) in fast.iter().zip(&coarse) {
                assert_eq!((a.vertex, a.corners), (b.vertex, b.corners), "axis {axis}");
                assert_eq!(a.barycentric, b.barycentric, "axis {axis}");
            }
        }
    }

    #[test]
    fn the_nearest_corner_has_the_largest_weight() {
        let m = ClosestMirror { vertex: 0, corners: [4, 5, 6], barycentric: [0.2, 0.3, 0.5] };
        assert_eq!(m.nearest_corner(), 6);
    }
}
