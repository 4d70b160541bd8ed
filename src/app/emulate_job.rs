//! The fit behind File ▸ Export for LBS runtimes, on a background thread: helper joints fitted
//! to the model's clips (`crate::emulate`), with the per-key morph targets when asked for. The
//! editor keeps drawing meanwhile, shows the fit's stage and share done, and can cancel it (the fit
//! stops at its next stage); the fitted export comes back through a channel.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex};

use crate::emulate::{emulate, EmulateError, EmulateRequest, Emulation};
use crate::io::gltf_export::KeyMorphs;
use crate::model::Model;
use crate::skinning::SkinningMethod;

/// What File ▸ Export for LBS runtimes fits and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LbsExportChoice {
    /// The method the runtime's LBS should look like (SBS, DQS or continuous SBS).
    pub method: SkinningMethod,
    /// Most helper joints per deforming joint (1 to 16).
    pub helpers: usize,
    /// The clips to fit (indices); empty: every clip, or a range-of-motion clip when the model
    /// has none.
    pub clips: Vec<usize>,
    /// Also write one morph target per exported key holding what the helpers leave.
    pub exact: bool,
    /// `.glb` (true) or `.gltf` with an embedded buffer (false).
    pub glb: bool,
}

impl Default for LbsExportChoice {
    fn default() -> Self {
        Self {
            method: SkinningMethod::Sbs,
            helpers: crate::emulate::DEFAULT_HELPERS,
            clips: Vec::new(),
            exact: false,
            glb: true,
        }
    }
}

/// A finished fit: the model as it will be exported, and what it was made from.
pub struct FittedExport {
    /// The fit: the per-clip distances, the helpers (its `model` moved to `exported`).
    pub emulation: Emulation,
    /// The emulated model, shared with the preview's deformer.
    pub exported: Arc<Model>,
    /// The per-key morph targets (`exact`).
    pub morphs: Option<KeyMorphs>,
    /// What was asked for.
    pub choice: LbsExportChoice,
    /// The document's `(model_rev, model_edits, dabs)` the fit was made from: another makes it stale.
    pub model_key: (u64, u64, u64),
}

/// A running fit.
pub struct EmulateJob {
    status: Arc<Mutex<(f32, String)>>,
    cancel: Arc<AtomicBool>,
    receiver: Receiver<Result<FittedExport, EmulateError>>,
}

impl EmulateJob {
    /// Starts fitting `choice` to `model` (document key `model_key`) on a new thread.
    #[must_use]
    pub fn start(model: &Arc<Model>, model_key: (u64, u64, u64), choice: LbsExportChoice) -> Self {
        let status = Arc::new(Mutex::new((0.0, "starting the fit".to_owned())));
        let cancel = Arc::new(AtomicBool::new(false));
        let (sender, receiver) = mpsc::channel();
        let (shared, stop, model) = (Arc::clone(&status), Arc::clone(&cancel), Arc::clone(model));
        std::thread::spawn(move || {
            let result = fit(&model, choice, model_key, &shared, &stop);
            // The editor may have been closed meanwhile: nobody to tell.
            let _ = sender.send(result);
        });
        Self { status, cancel, receiver }
    }

    /// The share done (0 to 1) and the stage's line.
    #[must_use]
    pub fn status(&self) -> (f32, String) {
        self.status.lock().map(|s| s.clone()).unwrap_or_else(|_| (0.0, String::new()))
    }

    /// Asks the fit to stop at its next stage (it then answers [`EmulateError::Cancelled`]).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether a cancel was asked for.
    #[must_use]
    pub fn cancelling(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The fitted export or the failure, once the thread has finished.
    #[must_use]
    pub fn poll(&self) -> Option<Result<FittedExport, EmulateError>> {
        match self.receiver.try_recv() {
            Ok(result) => Some(result),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                Some(Err(EmulateError::Apply("the fitting thread stopped unexpectedly".into())))
            }
        }
    }
}

/// The thread's work: the fit, then the exact targets if asked for (the last tenth of the bar).
fn fit(
    model: &Model,
    choice: LbsExportChoice,
    model_key: (u64, u64, u64),
    status: &Mutex<(f32, String)>,
    cancel: &AtomicBool,
) -> Result<FittedExport, EmulateError> {
    let share = if choice.exact { 0.9 } else { 1.0 };
    let show = |done: f32, line: &str| {
        if let Ok(mut s) = status.lock() {
            *s = (done, line.to_owned());
        }
    };
    let request =
        EmulateRequest { method: choice.method, helpers_per_joint: choice.helpers, clips: choice.clips.clone() };
    let mut emulation = emulate(model, &request, &mut |step| {
        show(step.done * share, step.line);
        if cancel.load(Ordering::Relaxed) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    let morphs = if choice.exact {
        show(share, "computing the per-key morph targets");
        if cancel.load(Ordering::Relaxed) {
            return Err(EmulateError::Cancelled);
        }
        Some(crate::emulate::exact::key_morphs(&emulation, choice.method))
    } else {
        None
    };
    show(1.0, "done");
    let exported = Arc::new(std::mem::take(&mut emulation.model));
    Ok(FittedExport { emulation, exported, morphs, choice, model_key })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fit_reports_its_stages_and_a_cancel_asked_before_it_stops_it() {
        let model = crate::demo::demo_model().unwrap();
        let choice = LbsExportChoice { helpers: 1, clips: vec![0], ..LbsExportChoice::default() };
        let status = Mutex::new((0.0, String::new()));
        let stop = AtomicBool::new(true);
        assert_eq!(fit(&model, choice.clone(), (1, 2, 3), &status, &stop).err(), Some(EmulateError::Cancelled));
        stop.store(false, Ordering::Relaxed);
        let done = fit(&model, choice, (1, 2, 3), &status, &stop).unwrap();
        assert_eq!(*status.lock().unwrap(), (1.0, "done".to_owned()));
        assert_eq!(done.model_key, (1, 2, 3));
        assert_eq!(done.exported.nodes.len(), model.nodes.len() + done.emulation.helper_nodes.len());
        assert!(done.morphs.is_none() && !done.emulation.helper_nodes.is_empty());
    }
}
