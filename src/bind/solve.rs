//! The bone-heat linear solve: `(L + A H) W = A H P` for the wanted joints' columns of `P` at once,
//! with ONE sparse Cholesky factorisation (faer's supernodal/simplicial `LLᵀ` with its approximate
//! minimum degree fill-reducing ordering).
//!
//! Invariant: the matrix is symmetric positive definite when every connected part has a heated
//! vertex (see `heat.rs`); should round-off still make a pivot non-positive, the diagonal is shifted
//! by a tiny multiple of its mean and the factorisation retried.

use faer::linalg::solvers::Solve;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Mat, Side};

use super::heat::{Heat, Stiffness};

/// Diagonal shifts tried, as multiples of the mean diagonal, when a pivot is not positive.
const SHIFTS: [f64; 3] = [0.0, 1e-10, 1e-6];

/// Why the solve failed (the matrix could not be factorised even with a shifted diagonal).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the heat system could not be factorised ({0})")]
pub struct SolveError(pub String);

/// Solves for the columns `joints` (skin joint indices): returns one weight column per entry of
/// `joints`, each of `stiffness.areas.len()` values, in `joints` order.
pub fn solve_heat(
    stiffness: &Stiffness,
    heat: &Heat,
    joints: &[u16],
    progress: &mut dyn FnMut(f32),
) -> Result<Vec<Vec<f64>>, SolveError> {
    let n = stiffness.areas.len();
    if n == 0 || joints.is_empty() {
        return Ok(vec![Vec::new(); joints.len()]);
    }
    let mut diag: Vec<f64> = (0..n).map(|i| stiffness.areas[i] * heat.h[i]).collect();
    for &(i, j, w) in &stiffness.edges {
        diag[i as usize] += w;
        diag[j as usize] += w;
    }
    let mean = diag.iter().sum::<f64>() / n as f64;
    let mut last = String::new();
    for shift in SHIFTS {
        let mut triplets: Vec<Triplet<u32, u32, f64>> = Vec::with_capacity(n + stiffness.edges.len());
        for (i, &d) in diag.iter().enumerate() {
            triplets.push(Triplet::new(i as u32, i as u32, d + shift * mean));
        }
        // Lower triangle: row > column.
        triplets.extend(stiffness.edges.iter().map(|&(i, j, w)| Triplet::new(j, i, -w)));
        let matrix = SparseColMat::<u32, f64>::try_new_from_triplets(n, n, &triplets)
            .map_err(|e| SolveError(format!("{e:?}")))?;
        progress(0.3);
        let llt = match matrix.as_ref().sp_cholesky(Side::Lower) {
            Ok(llt) => llt,
            Err(e) => {
                last = format!("{e:?}");
                continue;
            }
        };
        progress(0.7);
        let mut rhs = Mat::<f64>::zeros(n, joints.len());
        let column_of = |joint: u16| joints.iter().position(|&j| j == joint);
        for i in 0..n {
            let scale = stiffness.areas[i] * heat.h[i];
            if scale > 0.0 {
                for &(joint, share) in &heat.sources[i] {
                    if let Some(c) = column_of(joint) {
                        rhs[(i, c)] = scale * share;
                    }
                }
            }
        }
        llt.solve_in_place(rhs.as_mut());
        progress(1.0);
        return Ok((0..joints.len()).map(|c| rhs.col_as_slice(c).to_vec()).collect());
    }
    Err(SolveError(last))
}
