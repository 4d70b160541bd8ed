//! The streaming per-vertex pass shared by every method: one sequential walk over a primitive's
//! rest positions, rest normals, `K` weights and packed set word per vertex, writing
//! caller-owned buffers, split into chunks over rayon's threads (small primitives stay on one
//! thread). Nothing here allocates once the output buffers have their size, and the inner loop has
//! no bounds checks: it zips slices of equal length.

use std::sync::atomic::{AtomicBool, Ordering};

use glam::{Vec3, Vec3A};
use rayon::prelude::*;

#[cfg(target_arch = "x86_64")]
use super::arith::Fused;
use super::arith::{Arith, Plain};
#[cfg(target_arch = "x86_64")]
use super::kernel::Eight;
use super::kernel::{as_array, Method, Sets, VertexKernel};
use super::morph::{Morph, BLOCK};
use super::{DeformedPrimitive, SkinFrame};
use crate::model::influences::MAX_SLOTS;
use crate::model::lane_order::{GROUP, WINDOW};
use crate::model::Influences;

/// Whether the AVX2+FMA variant may be used where the CPU has it (see [`set_wide_simd`]).
static WIDE_SIMD: AtomicBool = AtomicBool::new(true);

/// Allows (the default) or forbids the AVX2+FMA variant of the per-vertex pass, process-wide; with
/// it forbidden, every CPU runs the SSE2 variant. For tests (both variants must meet the contract)
/// and for benchmarks.
pub fn set_wide_simd(enabled: bool) {
    WIDE_SIMD.store(enabled, Ordering::Relaxed);
}

/// Whether the AVX-512 variant may be used where the CPU has it (see [`set_sixteen_lanes`]).
static SIXTEEN_LANES: AtomicBool = AtomicBool::new(true);

/// Allows (the default) or forbids the AVX-512 variant of the per-vertex pass (runs of sixteen
/// vertices sharing a set in 512-bit lanes), process-wide; with it forbidden, CPUs that have it
/// run the AVX2+FMA variant. For tests (both give the same bits) and for benchmarks.
pub fn set_sixteen_lanes(enabled: bool) {
    SIXTEEN_LANES.store(enabled, Ordering::Relaxed);
}

thread_local! {
    /// Each thread's scratch for two windows of morphed rest positions and normals (allocated
    /// once per thread; taken while in use).
    static SCRATCH: std::cell::Cell<Vec<Vec3>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Vertices per parallel work item (whole lane-order windows) when the caller gives no task size.
const CHUNK: usize = 4 * WINDOW;
/// Primitives smaller than this are deformed on the calling thread when the caller gives no task
/// size.
const PARALLEL_THRESHOLD: usize = 16 * 1024;

/// Deforms one primitive by the method `F` into `out` (resized to the vertex count): its kernel
/// for the influences' slot count over `frame`, or the rest shape where `frame` was not prepared
/// for the primitive's skin and the method ([`Sets::of`], [`Method::prepare`]). With `morph`, the
/// rest surface is the morphed one ([`Morph`]).
pub(crate) fn deform<'a, F: Method<'a>>(
    frame: &'a SkinFrame,
    inf: &Influences,
    rest: Rest<'_>,
    out: &mut DeformedPrimitive,
) {
    match inf.slots() {
        1 => pass::<1, F>(frame, inf, rest, out),
        2 => pass::<2, F>(frame, inf, rest, out),
        4 => pass::<4, F>(frame, inf, rest, out),
        8 => pass::<8, F>(frame, inf, rest, out),
        _ => pass::<16, F>(frame, inf, rest, out),
    }
}

/// The rest surface a primitive is deformed from: its positions and normals (if any), and the
/// morph added to them as they are read.
#[derive(Clone, Copy)]
pub(crate) struct Rest<'a> {
    /// Rest positions in model order.
    pub positions: &'a [Vec3],
    /// Rest normals in model order, if the primitive has them.
    pub normals: Option<&'a [Vec3]>,
    /// The morph of this frame, if any target is active.
    pub morph: Option<Morph<'a>>,
}

