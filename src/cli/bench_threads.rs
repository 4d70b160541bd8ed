//! `skinlab bench --threads 1,2,4,8,16`: the same frames at several thread counts in one run, one
//! rayon pool per count, every frame deformed on each pool in turn (and by each method), so that
//! the speed-ups come from the same minutes of the machine rather than from separate processes
//! (on a shared machine, one thread's time varied by half between two processes run a minute
//! apart: BENCHMARKS.md, "Thread scaling"). Each turn is entered from the calling thread and
//! finds its pool's workers asleep, as the editor's frames do (it deforms from its own thread,
//! the pool idle in between); a lone `--threads T` run keeps them spinning between back-to-back
//! frames, so on small frames it shows more of a speed-up than the editor gets.

use std::time::{Duration, Instant};

use super::bench_motion::Motion;
use super::CliError;
use crate::maths::median;
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
use crate::synthetic::animate_moving;

/// Frames deformed on every pool before the timed ones.
const WARM_UP: usize = 2;

/// The pause after each pool's turn, so that its threads are asleep, not spinning in search of
/// work, while the next pool runs (rayon's idle workers spin for some microseconds first). The
/// calling thread spins through it: a sleep let the core idle and made the next frame slower.
const SETTLE: Duration = Duration::from_micros(500);

/// Median whole-frame seconds per thread count (rows, in `threads` order) and method (columns).
#[derive(Clone, Debug, PartialEq)]
pub struct Scaling {
    /// The thread counts, as given.
    pub threads: Vec<usize>,
    /// `medians[row][method]`: median seconds per frame.
    pub medians: Vec<Vec<f64>>,
}

impl Scaling {
    /// `(fewer, more)` thread-count pairs, method by method, where more threads took longer
    /// than fewer by more than `tolerance` (a fraction: 0.05 is 5 %).
    #[must_use]
    pub fn slower_with_more(&self, tolerance: f64) -> Vec<(usize, usize, usize)> {
        let mut found = Vec::new();
        for (a, row_a) in self.medians.iter().enumerate() {
            for (b, row_b) in self.medians.iter().enumerate() {
                if self.threads[b] <= self.threads[a] {
                    continue;
                }
                for (m, (&ta, &tb)) in row_a.iter().zip(row_b).enumerate() {
                    if tb > ta * (1.0 + tolerance) {
                        found.push((self.threads[a], self.threads[b], m));
                    }
                }
            }
        }
        found
    }
}

/// Deforms `frames` + 2 changing poses of `model` with every method on one pool per entry of
/// `threads`, interleaved frame by frame, and returns the medians of the timed frames.
pub fn measure(
    model: &Model,
    methods: &[SkinningMethod],
    threads: &[usize],
    frames: usize,
    motion: Motion,
) -> Result<Scaling, CliError> {
    let mut pools = Vec::with_capacity(threads.len());
    for &t in threads {
        if t == 0 {
            return Err("--threads 0: need at least one thread".into());
        }
        pools.push(rayon::ThreadPoolBuilder::new().num_threads(t).build()?);
    }
    // One deformer per pool and method, as each would be in its own process (its measured cost
    // per vertex decides its tasks); one output per method, so that every pool writes buffers
    // as warm as a lone process's (own outputs per pool left the first method's cold: a 25k
    // LBS frame then took 1.6 times its DQS frame).
    let mut deformers: Vec<Vec<Deformer>> = threads
        .iter()
        .map(|_| {
            methods
                .iter()
                .map(|_| {
                    let mut d = Deformer::new();
                    d.disable_reuse(motion.no_reuse);
                    d
                })
                .collect()
        })
        .collect();
    let mut outs: Vec<Vec<Vec<DeformedPrimitive>>> = vec![Vec::new(); methods.len()];
    let mut secs = vec![vec![Vec::with_capacity(frames); methods.len()]; threads.len()];
    let mut pose = Pose::rest();
    for frame in 0..frames + WARM_UP {
        animate_moving(model, frame, motion.moving.unwrap_or(usize::MAX), &mut pose);
        for (row, pool) in pools.iter().enumerate() {
            let (deformers, outs, secs) = (&mut deformers[row], &mut outs, &mut secs[row]);
            pool.install(|| {
                for (m, &method) in methods.iter().enumerate() {
                    let t0 = Instant::now();
                    deformers[m].deform_all(model, &pose, method, &mut outs[m]);
                    if frame >= WARM_UP {
                        secs[m].push(t0.elapsed().as_secs_f64());
                    }
                }
            });
            let settled = Instant::now() + SETTLE;
            while Instant::now() < settled {
                std::hint::spin_loop();
            }
        }
    }
    let medians = secs.iter().map(|row| row.iter().map(|s| median(s)).collect()).collect();
    Ok(Scaling { threads: threads.to_vec(), medians })
}

/// Prints the thread-scaling table of `model` (`title` names it).
pub fn report(
    model: &Model,
    title: &str,
    methods: &[SkinningMethod],
    threads: &[usize],
    frames: usize,
    motion: Motion,
) -> Result<(), CliError> {
    crate::outln!("model: {title}");
    crate::outln!(
        "vertices: {}, threads: {} (one pool each, {} cores), frames: {frames} per method and pool (+{WARM_UP} warm-up), \
         interleaved: each frame on every pool in turn",
        model.skinned_vertex_count(),
        threads.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        std::thread::available_parallelism().map_or(0, usize::from),
    );
    let scaling = measure(model, methods, threads, frames, motion)?;
    let names: Vec<&str> = methods.iter().map(|m| m.name()).collect();
    let mut head = format!("{:>7}", "threads");
    for n in &names {
        head += &format!(" {:>9}", format!("{n} ms"));
    }
    head += &format!("   speed-up over {} thread(s) ({})", threads[0], names.join(" / "));
    crate::outln!("{head}");
    for (row, &t) in scaling.medians.iter().zip(threads) {
        let mut line = format!("{t:>7}");
        for s in row {
            line += &format!(" {:>9.3}", s * 1e3);
        }
        let ups: Vec<String> =
            row.iter().zip(&scaling.medians[0]).map(|(s, base)| format!("{:.2}", base / s)).collect();
        line += &format!("   {}", ups.join(" / "));
        crate::outln!("{line}");
    }
    let slower = scaling.slower_with_more(0.05);
    if slower.is_empty() {
        crate::outln!("slower with more threads (by over 5 %): none");
    } else {
        let cases: Vec<String> = slower.iter().map(|&(a, b, m)| format!("{} {a} -> {b} threads", names[m])).collect();
        crate::outln!("slower with more threads (by over 5 %): {}", cases.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slower_with_more_names_each_pair_and_method_beyond_the_tolerance() {
        let s = Scaling { threads: vec![1, 2, 4], medians: vec![vec![1.0, 1.0], vec![0.5, 1.04], vec![0.6, 0.9]] };
        // lbs: 2 -> 4 is 20 % slower; dqs: 1 -> 2 is 4 % slower (within 5 %).
        assert_eq!(s.slower_with_more(0.05), vec![(2, 4, 0)]);
        assert_eq!(s.slower_with_more(0.0), vec![(1, 2, 1), (2, 4, 0)]);
    }
}
