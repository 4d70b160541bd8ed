//! X-mirror painting: the mirrored vertex by rest position (x → −x, nearest within a tolerance,
//! found with a hash grid); the mirrored joint by name is `rig::symmetry`'s.

use glam::Vec3;
use rayon::prelude::*;

use crate::maths::point_grid::{relative_tolerance, PointGrid};
use crate::rig::symmetry::MIRROR_FRACTION;

/// For each vertex, the vertex at its x-mirrored position (within a tolerance), if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MirrorMap {
    map: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl MirrorMap {
    /// Matches every vertex with the vertex nearest to its mirror image `(−x, y, z)` within `tol`.
    #[must_use]
    pub fn new(positions: &[Vec3], tol: f32) -> Self {
        Self::across(positions, 0, tol)
    }

    /// Matches every vertex with the vertex nearest to its mirror image across the plane through
    /// the origin normal to `axis` (0 = x, 1 = y, 2 = z) within `tol`.
    #[must_use]
    pub fn across(positions: &[Vec3], axis: usize, tol: f32) -> Self {
        let mut grid = PointGrid::new(tol);
        for (i, &p) in positions.iter().enumerate() {
            grid.insert(p, i as u32);
        }
        let axis = axis.min(2);
        let map = positions
            .par_iter()
            .with_min_len(4096)
            .map(|&p| {
                let mut q = p;
                q[axis] = -q[axis];
                grid.nearest(positions, q, tol).unwrap_or(NONE)
            })
            .collect();
        Self { map }
    }

    /// Builds the map with the default tolerance ([`MIRROR_FRACTION`] of the diagonal).
    #[must_use]
    pub fn with_default_tolerance(positions: &[Vec3]) -> Self {
        Self::new(positions, relative_tolerance(positions, MIRROR_FRACTION))
    }

    /// Builds the map across `axis` with the default tolerance.
    #[must_use]
    pub fn across_with_default_tolerance(positions: &[Vec3], axis: usize) -> Self {
        Self::across(positions, axis, relative_tolerance(positions, MIRROR_FRACTION))
    }

    /// The mirror of vertex `v` (itself for vertices on the plane x = 0).
    #[must_use]
    pub fn get(&self, v: u32) -> Option<u32> {
        self.map.get(v as usize).copied().filter(|&m| m != NONE)
    }

    /// Number of vertices that have a mirror.
    #[must_use]
    pub fn matched(&self) -> usize {
        self.map.iter().filter(|&&m| m != NONE).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_are_mirrored_by_position() {
        let p = [
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(-1.0005, 2.0, 3.0),
            Vec3::new(2.0, 0.0, 0.0),
        ];
        let m = MirrorMap::new(&p, 0.01);
        assert_eq!(m.get(0), Some(2));
        assert_eq!(m.get(2), Some(0));
        assert_eq!(m.get(1), Some(1), "on the plane: itself");
        assert_eq!(m.get(3), None);
        assert_eq!(m.get(99), None);
        assert_eq!(m.matched(), 3);
        // Symmetric across y, not x.
        let p =
            [Vec3::new(0.3, 1.0, 0.0), Vec3::new(0.3, -1.0, 0.0), Vec3::new(0.7, 2.0, 1.0), Vec3::new(0.7, -2.0, 1.0)];
        assert_eq!(MirrorMap::across(&p, 1, 0.01).get(2), Some(3));
    }
}
