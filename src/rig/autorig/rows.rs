//! Horizontal slices of the solid: the connected pieces of one row of cells (legs below the
//! crotch, the torso above it), with their centroid and extent; legs that touch split apart.

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

/// The connected pieces (4-connected in x and z) of row `row` as lists of cells `(x, z)`.
fn pieces(solid: &Solid, row: usize) -> Vec<Vec<(usize, usize)>> {
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
            let mut cells = Vec::new();
            while let Some((x, z)) = stack.pop() {
                cells.push((x, z));
                let near = [(x.wrapping_sub(1), z), (x + 1, z), (x, z.wrapping_sub(1)), (x, z + 1)];
                for (a, b) in near {
                    if a < nx && b < nz && !seen[b * nx + a] && solid.at(a, row, b) {
                        seen[b * nx + a] = true;
                        stack.push((a, b));
                    }
                }
            }
            out.push(cells);
        }
    }
    out
}

/// The blob of cells `cells` of row `row`.
fn blob_of(solid: &Solid, row: usize, cells: &[(usize, usize)]) -> Blob {
    let (mut sum, mut lo, mut hi) = (DVec3::ZERO, DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for &(x, z) in cells {
        let c = solid.centre(x, row, z);
        sum += c;
        lo = lo.min(c);
        hi = hi.max(c);
    }
    Blob { cells: cells.len(), centroid: sum / cells.len().max(1) as f64, lo, hi }
}

fn largest_first(mut out: Vec<Blob>) -> Vec<Blob> {
    out.sort_by_key(|b| std::cmp::Reverse(b.cells));
    out
}

/// The connected pieces (4-connected in x and z) of row `row`, largest first.
#[must_use]
pub fn blobs(solid: &Solid, row: usize) -> Vec<Blob> {
    largest_first(pieces(solid, row).iter().map(|cells| blob_of(solid, row, cells)).collect())
}

/// A piece spanning the centre line is two legs touching when it is notched there: its depth (z)
/// at the centre line is under this share of its deepest column.
const NOTCH: f64 = 0.6;

/// The pieces of row `row` with legs that touch split apart: a piece across the centre line
/// x = `cx` that is notched there (two legs side by side, or a leg and a thin cape) becomes its
/// cells on either side. Largest first.
#[must_use]
pub fn leg_pieces(solid: &Solid, row: usize, cx: f64) -> Vec<Blob> {
    let Some([mid, _, _]) =
        solid.cell_of(DVec3::new(cx, solid.origin.y + 0.5 * solid.cell, solid.origin.z + 0.5 * solid.cell))
    else {
        return blobs(solid, row);
    };
    let mut out = Vec::new();
    for cells in pieces(solid, row) {
        let mut depth = vec![0usize; solid.dims[0]];
        for &(x, _) in &cells {
            depth[x] += 1;
        }
        let deepest = depth.iter().copied().max().unwrap_or(0);
        let spans = cells.iter().any(|c| c.0 < mid) && cells.iter().any(|c| c.0 > mid);
        if spans && (depth[mid] as f64) < NOTCH * deepest as f64 {
            let (left, right): (Vec<_>, Vec<_>) = cells.iter().copied().filter(|c| c.0 != mid).partition(|c| c.0 < mid);
            for half in [left, right] {
                if !half.is_empty() {
                    out.push(blob_of(solid, row, &half));
                }
            }
        } else {
            out.push(blob_of(solid, row, &cells));
        }
    }
    largest_first(out)
}

/// The blob of row `row` nearest (in x and z) to `near`, if the row has any within `reach`.
#[must_use]
pub fn blob_near(solid: &Solid, row: usize, near: DVec3, reach: f64) -> Option<Blob> {
    nearest(blobs(solid, row), near, reach)
}

/// The blob of `blobs` nearest (in x and z) to `near`, if any is within `reach`.
#[must_use]
pub fn nearest(blobs: Vec<Blob>, near: DVec3, reach: f64) -> Option<Blob> {
    let flat = |p: DVec3| DVec3::new(p.x, 0.0, p.z);
    let distance = |b: &Blob| {
        let clamped = near.clamp(b.lo, b.hi);
        (flat(clamped) - flat(near)).length()
    };
    blobs.into_iter().filter(|b| distance(b) <= reach).min_by(|a, b| distance(a).total_cmp(&distance(b)))
}
