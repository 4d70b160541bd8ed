//! File ▸ Export for LBS runtimes, the state side: the fit on its thread ([`EmulateJob`]), the
//! fitted export kept while the document stays as it was fitted, the "as exported" preview (the
//! left panel shows what an LBS runtime will draw: the fitted model under LBS, its helpers keyed
//! on a fitted clip or driven by their live rigs in a hand-made pose), and the export itself.

use std::path::Path;

use super::{EditorState, Mode};
use crate::app::command::{Command, LbsExportCommand};
use crate::app::emulate_job::{EmulateJob, FittedExport};
use crate::emulate::EmulateError;
use crate::io::gltf_export::export_model_with_key_morphs;
use crate::io::{Container, ExportOptions};
use crate::rig::{sample, Pose};

/// The window's job and result.
#[derive(Default)]
pub struct LbsExportState {
    /// The fit running.
    pub job: Option<EmulateJob>,
    /// The last fit.
    pub fitted: Option<FittedExport>,
    /// Whether the left panel shows the fitted export.
    pub preview: bool,
}

impl LbsExportState {
    /// The fit, while it still belongs to the document (`model_key`).
    #[must_use]
    pub fn current(&self, model_key: (u64, u64, u64)) -> Option<&FittedExport> {
        self.fitted.as_ref().filter(|f| f.model_key == model_key)
    }
}

impl EditorState {
    /// The document's identity for the fit: its revision, in-place edits and dabs.
    #[must_use]
    pub fn lbs_model_key(&self) -> (u64, u64, u64) {
        (self.doc.model_rev, self.doc.model_edits, self.doc.dabs)
    }

    /// Whether the left panel shows the fitted export (a current fit, previewed, outside Rig mode).
    #[must_use]
    pub fn shows_export(&self) -> bool {
        self.lbs_export.preview && self.mode != Mode::Rig && self.lbs_export.current(self.lbs_model_key()).is_some()
    }

    /// The left panel's label: its method, or what the export shows.
    #[must_use]
    pub fn left_label(&self) -> String {
        match self.lbs_export.current(self.lbs_model_key()).filter(|_| self.shows_export()) {
            Some(f) => format!("As exported: LBS + {} helpers", f.emulation.helper_nodes.len()),
            None => self.view.method.label().to_owned(),
        }
    }

    /// The panels' labels, left to right.
    #[must_use]
    pub fn panel_labels(&self) -> Vec<String> {
        let mut labels = vec![self.left_label()];
        if self.view.split {
            labels.push(self.view.compare.label().to_owned());
        }
        labels
    }

    /// Carries out a command of the window.
    pub fn apply_lbs_export(&mut self, cmd: LbsExportCommand) {
        match cmd {
            LbsExportCommand::Fit(mut choice) => {
                // Clips of a model opened since the window's choices were made are not this one's.
                choice.clips.retain(|&c| c < self.doc.model.clips.len());
                if self.lbs_export.job.is_some() {
                    return self.set_error("a fit is running: wait for it or cancel it".into());
                }
                if self.doc.model.instances.is_empty() {
                    return self.set_error("the model has no skinned mesh: nothing to emulate".into());
                }
                self.end_stroke();
                self.lbs_export.job = Some(EmulateJob::start(&self.doc.model, self.lbs_model_key(), choice));
            }
            LbsExportCommand::Cancel => {
                if let Some(job) = &self.lbs_export.job {
                    job.cancel();
                }
            }
            LbsExportCommand::Preview(on) => {
                self.lbs_export.preview = on;
                if let Some(method) = self.lbs_export.current(self.lbs_model_key()).map(|f| f.choice.method) {
                    if on {
                        self.view.split = true;
                        self.view.compare = method;
                        self.view.difference = true;
                    }
                }
                self.frame.dirty = true;
            }
            LbsExportCommand::Export { path, overwrite } => self.export_for_lbs(&path, overwrite),
            LbsExportCommand::Discard => {
                if let Some(job) = self.lbs_export.job.take() {
                    job.cancel();
                }
                self.lbs_export.fitted = None;
                self.lbs_export.preview = false;
                self.frame.dirty = true;
            }
        }
    }

