//! Mesh connectivity for the brush: vertex neighbours from triangle edges, with vertices at the
//! same position (within a tolerance) welded, since glTF splits vertices at UV and normal seams.
//! Welded vertices form one group named by its smallest vertex (the representative); neighbours
//! are listed per group, as representatives.

use glam::Vec3;

use crate::maths::point_grid::{relative_tolerance, PointGrid};
use crate::prefetch::prefetch;

/// Default weld tolerance as a fraction of the bounding-box diagonal.
pub const WELD_FRACTION: f32 = 1e-6;

/// Welded vertex groups and their neighbours, in compressed rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjacency {
    rep: Vec<u32>,
    group_start: Vec<u32>,
    group: Vec<u32>,
    start: Vec<u32>,
    neighbours: Vec<u32>,
}

impl Adjacency {
    /// Builds the adjacency of a triangle mesh, welding vertices within `weld_tol` of each other
    /// (none when `weld_tol` is not positive). Triangles with an index out of range are skipped.
    #[must_use]
    pub fn new(positions: &[Vec3], triangles: &[[u32; 3]], weld_tol: f32) -> Self {
        let n = positions.len();
        let mut rep: Vec<u32> = (0..n as u32).collect();
        let mut grid = PointGrid::new(weld_tol);
        let weld = weld_tol.is_finite() && weld_tol > 0.0;
        for (v, &p) in positions.iter().enumerate().filter(|_| weld) {
            match grid.nearest(positions, p, weld_tol) {
                Some(r) => rep[v] = r,
                None => grid.insert(p, v as u32),
            }
        }
        // Groups: members of each representative, ascending.
        let mut counts = vec![0u32; n + 1];
        for &r in &rep {
            counts[r as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let group_start = counts.clone();
        let mut fill = counts;
        let mut group = vec![0u32; n];
        for (v, &r) in rep.iter().enumerate() {
            group[fill[r as usize] as usize] = v as u32;
            fill[r as usize] += 1;
        }
        // Edges between representatives.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(triangles.len() * 6);
        for t in triangles {
            if t.iter().any(|&i| i as usize >= n) {
                continue;
            }
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                let (ra, rb) = (rep[a as usize], rep[b as usize]);
                if ra != rb {
                    edges.push((ra, rb));
                    edges.push((rb, ra));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let mut start = vec![0u32; n + 1];
        for &(a, _) in &edges {
            start[a as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let neighbours = edges.into_iter().map(|e| e.1).collect();
        Self { rep, group_start, group, start, neighbours }
    }

    /// Builds the adjacency with the default weld tolerance ([`WELD_FRACTION`] of the diagonal).
    #[must_use]
    pub fn with_default_weld(positions: &[Vec3], triangles: &[[u32; 3]]) -> Self {
        Self::new(positions, triangles, relative_tolerance(positions, WELD_FRACTION))
    }

    /// Number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rep.len()
    }

    /// Whether there are no vertices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rep.is_empty()
    }

    /// The representative (smallest vertex) of `v`'s weld group.
    #[must_use]
    pub fn rep(&self, v: u32) -> u32 {
        self.rep[v as usize]
    }

    /// Every vertex welded with `v` (itself included), ascending.
    #[must_use]
    pub fn welded(&self, v: u32) -> &[u32] {
        let r = self.rep[v as usize] as usize;
        &self.group[self.group_start[r] as usize..self.group_start[r + 1] as usize]
    }

    /// Representatives of the groups sharing an edge with group `rep` (a representative, as
    /// [`Adjacency::rep`] gives), ascending: [`Adjacency::neighbours`] without the lookup.
    #[inline]
    #[must_use]
    pub fn rep_neighbours(&self, rep: u32) -> &[u32] {
        let r = rep as usize;
        &self.neighbours[self.start[r] as usize..self.start[r + 1] as usize]
    }

    /// Asks the processor to bring group `rep`'s neighbour list into cache ahead of its
    /// [`Adjacency::rep_neighbours`] (a hint: no effect on results).
    #[inline]
    pub fn prefetch_neighbours(&self, rep: u32) {
        if let Some(&start) = self.start.get(rep as usize) {
            prefetch(&self.neighbours, start as usize);
        }
    }

    /// Asks the processor to bring where group `rep`'s members are listed into cache ahead of its
    /// [`Adjacency::group`] (a hint: no effect on results).
    #[inline]
    pub fn prefetch_group(&self, rep: u32) {
        prefetch(&self.group_start, rep as usize);
    }

    /// Every vertex of group `rep` (a representative), ascending: [`Adjacency::welded`] without
    /// the lookup.
    #[inline]
    #[must_use]
    pub fn group(&self, rep: u32) -> &[u32] {
        let r = rep as usize;
        &self.group[self.group_start[r] as usize..self.group_start[r + 1] as usize]
    }

    /// Representatives of the groups sharing an edge with `v`'s group, ascending.
    #[must_use]
    pub fn neighbours(&self, v: u32) -> &[u32] {
        let r = self.rep[v as usize] as usize;
        &self.neighbours[self.start[r] as usize..self.start[r + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seams_are_welded() {
        // Two triangles sharing an edge, but the right one has its own copies of the edge's
        // vertices (a UV seam): 0-1-2 and 3-4-5 with 3≡1 and 5≡2.
        let p = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        let adj = Adjacency::with_default_weld(&p, &[[0, 1, 2], [3, 4, 5]]);
        assert_eq!(adj.rep(3), 1);
        assert_eq!(adj.rep(5), 2);
        assert_eq!(adj.welded(3), &[1, 3]);
        assert_eq!(adj.neighbours(0), &[1, 2]);
        assert_eq!(adj.neighbours(4), &[1, 2]);
        assert_eq!(adj.neighbours(1), &[0, 2, 4]);
        assert_eq!(adj.neighbours(3), &[0, 2, 4], "a seam copy sees both sides");
        let unwelded = Adjacency::new(&p, &[[0, 1, 2], [3, 4, 5], [0, 9, 1]], 0.0);
        assert_eq!(unwelded.neighbours(4), &[3, 5]);
        assert_eq!(unwelded.neighbours(0), &[1, 2], "the bad triangle is skipped");
    }
}
