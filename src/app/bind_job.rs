//! Automatic weights (and automatic rigging) on a background thread: the job works on its own copy
//! of the model, reports its progress (0 to 1) through an atomic the UI reads every frame, and
//! hands the bound model back through a channel. The editor keeps drawing meanwhile and applies
//! the result as one undo step when it arrives (or shows the failure). Cancel raises a flag the
//! work reads between its stages; the editor forgets the job at once.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Arc;

use crate::model::Model;

/// The work a job runs: binds `model` in place, reporting progress in 0..=1 and stopping early
/// when the flag is raised (Cancel); returns what it did (for the status line).
pub type BindWork = Box<dyn FnOnce(&mut Model, &mut dyn FnMut(f32), &AtomicBool) -> Result<String, String> + Send>;

/// A running automatic-weights job.
pub struct BindJob {
    label: String,
    progress: Arc<AtomicU32>,
    receiver: Receiver<Result<(Model, String), String>>,
    model_rev: u64,
    cancel: Arc<AtomicBool>,
}

impl BindJob {
    /// Starts `work` on a copy of `model` (revision `model_rev`) on a new thread; `label` names
    /// the undo step ("Bind", "Assign Automatic").
    #[must_use]
    pub fn start(label: &str, model: &Arc<Model>, model_rev: u64, work: BindWork) -> Self {
        let progress = Arc::new(AtomicU32::new(0.0f32.to_bits()));
        let (sender, receiver) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let (shared, model, stop) = (Arc::clone(&progress), Arc::clone(model), Arc::clone(&cancel));
        std::thread::spawn(move || {
            let mut m = (*model).clone();
            drop(model);
            let mut report = |f: f32| shared.store(f.clamp(0.0, 1.0).to_bits(), Ordering::Relaxed);
            let result = work(&mut m, &mut report, &stop).map(|done| (m, done));
            // The editor may have been closed meanwhile: nobody to tell.
            let _ = sender.send(result);
        });
        Self { label: label.to_owned(), progress, receiver, model_rev, cancel }
    }

    /// Asks the work to stop at its next check (its result is not wanted any more).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The undo step's name.
    #[must_use]
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The share done, 0 to 1.
    #[must_use]
    pub fn progress(&self) -> f32 {
        f32::from_bits(self.progress.load(Ordering::Relaxed))
    }

    /// The model revision the job started from (a result for another revision is stale).
    #[must_use]
    pub fn model_rev(&self) -> u64 {
        self.model_rev
    }

    /// The bound model with what was done, or the failure, once the job has finished.
    #[must_use]
    pub fn poll(&self) -> Option<Result<(Model, String), String>> {
        match self.receiver.try_recv() {
            Ok(result) => Some(result),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err("the automatic-weights thread stopped unexpectedly".into())),
        }
    }
}

/// Automatic weights for every skin of `model` in place (`crate::bind`): all joints, or only
/// the `joints` nodes (Assign Automatic; skins holding none of them are left alone), never
/// changing the `locked` nodes, at most `limit` influences per vertex, small loose parts far from
/// the bones rigidly when `rigid_parts`. A model with one skin first takes every unskinned mesh
/// into it ([`crate::bind::attach_unskinned`]). Progress runs 0 to 1 over all skins; returns the
/// summary for the status line (meshes and vertices bound, meshes left out).
pub fn bind_all_skins(
    model: &mut Model,
    joints: Option<&[usize]>,
    locked: &[usize],
    limit: usize,
    rigid_parts: bool,
    progress: &mut dyn FnMut(f32),
) -> Result<String, String> {
    let attached = crate::bind::attach_unskinned(model);
    let skins = model.skins.len();
    let index_of = |skin: &crate::model::Skin, nodes: &[usize]| -> Vec<u16> {
        skin.joints
            .iter()
            .enumerate()
            .filter(|(_, n)| nodes.contains(n))
            .filter_map(|(j, _)| u16::try_from(j).ok())
            .collect()
    };
    let (mut bound, mut meshes, mut vertices, mut rigid) = (0, 0, 0, 0);
    for s in 0..skins {
        let skin = &model.skins[s];
        let chosen = joints.map(|nodes| index_of(skin, nodes));
        if chosen.as_ref().is_some_and(Vec::is_empty) || !model.instances.iter().any(|i| i.skin == s) {
            continue;
        }
        let options = crate::bind::BindOptions { limit, joints: chosen, locked: index_of(skin, locked), rigid_parts };
        let base = s as f32 / skins as f32;
        let mut report = |f: f32| progress(base + f / skins as f32);
        let result = crate::bind::bind_skin(model, s, &options, &mut report).map_err(|e| e.to_string())?;
        result.apply(model).map_err(|e| e.to_string())?;
        bound += 1;
        meshes += result.stats.meshes;
        vertices += result.stats.vertices;
        rigid += result.stats.rigid_vertices;
    }
    progress(1.0);
    if bound == 0 {
        return Err("no skin holds the chosen joints and draws a mesh".into());
    }
    let mut done = format!("{meshes} meshes, {vertices} vertices bound");
    if !attached.nodes.is_empty() {
        done += &format!(" ({} meshes joined the skin)", attached.nodes.len());
    }
    if rigid > 0 {
        done += &format!("; {rigid} vertices of loose parts rigid");
    }
    if let Some(first) = attached.skipped.first() {
        done += &format!("; {} meshes left out: {first}", attached.skipped.len());
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_reports_progress_and_hands_back_its_model_or_its_error() {
        let model = Arc::new(crate::demo::demo_model().unwrap());
        let job = BindJob::start(
            "Bind",
            &model,
            7,
            Box::new(|m, progress, _| {
                progress(0.5);
                m.nodes.nodes[0].name = Some("bound".into());
                Ok("done".into())
            }),
        );
        let result = loop {
            if let Some(r) = job.poll() {
                break r;
            }
            std::thread::yield_now();
        };
        let (bound, done) = result.unwrap();
        assert_eq!((bound.nodes.nodes[0].name.as_deref(), done.as_str()), (Some("bound"), "done"));
        assert_eq!(job.progress(), 0.5);
        assert_eq!((job.label(), job.model_rev()), ("Bind", 7));
        let failing = BindJob::start("Bind", &model, 7, Box::new(|_, _, _| Err("no".into())));
        let result = loop {
            if let Some(r) = failing.poll() {
                break r;
            }
            std::thread::yield_now();
        };
        assert_eq!(result.unwrap_err(), "no");
        // Cancel reaches the work.
        let (tx, rx) = mpsc::channel::<()>();
        let stoppable = BindJob::start(
            "Auto-rig",
            &model,
            7,
            Box::new(move |_, _, stop| {
                rx.recv().map_err(|e| e.to_string())?;
                if stop.load(Ordering::Relaxed) {
                    Err("stopped".into())
                } else {
                    Ok("ran".into())
                }
            }),
        );
        stoppable.cancel();
        tx.send(()).unwrap();
        let result = loop {
            if let Some(r) = stoppable.poll() {
                break r;
            }
            std::thread::yield_now();
        };
        assert_eq!(result.unwrap_err(), "stopped");
    }
}
