//! `skinlab bench --bind`: times automatic weights (`bind::bind_skin`, every joint of every skin)
//! on a model or a synthetic rig, with the time of each stage, the median of several runs.

use std::time::Instant;

use super::CliError;
use crate::bind::{bind_skin, BindOptions, BindStats};
use crate::maths::median;
use crate::model::Model;

/// Binds every skin of `model` `runs` times (after one warm-up) and prints the medians.
pub fn report(model: &Model, title: &str, runs: usize) -> Result<(), CliError> {
    crate::outln!("model: {title}");
    crate::outln!("threads: {}", rayon::current_num_threads());
    for skin in 0..model.skins.len() {
        let mut totals = Vec::with_capacity(runs);
        let mut stages: Vec<BindStats> = Vec::with_capacity(runs);
        for run in 0..=runs {
            let t0 = Instant::now();
            let result = bind_skin(model, skin, &BindOptions::default(), &mut |_| {})?;
            let secs = t0.elapsed().as_secs_f64();
            if run > 0 {
                totals.push(secs);
                stages.push(result.stats);
            }
        }
        let Some(s) = stages.last() else { continue };
        let med = |f: fn(&BindStats) -> f64| median(&stages.iter().map(f).collect::<Vec<_>>()) * 1e3;
        crate::outln!(
            "skin {skin}: {} vertices ({} welded, {} parts), {} joints: bind {:.1} ms median of {} \
             (prepare {:.1}, visibility {:.1}, factor+solve {:.1}, rules {:.1} ms)",
            s.vertices,
            s.welded_vertices,
            s.parts,
            s.solved_joints,
            median(&totals) * 1e3,
            totals.len(),
            med(|s| s.prepare_secs),
            med(|s| s.heat_secs),
            med(|s| s.solve_secs),
            med(|s| s.rules_secs),
        );
    }
    Ok(())
}