/// [`deform`] for `K` slots.
fn pass<'a, const K: usize, F: Method<'a> + VertexKernel<K>>(
    frame: &'a SkinFrame,
    inf: &Influences,
    rest: Rest<'_>,
    out: &mut DeformedPrimitive,
) {
    match Sets::of::<K>(frame).and_then(|sets| F::prepare::<K>(sets, frame)) {
        Some(kernel) => run::<K, F>(&kernel, inf, rest, out, frame),
        None => super::rest_copy(rest, out),
    }
}

/// Runs `kernel` over every vertex of a primitive into `out` (resized to the vertex count). The
/// vertices beyond the influences' length, if any, keep their rest position and normal.
///
/// The frame's [`crate::skinning::SkinFrame::task_vertices`] is the least number of vertices worth
/// a parallel task (the deformer derives it from the measured cost per vertex): the primitive is
/// split into tasks of whole lane-order windows, at least that large, over rayon's threads (rayon
/// splits the windows in halves as threads steal, never below that size), and stays on the calling
/// thread when it is smaller than two tasks. 0: split primitives from 16k vertices on into
/// 8k-vertex tasks. Its [`crate::skinning::SkinFrame::frame_vertices`] (or the primitive's count,
/// if larger) chooses between the mixed groups and the lane-order windows
/// ([`VertexKernel::MIXED_FROM`]). With a morph, the chunk's rest surface is morphed block by
/// block ([`Morph::block`]) into a scratch of the thread's, each block deformed right after.
fn run<const K: usize, F: VertexKernel<K>>(
    kernel: &F,
    inf: &Influences,
    rest: Rest<'_>,
    out: &mut DeformedPrimitive,
    frame: &SkinFrame,
) {
    let Rest { positions, normals, morph } = rest;
    let task_vertices = frame.task_vertices();
    let size = frame.frame_vertices().max(inf.len());
    let n = positions.len();
    out.resize(n, normals.is_some());
    let weights = inf.weights();
    let sets = inf.packed_sets();
    // Vertices `start..` into `pos` and `nrm` from their rest positions and normals.
    let stream = |start: usize,
                  pos: &mut [Vec3],
                  nrm: &mut [Vec3],
                  rest: &[Vec3],
                  rest_n: Option<&[Vec3]>,
                  morph: Option<ChunkMorph<'_>>| {
        let end = start + pos.len();
        let end_w = end.min(sets.len());
        let (w, s) = if start < end_w {
            (&weights[start * K..end_w * K], &sets[start..end_w])
        } else {
            (&weights[..0], &sets[..0])
        };
        let windows = Windows { inf, first: start / WINDOW, size };
        match rest_n {
            Some(rest_n) => {
                let c = Chunk { pos: &mut *pos, nrm: &mut *nrm, rest, rest_n, w, s, windows, morph };
                let done = stream_best::<K, F, true>(*kernel, c);
                rest_tail::<false>(morph, done, rest, pos);
                rest_tail::<true>(morph, done, rest_n, nrm);
            }
            None => {
                let c = Chunk { pos: &mut *pos, nrm: &mut [], rest, rest_n: &[], w, s, windows, morph };
                let done = stream_best::<K, F, false>(*kernel, c);
                rest_tail::<false>(morph, done, rest, pos);
            }
        }
    };
    // A chunk starts at a window's start (`start` a multiple of `WINDOW`).
    let chunk = |start: usize, pos: &mut [Vec3], nrm: &mut [Vec3]| {
        let end = start + pos.len();
        let Some(morph) = morph else {
            stream(start, pos, nrm, &positions[start..end], normals.map(|nr| &nr[start..end]), None);
            return;
        };
        if mixed_walk::<K, F>(normals.is_some(), size) {
            // The walk of runs and mixed groups morphs each block itself, between its groups.
            let fused = ChunkMorph { morph, start, normals: normals.is_some() && morph.moves_normals() };
            stream(start, pos, nrm, &positions[start..end], normals.map(|nr| &nr[start..end]), Some(fused));
            return;
        }
        // Block by block (window by window where the pass walks windows), the morphed rest
        // surface in a scratch that stays in cache.
        let step = if normals.is_some() && size < F::MIXED_FROM { WINDOW } else { BLOCK };
        let mut buffer = SCRATCH.take();
        buffer.resize(2 * WINDOW, Vec3::ZERO);
        let (scratch, scratch_n) = buffer.split_at_mut(WINDOW);
        let morph_normals = normals.is_some() && morph.moves_normals();
        let mut a = start;
        while a < end {
            let mut b = (a + step).min(end);
            if !morph.touches(a, b - a) {
                // A run of blocks no active target moves: streamed from the rest surface at once
                // (block by block, a sparse target's untouched blocks cost a fifth of the frame).
                while b < end && !morph.touches(b, (b + step).min(end) - b) {
                    b = (b + step).min(end);
                }
                let nrm = if normals.is_some() { &mut nrm[a - start..b - start] } else { &mut [] };
                stream(a, &mut pos[a - start..b - start], nrm, &positions[a..b], normals.map(|nr| &nr[a..b]), None);
                a = b;
                continue;
            }
            // The rest positions and displacements of a block two ahead: its loads then overlap
            // this block's deformation instead of waiting at the start of their own.
            morph.prefetch(positions, 0, a + 2 * step, step);
            let (p, q) = (&mut scratch[..b - a], &mut scratch_n[..b - a]);
            let rest: &[Vec3] = if morph.block::<false>(a, &positions[a..b], p) { p } else { &positions[a..b] };
            let rest_n = match normals {
                Some(nr) if morph_normals && morph.block::<true>(a, &nr[a..b], q) => Some(&*q),
                other => other.map(|nr| &nr[a..b]),
            };
            let nrm = if normals.is_some() { &mut nrm[a - start..b - start] } else { &mut [] };
            stream(a, &mut pos[a - start..b - start], nrm, rest, rest_n, None);
            a = b;
        }
        SCRATCH.set(buffer);
    };
    let (min_task, split_from) = if task_vertices == 0 {
        (CHUNK, PARALLEL_THRESHOLD)
    } else {
        // Whole windows, the nearest count to `task_vertices` (at least one).
        let task = (task_vertices.saturating_add(WINDOW / 2) / WINDOW).max(1) * WINDOW;
        (task, task.saturating_mul(2))
    };
    if n < split_from || rayon::current_num_threads() == 1 {
        chunk(0, &mut out.positions, &mut out.normals);
        return;
    }
    // Items of one window; rayon never makes a task of fewer than `per_task` of them.
    let per_task = min_task / WINDOW;
    if normals.is_some() {
        out.positions
            .par_chunks_mut(WINDOW)
            .zip(out.normals.par_chunks_mut(WINDOW))
            .enumerate()
            .with_min_len(per_task)
            .for_each(|(c, (p, q))| chunk(c * WINDOW, p, q));
    } else {
        out.positions
            .par_chunks_mut(WINDOW)
            .enumerate()
            .with_min_len(per_task)
            .for_each(|(c, p)| chunk(c * WINDOW, p, &mut []));
    }
}

