//! The helpers' per-sample rigid transforms: a weighted Procrustes fit of points `u` (a vertex's
//! rest position in the helper's parent joint frame, `IBM_p · v`) to points `z` (where the helper
//! should carry it, in the same frame at that sample) with weights `c`, and one block
//! coordinate sweep over the helpers of one sample (SSDR's bone update).
//!
//! For helper `h` with weight `w` at vertex `i`, the rest of the blend is fixed, so the helper's
//! best point is `q = (y − P + w·B_h v) / w` (`y` the target, `P` the current blend, `B_h` the
//! helper's skin matrix), weighted `w²`. Helpers are updated one after another (Gauss–Seidel),
//! each seeing the others' latest transforms; samples are independent of each other.

use glam::{DAffine3, DMat3, DMat4, DVec3, Vec3};

use crate::maths::procrustes_rotation;

/// Weight of the pull toward the parent's motion (`X = I`), in points of unit weight at the
/// helper's radius: negligible for a helper that many vertices use, decisive for one used only
/// with tiny weights or by a degenerate set of points (on a line, one vertex), whose rotation
/// would otherwise be arbitrary and jump from sample to sample.
pub const PRIOR_POINTS: f64 = 0.01;

/// Sums of one weighted Procrustes problem.
#[derive(Clone, Copy, Debug)]
pub struct RigidFit {
    weight: f64,
    u: DVec3,
    z: DVec3,
    zu: DMat3,
}

impl Default for RigidFit {
    /// No points (glam's default matrix is the identity, not zero).
    fn default() -> Self {
        Self { weight: 0.0, u: DVec3::ZERO, z: DVec3::ZERO, zu: DMat3::ZERO }
    }
}

impl RigidFit {
    /// Adds point `u` carried to `z` with weight `c` (≥ 0).
    pub fn add(&mut self, u: DVec3, z: DVec3, c: f64) {
        self.weight += c;
        self.u += c * u;
        self.z += c * z;
        self.zu += DMat3::from_cols(z * (c * u.x), z * (c * u.y), z * (c * u.z));
    }

    /// The rigid transform `x ↦ R x + t` of least weighted squared error plus `prior · tr(I − R)`
    /// (a pull toward no rotation); `current` itself when there are no points or the fit fails.
    #[must_use]
    pub fn solve(&self, current: DAffine3, prior: f64) -> DAffine3 {
        if self.weight.is_nan() || self.weight <= 0.0 {
            return current;
        }
        let ub = self.u / self.weight;
        let zb = self.z / self.weight;
        let outer = DMat3::from_cols(zb * ub.x, zb * ub.y, zb * ub.z) * self.weight;
        let h = self.zu - outer + DMat3::IDENTITY * prior;
        let Some(r) = procrustes_rotation(h) else { return current };
        DAffine3::from_mat3_translation(r, zb - r * ub)
    }
}

/// A helper joint as the fit sees it.
#[derive(Clone, Debug)]
pub struct HelperFrame {
    /// Its parent joint's node.
    pub parent: usize,
    /// Its rest translation in the parent's frame (where its origin sits).
    pub centre: DVec3,
    /// The radius of its seed's neighbourhood (the scale of the pull toward its parent's motion).
    pub radius: f64,
    /// The parent's inverse bind matrix in each skin (`None` where the parent is not a joint).
    pub parent_ibm: Vec<Option<DMat4>>,
}

impl HelperFrame {
    /// The helper's skin matrix in skin `s` at a sample whose parent global is `parent_global`.
    #[must_use]
    pub fn skin_matrix(&self, s: usize, parent_global: DMat4, x: DAffine3) -> DMat4 {
        parent_global * DMat4::from(x) * self.parent_ibm.get(s).copied().flatten().unwrap_or(DMat4::IDENTITY)
    }
}

/// Everything one sample's sweep reads.
pub struct SweepInput<'a> {
    /// The helpers.
    pub helpers: &'a [HelperFrame],
    /// Each vertex's skin.
    pub skin: &'a [usize],
    /// Each vertex's rest position.
    pub rest: &'a [DVec3],
    /// Each vertex's blend: (extended joint index in its skin, weight).
    pub blend: &'a [Vec<(u16, f64)>],
    /// Each helper's users: (vertex, weight).
    pub users: &'a [Vec<(u32, f64)>],
    /// The node globals of the sample.
    pub globals: &'a [DMat4],
    /// Targets of the sample.
    pub targets: &'a [Vec3],
}

