//! Rig ▸ Auto-rig in the editor: the window's choices ([`AutorigSetup`]), markers placed on the
//! click's ray (a chain's ends in the middle of the volume under the cursor), the fit, skeleton and binding run as
//! one background job (`BindJob`, so its progress shows like Bind's) whose result is one undo
//! step, and Cancel for any running job.

use super::{EditorState, Mode};
use crate::app::autorig_setup::{AutorigSetup, TemplateChoice};
use crate::app::bind_job::BindJob;
use crate::app::command::AutorigCommand;
use crate::paint::volume_pick::on_view_plane;

/// The undo step's and the job's name.
pub const AUTORIG_LABEL: &str = "Auto-rig";

impl EditorState {
    /// Carries out an Auto-rig command.
    pub(super) fn apply_autorig(&mut self, cmd: AutorigCommand) {
        match cmd {
            AutorigCommand::Open => {
                if self.mode != Mode::Rig {
                    self.set_mode(Mode::Rig);
                }
                // The marker view: the character from the front, orthographic (a marker's place on
                // screen does not depend on its depth).
                if self.rig.autorig.is_none() {
                    crate::app::view_keys::ViewAxis::Front.apply(&mut self.view.camera);
                    self.view.camera.orthographic = true;
                }
                let setup = self.rig.autorig.get_or_insert_with(AutorigSetup::default);
                setup.keep_template_markers();
                match self.autorig_refusal() {
                    Some(why) => self.set_error(format!("{AUTORIG_LABEL}: {why}")),
                    None => self.set_info("Auto-rig: choose a template; markers are optional for a humanoid".into()),
                }
            }
            AutorigCommand::PlaceMarker { ray, panel } => {
                if self.rig.placing_marker().is_none() {
                    return;
                }
                // A chain's ends are points inside the model; the humanoid's markers stand for
                // their front-view rays: where the click's ray crosses the character's middle
                // plane facing the front view (z through the model's centre).
                let chain = self.rig.autorig.as_ref().is_some_and(|a| a.template == TemplateChoice::Chain);
                let (lo, hi) = self.doc.model_bounds;
                let at = if chain {
                    self.placement(&ray, panel).map(|(p, _)| p)
                } else {
                    on_view_plane(&ray, (lo + hi) * 0.5, glam::Vec3::Z)
                };
                let Some(p) = at else {
                    self.set_error("Auto-rig: the click's ray meets neither the model nor the view plane".into());
                    return;
                };
                if let Some(name) = self.rig.autorig.as_mut().and_then(|a| a.place(p.as_dvec3())) {
                    self.set_info(format!("marker {name} at ({:.3}, {:.3}, {:.3})", p.x, p.y, p.z));
                }
            }
            AutorigCommand::Run => self.start_autorig(),
            AutorigCommand::Cancel => {
                if let Some(job) = self.rig.job.take() {
                    job.cancel();
                    self.set_info(format!("{} cancelled: nothing changed", job.label()));
                }
            }
        }
    }

    /// Closes the Auto-rig window; the view returns to perspective.
    pub fn close_autorig(&mut self) {
        self.rig.autorig = None;
        self.view.camera.orthographic = false;
    }

    /// Why Auto-rig cannot run on the model as it is, if it cannot.
    #[must_use]
    pub fn autorig_refusal(&self) -> Option<String> {
        crate::rig::autorig::build::source(&self.doc.model).err().map(|e| e.to_string())
    }

    fn start_autorig(&mut self) {
        self.end_gesture();
        if let Some(job) = &self.rig.job {
            self.set_error(format!("{} is running: wait for it or cancel it", job.label()));
            return;
        }
        if let Some(why) = self.autorig_refusal() {
            self.set_error(format!("{AUTORIG_LABEL}: {why}"));
            return;
        }
        let Some(setup) = &self.rig.autorig else { return };
        let work = setup.work(self.painting.settings.limit);
        self.rig.job = Some(BindJob::start(AUTORIG_LABEL, &self.doc.model, self.doc.model_rev, work));
        self.set_info(format!("{AUTORIG_LABEL}: fitting the skeleton…"));
    }
}
