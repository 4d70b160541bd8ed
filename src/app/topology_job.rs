//! The brush caches of a large model (`paint::ModelTopology`: the welded surface, the vertex and
//! joint mirrors; seconds at a million vertices) built on a background thread after loading, so
//! the window shows the model at once. Progress (the stage reached, 0 to 1) goes through an atomic
//! the paint panel shows; the editor takes the result when it is ready, or waits for it when a
//! command needs it earlier (the first dab), and says so.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crate::model::Model;
use crate::paint::ModelTopology;

/// Models with at least this many skinned vertices build their brush caches in the background
/// (below, building them takes about a fifth of a second or less and is done at once).
pub const BACKGROUND_VERTICES: usize = 100_000;

/// What the job hands back: the caches and the number of weld groups whose weights disagree.
pub struct Built {
    /// The brush caches.
    pub topology: ModelTopology,
    /// Weld groups of the model whose copies disagree (see `paint::weld`).
    pub disagreements: usize,
}

/// A running build of the brush caches.
pub struct TopologyJob {
    model_rev: u64,
    geometry_rev: u64,
    started: Instant,
    progress: Arc<AtomicU32>,
    handle: JoinHandle<Built>,
}

impl TopologyJob {
    /// Starts building the caches of `model` (revision `model_rev`, of geometry revision
    /// `geometry_rev`) on a new thread.
    #[must_use]
    pub fn start(model: &Arc<Model>, model_rev: u64, geometry_rev: u64) -> Self {
        let progress = Arc::new(AtomicU32::new(0.0f32.to_bits()));
        let (shared, model) = (Arc::clone(&progress), Arc::clone(model));
        let handle = std::thread::spawn(move || {
            let report = |f: f32| shared.store(f.clamp(0.0, 1.0).to_bits(), Ordering::Relaxed);
            let build = || {
                let topology = ModelTopology::with_progress(&model, &report);
                let disagreements = crate::paint::disagreeing_groups(
                    &model,
                    &topology.surface,
                    crate::paint::weld::AGREEMENT_TOLERANCE,
                )
                .len();
                report(1.0);
                Built { topology, disagreements }
            };
            // The build's parallel parts run on threads of their own, one fewer than the cores:
            // on rayon's global pool the editor's frames would queue behind them.
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1));
            match rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("brush-caches-{i}"))
                .build()
            {
                Ok(pool) => pool.install(build),
                Err(_) => build(),
            }
        });
        Self { model_rev, geometry_rev, started: Instant::now(), progress, handle }
    }

    /// The model revision the caches are for.
    #[must_use]
    pub fn model_rev(&self) -> u64 {
        self.model_rev
    }

    /// The geometry revision of the model the caches are built from: while it stays, a skeleton
    /// edit made meanwhile only needs the caches' joints taken again.
    #[must_use]
    pub fn geometry_rev(&self) -> u64 {
        self.geometry_rev
    }

    /// The share done, 0 to 1 (by stage).
    #[must_use]
    pub fn progress(&self) -> f32 {
        f32::from_bits(self.progress.load(Ordering::Relaxed))
    }

    /// Seconds since the build started.
    #[must_use]
    pub fn elapsed_secs(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Whether the caches are ready (taking them will not wait).
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    /// The caches, waiting for the thread if it has not finished; `None` if it panicked.
    #[must_use]
    pub fn wait(self) -> Option<Built> {
        self.handle.join().ok()
    }
}
