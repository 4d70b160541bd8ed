//! Distances over the surface: Dijkstra over mesh edges (of welded groups), bounded by a radius.
//! Edge paths overestimate true geodesics a little (at most ~8% on regular grids), which is
//! plenty for a brush.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::Vec3;

use super::adjacency::Adjacency;

/// Reusable Dijkstra state: each vertex's distance is stamped with a generation (one 8-byte slot,
/// stamp and distance together), so that nothing is cleared between queries and a query touches
/// only the vertices it reaches.
#[derive(Clone, Debug, Default)]
pub struct SurfaceScratch {
    /// Per vertex: the generation that wrote it and its distance.
    state: Vec<(u32, f32)>,
    generation: u32,
    /// Queued `(distance bits << 32 | vertex)`: one integer compare orders them as the pairs would.
    heap: BinaryHeap<Reverse<u64>>,
    /// The footprint's list of reached groups, kept from dab to dab.
    pub(super) reached: Vec<(u32, f32)>,
}

impl SurfaceScratch {
    fn begin(&mut self, n: usize) {
        if self.state.len() != n || self.generation == u32::MAX {
            self.state.clear();
            self.state.resize(n, (0, f32::INFINITY));
            self.generation = 0;
        }
        self.generation += 1;
        self.heap.clear();
    }

    #[inline]
    fn get(&self, v: u32) -> f32 {
        let (stamp, d) = self.state[v as usize];
        if stamp == self.generation {
            d
        } else {
            f32::INFINITY
        }
    }

    #[inline]
    fn relax(&mut self, v: u32, d: f32) {
        let slot = &mut self.state[v as usize];
        if slot.0 != self.generation || d < slot.1 {
            *slot = (self.generation, d);
            // Non-negative finite f32s order like their bit patterns.
            self.heap.push(Reverse(u64::from(d.to_bits()) << 32 | u64::from(v)));
        }
    }
}