/// What one chunk of a primitive streams: where its deformed positions and normals go (`pos`,
/// `nrm`), its rest positions and normals (`rest`, `rest_n`), its `K` weights and packed set word
/// per vertex (`w`, `s`) and its lane-order windows. Without normals, `nrm` and `rest_n` are empty.
struct Chunk<'c> {
    pos: &'c mut [Vec3],
    nrm: &'c mut [Vec3],
    rest: &'c [Vec3],
    rest_n: &'c [Vec3],
    w: &'c [f32],
    s: &'c [u32],
    windows: Windows<'c>,
    /// The morph added to `rest` (and `rest_n`) block by block, in the walk of runs and mixed
    /// groups only ([`mixed_walk`]).
    morph: Option<ChunkMorph<'c>>,
}

/// A morph the walk of runs and mixed groups adds itself ([`stream_mixed`]): the frame's morph,
/// the model index of the chunk's first vertex, and whether the normals are morphed too.
#[derive(Clone, Copy)]
struct ChunkMorph<'a> {
    morph: Morph<'a>,
    start: usize,
    normals: bool,
}

/// Whether a chunk goes through the walk of runs and mixed groups ([`stream_mixed`]): the
/// AVX2+FMA variant where the CPU has it, and with normals from [`VertexKernel::MIXED_FROM`]
/// vertices in the frame (`size`), without them where [`VertexKernel::MIXED_WITHOUT_NORMALS`].
fn mixed_walk<const K: usize, F: VertexKernel<K>>(normals: bool, size: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        WIDE_SIMD.load(Ordering::Relaxed)
            && super::lanes::available()
            && if normals { size >= F::MIXED_FROM } else { F::MIXED_WITHOUT_NORMALS }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (normals, size);
        false
    }
}

