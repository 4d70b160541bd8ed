//! The brush caches' life in the editor: built at once for small models, on a background thread
//! for large ones ([`crate::app::topology_job`]); taken when ready (polled every frame), or
//! waited for by the first command that needs them (a dab, a tool, the undo of a bind), which
//! says so.

use super::{EditorState, Message};
use crate::app::command::{skeleton_edit, Command};
use crate::app::topology_job::{Built, TopologyJob, BACKGROUND_VERTICES};
use crate::model::Model;
use crate::paint::{ModelTopology, Selection};

impl EditorState {
    /// Builds the brush caches of `model` now when it is small; a large one gets empty caches
    /// until [`EditorState::start_topology_job`] has run.
    pub(super) fn build_topology(&mut self, model: &Model) -> bool {
        self.painting.topology_job = None;
        let background = model.skinned_vertex_count() >= BACKGROUND_VERTICES;
        let topology = if background { ModelTopology::default() } else { ModelTopology::new(model) };
        let disagreements = if background {
            0
        } else {
            crate::paint::disagreeing_groups(model, &topology.surface, crate::paint::weld::AGREEMENT_TOLERANCE).len()
        };
        self.install_topology(Built { topology, disagreements });
        background
    }

    /// Starts building the current model's brush caches on a background thread.
    pub(super) fn start_topology_job(&mut self) {
        self.painting.topology_job =
            Some(TopologyJob::start(&self.doc.model, self.doc.model_rev, self.doc.geometry_rev));
    }

    fn install_topology(&mut self, built: Built) {
        self.painting.topology = built.topology;
        self.painting.topology_stale = false;
        self.painting.weight_tools.selection = Selection::new(self.painting.topology.surface.len());
        self.painting.weld_disagreements = built.disagreements;
    }

    /// The brush caches' build progress (0 to 1) while they are being built in the background.
    #[must_use]
    pub fn topology_progress(&self) -> Option<f32> {
        self.painting.topology_job.as_ref().map(TopologyJob::progress)
    }

    /// Takes the brush caches if their background build has finished; true while it runs.
    pub fn poll_topology(&mut self) -> bool {
        match &self.painting.topology_job {
            None => false,
            Some(job) if !job.is_finished() => true,
            Some(_) => {
                self.finish_topology(false);
                false
            }
        }
    }

    /// Waits for the brush caches if `cmd` needs them and they are still being built. An undo or
    /// redo needs them only to cross a paint step or a bind (a pose, skeleton or key step does
    /// not).
    pub(super) fn wait_topology_for(&mut self, cmd: &Command) {
        // Every command is named, so a new one is decided here when it is added.
        let needs = match cmd {
            Command::Undo | Command::Redo => self.doc.history.next_changes_meshes(*cmd == Command::Undo),
            // Posing, viewing and selecting never read the caches.
            Command::Select(_)
            | Command::SetRotation { .. }
            | Command::SetMorphWeight { .. }
            | Command::ResetJoint(_)
            | Command::ResetPose
            | Command::SetMethod(_)
            | Command::SetSplit(_)
            | Command::SetCompare(_)
            | Command::SetDifference(_)
            | Command::SetMode(_)
            | Command::LoadPose(_)
            | Command::SavePose(_)
            | Command::SelectClip(_)
            | Command::SetTime(_)
            | Command::Play(_)
            | Command::FrameSelected
            | Command::CopyPose
            | Command::PastePose { .. } => false,
            // Skeleton edits leave the meshes alone: the caches take their joints when taken.
            skeleton_edit!() => false,
            // Keys, clips, IK and the pose library change poses and clips, never meshes.
            Command::Key(_) | Command::AddRomClip { .. } | Command::Ik(_) | Command::PoseLibrary(_) => false,
            // The fit copies the model; the export writes the fitted one.
            Command::LbsExport(_) => false,
            // Painting, the weight tools, binding, and what writes or replaces the model.
            Command::BeginStroke
            | Command::Dab { .. }
            | Command::EndStroke
            | Command::SampleWeight { .. }
            | Command::WeightTools(_)
            | Command::Tool(_)
            | Command::SetLocked { .. }
            | Command::Bind { .. }
            | Command::Autorig(_)
            | Command::OpenModel(_)
            | Command::SaveModel { .. }
            | Command::SaveWeights(_)
            | Command::Export { .. }
            | Command::ConfirmOverwrite(_) => true,
        };
        if self.painting.topology_job.is_some() && needs {
            self.finish_topology(true);
        }
    }

    fn finish_topology(&mut self, waited: bool) {
        let Some(job) = self.painting.topology_job.take() else { return };
        let (rev, geometry, secs) = (job.model_rev(), job.geometry_rev(), job.elapsed_secs());
        let t = std::time::Instant::now();
        match job.wait() {
            Some(mut built) if geometry == self.doc.geometry_rev => {
                // Skeleton edits made while it ran: the same surface, their joints.
                let current = rev == self.doc.model_rev || built.topology.rejoint(&self.doc.model);
                self.install_topology(built);
                self.painting.topology_stale = !current;
                let warning = self.weld_warning();
                if waited {
                    self.message = Some(Message {
                        text: format!(
                            "the brush caches were not ready yet: waited {:.0} ms for them (built in {:.1} s){warning}",
                            t.elapsed().as_secs_f64() * 1e3,
                            secs + t.elapsed().as_secs_f64()
                        ),
                        is_error: false,
                    });
                } else if !warning.is_empty() {
                    self.message = Some(Message { text: format!("brush caches ready{warning}"), is_error: false });
                }
                if self.mode == super::Mode::Paint {
                    self.repaint_colours();
                }
            }
            Some(_) => {}
            None => {
                // The build panicked: build them here, so painting still works.
                let model = std::sync::Arc::clone(&self.doc.model);
                self.build_topology_now(&model);
            }
        }
    }

    fn build_topology_now(&mut self, model: &Model) {
        let topology = ModelTopology::new(model);
        let disagreements =
            crate::paint::disagreeing_groups(model, &topology.surface, crate::paint::weld::AGREEMENT_TOLERANCE).len();
        self.install_topology(Built { topology, disagreements });
    }
}
