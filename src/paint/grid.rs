//! A uniform hash grid over points for "which points lie within `tol` of here" queries (vertex
//! welding across UV seams, mirror matching). Cells are `tol` wide, so a query visits 27 cells.

use std::collections::HashMap;

use glam::Vec3;

/// Points bucketed by cell.
#[derive(Clone, Debug, Default)]
pub struct PointGrid {
    inv_cell: f32,
    cells: HashMap<[i64; 3], Vec<u32>>,
}

impl PointGrid {
    /// An empty grid for queries within `tol` (a non-positive or non-finite `tol` matches exact
    /// positions only).
    #[must_use]
    pub fn new(tol: f32) -> Self {
        let cell = if tol.is_finite() && tol > 0.0 { tol } else { 1e-12 };
        Self { inv_cell: 1.0 / cell, cells: HashMap::new() }
    }

    fn key(&self, p: Vec3) -> [i64; 3] {
        let s = p * self.inv_cell;
        [s.x.floor() as i64, s.y.floor() as i64, s.z.floor() as i64]
    }

    /// Adds point `id` at `p` (non-finite points are ignored).
    pub fn insert(&mut self, p: Vec3, id: u32) {
        if p.is_finite() {
            let key = self.key(p);
            self.cells.entry(key).or_default().push(id);
        }
    }

    /// Calls `f(id)` for every point in the 27 cells around `p` (a superset of the points within
    /// the grid's tolerance; callers check the distance).
    pub fn for_each_near(&self, p: Vec3, mut f: impl FnMut(u32)) {
        if !p.is_finite() {
            return;
        }
        let [x, y, z] = self.key(p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let key = [x.saturating_add(dx), y.saturating_add(dy), z.saturating_add(dz)];
                    if let Some(ids) = self.cells.get(&key) {
                        ids.iter().for_each(|&id| f(id));
                    }
                }
            }
        }
    }

    /// The point nearest to `p` within `tol`, by `positions[id]`.
    #[must_use]
    pub fn nearest(&self, positions: &[Vec3], p: Vec3, tol: f32) -> Option<u32> {
        let mut best: Option<(f32, u32)> = None;
        self.for_each_near(p, |id| {
            let d = positions[id as usize].distance_squared(p);
            if d <= tol * tol && best.is_none_or(|b| d < b.0 || (d == b.0 && id < b.1)) {
                best = Some((d, id));
            }
        });
        best.map(|b| b.1)
    }
}

/// A length tolerance relative to the bounding-box diagonal of `positions` (at least `1e-7`).
#[must_use]
pub fn relative_tolerance(positions: &[Vec3], fraction: f32) -> f32 {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in positions.iter().filter(|p| p.is_finite()) {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let diag = if lo.x <= hi.x { lo.distance(hi) } else { 0.0 };
    (diag * fraction).max(1e-7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_within_tolerance() {
        let pts = [Vec3::ZERO, Vec3::new(0.001, 0.0, 0.0), Vec3::new(5.0, 0.0, 0.0)];
        let mut grid = PointGrid::new(0.01);
        for (i, p) in pts.iter().enumerate() {
            grid.insert(*p, i as u32);
        }
        assert_eq!(grid.nearest(&pts, Vec3::new(0.0009, 0.0, 0.0), 0.01), Some(1));
        assert_eq!(grid.nearest(&pts, Vec3::new(-0.005, 0.0, 0.0), 0.01), Some(0));
        assert_eq!(grid.nearest(&pts, Vec3::new(4.0, 0.0, 0.0), 0.01), None);
        assert_eq!(grid.nearest(&pts, Vec3::NAN, 0.01), None);
    }
}