/// The vertices from `done` on that the kernel left (beyond the influences): their rest values
/// (`NORMALS`: normals), morphed where `morph` moves them.
fn rest_tail<const NORMALS: bool>(morph: Option<ChunkMorph<'_>>, done: usize, rest: &[Vec3], out: &mut [Vec3]) {
    let rest = &rest[done.min(rest.len())..];
    let at = done.min(out.len());
    let out = &mut out[at..];
    let moved = match morph {
        Some(m) if (!NORMALS || m.normals) && !out.is_empty() => m.morph.block::<NORMALS>(m.start + done, rest, out),
        _ => false,
    };
    if !moved {
        out.copy_from_slice(rest);
    }
}

/// The hot loop compiled for the best instruction set this CPU has (AVX2 with FMA where the CPU
/// has them: VEX encoding, three-operand forms and the eight lanes; SSE2 otherwise). With
/// `NORMALS` false, the chunk's normals are not read (the normals are computed from zero and
/// dropped, as in the per-vertex path).
#[inline(always)]
fn stream_best<const K: usize, F: VertexKernel<K>, const NORMALS: bool>(kernel: F, c: Chunk<'_>) -> usize {
    #[cfg(target_arch = "x86_64")]
    if WIDE_SIMD.load(Ordering::Relaxed) && super::lanes::available() {
        if SIXTEEN_LANES.load(Ordering::Relaxed) && super::lanes16::available() {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { stream_avx512::<K, F, NORMALS>(kernel, c) };
        }
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { stream_avx2::<K, F, NORMALS>(kernel, c) };
    }
    stream_sse2::<K, F, NORMALS>(kernel, c)
}

/// [`stream_body`] compiled with AVX-512F and VL enabled (besides AVX2 and FMA), its walk of runs
/// taking sixteen vertices at a time where they share a set.
///
/// # Safety
/// The CPU must support AVX2, FMA, AVX-512F and AVX-512VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma,avx512f,avx512vl")]
#[inline(never)]
unsafe fn stream_avx512<const K: usize, F: VertexKernel<K>, const NORMALS: bool>(kernel: F, c: Chunk<'_>) -> usize {
    stream_body::<K, F, Fused, NORMALS, true>(kernel, c)
}

/// [`stream_body`] compiled with AVX2 and FMA enabled.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma")]
#[inline(never)]
unsafe fn stream_avx2<const K: usize, F: VertexKernel<K>, const NORMALS: bool>(kernel: F, c: Chunk<'_>) -> usize {
    stream_body::<K, F, Fused, NORMALS, false>(kernel, c)
}

/// [`stream_body`] for any x86_64 CPU (SSE2); returns how many vertices it deformed.
#[inline(never)]
fn stream_sse2<const K: usize, F: VertexKernel<K>, const NORMALS: bool>(kernel: F, c: Chunk<'_>) -> usize {
    stream_body::<K, F, Plain, NORMALS, false>(kernel, c)
}

/// The lane-order windows of the vertices a chunk deforms: `inf`'s windows from `first` on.
#[derive(Clone, Copy)]
pub(crate) struct Windows<'a> {
    inf: &'a Influences,
    first: usize,
    /// The vertices that decide between windows and mixed groups ([`VertexKernel::MIXED_FROM`]).
    size: usize,
}

