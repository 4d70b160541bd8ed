//! The character as a solid: a voxel grid of its inside, built from any triangle soup (several
//! objects, holes, non-manifold parts). Triangles are sampled into surface cells, the surface is
//! thickened by one cell (closing holes up to about two cells wide), everything the outside
//! cannot reach by a flood fill from the grid's border is solid, and the thickening is taken off
//! again where it touches the outside.

use std::collections::VecDeque;

use glam::DVec3;

/// Cells along the tallest side of the character's box.
pub const CELLS: f64 = 160.0;

/// A voxel grid of the character's inside (bind space).
#[derive(Clone, Debug)]
pub struct Solid {
    /// The corner of cell (0, 0, 0).
    pub origin: DVec3,
    /// The cell's edge.
    pub cell: f64,
    /// Cells along x, y, z.
    pub dims: [usize; 3],
    inside: Vec<bool>,
}

impl Solid {
    /// The solid of the triangles `triangles` over `positions`; `None` when there is nothing
    /// with extent (no finite triangle).
    #[must_use]
    pub fn build(positions: &[DVec3], triangles: &[[u32; 3]]) -> Option<Self> {
        let mut lo = DVec3::splat(f64::INFINITY);
        let mut hi = DVec3::splat(f64::NEG_INFINITY);
        for t in triangles {
            for &i in t {
                let p = *positions.get(i as usize)?;
                if p.is_finite() {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
            }
        }
        let extent = (hi - lo).max_element();
        if !extent.is_finite() || extent <= 0.0 {
            return None;
        }
        let cell = extent / CELLS;
        let origin = lo - DVec3::splat(2.5 * cell);
        let size = (hi - origin) / cell + 3.0;
        let dims = [size.x as usize, size.y as usize, size.z as usize];
        let mut solid = Self { origin, cell, dims, inside: vec![false; dims[0] * dims[1] * dims[2]] };
        let mut surface = vec![false; solid.inside.len()];
        for t in triangles {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            if !(a.is_finite() && b.is_finite() && c.is_finite()) {
                continue;
            }
            let longest = (b - a).length().max((c - b).length()).max((a - c).length());
            let n = (longest / (0.5 * cell)).ceil().max(1.0) as usize;
            for i in 0..=n {
                for j in 0..=n - i {
                    let p = a + (b - a) * (i as f64 / n as f64) + (c - a) * (j as f64 / n as f64);
                    if let Some(k) = solid.index_of(p) {
                        surface[k] = true;
                    }
                }
            }
        }
        let thick = solid.dilate(&surface);
        let outside = solid.flood_outside(&thick);
        // Solid: not outside, minus the thickening's outer layer (cells of `thick` that are not
        // surface and touch the outside).
        for k in 0..solid.inside.len() {
            let shell_only = thick[k] && !surface[k] && solid.neighbours(k).any(|m| outside[m]);
            solid.inside[k] = !outside[k] && !shell_only;
        }
        Some(solid)
    }

    /// The linear index of cell (x, y, z).
    #[must_use]
    pub fn index(&self, x: usize, y: usize, z: usize) -> usize {
        (z * self.dims[1] + y) * self.dims[0] + x
    }

    /// The cell of a point, if inside the grid.
    #[must_use]
    pub fn cell_of(&self, p: DVec3) -> Option<[usize; 3]> {
        let q = (p - self.origin) / self.cell;
        if !(q.x >= 0.0 && q.y >= 0.0 && q.z >= 0.0) {
            return None;
        }
        let c = [q.x as usize, q.y as usize, q.z as usize];
        (c[0] < self.dims[0] && c[1] < self.dims[1] && c[2] < self.dims[2]).then_some(c)
    }

    fn index_of(&self, p: DVec3) -> Option<usize> {
        self.cell_of(p).map(|c| self.index(c[0], c[1], c[2]))
    }

    /// The centre of cell (x, y, z).
    #[must_use]
    pub fn centre(&self, x: usize, y: usize, z: usize) -> DVec3 {
        self.origin + (DVec3::new(x as f64, y as f64, z as f64) + 0.5) * self.cell
    }

    /// Whether cell (x, y, z) is inside.
    #[must_use]
    pub fn at(&self, x: usize, y: usize, z: usize) -> bool {
        self.inside[self.index(x, y, z)]
    }

    /// Whether the point is inside.
    #[must_use]
    pub fn contains(&self, p: DVec3) -> bool {
        self.index_of(p).is_some_and(|k| self.inside[k])
    }

    /// Every inside cell's centre.
    pub fn points(&self) -> impl Iterator<Item = DVec3> + '_ {
        let [nx, ny, _] = self.dims;
        self.inside.iter().enumerate().filter(|(_, &s)| s).map(move |(k, _)| {
            let (x, y, z) = (k % nx, (k / nx) % ny, k / (nx * ny));
            self.centre(x, y, z)
        })
    }

