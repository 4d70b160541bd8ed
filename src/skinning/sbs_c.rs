//! Continuous spherical blend skinning (`sbs-c`, skinlab's own; definition and properties in
//! `docs/sbs-c.md`). SBS's centre r_c depends on which joints have non-zero weight, so a weight
//! painted down to zero makes the vertex jump. Here each vertex gets its own centre
//!
//! ```text
//! c(v) = argmin_r Σ_{a<b} w_a w_b |(R_a − R_b) r − (t_b − t_a)|² + λ |r − v_s|²,   λ = 1e-6,
//! ```
//!
//! a rational function of the weights with a denominator of at least λ³, so it is continuous in
//! them, and v' = Q (v_s − c) + Σ w_i D_i c with SBS's QLERP rotation Q. Per set and pose the frame
//! holds each slot pair's normal equations (`SkinFrame::pairs`) and each member's rigid part
//! (`SkinFrame::rigid`); per vertex this is a weighted sum of pair tables, a 3x3 Cholesky solve
//! and the SBS formula, in f64.

use glam::{DQuat, DVec3, DVec4, Vec3, Vec3A};

use super::frame::{SkinFrame, SET_EMPTY, SET_LBS_FALLBACK, SET_STRETCH};
use super::lbs::{apply_cols, blend_cols};
use super::vertex_pass::{self, unit, Arith, Plain, VertexKernel};
use super::{blend_stretch, DeformedPrimitive};
use crate::model::Influences;

/// The Tikhonov weight λ pulling each vertex's centre toward its own rest position (dimensionless:
/// the pair terms are differences of rotations).
pub const TIKHONOV: f64 = 1e-6;

/// The continuous centre of a vertex: `pairs` the set's pair tables (slot pairs `a < b` in order),
/// `w` its weights, `vs` its (stretched) rest position. Solves `(Σ w_a w_b DᵀD + λI) c =
/// Σ w_a w_b Dᵀe + λ vs` by Cholesky (the matrix is symmetric positive definite).
#[must_use]
pub fn continuous_centre(pairs: &[[f64; 9]], w: &[f32], vs: DVec3) -> DVec3 {
    let mut m = [TIKHONOV, 0.0, 0.0, TIKHONOV, 0.0, TIKHONOV];
    let mut b = vs * TIKHONOV;
    let mut pair = 0;
    for a in 0..w.len() {
        for c in a + 1..w.len() {
            let ww = f64::from(w[a]) * f64::from(w[c]);
            if let Some(t) = pairs.get(pair).filter(|_| ww != 0.0) {
                for (mi, ti) in m.iter_mut().zip(t) {
                    *mi += ww * ti;
                }
                b += ww * DVec3::new(t[6], t[7], t[8]);
            }
            pair += 1;
        }
    }
    let [xx, xy, xz, yy, yz, zz] = m;
    let l00 = xx.sqrt();
    let l10 = xy / l00;
    let l20 = xz / l00;
    let l11 = (yy - l10 * l10).sqrt();
    let l21 = (yz - l20 * l10) / l11;
    let l22 = (zz - l20 * l20 - l21 * l21).sqrt();
    let y0 = b.x / l00;
    let y1 = (b.y - l10 * y0) / l11;
    let y2 = (b.z - l20 * y0 - l21 * y1) / l22;
    let z = y2 / l22;
    let y = (y1 - l21 * z) / l11;
    let x = (y0 - l10 * y - l20 * z) / l00;
    let c = DVec3::new(x, y, z);
    if c.is_finite() {
        c
    } else {
        vs
    }
}

/// The kernel over one prepared frame.
#[derive(Clone, Copy)]
struct SbsC<'a> {
    frame: &'a SkinFrame,
    /// The largest valid set id.
    last: u32,
}

impl<const K: usize> VertexKernel<K> for SbsC<'_> {
    #[inline]
    fn vertex<M: Arith>(&self, word: u32, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        let f = self.frame;
        let (set, pivot) = vertex_pass::locate::<K>(word, self.last);
        let flags = f.flags[set];
        if flags & SET_EMPTY != 0 {
            return (p, n);
        }
        if flags & SET_LBS_FALLBACK != 0 {
            // SAFETY: `pass` checked that `cols` holds `last + 1` sets of K members.
            return apply_cols::<Plain>(&unsafe { blend_cols::<K, Plain>(&f.cols, set, w) }, p, n);
        }
        let (vs, ns) = if flags & SET_STRETCH != 0 { blend_stretch::<K>(f, set * K, w, p, n) } else { (p, n) };
        let vs = Vec3::from(vs).as_dvec3();
        let pairs_per_set = K * (K - 1) / 2;
        let centre = continuous_centre(&f.pairs[set * pairs_per_set..(set + 1) * pairs_per_set], w, vs);
        let row = (set * K + pivot) * K;
        let mut s = DVec4::ZERO;
        let mut shift = DVec3::ZERO;
        for (m, &weight) in w.iter().enumerate() {
            let wm = f64::from(weight);
            s += wm * f.quats[row + m].as_dvec4();
            let (r, t) = f.rigid[set * K + m];
            shift += wm * (r * centre + t);
        }
        let q = DQuat::from_vec4(s).normalize();
        let pos = q * (vs - centre) + shift;
        let normal = q * Vec3::from(ns).as_dvec3();
        (Vec3A::from(pos.as_vec3()), unit(Vec3A::from(normal.as_vec3())))
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn lanes(&self, _: u32, _: &[f32], _: &[Vec3], _: &[Vec3], _: &mut [Vec3], _: &mut [Vec3]) -> bool {
        false
    }
}

fn pass<const K: usize>(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    let sets = frame.flags.len();
    let ok = sets > 0
        && frame.slots == K
        && frame.cols.len() >= sets * K
        && frame.quats.len() >= sets * K * K
        && frame.stretches.len() >= sets * K
        && frame.rigid.len() >= sets * K
        && frame.pairs.len() >= sets * (K * (K - 1) / 2);
    if !ok {
        super::rest_copy(positions, normals, out);
        return;
    }
    vertex_pass::run::<K, _>(&SbsC { frame, last: sets as u32 - 1 }, inf, positions, normals, out);
}

/// Deforms one primitive by continuous SBS into `out`; `frame` must be prepared for
/// [`super::SkinningMethod::SbsC`] (otherwise the primitive keeps its rest shape).
pub fn sbs_c(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    super::dispatch_slots!(inf.slots(), pass, frame, inf, positions, normals, out);
}
