//! Dual quaternion skinning (Kavan et al. 2008; spec "dqs") of the rigid parts: blend the
//! members' unit dual quaternions linearly with the pivot sign rule (pre-signed per set and pivot
//! in [`SkinFrame`]), normalise, apply to v_s and the rotation to n_s. The set-flag dispatch, the
//! stretch step and the lanes' walk are [`Split`]'s.

use glam::{Vec3, Vec3A, Vec4};

use super::arith::{blend, cross, inverse_length, recip, Arith};
use super::frame::{SkinFrame, SET_EMPTY};
#[cfg(target_arch = "x86_64")]
use super::kernel::Eight;
use super::kernel::{Method, Sets};
#[cfg(target_arch = "x86_64")]
use super::lanes::{Lane, Q, Q8, V, V8};
use super::split::{Rigid, Split};
use super::DeformedPrimitive;
use crate::model::Influences;

pub use super::split::MIXED_FROM;

/// DQS's rigid part over one prepared frame: the pre-signed quaternions and dual parts.
#[derive(Clone, Copy)]
pub(crate) struct Dqs<'a> {
    quats: &'a [Vec4],
    duals: &'a [Vec4],
}

/// Applies the normalised blend of `real + ε dual` to `vs` and its rotation to `ns`. With
/// `L = |real|`, the normalised dual quaternion `(real + ε dual) / L` rotates by the sqrt-free
/// `Q_real / L²` and translates by `2 dual real* / L²`, so only `2 / L²` is needed (no square
/// root, and the scale factor is off the critical path); the rotated normal is normalised by
/// `1 / |ns|`, which a rotation keeps.
#[inline(always)]
fn apply<M: Arith>(real: Vec4, dual: Vec4, vs: Vec3A, ns: Vec3A) -> (Vec3A, Vec3A) {
    let inv_n = inverse_length(ns);
    let k = 2.0 * recip(real.length_squared());
    let u0 = Vec3A::new(real.x, real.y, real.z);
    let ue = Vec3A::new(dual.x, dual.y, dual.z);
    let translation = k * (M::madd3(Vec3A::splat(real.w), ue, cross::<M>(u0, ue)) - dual.w * u0);
    let (p, n) = M::rotate_pair(u0, real.w, k, vs, ns);
    (p + translation, n * inv_n)
}

impl<'a> Method<'a> for Split<'a, Dqs<'a>> {
    fn prepare<const K: usize>(sets: Sets<'a>, frame: &'a SkinFrame) -> Option<Self> {
        let n = sets.len() * K * K;
        let fits = frame.quats.len() >= n && frame.duals.len() >= n;
        Split::new::<K>(sets, frame, fits.then_some(Dqs { quats: &frame.quats, duals: &frame.duals }))
    }
}

impl<const K: usize> Rigid<K> for Dqs<'_> {
    #[cfg(target_arch = "x86_64")]
    type Lanes<F: Lane> = (Q<F>, Q<F>);
    #[cfg(target_arch = "x86_64")]
    type Mixed = ([Vec4; 8], [Vec4; 8]);

    /// Every set but an empty one (one joint, the LBS fallback).
    #[inline(always)]
    fn lbs_set(flags: u8) -> bool {
        flags & SET_EMPTY == 0
    }

    /// An empty set: the rest shape.
    #[inline(always)]
    unsafe fn other(&self, _: u8, _: usize, _: usize, _: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        (p, n)
    }

    #[inline(always)]
    unsafe fn rigid<M: Arith>(&self, set: usize, pivot: usize, w: &[f32; K], vs: Vec3A, ns: Vec3A) -> (Vec3A, Vec3A) {
        let row = (set * K + pivot) * K;
        apply::<M>(blend::<K, _>(self.quats, row, w), blend::<K, _>(self.duals, row, w), vs, ns)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn blend_lanes<F: Lane>(&self, set: usize, pivot: usize, wk: &[F; K]) -> (Q<F>, Q<F>) {
        let row = (set * K + pivot) * K;
        (Q::blend::<K>(&self.quats[row..row + K], wk), Q::blend::<K>(&self.duals[row..row + K], wk))
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn finish_loading<F: Lane, const NORMALS: bool>(
        &self,
        _: usize,
        b: (Q<F>, Q<F>),
        scale: Option<F>,
        g: &mut Eight<'_>,
    ) {
        let (real, dual) = b;
        let k = real.rotation_scale();
        let translation = translation(real, dual, k);
        real.rotate(k, V::<F>::load(g.p).scale_by(scale)).add(translation).store(g.op);
        if NORMALS {
            real.rotate_normal(k, V::<F>::load(g.n)).store(g.on);
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn finish<const NORMALS: bool>(&self, _: usize, b: (Q8, Q8), v: V8, nv: V8, g: &mut Eight<'_>) {
        finish::<NORMALS>(b.0, b.1, v, nv, g);
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn blend_lane(&self, (real, dual): &mut Self::Mixed, l: usize, set: usize, pivot: usize, w: &[f32; K]) {
        let row = (set * K + pivot) * K;
        real[l] = blend::<K, _>(self.quats, row, w);
        dual[l] = blend::<K, _>(self.duals, row, w);
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn finish_mixed<const NORMALS: bool>(m: &Self::Mixed, v: V8, nv: V8, g: &mut Eight<'_>) {
        finish::<NORMALS>(Q8::from_lanes(&m.0), Q8::from_lanes(&m.1), v, nv, g);
    }
}

/// The translation of the blended dual quaternion `real + ε dual` (with `k = 2 / |real|²`):
/// `k (w_r u_d − w_d u_r + u_r × u_d)`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn translation<F: Lane>(real: Q<F>, dual: Q<F>, k: F) -> V<F> {
    dual.u.madd(real.w, real.u.cross(dual.u)).sub(real.u.scale(dual.w)).scale(k)
}

/// The normalised blend `real + ε dual` of eight vertices applied to `v` (and its rotation to
/// `nv` with `NORMALS`), stored into `g.op` (and `g.on`): `apply` in eight lanes, rounded alike.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn finish<const NORMALS: bool>(real: Q8, dual: Q8, v: V8, nv: V8, g: &mut Eight<'_>) {
    let k = real.rotation_scale();
    let translation = translation(real, dual, k);
    real.rotate(k, v).add(translation).store(g.op);
    if NORMALS {
        real.rotate_normal(k, nv).store(g.on);
    }
}

/// Deforms one primitive by DQS into `out`; `frame` must be prepared for DQS (otherwise the
/// primitive keeps its rest shape).
pub fn dqs(
    frame: &SkinFrame,
    inf: &Influences,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out: &mut DeformedPrimitive,
) {
    super::vertex_pass::deform::<Split<Dqs>>(frame, inf, super::Rest { positions, normals, morph: None }, out);
}
