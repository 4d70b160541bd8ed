//! Horizontal slices of the solid: the connected pieces of one row of cells (legs below the
//! crotch, the torso above it), with their centroid and extent.

use glam::DVec3;

use super::solid::Solid;

/// One connected piece of a horizontal slice.
#[derive(Clone, Copy, Debug)]
pub struct Blob {
    /// Its cells.
    pub cells: usize,
    /// Their centroid (bind space).
    pub centroid: DVec3,
    /// The low corner of its box.
    pub lo: DVec3,
    /// The high corner.
    pub hi: DVec3,
}

/// The row of cells at height `y` (clamped to the grid).
#[must_use]
pub fn row_at(solid: &Solid, y: f64) -> usize {
    let r = ((y - solid.origin.y) / solid.cell).floor().max(0.0) as usize;
    r.min(solid.dims[1].saturating_sub(1))
}

/// The connected pieces (4-connected in x and z) of row `row`, largest first.
#[must_use]
pub fn blobs(solid: &Solid, row: usize) -> Vec<Blob> {
    let [nx, _, nz] = solid.dims;
    let mut seen = vec![false; nx * nz];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for z0 in 0..nz {
        for x0 in 0..nx {
            if seen[z0 * nx + x0] || !solid.at(x0, row, z0) {
                continue;
            }
            seen[z0 * nx + x0] = true;
            stack.push((x0, z0));
            let (mut sum, mut cells) = (DVec3::ZERO, 0usize);
            let mut lo = DVec3::splat(f64::INFINITY);
            let mut hi = DVec3::splat(f64::NEG_INFINITY);
            while let Some((x, z)) = stack.pop() {
                let c = solid.centre(x, row, z);
                sum += c;
                cells += 1;
                lo = lo.min(c);
                hi = hi.max(c);
                let near = [(x.wrapping_sub(1), z), (x + 1, z), (x, z.wrapping_sub(1)), (x, z + 1)];
                for (a, b) in near {
                    if a < nx && b < nz && !seen[b * nx + a] && solid.at(a, row, b) {
                        seen[b * nx + a] = true;
                        stack.push((a, b));
                    }
                }
            }
            out.push(Blob { cells, centroid: sum / cells as f64, lo, hi });
        }
    }
    out.sort_by_key(|b| std::cmp::Reverse(b.cells));
    out
}

/// The blob of row `row` nearest (in x and z) to `near`, if the row has any within `reach`.
#[must_use]
pub fn blob_near(solid: &Solid, row: usize, near: DVec3, reach: f64) -> Option<Blob> {
    let flat = |p: DVec3| DVec3::new(p.x, 0.0, p.z);
    let distance = |b: &Blob| {
        let clamped = near.clamp(b.lo, b.hi);
        (flat(clamped) - flat(near)).length()
    };
    blobs(solid, row).into_iter().filter(|b| distance(b) <= reach).min_by(|a, b| distance(a).total_cmp(&distance(b)))
}
