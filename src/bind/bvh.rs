//! A bounding-volume hierarchy over a surface's triangles for the bone-visibility test of bone
//! heat (is the straight path from a vertex to a point on a bone blocked by the mesh?) and for
//! closest-point queries (weight transfer: the nearest point of a source surface).
//!
//! Built top-down by median split on the longest axis of the centroids, flattened depth-first
//! (a node's left child follows it). Invariant: every triangle sits in exactly one leaf.

use glam::DVec3;

use crate::maths::triangle::closest_on_triangle;

/// Triangles per leaf, at most.
const LEAF_SIZE: usize = 4;

#[derive(Clone, Copy, Debug)]
struct Node {
    lo: DVec3,
    hi: DVec3,
    /// Leaf: first index into `order`; inner: index of the right child.
    start_or_right: u32,
    /// Leaf: triangle count (> 0); inner: 0.
    count: u32,
}

/// The hierarchy (borrowing nothing: it copies the triangle corners it needs).
#[derive(Clone, Debug, Default)]
pub struct TriangleBvh {
    nodes: Vec<Node>,
    order: Vec<u32>,
    corners: Vec<[DVec3; 3]>,
    ids: Vec<[u32; 3]>,
}

impl TriangleBvh {
    /// Builds the hierarchy over `triangles` (indices into `positions`).
    #[must_use]
    pub fn build(positions: &[DVec3], triangles: &[[u32; 3]]) -> Self {
        let corners: Vec<[DVec3; 3]> = triangles
            .iter()
            .map(|t| [positions[t[0] as usize], positions[t[1] as usize], positions[t[2] as usize]])
            .collect();
        let centroids: Vec<DVec3> = corners.iter().map(|c| (c[0] + c[1] + c[2]) / 3.0).collect();
        let mut order: Vec<u32> = (0..triangles.len() as u32).collect();
        let mut nodes = Vec::with_capacity(2 * triangles.len() / LEAF_SIZE + 1);
        if !triangles.is_empty() {
            build_node(&mut nodes, &mut order, 0, &corners, &centroids);
        }
        Self { nodes, order, corners, ids: triangles.to_vec() }
    }

    /// Whether the open segment `from → to` crosses a triangle, ignoring triangles that have
    /// surface vertex `skip` as a corner and hits within `margin` (a fraction of the segment) of
    /// either end.
    #[must_use]
    pub fn blocked(&self, from: DVec3, to: DVec3, skip: u32, margin: f64) -> bool {
        if self.nodes.is_empty() {
            return false;
        }
        let dir = to - from;
        let inv = DVec3::new(1.0 / dir.x, 1.0 / dir.y, 1.0 / dir.z);
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let at = stack[top];
            let node = &self.nodes[at as usize];
            if !slab_hit(node.lo, node.hi, from, inv) {
                continue;
            }
            if node.count > 0 {
                let start = node.start_or_right as usize;
                for &t in &self.order[start..start + node.count as usize] {
                    if self.ids[t as usize].contains(&skip) {
                        continue;
                    }
                    if let Some(s) = segment_hit(&self.corners[t as usize], from, dir) {
                        if s > margin && s < 1.0 - margin {
                            return true;
                        }
                    }
                }
            } else if top + 2 <= stack.len() {
                stack[top] = node.start_or_right;
                stack[top + 1] = at + 1;
                top += 2;
            }
        }
        false
    }
}

/// The closest point of a surface to a query point (see [`TriangleBvh::closest`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoint {
    /// The triangle holding it (index into the triangles the hierarchy was built from).
    pub triangle: u32,
    /// Its barycentric weights on that triangle's corners.
    pub barycentric: [f64; 3],
    /// The point.
    pub point: DVec3,
    /// Its distance from the query point.
    pub distance: f64,
}

impl TriangleBvh {
    /// The closest point of every triangle to `p` within `max_distance` (`None` when no triangle
    /// comes that close). Nodes farther than the best so far are skipped, nearer child first.
    #[must_use]
    pub fn closest(&self, p: DVec3, max_distance: f64) -> Option<ClosestPoint> {
        if self.nodes.is_empty() || !p.is_finite() {
            return None;
        }
        let mut best: Option<ClosestPoint> = None;
        let mut bound = max_distance * max_distance;
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let at = stack[top];
            let node = &self.nodes[at as usize];
            if box_distance_squared(node.lo, node.hi, p) > bound {
                continue;
            }
            if node.count > 0 {
                let start = node.start_or_right as usize;
                for &t in &self.order[start..start + node.count as usize] {
                    let [a, b, c] = self.corners[t as usize];
                    let bary = closest_on_triangle(p, a, b, c);
                    let point = a * bary[0] + b * bary[1] + c * bary[2];
                    let d2 = point.distance_squared(p);
                    if d2 <= bound && best.is_none_or(|b| d2 < b.distance * b.distance) {
                        bound = d2;
                        best = Some(ClosestPoint { triangle: t, barycentric: bary, point, distance: d2.sqrt() });
                    }
                }
            } else if top + 2 <= stack.len() {
                let (left, right) = (at + 1, node.start_or_right);
                let dl = box_distance_squared(self.nodes[left as usize].lo, self.nodes[left as usize].hi, p);
                let dr = box_distance_squared(self.nodes[right as usize].lo, self.nodes[right as usize].hi, p);
                // The nearer child is popped first.
                let (near, far) = if dl <= dr { (left, right) } else { (right, left) };
                stack[top] = far;
                stack[top + 1] = near;
                top += 2;
            }
        }
        best
    }
}

fn box_distance_squared(lo: DVec3, hi: DVec3, p: DVec3) -> f64 {
    (p.clamp(lo, hi) - p).length_squared()
}