/// The loop itself. Without `NORMALS` (`nrm` and `rest_n` may then be empty), kernels whose
/// [`VertexKernel::MIXED_WITHOUT_NORMALS`] holds go through the runs and mixed groups (every
/// method since skinned vertices are held in joint-set order: nearly every group of eight is a
/// run); otherwise a plain walk over zipped slices with zero normals whose results are dropped.
/// Without `M::LANES` the same walk with normals. With it, window by window: each lane group of
/// eight vertices sharing a packed set word (`model::lane_order`) is deformed in the lanes of
/// 256-bit registers (in place for a run of eight consecutive vertices, else gathered and
/// scattered back), then the window's other vertices go one by one. Returns how many vertices it
/// deformed.
#[inline(always)]
fn stream_body<const K: usize, F: VertexKernel<K>, M: Arith, const NORMALS: bool, const SIXTEEN: bool>(
    kernel: F,
    c: Chunk<'_>,
) -> usize {
    let n = c.pos.len().min(c.rest.len()).min(c.w.len() / K).min(c.s.len());
    #[cfg(target_arch = "x86_64")]
    if M::LANES && (if NORMALS { c.windows.size >= F::MIXED_FROM } else { F::MIXED_WITHOUT_NORMALS }) {
        return stream_mixed::<K, F, NORMALS, SIXTEEN>(kernel, c, n);
    }
    debug_assert!(c.morph.is_none(), "a morph is added only in the walk of runs and mixed groups");
    let Chunk { pos, nrm, rest, rest_n, w, s, windows, .. } = c;
    if !NORMALS {
        for ((p, &v), (w, &word)) in pos[..n].iter_mut().zip(&rest[..n]).zip(w[..n * K].chunks_exact(K).zip(&s[..n])) {
            *p = kernel.vertex::<M>(word, as_array(w), v.into(), Vec3A::ZERO).0.into();
        }
        return n;
    }
    let n = n.min(nrm.len()).min(rest_n.len());
    #[cfg(target_arch = "x86_64")]
    if M::LANES {
        let mut base = 0;
        let mut window = windows.first;
        while base < n {
            let len = WINDOW.min(n - base);
            // A function, not a closure: a closure would be compiled without the AVX2/FMA target
            // features of the caller, so the fused kernels' intrinsics would become calls.
            #[inline(always)]
            fn vertex_at<const K: usize, F: VertexKernel<K>, M: Arith>(
                kernel: &F,
                (s, w, rest, rest_n): (&[u32], &[f32], &[Vec3], &[Vec3]),
                i: usize,
                pos: &mut [Vec3],
                nrm: &mut [Vec3],
            ) {
                let (a, b) =
                    kernel.vertex::<M>(s[i], as_array(&w[i * K..(i + 1) * K]), rest[i].into(), rest_n[i].into());
                pos[i] = a.into();
                nrm[i] = b.into();
            }
            let data = (s, w, rest, rest_n);
            match windows.inf.lane_window(window).filter(|o| o.rest().len() + o.grouped() == len) {
                Some(order) => {
                    let mut gw = [0f32; GROUP * MAX_SLOTS];
                    let (mut gp, mut gn) = ([Vec3::ZERO; GROUP], [Vec3::ZERO; GROUP]);
                    let (mut op, mut on) = ([Vec3::ZERO; GROUP], [Vec3::ZERO; GROUP]);
                    for group in order.groups() {
                        let first = base + group[0] as usize;
                        if usize::from(group[GROUP - 1] - group[0]) == GROUP - 1 {
                            // Eight consecutive vertices (ascending, distinct offsets): a run in the
                            // file's order, deformed in place without a gather or scatter.
                            let word = s[first];
                            let w8 = &w[first * K..(first + GROUP) * K];
                            let (p8, n8) = (&rest[first..first + GROUP], &rest_n[first..first + GROUP]);
                            let (o8, m8) = (&mut pos[first..first + GROUP], &mut nrm[first..first + GROUP]);
                            // SAFETY: `M::LANES` holds only for the AVX2+FMA variant, run after detection.
                            if !unsafe { kernel.lanes::<true>(word, w8, p8, n8, o8, m8) } {
                                for i in first..first + GROUP {
                                    vertex_at::<K, F, M>(&kernel, data, i, pos, nrm);
                                }
                            }
                            continue;
                        }
                        for (l, &off) in group.iter().enumerate() {
                            let i = base + off as usize;
                            gp[l] = rest[i];
                            gn[l] = rest_n[i];
                            gw[l * K..(l + 1) * K].copy_from_slice(&w[i * K..(i + 1) * K]);
                        }
                        let word = s[base + group[0] as usize];
                        // SAFETY: `M::LANES` holds only for the AVX2+FMA variant, run after detection.
                        if unsafe { kernel.lanes::<true>(word, &gw[..GROUP * K], &gp, &gn, &mut op, &mut on) } {
                            for (l, &off) in group.iter().enumerate() {
                                pos[base + off as usize] = op[l];
                                nrm[base + off as usize] = on[l];
                            }
                        } else {
                            for &off in group {
                                vertex_at::<K, F, M>(&kernel, data, base + off as usize, pos, nrm);
                            }
                        }
                    }
                    for &off in order.rest() {
                        vertex_at::<K, F, M>(&kernel, data, base + off as usize, pos, nrm);
                    }
                }
                None => {
                    for i in base..base + len {
                        vertex_at::<K, F, M>(&kernel, data, i, pos, nrm);
                    }
                }
            }
            base += len;
            window += 1;
        }
        return n;
    }
    let _ = windows;
    for ((((p, q), (&v, &vn)), w), &word) in pos[..n]
        .iter_mut()
        .zip(nrm[..n].iter_mut())
        .zip(rest[..n].iter().zip(&rest_n[..n]))
        .zip(w[..n * K].chunks_exact(K))
        .zip(&s[..n])
    {
        let (a, b) = kernel.vertex::<M>(word, as_array(w), v.into(), vn.into());
        *p = a.into();
        *q = b.into();
    }
    n
}

