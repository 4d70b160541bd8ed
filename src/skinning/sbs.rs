//! Spherical blend skinning (Kavan and Žára 2005; spec "sbs"): QLERP of the members' rotations
//! about the joint set's least-squares centre r_c, with the paper's sqrt-free Q:
//! v' = Q (v_s − r_c) + Σ w_i D_i r_c, n' = normalise(Q n_s).
//! Per vertex this is a plain weighted sum: the quaternions come pre-signed against each possible
//! pivot and D_i r_c is prepared once per set per pose ([`SkinFrame`]).

use glam::{DQuat, DVec3, DVec4, Vec3, Vec3A, Vec4};

use super::arith::{blend, inverse_length, recip, unit, Arith, Plain};
use super::frame::{SkinFrame, SET_EMPTY, SET_LBS_FALLBACK, SET_ONE_JOINT, SET_STRETCH, SET_UNIFORM_STRETCH};
use super::lbs::{apply_cols, blend_cols};
use super::stretch::{Stretches, STRETCHED};
use super::vertex_pass::{self, VertexKernel};
use super::DeformedPrimitive;
use crate::model::Influences;

/// The SBS kernel over one prepared frame (its tables as slices, so that they stay in registers).
#[derive(Clone, Copy)]
struct Sbs<'a> {
    frame: &'a SkinFrame,
    flags: &'a [u8],
    cols: &'a [[Vec3A; 4]],
    quats: &'a [Vec4],
    points: &'a [Vec3A],
    centres: &'a [Vec3A],
    stretches: Stretches<'a>,
    /// The largest valid set id.
    last: u32,
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

impl<const K: usize> VertexKernel<K> for Sbs<'_> {
    #[inline(always)]
    fn vertex<M: Arith>(&self, word: u32, w: &[f32; K], p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
        let (set, pivot) = vertex_pass::locate::<K>(word, self.last);
        // SAFETY: `set <= last` and `pivot < K`; `pass` verified that the tables hold `last + 1`
        // sets (K members each, K² quaternions each).
        unsafe {
            let flags = *self.flags.get_unchecked(set);
            let (vs, ns) = if flags == 0 {
                (p, n)
            } else if flags & !STRETCHED == 0 {
                self.stretches.apply::<K, M>(flags & SET_UNIFORM_STRETCH != 0, set * K, w, p, n)
            } else if flags & (SET_ONE_JOINT | SET_LBS_FALLBACK) != 0 && flags & SET_EMPTY == 0 {
                // LBS's columns (LBS's cost).
                return apply_cols::<Plain>(&blend_cols::<K, Plain>(self.cols, set, w), p, n);
            } else {
                return slow_vertex::<K>(self.frame, flags, set, pivot, w, p, n);
            };
            // Blends with separate multiplies and adds (see `lbs`), rotations with FMA.
            let s = blend::<K, _>(self.quats, (set * K + pivot) * K, w);
            let t = blend::<K, _>(self.points, set * K, w);
            apply::<M>(s, t, *self.centres.get_unchecked(set), vs, ns)
        }
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn lanes<const NORMALS: bool>(&self, word: u32, w: &[f32], g: vertex_pass::Eight<'_>) -> bool {
        self.lanes_impl::<K, NORMALS>(word, w, g.p, g.n, g.op, g.on)
    }

    /// As DQS's.
    const MIXED_FROM: usize = super::dqs::MIXED_FROM;
    const MIXED_WITHOUT_NORMALS: bool = true;

    #[cfg(target_arch = "x86_64")]
    unsafe fn mixed<const NORMALS: bool>(
        &self,
        words: &[u32],
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) {
        self.mixed_impl::<K, NORMALS>(words, w, p, n, op, on);
    }
}