/// Surface distances from `seeds` (vertex, starting distance) to every welded group within
/// `radius`, walking edges of `adjacency` with lengths from `positions` (e.g. deformed positions).
/// Writes `(representative, distance)` pairs to `out` in order of increasing distance.
///
/// Each group's distance is the smallest over edge paths of the f32 sums along the path, which
/// does not depend on the order of equal-distance pops: any exact Dijkstra gives the same values.
pub fn bounded_distances(
    adjacency: &Adjacency,
    positions: &[Vec3],
    seeds: &[(u32, f32)],
    radius: f32,
    scratch: &mut SurfaceScratch,
    out: &mut Vec<(u32, f32)>,
) {
    out.clear();
    let n = adjacency.len();
    if n != positions.len() || radius.is_nan() || radius < 0.0 {
        return;
    }
    scratch.begin(n);
    for &(v, d) in seeds {
        if (v as usize) < n && d.is_finite() && d >= 0.0 && d <= radius {
            scratch.relax(adjacency.rep(v), d);
        }
    }
    while let Some(Reverse(entry)) = scratch.heap.pop() {
        let (d, v) = (f32::from_bits((entry >> 32) as u32), entry as u32);
        if d > scratch.get(v) {
            continue;
        }
        out.push((v, d));
        let p = positions[v as usize];
        for &u in adjacency.rep_neighbours(v) {
            let known = scratch.get(u);
            // An edge only adds (rounding is monotone): a group already at `d` or nearer, such as
            // every group popped before, cannot get nearer through `v`.
            if known <= d {
                continue;
            }
            let du = d + positions[u as usize].distance(p);
            if du <= radius && du < known {
                if known == f32::INFINITY {
                    adjacency.prefetch_neighbours(u);
                }
                scratch.relax(u, du);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_follow_edges_and_stop_at_the_radius() {
        // A strip: 0-1-2-3 along x, unit spacing, as triangles with a parallel row 4-5-6-7 at y=1.
        let mut p = Vec::new();
        for y in 0..2 {
            for x in 0..4 {
                p.push(Vec3::new(x as f32, y as f32, 0.0));
            }
        }
        let mut tris = Vec::new();
        for x in 0..3u32 {
            tris.push([x, x + 1, x + 5]);
            tris.push([x, x + 5, x + 4]);
        }
        let adj = Adjacency::with_default_weld(&p, &tris);
        let mut scratch = SurfaceScratch::default();
        let mut out = Vec::new();
        bounded_distances(&adj, &p, &[(0, 0.0)], 2.5, &mut scratch, &mut out);
        let d = |v: u32| out.iter().find(|e| e.0 == v).map(|e| e.1);
        assert_eq!(d(0), Some(0.0));
        assert_eq!(d(1), Some(1.0));
        assert_eq!(d(2), Some(2.0));
        assert_eq!(d(3), None);
        assert!((d(5).unwrap_or(0.0) - 2f32.sqrt()).abs() < 1e-6);
        assert!(out.windows(2).all(|w| w[0].1 <= w[1].1));
        // Reuse with another seed.
        bounded_distances(&adj, &p, &[(3, 0.5)], 1.0, &mut scratch, &mut out);
        assert_eq!(out, vec![(3, 0.5)]);
    }
}

#[cfg(test)]
mod same_as_before {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use glam::Vec3;

    use super::{bounded_distances, SurfaceScratch};
    use crate::paint::Adjacency;

    /// The walk as it was before the scratch was merged into one array: fresh arrays per query.
    fn old_walk(adjacency: &Adjacency, positions: &[Vec3], seeds: &[(u32, f32)], radius: f32) -> Vec<(u32, f32)> {
        let n = adjacency.len();
        let mut dist = vec![f32::INFINITY; n];
        let mut heap = BinaryHeap::new();
        let mut out = Vec::new();
        let relax = |v: u32, d: f32, dist: &mut Vec<f32>, heap: &mut BinaryHeap<Reverse<(u32, u32)>>| {
            if d < dist[v as usize] {
                dist[v as usize] = d;
                heap.push(Reverse((d.to_bits(), v)));
            }
        };
        for &(v, d) in seeds {
            if (v as usize) < n && d.is_finite() && d >= 0.0 && d <= radius {
                relax(adjacency.rep(v), d, &mut dist, &mut heap);
            }
        }
        while let Some(Reverse((bits, v))) = heap.pop() {
            let d = f32::from_bits(bits);
            if d > dist[v as usize] {
                continue;
            }
            out.push((v, d));
            let p = positions[v as usize];
            for &u in adjacency.neighbours(v) {
                let du = d + positions[u as usize].distance(p);
                if du.is_finite() && du <= radius {
                    relax(u, du, &mut dist, &mut heap);
                }
            }
        }
        out
    }

    /// A bumpy grid with a duplicated (welded) seam column and some exactly equal edge lengths.
    fn grid(w: u32, h: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut p = Vec::new();
        for y in 0..h {
            for x in 0..=w {
                let (fx, fy) = (x as f32 * 0.1, y as f32 * 0.07);
                p.push(Vec3::new(fx, fy, (fx * 7.3).sin() * (fy * 5.1).cos() * 0.05 * (y % 3) as f32));
            }
        }
        let row = w + 1;
        let mut t = Vec::new();
        for y in 0..h - 1 {
            for x in 0..w {
                let a = y * row + x;
                t.push([a, a + 1, a + row + 1]);
                t.push([a, a + row + 1, a + row]);
            }
        }
        // A seam: the last column again, with its own triangles to a new column.
        let first_copy = p.len() as u32;
        for y in 0..h {
            let q = p[(y * row + w) as usize];
            p.push(q);
            p.push(q + Vec3::new(0.1, 0.0, 0.01));
        }
        for y in 0..h - 1 {
            let a = first_copy + 2 * y;
            t.push([a, a + 1, a + 3]);
            t.push([a, a + 3, a + 2]);
        }
        (p, t)
    }

    #[test]
    fn the_walk_reaches_the_same_groups_at_the_same_distances() {
        let (p, t) = grid(60, 50);
        let adj = Adjacency::with_default_weld(&p, &t);
        let mut scratch = SurfaceScratch::default();
        let mut out = Vec::new();
        let mut compared = 0;
        for (k, &radius) in [0.0f32, 0.05, 0.3, 1.0, 2.5, 100.0].iter().enumerate() {
            for tri in t.iter().step_by(97 + k) {
                let centre = (p[tri[0] as usize] + p[tri[1] as usize] * 2.0 + p[tri[2] as usize]) * 0.25;
                let seeds = tri.map(|v| (v, p[v as usize].distance(centre)));
                bounded_distances(&adj, &p, &seeds, radius, &mut scratch, &mut out);
                let mut new: Vec<(u32, u32)> = out.iter().map(|&(v, d)| (v, d.to_bits())).collect();
                let mut old: Vec<(u32, u32)> =
                    old_walk(&adj, &p, &seeds, radius).iter().map(|&(v, d)| (v, d.to_bits())).collect();
                assert!(out.windows(2).all(|w| w[0].1 <= w[1].1), "increasing distances");
                new.sort_unstable();
                old.sort_unstable();
                assert_eq!(new, old, "radius {radius}, seeds {seeds:?}");
                compared += old.len();
            }
        }
        assert!(compared > 10_000, "the radii reach a good part of the grid ({compared})");
    }
}
