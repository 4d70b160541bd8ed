//! Smoothness of a weighting: the Dirichlet energy Σ_j ∫|∇w_j|² dA of the piecewise-linear weight
//! fields over the triangles, i.e. the quadratic form wᵀ L w of the cotangent Laplacian
//! (per triangle ½ Σ_edges cot θ_opposite · (w_a − w_b)²), summed over joints. It is dimensionless
//! and does not change when the model is scaled. Triangles are taken as stored: a seam of
//! duplicate vertices is a cut, so a jump across it costs nothing. Degenerate triangles are skipped.

use glam::DVec3;

use super::matching::MeshWeights;
use crate::model::Model;

/// The weight of `joint` in one vertex's influences (0 when absent).
fn weight(v: &[(u16, f32)], joint: u16) -> f64 {
    v.iter().filter(|p| p.0 == joint).map(|p| f64::from(p.1)).sum()
}

/// The Dirichlet energy of `weights` over `model`'s skinned triangles (see the module doc).
#[must_use]
pub fn dirichlet_energy(model: &Model, weights: &[MeshWeights]) -> f64 {
    let mut total = 0.0;
    let mut joints: Vec<u16> = Vec::new();
    for mw in weights {
        for (prim, verts) in model.meshes[mw.mesh].primitives.iter().zip(&mw.primitives) {
            for tri in &prim.triangles {
                let [a, b, c] = tri.map(|i| i as usize);
                let (Some(pa), Some(pb), Some(pc)) =
                    (prim.positions.get(a), prim.positions.get(b), prim.positions.get(c))
                else {
                    continue;
                };
                let (Some(wa), Some(wb), Some(wc)) = (verts.get(a), verts.get(b), verts.get(c)) else { continue };
                let Some(cot) = cotangents([pa.as_dvec3(), pb.as_dvec3(), pc.as_dvec3()]) else { continue };
                joints.clear();
                joints.extend(wa.iter().chain(wb).chain(wc).map(|p| p.0));
                joints.sort_unstable();
                joints.dedup();
                for &j in &joints {
                    let (fa, fb, fc) = (weight(wa, j), weight(wb, j), weight(wc, j));
                    // cot[0] is opposite vertex a (edge b-c), and so on.
                    total +=
                        0.5 * (cot[0] * (fb - fc).powi(2) + cot[1] * (fc - fa).powi(2) + cot[2] * (fa - fb).powi(2));
                }
            }
        }
    }
    total
}

/// Cotangents of the angles at the three corners, or `None` for a degenerate triangle.
fn cotangents(p: [DVec3; 3]) -> Option<[f64; 3]> {
    let twice_area = (p[1] - p[0]).cross(p[2] - p[0]).length();
    let scale = (p[1] - p[0]).length_squared().max((p[2] - p[0]).length_squared()).max((p[2] - p[1]).length_squared());
    if twice_area.is_nan() || twice_area <= 1e-12 * scale {
        return None;
    }
    let cot = |i: usize| {
        let (u, v) = (p[(i + 1) % 3] - p[i], p[(i + 2) % 3] - p[i]);
        u.dot(v) / twice_area
    };
    Some([cot(0), cot(1), cot(2)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_energy_of_a_linear_field_by_hand() {
        // f = x on the right triangle (0,0),(1,0),(0,1): |∇f|² = 1 over area ½.
        let c = cotangents([DVec3::ZERO, DVec3::X, DVec3::Y]).unwrap();
        let f = [0.0f64, 1.0, 0.0];
        let e = 0.5 * (c[0] * (f[1] - f[2]).powi(2) + c[1] * (f[2] - f[0]).powi(2) + c[2] * (f[0] - f[1]).powi(2));
        assert!((e - 0.5).abs() < 1e-12, "{e}");
        assert!(cotangents([DVec3::ZERO, DVec3::X, DVec3::X * 2.0]).is_none());
    }
}
