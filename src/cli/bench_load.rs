//! `skinlab bench MODEL --load`: times a model file's way to its first deformed buffers, per
//! stage (read, parse, import, joint sets, clips, the source document kept for export, the first
//! deformation), the median of several loads after one warm-up (the file in the page cache).
//! The brush caches the editor builds after loading are timed once, apart.

use std::path::Path;
use std::time::Instant;

use super::CliError;
use crate::io::{load_document_timed, LoadTimes};
use crate::maths::median;
use crate::paint::ModelTopology;
use crate::rig::Pose;
use crate::skinning::{Deformer, SkinningMethod};

/// A row of the report: its label and how to read it from a run.
type Row = (&'static str, fn(&Run) -> f64);

/// One timed load: the file's stages, then the first deformation.
struct Run {
    times: LoadTimes,
    first_deformation: f64,
    prepare: f64,
    total: f64,
}

/// Loads `path` `runs` times (after one warm-up) and prints the median of each stage.
pub fn report(path: &Path, runs: usize) -> Result<(), CliError> {
    let mut done = Vec::with_capacity(runs);
    let mut last = None;
    for run in 0..=runs {
        let t0 = Instant::now();
        let mut times = LoadTimes::default();
        let (model, source) = load_document_timed(path, &mut times)?;
        let t1 = Instant::now();
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        deformer.deform_all(&model, &Pose::rest(), SkinningMethod::Lbs, &mut out);
        let first_deformation = t1.elapsed().as_secs_f64();
        let total = t0.elapsed().as_secs_f64();
        if run > 0 {
            done.push(Run { times, first_deformation, prepare: deformer.stats.prepare_secs, total });
        }
        // Freeing the previous load is not part of the next one.
        drop((out, source));
        last = Some(model);
    }
    let Some(model) = last else { return Ok(()) };
    let med = |f: fn(&Run) -> f64| median(&done.iter().map(f).collect::<Vec<_>>()) * 1e3;
    crate::outln!(
        "load: {} ({} skinned vertices, {} bytes), {} threads, median of {} loads after one warm-up",
        path.display(),
        model.skinned_vertex_count(),
        std::fs::metadata(path).map_or(0, |m| m.len()),
        rayon::current_num_threads(),
        done.len()
    );
    crate::outln!("{:<44} {:>10}", "stage", "median ms");
    let rows: [Row; 7] = [
        ("read (file into memory)", |r| r.times.read),
        ("parse (container, JSON, glTF, buffers)", |r| r.times.parse),
        ("import (nodes, skins, geometry, influences)", |r| r.times.import),
        ("joint sets (interning, packed, vertex order)", |r| r.times.joint_sets),
        ("clips", |r| r.times.clips),
        ("source document (kept for export)", |r| r.times.document),
        ("first deformation (LBS, rest pose)", |r| r.first_deformation),
    ];
    for (label, f) in rows {
        crate::outln!("{label:<44} {:>10.1}", med(f));
    }
    crate::outln!("{:<44} {:>10.1}", "  of which FK + preparation", med(|r| r.prepare));
    crate::outln!("{:<44} {:>10.1}", "file → first deformed buffers", med(|r| r.total));
    let t = Instant::now();
    let topology = ModelTopology::new(&model);
    crate::outln!("{:<44} {:>10.1}", "brush caches (welded surface, mirrors; once)", t.elapsed().as_secs_f64() * 1e3);
    drop(topology);
    crate::outln!("the editor's time to its first frame: skinlab open MODEL --bench-frames N");
    Ok(())
}
