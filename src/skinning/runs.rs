//! The walk of runs and mixed groups over a stretch of consecutive vertices (the per-vertex
//! pass's [`super::vertex_pass`] walk for large frames): each run of sixteen vertices sharing a
//! set word through [`VertexKernel::lanes16`] on AVX-512 CPUs, each run of eight through
//! [`VertexKernel::lanes`] (the set's tables broadcast in the lanes), every other group of eight
//! through [`VertexKernel::mixed`], the last few one by one.

#![cfg(target_arch = "x86_64")]

use glam::Vec3;

use super::kernel::{mixed_alone, Eight, VertexKernel};
use crate::model::lane_order::GROUP;

/// The walk over the vertices of `g` (every slice as long, the normals empty
/// without `NORMALS`), their weights `w` and set words `s`. With `SIXTEEN`, a run of sixteen
/// sharing a set word goes through [`VertexKernel::lanes16`] where the kernel takes it.
///
/// # Safety
/// The CPU must have AVX2 and FMA (and AVX-512F and VL with `SIXTEEN`).
#[inline(always)]
pub(super) unsafe fn groups<const K: usize, F: VertexKernel<K>, const NORMALS: bool, const SIXTEEN: bool>(
    kernel: &F,
    g: Eight<'_>,
    w: &[f32],
    s: &[u32],
) {
    let Eight { p: rest, n: rest_n, op: pos, on: nrm } = g;
    let n = pos.len().min(rest.len()).min(s.len()).min(w.len() / K);
    let whole = n / GROUP * GROUP;
    // One check for the loop's unchecked normals below.
    assert!(!NORMALS || (rest_n.len() >= whole && nrm.len() >= whole), "normals for every vertex");
    // Without normals, a run's lanes read zero normals and write theirs to scratch.
    let (zeros, mut scratch) = ([Vec3::ZERO; 2 * GROUP], [Vec3::ZERO; 2 * GROUP]);
    let mut k = 0;
    while k < whole {
        let wide = SIXTEEN && k + 2 * GROUP <= whole;
        let len = if wide { 2 * GROUP } else { GROUP };
        let r = k..k + len;
        let (rn, on): (&[Vec3], &mut [Vec3]) = if NORMALS {
            // SAFETY: `r` ends at most at `whole`, which both hold (asserted above).
            unsafe { (rest_n.get_unchecked(r.clone()), nrm.get_unchecked_mut(r.clone())) }
        } else {
            (&zeros[..len], &mut scratch[..len])
        };
        // SAFETY: `r` ends at most at `whole <= n`, which every slice holds (`w`: `K` per vertex).
        let (p, o, words, wr) = unsafe {
            (
                rest.get_unchecked(r.clone()),
                pos.get_unchecked_mut(r.clone()),
                s.get_unchecked(r.clone()),
                w.get_unchecked(r.start * K..r.end * K),
            )
        };
        k += len;
        if wide {
            // A run of sixteen sharing a set word: the set's tables broadcast in 512-bit lanes.
            if <&[u32; 2 * GROUP]>::try_from(words).is_ok_and(super::lanes16::all_equal)
                && kernel.lanes16::<NORMALS>(words[0], wr, p, rn, o, on)
            {
                continue;
            }
            let (p0, p1) = p.split_at(GROUP);
            let (o0, o1) = o.split_at_mut(GROUP);
            // (Without normals `rn` and `on` are the sixteen zeros and scratch entries.)
            let (n0, n1) = rn.split_at(GROUP);
            let (m0, m1) = on.split_at_mut(GROUP);
            let (s0, s1) = words.split_at(GROUP);
            let (w0, w1) = wr.split_at(GROUP * K);
            eight::<K, F, NORMALS>(kernel, p0, n0, o0, m0, s0, w0);
            eight::<K, F, NORMALS>(kernel, p1, n1, o1, m1, s1, w1);
            continue;
        }
        eight::<K, F, NORMALS>(kernel, p, rn, o, on, words, wr);
    }
    // The last few, fewer than eight, one by one.
    let (rn, on): (&[Vec3], &mut [Vec3]) =
        if NORMALS { (&rest_n[whole..n], &mut nrm[whole..n]) } else { (&[], &mut []) };
    let tail = (1u32 << (n - whole)) - 1;
    let g = Eight { p: &rest[whole..n], n: rn, op: &mut pos[whole..n], on };
    mixed_alone::<K, F, NORMALS>(kernel, tail, &s[whole..n], &w[whole * K..n * K], g);
}

/// One group of eight of [`groups`]: through [`VertexKernel::lanes`] where the eight share a set
/// word (the set's tables broadcast in the lanes), else through [`VertexKernel::mixed`].
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[inline(always)]
unsafe fn eight<const K: usize, F: VertexKernel<K>, const NORMALS: bool>(
    kernel: &F,
    p: &[Vec3],
    rn: &[Vec3],
    o: &mut [Vec3],
    on: &mut [Vec3],
    words: &[u32],
    w: &[f32],
) {
    if <&[u32; GROUP]>::try_from(words).is_ok_and(super::lanes::all_equal)
        && kernel.lanes::<NORMALS>(words[0], w, p, rn, o, on)
    {
        return;
    }
    kernel.mixed::<NORMALS>(words, w, p, rn, o, on);
}
