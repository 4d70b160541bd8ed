//! Harmonic inpainting on a triangle surface (the second stage of robust skin weights transfer,
//! Abdrashitov et al. 2023): values known at some vertices, the others filled by minimising the
//! Dirichlet energy `Σ w_ij (x_i − x_j)²` over the cotangent stiffness (edge weights clamped to a
//! small positive floor, as bone heat does), i.e. solving `L_ff x_f = −L_fc x_c` with ONE sparse
//! Cholesky factorisation for every column.
//!
//! Invariant: a free vertex in a connected part without any known vertex has no solution; it is
//! left as it was and counted in [`Inpainted::unreached`].

use faer::linalg::solvers::Solve;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Mat, Side};
use glam::DVec3;

use super::heat::stiffness;
use super::solve::SolveError;
use super::surface::Surface;

/// What [`inpaint`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inpainted {
    /// Free vertices that were solved.
    pub solved: usize,
    /// Free vertices in parts without a known vertex (left unchanged), ascending.
    pub unreached: Vec<u32>,
}

/// Fills the free entries (`known[i] == false`) of every column of `columns` (each `positions.len()`
/// long) harmonically from the known ones over the surface `(positions, triangles)`; triangles
/// with repeated or out-of-range corners are ignored.
pub fn inpaint(
    positions: &[DVec3],
    triangles: &[[u32; 3]],
    known: &[bool],
    columns: &mut [Vec<f64>],
) -> Result<Inpainted, SolveError> {
    let n = positions.len();
    let triangles: Vec<[u32; 3]> = triangles
        .iter()
        .filter(|t| t.iter().all(|&i| (i as usize) < n) && t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .copied()
        .collect();
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for p in positions.iter().filter(|p| p.is_finite()) {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let diagonal = if lo.x <= hi.x { (hi - lo).length() } else { 0.0 };
    let surface = Surface { positions: positions.to_vec(), triangles, diagonal, ..Surface::default() };
    let edges = stiffness(&surface).edges;
    let is_known = |i: usize| known.get(i).copied().unwrap_or(false);
    // Free vertices reached from a known one through free or known neighbours.
    let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(i, j, _) in &edges {
        neighbours[i as usize].push(j);
        neighbours[j as usize].push(i);
    }
    let mut reached: Vec<bool> = (0..n).map(is_known).collect();
    let mut queue: Vec<u32> = (0..n as u32).filter(|&i| reached[i as usize]).collect();
    while let Some(v) = queue.pop() {
        for &u in &neighbours[v as usize] {
            if !std::mem::replace(&mut reached[u as usize], true) {
                queue.push(u);
            }
        }
    }
    let unreached: Vec<u32> = (0..n as u32).filter(|&i| !reached[i as usize]).collect();
    // Compact numbering of the free, reached vertices.
    let mut row = vec![u32::MAX; n];
    let mut free = 0u32;
    for i in 0..n {
        if !is_known(i) && reached[i] {
            row[i] = free;
            free += 1;
        }
    }
    let m = free as usize;
    if m == 0 {
        return Ok(Inpainted { solved: 0, unreached });
    }
    let mut diag = vec![0.0f64; m];
    let mut triplets: Vec<Triplet<u32, u32, f64>> = Vec::with_capacity(m + edges.len());
    let mut rhs = Mat::<f64>::zeros(m, columns.len());
    for &(i, j, w) in &edges {
        let (ri, rj) = (row[i as usize], row[j as usize]);
        if ri != u32::MAX {
            diag[ri as usize] += w;
        }
        if rj != u32::MAX {
            diag[rj as usize] += w;
        }
        match (ri != u32::MAX, rj != u32::MAX) {
            (true, true) => triplets.push(Triplet::new(ri.max(rj), ri.min(rj), -w)),
            (true, false) => {
                for (c, col) in columns.iter().enumerate() {
                    rhs[(ri as usize, c)] += w * col.get(j as usize).copied().unwrap_or(0.0);
                }
            }
            (false, true) => {
                for (c, col) in columns.iter().enumerate() {
                    rhs[(rj as usize, c)] += w * col.get(i as usize).copied().unwrap_or(0.0);
                }
            }
            (false, false) => {}
        }
    }
    triplets.extend(diag.iter().enumerate().map(|(k, &d)| Triplet::new(k as u32, k as u32, d)));
    let matrix = SparseColMat::<u32, f64>::try_new_from_triplets(m, m, &triplets)
        .map_err(|e| SolveError::Factorisation(format!("{e:?}")))?;
    super::solve::check_fill(&matrix)?;
    let llt = matrix.as_ref().sp_cholesky(Side::Lower).map_err(|e| SolveError::Factorisation(format!("{e:?}")))?;
    llt.solve_in_place(rhs.as_mut());
    for (c, col) in columns.iter_mut().enumerate() {
        col.resize(n, 0.0);
        for i in 0..n {
            if row[i] != u32::MAX {
                col[i] = rhs[(row[i] as usize, c)];
            }
        }
    }
    Ok(Inpainted { solved: m, unreached })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strip of unit squares along x: vertices (i, 0) and (i, 1).
    fn strip(len: u32) -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let mut pos = Vec::new();
        let mut tri = Vec::new();
        for i in 0..=len {
            pos.push(DVec3::new(f64::from(i), 0.0, 0.0));
            pos.push(DVec3::new(f64::from(i), 1.0, 0.0));
            if i > 0 {
                let (a, b, c, d) = (2 * i - 2, 2 * i - 1, 2 * i, 2 * i + 1);
                tri.push([a, c, d]);
                tri.push([a, d, b]);
            }
        }
        (pos, tri)
    }

    #[test]
    fn a_strip_fills_linearly_between_its_ends() {
        let (pos, tri) = strip(10);
        let known: Vec<bool> = (0..pos.len()).map(|i| i < 2 || i >= pos.len() - 2).collect();
        let mut col: Vec<f64> = (0..pos.len()).map(|i| if i >= pos.len() - 2 { 1.0 } else { 0.0 }).collect();
        let out = inpaint(&pos, &tri, &known, std::slice::from_mut(&mut col)).unwrap();
        assert_eq!(out.solved, pos.len() - 4);
        assert!(out.unreached.is_empty());
        for (i, p) in pos.iter().enumerate() {
            assert!((col[i] - p.x / 10.0).abs() < 1e-6, "vertex {i}: {} against {}", col[i], p.x / 10.0);
        }
    }

    #[test]
    fn a_part_without_known_vertices_is_left_alone() {
        let (mut pos, mut tri) = strip(2);
        let base = pos.len() as u32;
        pos.extend([DVec3::new(5.0, 0.0, 0.0), DVec3::new(6.0, 0.0, 0.0), DVec3::new(5.0, 1.0, 0.0)]);
        tri.push([base, base + 1, base + 2]);
        let known: Vec<bool> = (0..pos.len()).map(|i| i < 2).collect();
        let mut col = vec![0.25; pos.len()];
        col[base as usize] = 7.0;
        let out = inpaint(&pos, &tri, &known, std::slice::from_mut(&mut col)).unwrap();
        assert_eq!(out.unreached, vec![base, base + 1, base + 2]);
        assert_eq!(col[base as usize], 7.0);
        assert!(col[..base as usize].iter().all(|&x| (x - 0.25).abs() < 1e-12), "{col:?}");
    }
}
