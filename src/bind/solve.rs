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

/// The most values the Cholesky factor may hold: at 12 bytes each (value and row index), about
/// 1.5 GB. A mesh's factor has tens of values per vertex (a 1M-vertex character stays far below);
/// a tangled mesh of random triangles fills in without bound (64k such triangles needed 2 GB).
pub const MAX_FACTOR_VALUES: usize = 125_000_000;

/// Why the solve failed: the matrix could not be factorised even with a shifted diagonal, or its
/// factor would not fit the memory budget.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The factorisation failed.
    #[error("the heat system could not be factorised ({0})")]
    Factorisation(String),
    /// The factor would exceed [`MAX_FACTOR_VALUES`].
    #[error(
        "the heat system of {vertices} vertices would need {values} factor values (about {} MB), more than the \
         {} MB allowed: the mesh's connectivity is tangled (random or non-manifold triangles?)",
        (values * 12) >> 20, (MAX_FACTOR_VALUES * 12) >> 20
    )]
    TooLarge {
        /// Vertices of the system.
        vertices: usize,
        /// Values the factor would hold.
        values: usize,
    },
}

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
            .map_err(|e| SolveError::Factorisation(format!("{e:?}")))?;
        if shift == 0.0 {
            check_fill(&matrix)?;
        }
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
    Err(SolveError::Factorisation(last))
}

/// Refuses a system whose Cholesky factor (after the fill-reducing ordering) would hold more than
/// [`MAX_FACTOR_VALUES`] values, from the symbolic analysis alone, before memory goes to it.
pub(crate) fn check_fill(matrix: &SparseColMat<u32, f64>) -> Result<(), SolveError> {
    let symbolic = faer::sparse::linalg::cholesky::factorize_symbolic_cholesky(
        matrix.symbolic(),
        Side::Lower,
        Default::default(),
        Default::default(),
    )
    .map_err(|e| SolveError::Factorisation(format!("{e:?}")))?;
    let values = symbolic.len_val();
    if values > MAX_FACTOR_VALUES {
        return Err(SolveError::TooLarge { vertices: matrix.nrows(), values });
    }
    Ok(())
}
