//! Spherical blend skinning (Kavan and Žára 2005; spec "sbs"): QLERP of the members' rotations
//! about the joint set's least-squares centre r_c, with the paper's sqrt-free Q:
//! v' = Q (v_s − r_c) + Σ w_i D_i r_c, n' = normalise(Q n_s).
//! Per vertex this is a plain weighted sum: the quaternions come pre-signed against each possible
//! pivot and D_i r_c is prepared once per set per pose ([`SkinFrame`]). The set-flag dispatch, the
//! stretch step and the lanes' walk are [`Split`]'s.

use glam::{DQuat, DVec3, DVec4, Vec3, Vec3A, Vec4};

use super::arith::{blend, inverse_length, recip, unit, Arith, Plain};
use super::frame::{SkinFrame, SET_EMPTY, SET_LBS_FALLBACK, SET_ONE_JOINT, SET_STRETCH, SET_UNIFORM_STRETCH};
#[cfg(target_arch = "x86_64")]
use super::kernel::Eight;
use super::kernel::{Method, Sets};
#[cfg(target_arch = "x86_64")]
use super::lanes::{blend3, Lane, Q, Q8, V, V8};
use super::split::{Rigid, Split};
use super::stretch::Stretches;
use super::DeformedPrimitive;
use crate::model::Influences;

/// SBS's rigid part over one prepared frame: the pre-signed quaternions, the translations
/// `D_i r_c` and the centres (and the frame, for the far centres' f64 tables).
#[derive(Clone, Copy)]
pub(crate) struct Sbs<'a> {
    frame: &'a SkinFrame,
    quats: &'a [Vec4],
    points: &'a [Vec3A],
    centres: &'a [Vec3A],
}

/// `Q (vs − r_c) / (s · s) + t` and `normalise(Q ns)` for the blended quaternion `s` (any non-zero
/// length). `Q / (s · s)` is a rotation, so `normalise(Q ns) = (Q ns / (s · s)) / |ns|`.
#[inline(always)]
fn apply<M: Arith>(s: Vec4, t: Vec3A, centre: Vec3A, vs: Vec3A, ns: Vec3A) -> (Vec3A, Vec3A) {
    let inv_n = inverse_length(ns);
    let u = Vec3A::new(s.x, s.y, s.z);
    let k = 2.0 * recip(s.length_squared());
    let (p, n) = M::rotate_pair(u, s.w, k, vs - centre, ns);
    (p + t, n * inv_n)
}

impl<'a> Method<'a> for Split<'a, Sbs<'a>> {
    fn prepare<const K: usize>(sets: Sets<'a>, frame: &'a SkinFrame) -> Option<Self> {
        let (n, f) = (sets.len(), frame);
        let fits = f.quats.len() >= n * K * K
            && f.points.len() >= n * K
            && f.centres.len() >= n
            && f.far_centres.len() >= n
            && f.far_quats.len() >= n * K
            && f.far_points.len() >= n * K;
        let rigid = Sbs { frame, quats: &frame.quats, points: &frame.points, centres: &frame.centres };
        Split::new::<K>(sets, frame, fits.then_some(rigid))
    }
}

