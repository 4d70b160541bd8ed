//! Mirror matching that survives real rigs: joints by mirrored bind position (names only where
//! the position is ambiguous or missing, and every case where the two disagree is reported), and
//! vertices without an exact mirror matched to the closest point of the mirrored surface
//! (triangle corners and barycentric weights, for interpolation).

use glam::{DVec3, Vec3};

use super::grid::{relative_tolerance, PointGrid};
use super::model_surface::ModelSurface;
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

/// Closest point of triangle (a, b, c) to p, as barycentric weights (Ericson, Real-Time Collision
/// Detection 5.1.5).
#[must_use]
pub fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> [f32; 3] {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return [1.0 - v, v, 0.0];
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return [1.0 - w, 0.0, w];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - w, w];
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    if !(v.is_finite() && w.is_finite()) {
        return [1.0, 0.0, 0.0];
    }
    [1.0 - v - w, v, w]
}

/// For every vertex in `unmatched`, the closest point of the surface to its mirror image across
/// `axis` (searched on the triangles around the vertices nearest to the image).
#[must_use]
pub fn closest_mirrors(surface: &ModelSurface, axis: usize, unmatched: &[u32]) -> Vec<ClosestMirror> {
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
    for (i, &p) in rest.iter().enumerate() {
        grid.insert(p, i as u32);
    }
    let axis = axis.min(2);
    unmatched
        .iter()
        .filter_map(|&v| {
            let mut q = *rest.get(v as usize)?;
            q[axis] = -q[axis];
            let mut near: Vec<(f32, u32)> = Vec::new();
            grid.for_each_near(q, |id| near.push((rest[id as usize].distance_squared(q), id)));
            if near.is_empty() {
                let nearest = (0..rest.len() as u32).min_by(|&a, &b| {
                    rest[a as usize].distance_squared(q).total_cmp(&rest[b as usize].distance_squared(q))
                })?;
                near.push((0.0, nearest));
            }
            near.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
            let mut best: Option<(f32, ClosestMirror)> = None;
            for &(_, k) in near.iter().take(8) {
                for &ti in &incident[start[k as usize] as usize..start[k as usize + 1] as usize] {
                    let corners = tris[ti as usize];
                    let [a, b, c] = corners.map(|i| rest[i as usize]);
                    let bary = closest_on_triangle(q, a, b, c);
                    let point = a * bary[0] + b * bary[1] + c * bary[2];
                    let d = point.distance_squared(q);
                    if best.as_ref().is_none_or(|bst| d < bst.0) {
                        best = Some((d, ClosestMirror { vertex: v, corners, barycentric: bary }));
                    }
                }
            }
            best.map(|b| b.1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_point_regions() {
        let (a, b, c) = (Vec3::ZERO, Vec3::X, Vec3::Y);
        assert_eq!(closest_on_triangle(Vec3::new(-1.0, -1.0, 0.0), a, b, c), [1.0, 0.0, 0.0]);
        assert_eq!(closest_on_triangle(Vec3::new(2.0, 0.0, 1.0), a, b, c), [0.0, 1.0, 0.0]);
        let e = closest_on_triangle(Vec3::new(0.5, -1.0, 0.0), a, b, c);
        assert!((e[0] - 0.5).abs() < 1e-6 && (e[1] - 0.5).abs() < 1e-6 && e[2] == 0.0);
        let inside = closest_on_triangle(Vec3::new(0.25, 0.25, 3.0), a, b, c);
        assert!((inside[0] - 0.5).abs() < 1e-6 && (inside[1] - 0.25).abs() < 1e-6 && (inside[2] - 0.25).abs() < 1e-6);
        let m = ClosestMirror { vertex: 0, corners: [4, 5, 6], barycentric: [0.2, 0.3, 0.5] };
        assert_eq!(m.nearest_corner(), 6);
    }
}
