//! Dual quaternion skinning (Kavan et al. 2008; spec "dqs") of the rigid parts: blend the
//! members' unit dual quaternions linearly with the pivot sign rule, normalise, apply to v_s and
//! the rotation to n_s.

use glam::{Vec3, Vec3A, Vec4};

use super::frame::{SkinFrame, SET_EMPTY, SET_LBS_FALLBACK, SET_STRETCH};
use super::lbs::{apply_rows, blend_rows};
use super::vertex_pass::{self, rotate_unnormalised, unit, VertexInput};
use super::{blend_stretch, DeformedPrimitive};
use crate::model::Influences;

fn pass<const K: usize>(frame: &SkinFrame, inf: &Influences, input: VertexInput<'_>, out: &mut DeformedPrimitive) {
    let weights = inf.weights();
    let sets = inf.packed_sets();
    vertex_pass::run(input, out, |v, p, n| {
        let (set, pivot) = Influences::unpack(sets[v]);
        let set = set as usize;
        let flags = frame.flags[set];
        let w = &weights[v * K..v * K + K];
        if flags & (SET_EMPTY | SET_LBS_FALLBACK) != 0 {
            if flags & SET_EMPTY != 0 {
                return (p, n);
            }
            return apply_rows(&blend_rows::<K>(frame, set, w), p, n);
        }
        let base = set * K;
        let quats = &frame.quats[base..base + K];
        let duals = &frame.duals[base..base + K];
        let qp = quats[pivot];
        let mut real = Vec4::ZERO;
        let mut dual = Vec4::ZERO;
        for m in 0..K {
            let signed = if qp.dot(quats[m]) < 0.0 { -w[m] } else { w[m] };
            real += signed * quats[m];
            dual += signed * duals[m];
        }
        let inv_len = real.length_recip();
        let c0 = real * inv_len;
        let ce = dual * inv_len;
        let (vs, ns) =
            if flags & SET_STRETCH != 0 { blend_stretch::<K>(frame, base, w, p, n) } else { (p.into(), n.into()) };
        let u0 = Vec3A::new(c0.x, c0.y, c0.z);
        let ue = Vec3A::new(ce.x, ce.y, ce.z);
        let translation = 2.0 * (c0.w * ue - ce.w * u0 + u0.cross(ue));
        let pos = rotate_unnormalised(c0, vs) + translation;
        (Vec3::from(pos), unit(rotate_unnormalised(c0, ns)))
    });
}

/// Deforms one primitive by DQS into `out`; `frame` must be prepared for DQS.
pub fn dqs(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    let input = VertexInput { positions, normals };
    super::dispatch_slots!(inf.slots(), pass, frame, inf, input, out);
}
