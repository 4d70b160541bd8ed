//! How `bench` poses the model frame after frame (shared by the per-method and the per-thread
//! timings).

/// How the benchmark poses the model frame after frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct Motion {
    /// Joints moving per frame (`None`: all).
    pub moving: Option<usize>,
    /// Prepare every pose from scratch.
    pub no_reuse: bool,
}