impl Sbs<'_> {
    /// See [`VertexKernel::lanes`].
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    unsafe fn lanes_impl<const K: usize, const NORMALS: bool>(
        &self,
        word: u32,
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) -> bool {
        use super::lanes::{blend3 as blend3_lanes, stretch, weights, Q8, V8};
        let (set, pivot) = vertex_pass::locate::<K>(word, self.last);
        let flags = self.flags[set];
        if flags & !STRETCHED != 0 {
            if flags & (SET_ONE_JOINT | SET_LBS_FALLBACK) == 0 || flags & SET_EMPTY != 0 {
                // Empty sets and far centres: the per-vertex path.
                return false;
            }
            // One joint, or the LBS fallback: LBS's eight-lane path.
            super::lbs::lanes_cols::<K, NORMALS>(&self.cols[set * K..set * K + K], w, p, n, op, on);
            return true;
        }
        if flags & SET_UNIFORM_STRETCH != 0 {
            self.uniform_lanes::<K, NORMALS>(set, pivot, w, p, n, op, on);
            return true;
        }
        let wk = weights::<K>(w);
        let row = (set * K + pivot) * K;
        let s = Q8::blend::<K>(&self.quats[row..row + K], &wk);
        let t = blend3_lanes::<K>(&self.points[set * K..set * K + K], &wk);
        if flags == 0 {
            // Unstretched: the positions and normals are loaded only when they are rotated
            // (fewer registers live at once: no spills).
            finish_loading::<NORMALS>(s, t, self.centres[set], None, p, n, op, on);
            return true;
        }
        let members = set * K..set * K + K;
        let (v, nv) = (V8::load(p), if NORMALS { V8::load(n) } else { V8::zero() });
        let (v, nv) = stretch::<K>(&self.stretches.matrices[members], &wk, v, nv);
        finish::<NORMALS>(s, t, V8::splat(self.centres[set]), v, nv, op, on);
        true
    }

    /// Eight vertices of a uniformly stretched set (`set`, pivot slot `pivot`): as the
    /// unstretched ones, each position scaled by its blended scale `Σ w_j s_j` as it is loaded.
    /// A function of its own, so that the unstretched path's registers stay as they were.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn uniform_lanes<const K: usize, const NORMALS: bool>(
        &self,
        set: usize,
        pivot: usize,
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) {
        use super::lanes::{blend1, blend3, weights, Q8};
        let wk = weights::<K>(w);
        let row = (set * K + pivot) * K;
        let s = Q8::blend::<K>(&self.quats[row..row + K], &wk);
        let t = blend3::<K>(&self.points[set * K..set * K + K], &wk);
        let scale = blend1::<K>(&self.stretches.scales[set * K..set * K + K], &wk);
        finish_loading::<NORMALS>(s, t, self.centres[set], Some(scale), p, n, op, on);
    }

    /// See [`VertexKernel::mixed`].
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn mixed_impl<const K: usize, const NORMALS: bool>(
        &self,
        words: &[u32],
        w: &[f32],
        p: &[Vec3],
        n: &[Vec3],
        op: &mut [Vec3],
        on: &mut [Vec3],
    ) {
        use super::lanes::{Q8, V8};
        use super::stretch::MixedLanes;
        use super::vertex_pass::{as_array, mixed_alone};
        let (mut s, mut t, mut c) = ([Vec4::ZERO; 8], [Vec3A::ZERO; 8], [Vec3A::ZERO; 8]);
        let mut lanes = MixedLanes::default();
        for (l, &word) in words[..8].iter().enumerate() {
            let (set, pivot) = vertex_pass::locate::<K>(word, self.last);
            // SAFETY: `set <= last` and `pivot < K`; `pass` verified the table sizes.
            let flags = *self.flags.get_unchecked(set);
            if !lanes.take(l, set, flags) {
                continue;
            }
            let wl = as_array::<K>(&w[l * K..(l + 1) * K]);
            s[l] = blend::<K, _>(self.quats, (set * K + pivot) * K, wl);
            t[l] = blend::<K, _>(self.points, set * K, wl);
            c[l] = *self.centres.get_unchecked(set);
        }
        let (v, nv) = self.stretches.mixed::<K, NORMALS>(&lanes, w, p, n);
        finish::<NORMALS>(Q8::from_lanes(&s), V8::from_lanes(&t), V8::from_lanes(&c), v, nv, op, on);
        mixed_alone::<K, Self, NORMALS>(self, lanes.alone, words, w, p, n, op, on);
    }
}