    /// Takes a finished fit (and shows it beside its target) or its failure. Called every frame;
    /// returns whether a fit is still running (the window keeps redrawing).
    pub fn poll_lbs_export(&mut self) -> bool {
        let Some(job) = &self.lbs_export.job else { return false };
        let Some(result) = job.poll() else { return true };
        self.lbs_export.job = None;
        match result {
            Ok(fitted) => {
                let summary = fit_summary(&fitted);
                let stale = fitted.model_key != self.lbs_model_key();
                self.lbs_export.fitted = Some(fitted);
                if stale {
                    self.set_error("the model changed while the fit ran: fit again".into());
                } else {
                    self.apply_lbs_export(LbsExportCommand::Preview(true));
                    self.set_info(summary);
                }
            }
            Err(EmulateError::Cancelled) => self.set_info("the fit was cancelled".into()),
            Err(e) => self.set_error(e.to_string()),
        }
        false
    }

    /// The pose of the fitted model that an LBS runtime shows for the current one: on a fitted
    /// clip at the timeline's time (the pose is the clip's there), the helpers' keys; otherwise
    /// the document's pose, the helpers following their live rigs.
    pub(super) fn exported_pose(&self, fitted: &FittedExport) -> Pose {
        let mut pose = self.doc.pose.clone();
        let Some(c) = self.posing.clip else { return pose };
        let (Some(clip), Some(exported)) = (self.doc.model.clips.get(c), fitted.exported.clips.get(c)) else {
            return pose;
        };
        if !fitted.emulation.fitted.iter().any(|(f, _)| *f == c) {
            return pose;
        }
        let mut on_clip = Pose::rest();
        sample::sample_clip(clip, self.posing.time_secs, &mut on_clip);
        if on_clip != self.doc.pose {
            return pose;
        }
        let mut keyed = Pose::rest();
        sample::sample_clip(exported, self.posing.time_secs, &mut keyed);
        for &h in &fitted.emulation.helper_nodes {
            if let Some(o) = keyed.overrides.get(&h) {
                pose.overrides.insert(h, *o);
            }
        }
        pose
    }

    /// Writes the fitted export to `path` (the extension follows the chosen format).
    fn export_for_lbs(&mut self, path: &Path, overwrite: bool) {
        let Some(fitted) = self.lbs_export.current(self.lbs_model_key()) else {
            return self.set_error("no current fit to export: fit again (the model changed since)".into());
        };
        let glb = fitted.choice.glb;
        let path = path.with_extension(if glb { "glb" } else { "gltf" });
        let again = Command::LbsExport(LbsExportCommand::Export { path: path.clone(), overwrite: true });
        if self.confirm_needed(&path, overwrite, again) {
            return;
        }
        let Some(source) = &self.files.source else {
            return self.set_error(format!("{}: only models opened from glTF can be exported", path.display()));
        };
        let Some(fitted) = self.lbs_export.current(self.lbs_model_key()) else { return };
        let options = ExportOptions {
            container: if glb { Container::Glb } else { Container::GltfEmbedded },
            max_influences: fitted
                .emulation
                .influence_limit
                .max(self.painting.settings.limit.max(crate::paint::DEFAULT_LIMIT)),
            overwrite_source: overwrite,
            ..ExportOptions::default()
        };
        match export_model_with_key_morphs(&fitted.exported, source, &options, fitted.morphs.as_ref(), &path) {
            Ok(r) => {
                let bytes: usize = r.files.iter().map(|f| f.1).sum();
                let text = format!("exported {} ({bytes} bytes): {}", path.display(), fit_summary(fitted));
                self.set_info(text);
            }
            Err(e) => self.set_error(e.to_string()),
        }
    }
}

/// One line: the method, the helpers and the runtime's distance without and with them.
#[must_use]
pub fn fit_summary(fitted: &FittedExport) -> String {
    let (plain, with) = fitted.emulation.overall_rms();
    let exact = match &fitted.morphs {
        Some(m) => format!(", {} exact morph targets", m.count),
        None => String::new(),
    };
    format!(
        "{} emulated with {} helper joints{exact}: LBS RMS {:.3} % -> {:.3} % of the diagonal over {} clip(s)",
        fitted.choice.method.label(),
        fitted.emulation.helper_nodes.len(),
        100.0 * plain,
        100.0 * with,
        fitted.emulation.clips.len()
    )
}
