//! `skinlab export --emulate sbs|dqs|sbs-c`: before the export, helper joints, weights and keys
//! are fitted (`emulate`) so that any LBS player shows the chosen method; progress goes to
//! stderr, and `--report` writes the runtime's distances to the target with and without helpers
//! (JSON). Every option is checked before any work, so a refusal is one line and nothing else.

use std::io::Write as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use serde_json::json;

use super::CliError;
use crate::emulate::{emulate, EmulateRequest, Emulation, Step};
use crate::io::gltf_export::KeyMorphs;
use crate::io::{ExportOptions, ExportReport, SourceDocument};
use crate::model::Model;
use crate::skinning::SkinningMethod;

/// The emulation options of `skinlab export`.
#[derive(Debug, Args)]
pub struct EmulateArgs {
    /// Fit helper joints so that glTF's LBS players show this method: sbs, dqs or sbs-c.
    #[arg(long, value_name = "METHOD")]
    pub emulate: Option<SkinningMethod>,
    /// Most helper joints per deforming joint (with --emulate).
    #[arg(long, value_name = "N", requires = "emulate", value_parser = clap::value_parser!(u16).range(1..=16))]
    pub helpers: Option<u16>,
    /// Clips to fit (names or #N, comma-separated; every clip by default, or a range-of-motion
    /// clip when the model has none).
    #[arg(long, value_delimiter = ',', value_name = "NAME,...", requires = "emulate")]
    pub clips: Vec<String>,
    /// Also add one morph target per exported key holding what the helpers leave, with a weight
    /// animation 1 at its key and 0 at its neighbours: exact at every key, heavier.
    #[arg(long, requires = "emulate")]
    pub exact: bool,
    /// Write a JSON report of the fit (per clip: the runtime's distance to the target with and
    /// without helpers; helpers and bytes added; seconds).
    #[arg(long, value_name = "R.json", requires = "emulate")]
    pub report: Option<PathBuf>,
}

/// An emulation done, waiting for its export to finish the report.
pub struct Emulated {
    /// The fit.
    pub emulation: Emulation,
    /// The method emulated.
    pub method: SkinningMethod,
    /// When the command started.
    pub started: Instant,
    /// The per-key morph targets (`--exact`).
    pub morphs: Option<KeyMorphs>,
}

/// Checks the options and fits the helpers into `model` (which then carries them); `None`
/// without `--emulate`.
pub fn prepare(
    args: &EmulateArgs,
    model: &mut Model,
    model_path: &Path,
    baking: bool,
    force: bool,
    source: &SourceDocument,
) -> Result<Option<Emulated>, CliError> {
    let Some(method) = args.emulate else { return Ok(None) };
    let started = Instant::now();
    if baking {
        return Err("--emulate and --bake exclude each other (a baked mesh has no skin)".into());
    }
    if method == SkinningMethod::Lbs {
        return Err("--emulate lbs: glTF players already play LBS (choose sbs, dqs or sbs-c)".into());
    }
    if let Some(report) = &args.report {
        if !force && source.is_source_file(report) {
            return Err(format!(
                "{}: is the model's source file; refusing to overwrite it (use --force)",
                report.display()
            )
            .into());
        }
    }
    if model.instances.is_empty() {
        return Err(format!("{}: the model has no skinned mesh: nothing to emulate", model_path.display()).into());
    }
    let mut clips = Vec::new();
    for name in &args.clips {
        let clip = model.find_clip(name).ok_or_else(|| {
            let names = model.clip_keys();
            let known = if names.is_empty() { "the model has none".to_owned() } else { names.join(", ") };
            format!("{}: --clips {name:?}: no such clip ({known})", model_path.display())
        })?;
        if !clips.contains(&clip) {
            clips.push(clip);
        }
    }
    let request = EmulateRequest {
        method,
        helpers_per_joint: usize::from(args.helpers.unwrap_or(crate::emulate::DEFAULT_HELPERS as u16)),
        clips,
    };
    let say = |line: &str| {
        // Progress that cannot be shown does not stop the export.
        let _ = writeln!(std::io::stderr(), "emulate: {line}");
    };
    let mut progress = |step: Step<'_>| {
        say(step.line);
        ControlFlow::Continue(())
    };
    let emulation = emulate(model, &request, &mut progress).map_err(|e| format!("{}: {e}", model_path.display()))?;
    *model = emulation.model.clone();
    let morphs = args.exact.then(|| {
        say("computing the per-key morph targets (--exact)");
        crate::emulate::exact::key_morphs(&emulation, method)
    });
    Ok(Some(Emulated { emulation, method, started, morphs }))
}

/// Bytes the export of `model` without morph targets would have: the emulated export's size
/// minus this is what the helpers (for the source model) or the per-key targets add.
pub fn plain_bytes(
    model: &Model,
    source: &SourceDocument,
    options: &ExportOptions,
    out: &Path,
) -> Result<usize, CliError> {
    let (files, _) = crate::io::gltf_export::export_bytes(model, source, options, out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(files.main.len() + files.bin.map_or(0, |b| b.1.len()))
}

/// The summary line and, with `--report`, the JSON report's bytes (the caller stages them with
/// the export's other companions).
pub fn finish(
    done: &Emulated,
    args: &EmulateArgs,
    model_path: &Path,
    out: &Path,
    export: &ExportReport,
    plain_bytes: usize,
    helpers_bytes: usize,
) -> Result<(String, Option<Vec<u8>>), CliError> {
    let e = &done.emulation;
    let written: usize = export.files.iter().map(|f| f.1).sum();
    let bytes_added = written as i64 - plain_bytes as i64;
    let exact =
        done.morphs.as_ref().map(|m| json!({"targets": m.count, "bytes_added": written as i64 - helpers_bytes as i64}));
    let secs = done.started.elapsed().as_secs_f64();
    let names: Vec<String> = e.helper_nodes.iter().map(|&n| e.model.nodes.key(n)).collect();
    let (plain_rms, emulated_rms) = e.overall_rms();
    let summary = format!(
        "emulated {} with {} helper joint(s): RMS {:.4} % -> {:.4} % of the diagonal over {} clip(s), {bytes_added} bytes added, {secs:.1} s",
        done.method,
        names.len(),
        100.0 * plain_rms,
        100.0 * emulated_rms,
        e.clips.len()
    );
    if args.report.is_some() {
        let clips: Vec<serde_json::Value> = e
            .clips
            .iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "samples": c.samples,
                    "without_emulation": c.distances.plain,
                    "with_emulation": c.distances.emulated,
                    "with_emulation_at_keys": c.distances.emulated_at_keys,
                    "with_emulation_between_keys": c.distances.emulated_between_keys,
                    "with_live_rig": c.distances.live,
                })
            })
            .collect();
        let report = json!({
            "format": "skinlab-emulation",
            "model": model_path.display().to_string(),
            "out": out.display().to_string(),
            "method": done.method,
            "distances_are": "shares of the rest pose's bounding-box diagonal",
            "helpers_added": names.len(),
            "helpers": names,
            "influence_limit": e.influence_limit,
            "range_of_motion_clip": e.rom_clip,
            "bytes_added": bytes_added,
            "exact": exact,
            "seconds": secs,
            "fit_seconds": e.fit_secs,
            "fit_rms_per_iteration": e.fit_rms,
            "clips": clips,
        });
        let text = serde_json::to_vec_pretty(&report).map_err(|e| format!("cannot serialise the report: {e}"))?;
        return Ok((summary, Some(text)));
    }
    Ok((summary, None))
}
