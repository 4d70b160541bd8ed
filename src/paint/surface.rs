//! Distances over the surface: Dijkstra over mesh edges (of welded groups), bounded by a radius.
//! Edge paths overestimate true geodesics a little (at most ~8% on regular grids), which is
//! plenty for a brush.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::Vec3;

use super::adjacency::Adjacency;

/// Reusable Dijkstra state: distances are stamped with a generation so that nothing is cleared
/// between queries.
#[derive(Clone, Debug, Default)]
pub struct SurfaceScratch {
    dist: Vec<f32>,
    stamp: Vec<u32>,
    generation: u32,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

impl SurfaceScratch {
    fn begin(&mut self, n: usize) {
        if self.stamp.len() != n || self.generation == u32::MAX {
            self.stamp.clear();
            self.stamp.resize(n, 0);
            self.dist.resize(n, f32::INFINITY);
            self.generation = 0;
        }
        self.generation += 1;
        self.heap.clear();
    }

    fn get(&self, v: u32) -> f32 {
        if self.stamp[v as usize] == self.generation {
            self.dist[v as usize]
        } else {
            f32::INFINITY
        }
    }

    fn relax(&mut self, v: u32, d: f32) {
        if d < self.get(v) {
            self.stamp[v as usize] = self.generation;
            self.dist[v as usize] = d;
            // Non-negative finite f32s order like their bit patterns.
            self.heap.push(Reverse((d.to_bits(), v)));
        }
    }
}

/// Surface distances from `seeds` (vertex, starting distance) to every welded group within
/// `radius`, walking edges of `adjacency` with lengths from `positions` (e.g. deformed positions).
/// Writes `(representative, distance)` pairs to `out` in order of increasing distance.
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
    while let Some(Reverse((bits, v))) = scratch.heap.pop() {
        let d = f32::from_bits(bits);
        if d > scratch.get(v) {
            continue;
        }
        out.push((v, d));
        let p = positions[v as usize];
        for &u in adjacency.neighbours(v) {
            let e = positions[u as usize].distance(p);
            let du = d + e;
            if du.is_finite() && du <= radius {
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
