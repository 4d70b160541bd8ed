//! A uniform hash grid over points for "which points lie within `tol` of here" queries (vertex
//! welding across UV seams, mirror matching). Cells are `2 tol` wide, so the query box
//! `p ± tol` overlaps at most 8 cells.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use glam::Vec3;

/// A fast multiplicative hasher for integer keys (grid cells, vertex numbers; the keys are not
/// attacker-controlled).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IntegerHasher(u64);

/// A hash map with integer keys, hashed by [`IntegerHasher`].
pub(crate) type IntegerMap<K, V> = HashMap<K, V, BuildHasherDefault<IntegerHasher>>;

impl Hasher for IntegerHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Points bucketed by cell.
#[derive(Clone, Debug, Default)]
pub struct PointGrid {
    inv_cell: f32,
    tol: f32,
    cells: IntegerMap<[i64; 3], Vec<u32>>,
}

impl PointGrid {
    /// An empty grid for queries within `tol` (a non-positive or non-finite `tol` matches exact
    /// positions only).
    #[must_use]
    pub fn new(tol: f32) -> Self {
        let tol = if tol.is_finite() && tol > 0.0 { tol } else { 1e-12 };
        Self { inv_cell: 0.5 / tol, tol, cells: HashMap::default() }
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

    /// Calls `f(id)` for every point in the cells that the box `p ± tol` (the grid's tolerance)
    /// overlaps: a superset of the points within the tolerance; callers check the distance.
    pub fn for_each_near(&self, p: Vec3, mut f: impl FnMut(u32)) {
        if !p.is_finite() {
            return;
        }
        let lo = self.key(p - Vec3::splat(self.tol));
        let hi = self.key(p + Vec3::splat(self.tol));
        for x in lo[0]..=hi[0] {
            for y in lo[1]..=hi[1] {
                for z in lo[2]..=hi[2] {
                    if let Some(ids) = self.cells.get(&[x, y, z]) {
                        ids.iter().for_each(|&id| f(id));
                    }
                }
            }
        }
    }

    /// The width of a cell (twice the tolerance).
    #[must_use]
    pub fn cell_width(&self) -> f32 {
        1.0 / self.inv_cell
    }

    /// Calls `f(id)` for every point in the cells at Chebyshev distance `ring` (in cells) from
    /// `p`'s cell. After rings `0..=r`, every point closer to `p` than `r` cell widths has been
    /// seen (up to the rounding of the cell keys).
    pub fn for_each_in_ring(&self, p: Vec3, ring: i64, mut f: impl FnMut(u32)) {
        if !p.is_finite() || ring < 0 {
            return;
        }
        let c = self.key(p);
        for x in -ring..=ring {
            for y in -ring..=ring {
                let inner = x.abs() < ring && y.abs() < ring;
                // Inside the shell's x and y only its two z faces belong to it.
                let step = if inner { (2 * ring).max(1) } else { 1 };
                let mut z = -ring;
                while z <= ring {
                    if let Some(ids) = self.cells.get(&[c[0] + x, c[1] + y, c[2] + z]) {
                        ids.iter().for_each(|&id| f(id));
                    }
                    z += step;
                }
            }
        }
    }

    /// The point nearest to `p` within `tol` (at most the grid's tolerance), by `positions[id]`.
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

    #[test]
    fn rings_visit_every_cell_of_the_block_once_and_see_every_point_within_their_radius() {
        // One point at the centre of every cell of a 13³ block.
        let mut grid = PointGrid::new(0.5);
        let w = grid.cell_width();
        let mut pts = Vec::new();
        for x in -6..=6 {
            for y in -6..=6 {
                for z in -6..=6 {
                    let p = (Vec3::new(x as f32, y as f32, z as f32) + 0.5) * w;
                    grid.insert(p, pts.len() as u32);
                    pts.push(p);
                }
            }
        }
        let q = Vec3::new(0.3, 0.9, 0.1) * w;
        let mut seen = vec![0u32; pts.len()];
        for r in 0..=4 {
            grid.for_each_in_ring(q, r, |id| seen[id as usize] += 1);
            for (p, &n) in pts.iter().zip(&seen) {
                let chebyshev = (*p / w - 0.5).abs().max_element() as i64;
                assert_eq!(n, u32::from(chebyshev <= r), "ring {r}, cell {p}");
                if p.distance(q) < r as f32 * w {
                    assert_eq!(n, 1, "ring {r}: a point within the radius was not seen");
                }
            }
        }
    }
}
