//! The memory bound of a deformation frame: this machine's sustained read+write bandwidth,
//! measured with a pass that streams exactly the arrays the skinning pass streams (rest positions
//! and normals, `k` weights and one set word in; positions and normals out) but does almost no
//! arithmetic, split over rayon's current threads in the same chunks. Bytes per vertex ×
//! vertices ÷ bandwidth is then the least time one frame can take.

use std::time::Instant;

use glam::Vec3;
use rayon::prelude::*;

/// Vertices per parallel work item (as in the skinning pass).
const CHUNK: usize = 8 * 1024;

/// Bytes the skinning pass reads and writes per vertex for `slots` weights per vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamBytes {
    /// Bytes read per vertex.
    pub read: usize,
    /// Bytes written per vertex.
    pub written: usize,
}

impl StreamBytes {
    /// The layout of a primitive with normals: 12 + 12 + 4·slots + 4 bytes in, 24 out.
    #[must_use]
    pub fn with_normals(slots: usize) -> Self {
        Self { read: 12 + 12 + 4 * slots + 4, written: 24 }
    }

    /// Bytes moved per vertex.
    #[must_use]
    pub fn total(&self) -> usize {
        self.read + self.written
    }
}

/// One bandwidth measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bandwidth {
    /// Sustained read+write bandwidth in bytes per second (best repetition).
    pub bytes_per_sec: f64,
    /// Vertices streamed per repetition.
    pub vertices: usize,
    /// Bytes moved per vertex.
    pub bytes_per_vertex: usize,
    /// Threads used.
    pub threads: usize,
}

impl Bandwidth {
    /// The lower bound in seconds for streaming `vertices` vertices of `bytes` per vertex.
    #[must_use]
    pub fn bound_secs(&self, vertices: usize, bytes: StreamBytes) -> f64 {
        (vertices * bytes.total()) as f64 / self.bytes_per_sec
    }
}

/// Arrays shaped like one primitive's skinning inputs and outputs.
struct Arrays {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    weights: Vec<f32>,
    sets: Vec<u32>,
    out_positions: Vec<Vec3>,
    out_normals: Vec<Vec3>,
}

/// The near-arithmetic-free pass: every input byte is read once and every output byte written once.
fn null_pass<const K: usize>(a: &mut Arrays) {
    let chunk = |start: usize, op: &mut [Vec3], on: &mut [Vec3]| {
        let len = op.len();
        let p = &a.positions[start..start + len];
        let n = &a.normals[start..start + len];
        let w = &a.weights[start * K..(start + len) * K];
        let s = &a.sets[start..start + len];
        for ((((op, on), (&p, &n)), w), &s) in
            op.iter_mut().zip(on.iter_mut()).zip(p.iter().zip(n)).zip(w.chunks_exact(K)).zip(s)
        {
            let sum: f32 = w.iter().sum();
            *op = p * sum + Vec3::splat(s as f32);
            *on = n * sum;
        }
    };
    let (op, on) = (&mut a.out_positions, &mut a.out_normals);
    if rayon::current_num_threads() == 1 {
        chunk(0, op, on);
    } else {
        op.par_chunks_mut(CHUNK)
            .zip(on.par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(c, (p, n))| chunk(c * CHUNK, p, n));
    }
}

/// Measures the sustained read+write bandwidth with rayon's current thread count, streaming
/// `vertices` vertices with `slots` weights each (choose far more bytes than the last-level cache
/// holds) `reps` times and keeping the best repetition.
#[must_use]
pub fn measure(vertices: usize, slots: usize, reps: usize) -> Bandwidth {
    let slots = slots.clamp(1, 16).next_power_of_two();
    let mut a = Arrays {
        positions: (0..vertices).map(|i| Vec3::splat(i as f32)).collect(),
        normals: vec![Vec3::Y; vertices],
        weights: vec![0.25; vertices * slots],
        sets: (0..vertices as u32).map(|i| i % 97).collect(),
        out_positions: vec![Vec3::ZERO; vertices],
        out_normals: vec![Vec3::ZERO; vertices],
    };
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) + 1 {
        let started = Instant::now();
        match slots {
            1 => null_pass::<1>(&mut a),
            2 => null_pass::<2>(&mut a),
            4 => null_pass::<4>(&mut a),
            8 => null_pass::<8>(&mut a),
            _ => null_pass::<16>(&mut a),
        }
        best = best.min(started.elapsed().as_secs_f64());
        std::hint::black_box(&a.out_positions);
    }
    let bytes = StreamBytes::with_normals(slots);
    Bandwidth {
        bytes_per_sec: (vertices * bytes.total()) as f64 / best,
        vertices,
        bytes_per_vertex: bytes.total(),
        threads: rayon::current_num_threads(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_scales_with_vertices() {
        let bw = Bandwidth { bytes_per_sec: 1e10, vertices: 1, bytes_per_vertex: 68, threads: 1 };
        let bytes = StreamBytes::with_normals(4);
        assert_eq!(bytes.total(), 68);
        assert!((bw.bound_secs(1_000_000, bytes) - 6.8e-3).abs() < 1e-12);
        let m = measure(20_000, 4, 1);
        assert!(m.bytes_per_sec > 0.0 && m.bytes_per_sec.is_finite());
    }
}