/// [`finish`] of eight unstretched vertices, or of eight uniformly stretched ones given their
/// blended scale `Σ w_j s_j`, loading them from `p` (and, with `NORMALS`, `n`) only when they are
/// rotated: fewer registers live at once (no spills), the same operations and so the same bits (a
/// uniform stretch leaves the normal's direction alone).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn finish_loading<const NORMALS: bool>(
    s: super::lanes::Q8,
    t: super::lanes::V8,
    centre: Vec3A,
    scale: Option<super::lanes::F8>,
    p: &[Vec3],
    n: &[Vec3],
    op: &mut [Vec3],
    on: &mut [Vec3],
) {
    use super::lanes::V8;
    let k = s.rotation_scale();
    s.rotate(k, V8::load(p).scale_by(scale).sub(V8::splat(centre))).add(t).store(op);
    if NORMALS {
        s.rotate_normal(k, V8::load(n)).store(on);
    }
}

/// `apply` in eight lanes, rounded alike: `Q (v − centre) / (s · s) + t` into `op` and, with
/// `NORMALS`, `normalise(Q nv)` into `on`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn finish<const NORMALS: bool>(
    s: super::lanes::Q8,
    t: super::lanes::V8,
    centre: super::lanes::V8,
    v: super::lanes::V8,
    nv: super::lanes::V8,
    op: &mut [Vec3],
    on: &mut [Vec3],
) {
    let k = s.rotation_scale();
    s.rotate(k, v.sub(centre)).add(t).store(op);
    if NORMALS {
        s.rotate_normal(k, nv).store(on);
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

/// Empty sets and far centres (of rigid or stretched sets).
///
/// # Safety
/// As in the kernel: `set` and `pivot` index the prepared tables.
#[cold]
#[inline(never)]
unsafe fn slow_vertex<const K: usize>(
    f: &SkinFrame,
    flags: u8,
    set: usize,
    pivot: usize,
    w: &[f32; K],
    p: Vec3A,
    n: Vec3A,
) -> (Vec3A, Vec3A) {
    if flags & SET_EMPTY != 0 {
        return (p, n);
    }
    let (vs, ns) = if flags & SET_STRETCH != 0 {
        let stretches = Stretches { scales: &f.scales, matrices: &f.stretches };
        stretches.apply::<K, Plain>(flags & SET_UNIFORM_STRETCH != 0, set * K, w, p, n)
    } else {
        (p, n)
    };
    far_centre_vertex::<K>(f, set, w, pivot, vs, ns)
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
        && frame.points.len() >= sets * K
        && frame.stretches.len() >= sets * K
        && frame.scales.len() >= sets * K
        && frame.centres.len() >= sets
        && frame.far_centres.len() >= sets
        && frame.far_quats.len() >= sets * K
        && frame.far_points.len() >= sets * K;
    if !ok {
        super::rest_copy(positions, normals, out);
        return;
    }
    let kernel = Sbs {
        frame,
        flags: &frame.flags,
        cols: &frame.cols,
        quats: &frame.quats,
        points: &frame.points,
        centres: &frame.centres,
        stretches: Stretches { scales: &frame.scales, matrices: &frame.stretches },
        last: sets as u32 - 1,
    };
    vertex_pass::run::<K, _>(&kernel, inf, positions, normals, out, frame);
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
    super::dispatch_slots!(inf.slots(), pass, frame, inf, positions, normals, out);
}
