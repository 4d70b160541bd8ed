//! One vertex's weights: the least-squares blend on the probability simplex with at most `limit`
//! non-zero entries. Given the Gram matrix `G = Σ_f A_fᵀ A_f` (`m × m`, row-major; column `k` of
//! `A_f` is candidate `k`'s position of the vertex at sample `f`) and `h = Σ_f A_fᵀ y_f`, it
//! minimises `½ wᵀ G w − hᵀ w` subject to `w ≥ 0`, `Σ w = 1` by a primal active-set method (the
//! equality-constrained solve on the free set is a small KKT system), then, when more than
//! `limit` weights are positive, solves again over the `limit` largest. Deterministic; the
//! caller adds any ridge to `G` and `h`.

/// Most candidates a vertex may have.
pub const MAX_CANDIDATES: usize = 16;

/// Solves `[G_PP 1; 1ᵀ 0] [w; ν] = [h_P; 1]` by Gaussian elimination with partial pivoting.
fn solve_free(gram: &[f64], rhs: &[f64], m: usize, free: &[usize]) -> Option<(Vec<f64>, f64)> {
    let n = free.len() + 1;
    let mut a = vec![0.0; n * (n + 1)];
    let w = n + 1;
    for (r, &i) in free.iter().enumerate() {
        for (c, &j) in free.iter().enumerate() {
            a[r * w + c] = gram[i * m + j];
        }
        a[r * w + n - 1] = 1.0;
        a[r * w + n] = rhs[i];
        a[(n - 1) * w + r] = 1.0;
    }
    a[(n - 1) * w + n] = 1.0;
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x * w + col].abs().total_cmp(&a[y * w + col].abs()))?;
        if a[pivot * w + col].abs() < 1e-300 {
            return None;
        }
        if pivot != col {
            for k in 0..w {
                a.swap(pivot * w + k, col * w + k);
            }
        }
        for r in 0..n {
            if r == col {
                continue;
            }
            let f = a[r * w + col] / a[col * w + col];
            if f != 0.0 {
                for k in col..w {
                    a[r * w + k] -= f * a[col * w + k];
                }
            }
        }
    }
    let x: Vec<f64> = (0..n).map(|r| a[r * w + n] / a[r * w + r]).collect();
    x.iter().all(|v| v.is_finite()).then(|| (x[..n - 1].to_vec(), x[n - 1]))
}

/// The active-set solve over the candidates in `allowed`; the result has zeros elsewhere.
fn active_set(gram: &[f64], rhs: &[f64], m: usize, allowed: &[usize]) -> Vec<f64> {
    let mut w = vec![0.0; m];
    // Start at the best single candidate.
    let Some(&first) = allowed.iter().min_by(|&&a, &&b| {
        (0.5 * gram[a * m + a] - rhs[a]).total_cmp(&(0.5 * gram[b * m + b] - rhs[b])).then(a.cmp(&b))
    }) else {
        return w;
    };
    w[first] = 1.0;
    let mut free = vec![first];
    let scale = allowed.iter().map(|&k| gram[k * m + k].abs()).fold(0.0, f64::max).max(1e-300);
    for _ in 0..(4 * m + 8) {
        let Some((s, nu)) = solve_free(gram, rhs, m, &free) else { break };
        if s.iter().all(|&x| x > 0.0) {
            for (&i, &x) in free.iter().zip(&s) {
                w[i] = x;
            }
            // Multipliers of the bound constraints: μ_k = (G w − h)_k + ν.
            let mut best: Option<(usize, f64)> = None;
            for &k in allowed.iter().filter(|k| !free.contains(k)) {
                let mu = (0..m).map(|j| gram[k * m + j] * w[j]).sum::<f64>() - rhs[k] + nu;
                if mu < -1e-12 * scale && best.is_none_or(|(_, b)| mu < b) {
                    best = Some((k, mu));
                }
            }
            match best {
                Some((k, _)) => free.push(k),
                None => break,
            }
        } else {
            // Step from w toward s until the first free weight reaches zero, and release it.
            let mut alpha: f64 = 1.0;
            for (&i, &x) in free.iter().zip(&s) {
                if x <= 0.0 {
                    alpha = alpha.min(w[i] / (w[i] - x));
                }
            }
            for (&i, &x) in free.iter().zip(&s) {
                w[i] += alpha * (x - w[i]);
            }
            free.retain(|&i| w[i] > 1e-12);
            for (k, x) in w.iter_mut().enumerate() {
                if !free.contains(&k) {
                    *x = 0.0;
                }
            }
            if free.is_empty() {
                w[first] = 1.0;
                free.push(first);
            }
        }
    }
    normalised(w)
}

fn normalised(mut w: Vec<f64>) -> Vec<f64> {
    for x in &mut w {
        *x = x.max(0.0);
    }
    let sum: f64 = w.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        for x in &mut w {
            *x /= sum;
        }
    }
    w
}

/// The simplex-constrained least-squares weights of `m` candidates (see the module docs), at most
/// `limit` of them positive.
#[must_use]
pub fn simplex_weights(gram: &[f64], rhs: &[f64], m: usize, limit: usize) -> Vec<f64> {
    let all: Vec<usize> = (0..m).collect();
    let w = active_set(gram, rhs, m, &all);
    if w.iter().filter(|&&x| x > 0.0).count() <= limit.max(1) {
        return w;
    }
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| w[b].total_cmp(&w[a]).then(a.cmp(&b)));
    order.truncate(limit.max(1));
    order.sort_unstable();
    active_set(gram, rhs, m, &order)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gram form of candidate columns `cols` (each a vector of rows) against `y`.
    fn normal(cols: &[Vec<f64>], y: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let m = cols.len();
        let mut g = vec![0.0; m * m];
        let mut h = vec![0.0; m];
        for a in 0..m {
            for b in 0..m {
                g[a * m + b] = cols[a].iter().zip(&cols[b]).map(|(x, y)| x * y).sum();
            }
            h[a] = cols[a].iter().zip(y).map(|(x, y)| x * y).sum();
        }
        (g, h)
    }

    #[test]
    fn recovers_a_convex_blend() {
        let cols = vec![vec![1.0, 0.0, 0.0, 2.0], vec![0.0, 1.0, 0.0, 1.0], vec![0.0, 0.0, 1.0, -1.0]];
        let w0 = [0.2, 0.5, 0.3];
        let y: Vec<f64> = (0..4).map(|r| (0..3).map(|k| w0[k] * cols[k][r]).sum()).collect();
        let (g, h) = normal(&cols, &y);
        let w = simplex_weights(&g, &h, 3, 4);
        for k in 0..3 {
            assert!((w[k] - w0[k]).abs() < 1e-9, "{w:?}");
        }
    }

    #[test]
    fn stays_on_the_simplex_and_under_the_limit() {
        // The unconstrained optimum is outside the simplex.
        let cols = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0], vec![-1.0, 0.5]];
        let (g, h) = normal(&cols, &[3.0, -2.0]);
        let w = simplex_weights(&g, &h, 4, 2);
        assert!(w.iter().all(|&x| x >= 0.0));
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(w.iter().filter(|&&x| x > 0.0).count() <= 2);
        assert_eq!(w[0], 1.0, "{w:?}");
    }
}
