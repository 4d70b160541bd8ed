//! Linear blend skinning (spec "lbs"): v' = Σ w_i C_i v, n' = normalise((Σ w_i A_i) n).

use glam::{Vec3, Vec3A, Vec4};

use super::frame::{SkinFrame, SET_EMPTY};
use super::vertex_pass::{self, unit, VertexInput};
use super::DeformedPrimitive;
use crate::model::Influences;

/// Blends the members' C_j rows of one vertex with its weights.
#[inline(always)]
pub(crate) fn blend_rows<const K: usize>(frame: &SkinFrame, set: usize, w: &[f32]) -> [Vec4; 3] {
    let rows = &frame.rows[set * K..set * K + K];
    let mut m = [Vec4::ZERO; 3];
    for s in 0..K {
        let ws = w[s];
        m[0] += ws * rows[s][0];
        m[1] += ws * rows[s][1];
        m[2] += ws * rows[s][2];
    }
    m
}

/// LBS of one vertex given its blended rows.
#[inline(always)]
pub(crate) fn apply_rows(m: &[Vec4; 3], v: Vec3, n: Vec3) -> (Vec3, Vec3) {
    let v1 = v.extend(1.0);
    let n0 = n.extend(0.0);
    let p = Vec3::new(m[0].dot(v1), m[1].dot(v1), m[2].dot(v1));
    let q = Vec3A::new(m[0].dot(n0), m[1].dot(n0), m[2].dot(n0));
    (p, unit(q))
}

fn pass<const K: usize>(frame: &SkinFrame, inf: &Influences, input: VertexInput<'_>, out: &mut DeformedPrimitive) {
    let weights = inf.weights();
    let sets = inf.packed_sets();
    vertex_pass::run(input, out, |v, p, n| {
        let (set, _) = Influences::unpack(sets[v]);
        let set = set as usize;
        if frame.flags[set] & SET_EMPTY != 0 {
            return (p, n);
        }
        let m = blend_rows::<K>(frame, set, &weights[v * K..v * K + K]);
        apply_rows(&m, p, n)
    });
}

/// Deforms one primitive by LBS into `out`.
pub fn lbs(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    let input = VertexInput { positions, normals };
    super::dispatch_slots!(inf.slots(), pass, frame, inf, input, out);
}