impl<const K: usize> Rigid<K> for Sbs<'_> {
    #[cfg(target_arch = "x86_64")]
    type Lanes<F: Lane> = (Q<F>, V<F>);
    #[cfg(target_arch = "x86_64")]
    type Mixed = ([Vec4; 8], [Vec3A; 8], [Vec3A; 8]);

    /// One joint or the LBS fallback, unless empty.
    #[inline(always)]
    fn lbs_set(flags: u8) -> bool {
        flags & (SET_ONE_JOINT | SET_LBS_FALLBACK) != 0 && flags & SET_EMPTY == 0
    }

    /// Empty sets and far centres (of rigid or stretched sets).
    #[cold]
    #[inline(never)]
    unsafe fn other(&self, flags: u8, set: usize, pivot: usize, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        if flags & SET_EMPTY != 0 {
            return (p, n);
        }
        let (vs, ns) = if flags & SET_STRETCH != 0 {
            Stretches::from_frame(self.frame).apply::<K, Plain>(flags & SET_UNIFORM_STRETCH != 0, set * K, w, p, n)
        } else {
            (p, n)
        };
        far_centre_vertex::<K>(self.frame, set, w, pivot, vs, ns)
    }

    #[inline(always)]
    unsafe fn rigid<M: Arith>(&self, set: usize, pivot: usize, w: &[f32; K], vs: Vec3A, ns: Vec3A) -> (Vec3A, Vec3A) {
        let s = blend::<K, _>(self.quats, (set * K + pivot) * K, w);
        let t = blend::<K, _>(self.points, set * K, w);
        apply::<M>(s, t, *self.centres.get_unchecked(set), vs, ns)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn blend_lanes<F: Lane>(&self, set: usize, pivot: usize, wk: &[F; K]) -> (Q<F>, V<F>) {
        let row = (set * K + pivot) * K;
        (Q::blend::<K>(&self.quats[row..row + K], wk), blend3::<K, _>(&self.points[set * K..set * K + K], wk))
    }

    /// The positions and normals are loaded only when they are rotated.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn finish_loading<F: Lane, const NORMALS: bool>(
        &self,
        set: usize,
        b: (Q<F>, V<F>),
        scale: Option<F>,
        g: &mut Eight<'_>,
    ) {
        let (s, t) = b;
        let k = s.rotation_scale();
        s.rotate(k, V::<F>::load(g.p).scale_by(scale).sub(V::splat(self.centres[set]))).add(t).store(g.op);
        if NORMALS {
            s.rotate_normal(k, V::<F>::load(g.n)).store(g.on);
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn finish<const NORMALS: bool>(&self, set: usize, b: (Q8, V8), v: V8, nv: V8, g: &mut Eight<'_>) {
        finish::<NORMALS>(b.0, b.1, V8::splat(self.centres[set]), v, nv, g);
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn blend_lane(&self, (s, t, c): &mut Self::Mixed, l: usize, set: usize, pivot: usize, w: &[f32; K]) {
        s[l] = blend::<K, _>(self.quats, (set * K + pivot) * K, w);
        t[l] = blend::<K, _>(self.points, set * K, w);
        c[l] = *self.centres.get_unchecked(set);
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn finish_mixed<const NORMALS: bool>(m: &Self::Mixed, v: V8, nv: V8, g: &mut Eight<'_>) {
        finish::<NORMALS>(Q8::from_lanes(&m.0), V8::from_lanes(&m.1), V8::from_lanes(&m.2), v, nv, g);
    }
}

/// `apply` in eight lanes, rounded alike: `Q (v − centre) / (s · s) + t` into `g.op` and, with
/// `NORMALS`, `normalise(Q nv)` into `g.on`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn finish<const NORMALS: bool>(s: Q8, t: V8, centre: V8, v: V8, nv: V8, g: &mut Eight<'_>) {
    let k = s.rotation_scale();
    s.rotate(k, v.sub(centre)).add(t).store(g.op);
    if NORMALS {
        s.rotate_normal(k, nv).store(g.on);
    }
}

/// SBS of a vertex whose set has a far centre, in f64: the same formula as the fast path, with
/// the |r_c|-sized terms kept to double precision.
fn far_centre_vertex<const K: usize>(
    frame: &SkinFrame,
    set: usize,
    w: &[f32; K],
    pivot: usize,
    vs: Vec3A,
    ns: Vec3A,
) -> (Vec3A, Vec3A) {
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
    let q = DQuat::from_vec4(s).normalize();
    let pos = q * (Vec3::from(vs).as_dvec3() - frame.far_centres[set]) + t;
    (pos.as_vec3().into(), unit(Vec3A::from((q * Vec3::from(ns).as_dvec3()).as_vec3())))
}

/// Deforms one primitive by SBS into `out`; `frame` must be prepared for SBS (otherwise the
/// primitive keeps its rest shape).
pub fn sbs(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    super::vertex_pass::deform::<Split<Sbs>>(frame, inf, super::Rest { positions, normals, morph: None }, out);
}