/// The walk through [`VertexKernel::mixed`]: every run of eight consecutive vertices that share a
/// set word through [`VertexKernel::lanes`] (the set's tables broadcast), every other run of eight
/// through `mixed`, the last few one by one. With the chunk's morph, block by block ([`BLOCK`]
/// vertices): the block's morphed rest positions (and normals) in a scratch on the stack, its
/// groups deformed from there right after, the block two ahead asked for meanwhile. Returns how
/// many vertices it deformed (`n`: how many to deform; `nrm` and `rest_n` hold at least `n` with
/// `NORMALS`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn stream_mixed<const K: usize, F: VertexKernel<K>, const NORMALS: bool, const SIXTEEN: bool>(
    kernel: F,
    c: Chunk<'_>,
    n: usize,
) -> usize {
    let Chunk { pos, nrm, rest, rest_n, w, s, morph, .. } = c;
    let n = if NORMALS { n.min(nrm.len()).min(rest_n.len()) } else { n };
    let normals = |r: std::ops::Range<usize>| if NORMALS { &rest_n[r] } else { &[] };
    let Some(m) = morph else {
        let g = Eight {
            p: &rest[..n],
            n: normals(0..n),
            op: &mut pos[..n],
            on: if NORMALS { &mut nrm[..n] } else { &mut [] },
        };
        // SAFETY: `M::LANES` holds, so this is the AVX2+FMA variant (the AVX-512 one with
        // `SIXTEEN`), run after detection.
        unsafe { super::runs::groups::<K, F, NORMALS, SIXTEEN>(&kernel, g, &w[..n * K], &s[..n]) };
        return n;
    };
    let (mut mp, mut mn) = ([Vec3::ZERO; BLOCK], [Vec3::ZERO; BLOCK]);
    let mut a = 0;
    while a < n {
        let b = (a + BLOCK).min(n);
        m.morph.prefetch(rest, m.start, a + 2 * BLOCK, BLOCK);
        let p =
            if m.morph.block::<false>(m.start + a, &rest[a..b], &mut mp[..b - a]) { &mp[..b - a] } else { &rest[a..b] };
        let q = if NORMALS && m.normals && m.morph.block::<true>(m.start + a, &rest_n[a..b], &mut mn[..b - a]) {
            &mn[..b - a]
        } else {
            normals(a..b)
        };
        let g = Eight { p, n: q, op: &mut pos[a..b], on: if NORMALS { &mut nrm[a..b] } else { &mut [] } };
        // SAFETY: as above.
        unsafe { super::runs::groups::<K, F, NORMALS, SIXTEEN>(&kernel, g, &w[a * K..b * K], &s[a..b]) };
        a = b;
    }
    n
}