fn build_node(
    nodes: &mut Vec<Node>,
    order: &mut [u32],
    start: usize,
    corners: &[[DVec3; 3]],
    centroids: &[DVec3],
) -> usize {
    let idx = nodes.len();
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    let mut clo = DVec3::splat(f64::INFINITY);
    let mut chi = DVec3::splat(f64::NEG_INFINITY);
    for &t in order.iter() {
        for c in &corners[t as usize] {
            lo = lo.min(*c);
            hi = hi.max(*c);
        }
        clo = clo.min(centroids[t as usize]);
        chi = chi.max(centroids[t as usize]);
    }
    nodes.push(Node { lo, hi, start_or_right: start as u32, count: order.len() as u32 });
    let ext = chi - clo;
    if order.len() <= LEAF_SIZE || ext.max_element() <= 0.0 {
        return idx;
    }
    let axis = if ext.x >= ext.y && ext.x >= ext.z {
        0
    } else if ext.y >= ext.z {
        1
    } else {
        2
    };
    let mid = order.len() / 2;
    order.select_nth_unstable_by(mid, |a, b| centroids[*a as usize][axis].total_cmp(&centroids[*b as usize][axis]));
    let (left, right) = order.split_at_mut(mid);
    build_node(nodes, left, start, corners, centroids);
    let r = build_node(nodes, right, start + mid, corners, centroids);
    nodes[idx].start_or_right = r as u32;
    nodes[idx].count = 0;
    idx
}

fn slab_hit(lo: DVec3, hi: DVec3, from: DVec3, inv: DVec3) -> bool {
    let t1 = (lo - from) * inv;
    let t2 = (hi - from) * inv;
    let tmin = t1.min(t2);
    let tmax = t1.max(t2);
    // NaN (0 · ∞ on a slab plane) compares false and is ignored by max/min below.
    let enter = tmin.x.max(tmin.y).max(tmin.z).max(0.0);
    let exit = tmax.x.min(tmax.y).min(tmax.z).min(1.0);
    enter <= exit
}

/// Möller–Trumbore: the segment parameter of the hit of `from + s·dir` with the triangle.
fn segment_hit(tri: &[DVec3; 3], from: DVec3, dir: DVec3) -> Option<f64> {
    let e1 = tri[1] - tri[0];
    let e2 = tri[2] - tri[0];
    let p = dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() <= 1e-300 {
        return None;
    }
    let inv = 1.0 / det;
    let t = from - tri[0];
    let u = t.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = t.cross(e1);
    let v = dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    Some(e2.dot(q) * inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_through_a_quad_are_blocked() {
        let positions = vec![
            DVec3::new(-1.0, -1.0, 0.0),
            DVec3::new(1.0, -1.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(-1.0, 1.0, 0.0),
        ];
        let tris = vec![[0, 1, 2], [0, 2, 3]];
        let bvh = TriangleBvh::build(&positions, &tris);
        assert!(bvh.blocked(DVec3::new(0.2, 0.1, -1.0), DVec3::new(0.2, 0.1, 1.0), u32::MAX, 1e-6));
        assert!(!bvh.blocked(DVec3::new(2.0, 0.0, -1.0), DVec3::new(2.0, 0.0, 1.0), u32::MAX, 1e-6));
        assert!(!bvh.blocked(DVec3::new(0.2, 0.1, 0.5), DVec3::new(0.2, 0.1, 1.0), u32::MAX, 1e-6));
        assert!(
            !bvh.blocked(DVec3::new(0.2, 0.1, -1.0), DVec3::new(0.2, 0.1, 1.0), 0, 1e-6),
            "skips triangles of vertex 0"
        );
        // Many triangles: a strip along x, blocked only where it is.
        let mut pos = Vec::new();
        let mut tri = Vec::new();
        for i in 0..200u32 {
            pos.push(DVec3::new(f64::from(i), 0.0, 0.0));
            pos.push(DVec3::new(f64::from(i), 1.0, 0.0));
            if i > 0 {
                let (a, b, c, d) = (2 * i - 2, 2 * i - 1, 2 * i, 2 * i + 1);
                tri.push([a, c, d]);
                tri.push([a, d, b]);
            }
        }
        let bvh = TriangleBvh::build(&pos, &tri);
        for x in [0.5, 17.3, 150.9, 198.2] {
            assert!(bvh.blocked(DVec3::new(x, 0.5, -1.0), DVec3::new(x, 0.5, 1.0), u32::MAX, 1e-6), "x = {x}");
        }
        assert!(!bvh.blocked(DVec3::new(250.0, 0.5, -1.0), DVec3::new(250.0, 0.5, 1.0), u32::MAX, 1e-6));
        // Closest points on the strip: above its inside, beside its end, out of reach.
        let hit = bvh.closest(DVec3::new(17.25, 0.5, 2.0), 10.0).unwrap();
        assert!((hit.point - DVec3::new(17.25, 0.5, 0.0)).length() < 1e-12 && (hit.distance - 2.0).abs() < 1e-12);
        let end = bvh.closest(DVec3::new(203.0, 0.5, 4.0), 10.0).unwrap();
        assert!((end.point - DVec3::new(199.0, 0.5, 0.0)).length() < 1e-12, "{end:?}");
        assert!(bvh.closest(DVec3::new(17.0, 0.5, 2.0), 1.0).is_none());
        let corner = bvh.closest(pos[7], 1.0).unwrap();
        assert_eq!(corner.distance, 0.0);
        let t = tri[corner.triangle as usize];
        let k = t.iter().position(|&i| i == 7).unwrap();
        assert_eq!(corner.barycentric[k], 1.0, "a corner is met exactly");
    }
}
