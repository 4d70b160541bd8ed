//! The streaming per-vertex pass shared by every method: splits a primitive into chunks over
//! rayon's threads (small primitives stay on one thread) and writes caller-owned buffers.

use glam::Vec3;
use rayon::prelude::*;

use super::DeformedPrimitive;

/// Vertices per parallel work item.
const CHUNK: usize = 8 * 1024;
/// Primitives smaller than this are deformed on the calling thread.
const PARALLEL_THRESHOLD: usize = 16 * 1024;

/// Inputs of one primitive's pass.
#[derive(Clone, Copy)]
pub(crate) struct VertexInput<'a> {
    pub positions: &'a [Vec3],
    pub normals: Option<&'a [Vec3]>,
}

/// Runs `f(vertex, rest_position, rest_normal) -> (position, normal)` for every vertex
/// (the rest normal is zero when the primitive has none, and the output normal is then dropped).
pub(crate) fn run<F>(input: VertexInput<'_>, out: &mut DeformedPrimitive, f: F)
where
    F: Fn(usize, Vec3, Vec3) -> (Vec3, Vec3) + Sync,
{
    let n = input.positions.len();
    out.resize(n, input.normals.is_some());
    let chunk = |start: usize, pos: &mut [Vec3], nrm: &mut [Vec3]| {
        let rest = &input.positions[start..start + pos.len()];
        match input.normals {
            Some(normals) => {
                let rest_n = &normals[start..start + pos.len()];
                for (i, ((p, q), (&v, &vn))) in
                    pos.iter_mut().zip(nrm.iter_mut()).zip(rest.iter().zip(rest_n)).enumerate()
                {
                    (*p, *q) = f(start + i, v, vn);
                }
            }
            None => {
                for (i, (p, &v)) in pos.iter_mut().zip(rest).enumerate() {
                    *p = f(start + i, v, Vec3::ZERO).0;
                }
            }
        }
    };
    if n < PARALLEL_THRESHOLD || rayon::current_num_threads() == 1 {
        chunk(0, &mut out.positions, &mut out.normals);
    } else if input.normals.is_some() {
        out.positions
            .par_chunks_mut(CHUNK)
            .zip(out.normals.par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(c, (p, q))| chunk(c * CHUNK, p, q));
    } else {
        out.positions.par_chunks_mut(CHUNK).enumerate().for_each(|(c, p)| chunk(c * CHUNK, p, &mut []));
    }
}

/// Rotates `v` by the quaternion `q = [x, y, z, w]` of any non-zero length, scaled by `|q|²`
/// (the SBS paper's sqrt-free matrix applied to `v`): `(w² − |u|²) v + 2 (u·v) u + 2 w (u × v)`.
#[inline(always)]
pub(crate) fn rotate_unnormalised(q: glam::Vec4, v: glam::Vec3A) -> glam::Vec3A {
    let u = glam::Vec3A::new(q.x, q.y, q.z);
    let w = q.w;
    (w * w - u.length_squared()) * v + (2.0 * u.dot(v)) * u + (2.0 * w) * u.cross(v)
}

/// Normalises, or returns zero for a zero vector.
#[inline(always)]
pub(crate) fn unit(v: glam::Vec3A) -> Vec3 {
    Vec3::from(v.normalize_or_zero())
}
