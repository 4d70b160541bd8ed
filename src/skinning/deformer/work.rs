//! How a frame's per-vertex pass is spread over threads, decided by measured work rather than by
//! primitive size: each method's cost per vertex is measured on the previous frames; a frame whose
//! pass is expected to be too short to pay for waking the pool stays on the calling thread, and
//! otherwise every primitive of every skinned instance becomes parallel work (nested rayon
//! iterators: one pool wake-up, the threads stealing primitives and window ranges alike) in tasks
//! of at least [`TASK_SECS`] of work.

use crate::skinning::SkinningMethod;

/// Work worth one parallel task: waking a thread and stealing cost a few microseconds.
pub const TASK_SECS: f64 = 25e-6;

/// A frame whose pass is expected to take less than this on one thread stays on the calling
/// thread (two tasks' worth: with less, the second thread would start when the first is nearly
/// done).
pub const PARALLEL_FRAME_SECS: f64 = 2.0 * TASK_SECS;

/// How one frame's pass is run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassSplit {
    /// Whether the pass runs on rayon's threads.
    pub parallel: bool,
    /// Least vertices per task (`usize::MAX` when on the calling thread).
    pub task_vertices: usize,
    /// Threads the pass can keep busy (1 on the calling thread).
    pub workers: usize,
}

/// Measured seconds per skinned vertex of each method's pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkEstimate {
    secs_per_vertex: [f64; 4],
}

impl Default for WorkEstimate {
    /// Costs measured on a 2-core Zen 5 guest (one thread, in cache), until frames are measured.
    fn default() -> Self {
        Self { secs_per_vertex: [3e-9, 4e-9, 4e-9, 12e-9] }
    }
}

fn index(method: SkinningMethod) -> usize {
    match method {
        SkinningMethod::Lbs => 0,
        SkinningMethod::Dqs => 1,
        SkinningMethod::Sbs => 2,
        SkinningMethod::SbsC => 3,
    }
}

impl WorkEstimate {
    /// The current estimate of one vertex's cost by `method`, in seconds (one thread).
    #[must_use]
    pub fn secs_per_vertex(&self, method: SkinningMethod) -> f64 {
        self.secs_per_vertex[index(method)]
    }

    /// How to run a pass of `vertices` skinned vertices by `method` on `threads` threads.
    #[must_use]
    pub fn plan(&self, method: SkinningMethod, vertices: usize, threads: usize) -> PassSplit {
        let per_vertex = self.secs_per_vertex(method);
        let work = vertices as f64 * per_vertex;
        if threads <= 1 || work < PARALLEL_FRAME_SECS {
            return PassSplit { parallel: false, task_vertices: usize::MAX, workers: 1 };
        }
        let task_vertices = ((TASK_SECS / per_vertex) as usize).max(1);
        let tasks = (vertices / task_vertices).max(1);
        PassSplit { parallel: true, task_vertices, workers: tasks.min(threads) }
    }

    /// Folds in one measured pass: `secs` of wall time for `vertices` vertices on `split`.
    /// A parallel pass is counted as `workers` threads busy all along (an upper bound: a
    /// frame measured too costly only stays parallel, where it was worth it).
    pub fn record(&mut self, method: SkinningMethod, vertices: usize, secs: f64, split: PassSplit) {
        if vertices == 0 || !(secs.is_finite() && secs > 0.0) {
            return;
        }
        let measured = secs * split.workers.max(1) as f64 / vertices as f64;
        let e = &mut self.secs_per_vertex[index(method)];
        *e = 0.5 * (*e + measured);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_work_stays_on_one_thread_and_large_work_splits_into_long_tasks() {
        let est = WorkEstimate::default();
        let m = SkinningMethod::Lbs;
        assert!(!est.plan(m, 4_000, 8).parallel, "12 µs of work");
        assert!(!est.plan(m, 1_000_000, 1).parallel, "one thread");
        let split = est.plan(m, 25_000, 8);
        assert!(split.parallel);
        assert!(split.task_vertices as f64 * est.secs_per_vertex(m) >= TASK_SECS * 0.99);
        assert_eq!(split.workers, 3, "75 µs: three tasks");
        assert_eq!(est.plan(m, 1_000_000, 8).workers, 8);
    }

    #[test]
    fn measurements_move_the_estimate() {
        let mut est = WorkEstimate::default();
        let m = SkinningMethod::Sbs;
        let one = est.plan(m, 1000, 1);
        for _ in 0..20 {
            est.record(m, 1000, 1000.0 * 20e-9, one);
        }
        assert!((est.secs_per_vertex(m) - 20e-9).abs() < 1e-10);
        // A 3,000-vertex SBS frame at 20 ns per vertex is 60 µs: worth two threads now.
        assert!(est.plan(m, 3000, 2).parallel);
        assert_eq!(
            est.secs_per_vertex(SkinningMethod::Lbs),
            WorkEstimate::default().secs_per_vertex(SkinningMethod::Lbs)
        );
    }
}