    /// The inside runs along z through the column at (x, y) in bind space: `(z_from, z_to)`.
    #[must_use]
    pub fn runs_along_z(&self, x: f64, y: f64) -> Vec<(f64, f64)> {
        let Some(c) = self.cell_of(DVec3::new(x, y, self.origin.z + 0.5 * self.cell)) else {
            return Vec::new();
        };
        let mut runs = Vec::new();
        let mut start = None;
        for z in 0..self.dims[2] {
            match (self.at(c[0], c[1], z), start) {
                (true, None) => start = Some(z),
                (false, Some(s)) => {
                    runs.push((self.origin.z + s as f64 * self.cell, self.origin.z + z as f64 * self.cell));
                    start = None;
                }
                _ => {}
            }
        }
        runs
    }

    fn neighbours(&self, k: usize) -> impl Iterator<Item = usize> {
        let [nx, ny, nz] = self.dims;
        let (x, y, z) = (k % nx, (k / nx) % ny, k / (nx * ny));
        let mut out = [usize::MAX; 6];
        if x > 0 {
            out[0] = k - 1;
        }
        if x + 1 < nx {
            out[1] = k + 1;
        }
        if y > 0 {
            out[2] = k - nx;
        }
        if y + 1 < ny {
            out[3] = k + nx;
        }
        if z > 0 {
            out[4] = k - nx * ny;
        }
        if z + 1 < nz {
            out[5] = k + nx * ny;
        }
        out.into_iter().filter(|&m| m != usize::MAX)
    }

    fn dilate(&self, cells: &[bool]) -> Vec<bool> {
        let mut out = cells.to_vec();
        for (k, &c) in cells.iter().enumerate() {
            if c {
                for m in self.neighbours(k) {
                    out[m] = true;
                }
            }
        }
        out
    }

    /// Cells reachable from the grid's border without crossing `wall`.
    fn flood_outside(&self, wall: &[bool]) -> Vec<bool> {
        let mut outside = vec![false; wall.len()];
        let mut queue = VecDeque::new();
        let [nx, ny, nz] = self.dims;
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let border = x == 0 || y == 0 || z == 0 || x + 1 == nx || y + 1 == ny || z + 1 == nz;
                    let k = self.index(x, y, z);
                    if border && !wall[k] {
                        outside[k] = true;
                        queue.push_back(k);
                    }
                }
            }
        }
        while let Some(k) = queue.pop_front() {
            for m in self.neighbours(k) {
                if !outside[m] && !wall[m] {
                    outside[m] = true;
                    queue.push_back(m);
                }
            }
        }
        outside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cube of side 2 centred at the origin, with one face missing (a hole).
    fn open_cube() -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let p: Vec<DVec3> = (0..8)
            .map(|i| {
                DVec3::new(
                    if i & 1 == 0 { -1.0 } else { 1.0 },
                    if i & 2 == 0 { -1.0 } else { 1.0 },
                    if i & 4 == 0 { -1.0 } else { 1.0 },
                )
            })
            .collect();
        let quads = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4]];
        let t = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
        (p, t)
    }

    #[test]
    fn a_closed_box_is_solid_inside_and_a_small_hole_does_not_leak() {
        let (p, mut t) = open_cube();
        let closed = {
            t.push([1, 5, 7]);
            t.push([1, 7, 3]);
            Solid::build(&p, &t).unwrap()
        };
        assert!(closed.contains(DVec3::ZERO) && !closed.contains(DVec3::splat(1.2)));
        let runs = closed.runs_along_z(0.0, 0.0);
        assert_eq!(runs.len(), 1);
        assert!((runs[0].0 + 1.0).abs() < 0.05 && (runs[0].1 - 1.0).abs() < 0.05, "{runs:?}");
        // A missing face is a hole of the box's size: the inside leaks; a tiny gap does not.
        let (p, t) = open_cube();
        assert!(!Solid::build(&p, &t).unwrap().contains(DVec3::ZERO));
        let mut p2 = p.clone();
        // Close the face but leave a slit narrower than one cell.
        p2.extend([
            DVec3::new(1.0, -1.0, -1.0),
            DVec3::new(1.0, 1.0, -1.0),
            DVec3::new(1.0, 1.0, 0.99),
            DVec3::new(1.0, -1.0, 0.99),
        ]);
        let mut t2 = t.clone();
        t2.extend([[8, 9, 10], [8, 10, 11]]);
        assert!(Solid::build(&p2, &t2).unwrap().contains(DVec3::ZERO));
    }
}