/// The sample's skin matrices, originals then helpers, per skin: `bones[s][k]`.
#[must_use]
pub fn bone_matrices(
    joints: &[Vec<DMat4>],
    helpers: &[HelperFrame],
    helper_slots: &[Vec<usize>],
    globals: &[DMat4],
    xs: &[DAffine3],
) -> Vec<Vec<DMat4>> {
    joints
        .iter()
        .enumerate()
        .map(|(s, originals)| {
            let mut b = originals.clone();
            for &h in helper_slots.get(s).map_or(&[][..], Vec::as_slice) {
                let g = globals.get(helpers[h].parent).copied().unwrap_or(DMat4::IDENTITY);
                b.push(helpers[h].skin_matrix(s, g, xs[h]));
            }
            b
        })
        .collect()
}

/// Where the blend puts a vertex: `Σ w_k B_k v`.
#[must_use]
pub fn blend_position(bones: &[DMat4], blend: &[(u16, f64)], v: DVec3) -> DVec3 {
    blend.iter().map(|&(k, w)| w * bones.get(usize::from(k)).map_or(v, |b| b.transform_point3(v))).sum()
}

/// One Gauss–Seidel sweep over the helpers of one sample: updates `xs` and `bones` (whose helper
/// entries sit at `slot_of[h][s]`).
pub fn sweep(input: &SweepInput<'_>, slot_of: &[Vec<Option<u16>>], xs: &mut [DAffine3], bones: &mut [Vec<DMat4>]) {
    let mut blended: Vec<DVec3> =
        (0..input.rest.len()).map(|i| blend_position(&bones[input.skin[i]], &input.blend[i], input.rest[i])).collect();
    for (h, helper) in input.helpers.iter().enumerate() {
        let users = &input.users[h];
        if users.is_empty() {
            continue;
        }
        let g = input.globals.get(helper.parent).copied().unwrap_or(DMat4::IDENTITY);
        let g_inv = g.inverse();
        let mut fit = RigidFit::default();
        for &(i, w) in users {
            let i = i as usize;
            let s = input.skin[i];
            let Some(slot) = slot_of[h].get(s).copied().flatten() else { continue };
            let v = input.rest[i];
            let a = bones[s][usize::from(slot)].transform_point3(v);
            let q = (input.targets[i].as_dvec3() - blended[i] + w * a) / w;
            let u = helper.parent_ibm[s].unwrap_or(DMat4::IDENTITY).transform_point3(v);
            fit.add(u, g_inv.transform_point3(q), w * w);
        }
        let x = fit.solve(xs[h], PRIOR_POINTS * helper.radius * helper.radius);
        xs[h] = x;
        for (s, b) in bones.iter_mut().enumerate() {
            if let Some(slot) = slot_of[h].get(s).copied().flatten() {
                b[usize::from(slot)] = helper.skin_matrix(s, g, x);
            }
        }
        for &(i, _) in users {
            let i = i as usize;
            blended[i] = blend_position(&bones[input.skin[i]], &input.blend[i], input.rest[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn a_rigid_motion_is_recovered() {
        let r = DQuat::from_axis_angle(DVec3::new(0.3, -1.0, 0.2).normalize(), 0.7);
        let t = DVec3::new(0.5, -2.0, 1.0);
        let mut fit = RigidFit::default();
        for (k, u) in [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(1.0, 1.0, -2.0)].into_iter().enumerate() {
            fit.add(u, r * u + t, 1.0 + k as f64);
        }
        let x = fit.solve(DAffine3::IDENTITY, 0.0);
        assert!(x.matrix3.abs_diff_eq(DMat3::from_quat(r), 1e-6));
        assert!(x.translation.abs_diff_eq(t, 1e-6));
        assert_eq!(RigidFit::default().solve(DAffine3::IDENTITY, 1.0), DAffine3::IDENTITY);
    }
}
