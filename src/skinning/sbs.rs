//! Spherical blend skinning (Kavan and Žára 2005; spec "sbs"): QLERP of the members' rotations
//! about the joint set's least-squares centre r_c, with the paper's sqrt-free Q:
//! v' = Q (v_s − r_c) + Σ w_i D_i r_c, n' = normalise(Q n_s).
//! Per vertex this is a plain weighted sum: D_i r_c is prepared once per set per pose.

use glam::{DQuat, DVec3, DVec4, Vec3, Vec3A, Vec4};

use super::frame::{SkinFrame, SET_EMPTY, SET_FAR_CENTRE, SET_LBS_FALLBACK, SET_STRETCH};
use super::lbs::{apply_rows, blend_rows};
use super::vertex_pass::{self, rotate_unnormalised, unit, VertexInput};
use super::{blend_stretch, DeformedPrimitive};
use crate::model::Influences;

/// QLERP with the pivot rule: s = Σ ±w_i q_i (q_i negated where q_pivot · q_i < 0), and
/// Σ w_i D_i r_c.
#[inline(always)]
fn blend<const K: usize>(quats: &[Vec4], points: &[Vec3A], w: &[f32], pivot: usize) -> (Vec4, Vec3A) {
    let qp = quats[pivot];
    let mut s = Vec4::ZERO;
    let mut t = Vec3A::ZERO;
    for m in 0..K {
        let wm = w[m];
        let signed = if qp.dot(quats[m]) < 0.0 { -wm } else { wm };
        s += signed * quats[m];
        t += wm * points[m];
    }
    (s, t)
}

/// SBS of a vertex whose set has a far centre, in f64: the same formula as the fast path, with
/// the |r_c|-sized terms kept to double precision.
#[inline(never)]
fn far_centre_vertex<const K: usize>(
    frame: &SkinFrame,
    set: usize,
    w: &[f32],
    pivot: usize,
    p: Vec3,
    n: Vec3,
) -> (Vec3, Vec3) {
    let base = set * K;
    let quats = &frame.far_quats[base..base + K];
    let qp = quats[pivot];
    let mut s = DVec4::ZERO;
    let mut t = DVec3::ZERO;
    for m in 0..K {
        let wm = f64::from(w[m]);
        s += if qp.dot(quats[m]) < 0.0 { -wm } else { wm } * quats[m];
        t += wm * frame.far_points[base + m];
    }
    let (vs, ns) = if frame.flags[set] & SET_STRETCH != 0 {
        blend_stretch::<K>(frame, base, w, p, n)
    } else {
        (p.into(), n.into())
    };
    let q = DQuat::from_vec4(s).normalize();
    let pos = q * (Vec3::from(vs).as_dvec3() - frame.far_centres[set]) + t;
    (pos.as_vec3(), unit(rotate_unnormalised(Vec4::from(s.as_vec4()), ns)))
}

fn pass<const K: usize>(frame: &SkinFrame, inf: &Influences, input: VertexInput<'_>, out: &mut DeformedPrimitive) {
    let weights = inf.weights();
    let sets = inf.packed_sets();
    vertex_pass::run(input, out, |v, p, n| {
        let (set, pivot) = Influences::unpack(sets[v]);
        let set = set as usize;
        let flags = frame.flags[set];
        let w = &weights[v * K..v * K + K];
        if flags & (SET_EMPTY | SET_LBS_FALLBACK | SET_FAR_CENTRE) != 0 {
            if flags & SET_EMPTY != 0 {
                return (p, n);
            }
            if flags & SET_LBS_FALLBACK != 0 {
                return apply_rows(&blend_rows::<K>(frame, set, w), p, n);
            }
            return far_centre_vertex::<K>(frame, set, w, pivot, p, n);
        }
        let base = set * K;
        let (s, t) = blend::<K>(&frame.quats[base..base + K], &frame.points[base..base + K], w, pivot);
        let (vs, ns) =
            if flags & SET_STRETCH != 0 { blend_stretch::<K>(frame, base, w, p, n) } else { (p.into(), n.into()) };
        let pos = rotate_unnormalised(s, vs - frame.centres[set]) / s.length_squared() + t;
        (Vec3::from(pos), unit(rotate_unnormalised(s, ns)))
    });
}

/// Deforms one primitive by SBS into `out`; `frame` must be prepared for SBS.
pub fn sbs(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    let input = VertexInput { positions, normals };
    super::dispatch_slots!(inf.slots(), pass, frame, inf, input, out);
}
