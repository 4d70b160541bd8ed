//! The editor's whole state, independent of any window, each concern in a struct of its own: the
//! document (`document.rs`: the model, its revisions, the pose and the undo history), the per-frame
//! caches computed from it (`frame.rs`: deformations, colours, pick boxes, stage times), the files
//! and recovery (`files.rs`), the view (`view.rs`), posing (`posing.rs`), painting
//! (`painting.rs`), rigging (`rigging.rs`), the analysis views (`app::analysis`) and the export
//! for LBS runtimes (`lbs_export_ops.rs`); the selected
//! joint, the mode and the last message are every concern's. [`EditorState::apply`] is the single
//! place where commands change it, so the UI tests drive exactly what the window does.

mod analysis_ops;
mod autorig_ops;
mod document;
mod edit_counts;
mod files;
mod frame;
mod ik_ops;
mod key_ops;
mod lbs_export_ops;
mod modes;
mod paint_ops;
mod painting;
mod picking;
mod pose_library_ops;
mod pose_tools;
mod posing;
mod recovery_ops;
mod refresh;
mod rig_ops;
mod rigging;
mod rotation_fields;
mod topology_ops;
mod undo_ops;
mod view;
mod weight_look;
mod weight_tools_ops;

pub use weight_tools_ops::{SelectionSummary, WeightToolsState};

pub use autorig_ops::AUTORIG_LABEL;
pub use document::DocumentState;
pub use files::{FilesState, PendingOverwrite};
pub use frame::FrameState;
pub use ik_ops::IkState;
pub use lbs_export_ops::{fit_summary, LbsExportState};
pub use modes::{Mode, PaintSettings, WeightDisplay};
pub use paint_ops::HoverInfo;
pub use painting::PaintingState;
pub use pose_library_ops::PoseLibraryState;
pub use posing::{PosingState, TimelineView};
pub use recovery_ops::RecoverySnapshot;
pub use rigging::RigState;
pub use rotation_fields::{EulerOrder, RotationFields};
pub use view::ViewState;
pub use weight_look::WeightLook;

use std::path::Path;
use std::sync::Arc;

use glam::{DQuat, Vec3};

use super::command::{skeleton_edit, Command};
use super::frame_times::Stage;
use crate::io::pose_file;
use crate::model::Model;
use crate::render::gpu_changes::GpuChanges;
use crate::render::overlays::SkeletonLayout;
use crate::render::scene::drawn_bounds;
use crate::rig::{sample, Pose};

/// A message shown in the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The text (one line).
    pub text: String,
    /// Whether it reports a failure.
    pub is_error: bool,
}

/// Per-frame figures for the status line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Skinned vertices.
    pub vertices: usize,
    /// Distinct joint sets over all skins.
    pub distinct_sets: usize,
    /// Non-trivial joint sets (joints not all on one chain of adjacent joints).
    pub nontrivial_sets: usize,
    /// Milliseconds the last deformation took (all shown methods).
    pub deform_ms: f64,
}

/// The editor state: what every concern reads (the document, the selected joint, the mode, the
/// last message), the per-frame caches computed from it, and each concern's own state.
pub struct EditorState {
    /// The model, the pose and their undo history.
    pub doc: DocumentState,
    /// The deformations and everything else computed from the document once per frame.
    pub frame: FrameState,
    /// The selected joint node.
    pub selected: Option<usize>,
    /// What the editor is doing (pose, paint, rig).
    pub mode: Mode,
    /// The last message (errors stay until the next action).
    pub message: Option<Message>,
    /// The model's files: source document, paths, what was saved, a question waiting.
    pub files: FilesState,
    /// What the viewport shows and from where.
    pub view: ViewState,
    /// Posing's settings: IK, the pose library, the gizmo and rotation fields, the copied pose and
    /// the timeline.
    pub posing: PosingState,
    /// Painting's settings, colours, brush caches and the stroke in progress.
    pub painting: PaintingState,
    /// Rig mode's state: the open gizmo drag and the automatic-weights job.
    pub rig: RigState,
    /// The analysis views (View ▸ Joint sets, the sweep panel).
    pub analysis: crate::app::analysis::AnalysisState,
    /// File ▸ Export for LBS runtimes: the fit running or done, and its preview.
    pub lbs_export: LbsExportState,
}

impl EditorState {
    /// A state showing `model`.
    #[must_use]
    pub fn new(model: Model, name: &str) -> Self {
        let mut s = Self {
            doc: DocumentState::default(),
            frame: FrameState::default(),
            selected: None,
            mode: Mode::Pose,
            message: None,
            files: FilesState::default(),
            view: ViewState::default(),
            posing: PosingState::default(),
            painting: PaintingState::default(),
            rig: RigState::default(),
            analysis: crate::app::analysis::AnalysisState::default(),
            lbs_export: LbsExportState::default(),
        };
        s.replace_model(model, name);
        s
    }

    fn replace_model(&mut self, model: Model, name: &str) {
        let (distinct, nontrivial) = model.joint_set_counts();
        self.frame.stats = Stats {
            vertices: model.skinned_vertex_count(),
            distinct_sets: distinct,
            nontrivial_sets: nontrivial,
            deform_ms: 0.0,
        };
        self.doc.skeleton = SkeletonLayout::new(&model);
        let background = self.build_topology(&model);
        self.painting.weight_tools.last_transfer = None;
        self.rig = RigState::default();
        if let Some(job) = &self.lbs_export.job {
            job.cancel();
        }
        self.lbs_export = LbsExportState::default();
        // A model without a skeleton opens in Rig mode, ready for its root joint, unless it has
        // clips to play (node or morph-weight animation).
        if model.skins.is_empty() && !model.rigid_instances.is_empty() && model.clips.is_empty() {
            self.mode = Mode::Rig;
        }
        self.doc.model = Arc::new(model);
        self.painting.edited.clear();
        self.painting.stroke = None;
        self.painting.settings.locked.clear();
        self.doc.model_name = name.to_owned();
        self.doc.model_rev += 1;
        self.doc.geometry_rev += 1;
        if background {
            self.start_topology_job();
        }
        self.doc.pose = Pose::rest();
        self.doc.history.clear();
        self.files.model_replaced(self.doc.history.revision());
        self.doc.counts.saved(&self.doc.history);
        self.selected = None;
        self.posing.model_replaced();
        self.frame.dirty = true;
        self.refresh();
        self.doc.model_bounds = self.drawn_bounds();
        self.frame_all();
    }

    fn set_error(&mut self, text: String) {
        self.message = Some(Message { text, is_error: true });
    }

    fn set_info(&mut self, text: String) {
        self.message = Some(Message { text, is_error: false });
    }

    /// The local rotation of `node` in the current pose.
    #[must_use]
    pub fn rotation_of(&self, node: usize) -> DQuat {
        if node >= self.doc.model.nodes.len() {
            return DQuat::IDENTITY;
        }
        self.doc.pose.local_trs(&self.doc.model.nodes, node).rotation
    }

    /// The model-space position of a node in the current pose.
    #[must_use]
    pub fn node_position(&self, node: usize) -> Option<Vec3> {
        self.frame.model_from_node.get(node).map(|m| m.w_axis.truncate().as_vec3())
    }

    /// Carries out one command.
    pub fn apply(&mut self, cmd: Command) {
        self.wait_topology_for(&cmd);
        if !matches!(cmd, Command::Ik(_)) {
            self.end_ik_drag();
        }
        match cmd {
            Command::Ik(c) => self.apply_ik(c),
            Command::PoseLibrary(c) => self.apply_pose_library(c),
            Command::Select(node) => {
                self.selected = node.filter(|&n| n < self.doc.model.nodes.len());
                self.end_gesture();
                if self.mode == Mode::Paint {
                    self.repaint_colours();
                }
            }
            Command::SetRotation { .. }
            | Command::SetMorphWeight { .. }
            | Command::ResetJoint(_)
            | Command::ResetPose => {
                if self.doc.apply_pose_edit(&cmd) {
                    // Resetting one joint lets a playing clip go on; the other pose edits stop it.
                    self.posing.playing &= matches!(cmd, Command::ResetJoint(_));
                    self.frame.dirty = true;
                }
            }
            Command::Undo | Command::Redo => self.undo_redo(cmd == Command::Undo),
            Command::SetMethod(_) | Command::SetSplit(_) | Command::SetCompare(_) | Command::SetDifference(_) => {
                self.frame.dirty |= self.view.apply(&cmd);
            }
            Command::OpenModel(path) => {
                self.end_stroke();
                if let Some(what) =
                    self.unsaved_summary().filter(|_| !std::mem::take(&mut self.files.discard_confirmed))
                {
                    self.set_info(format!("{what} not saved: confirm to discard them"));
                    let command = Command::OpenModel(path.clone());
                    self.files.pending_overwrite = Some(PendingOverwrite { path, discard: true, command });
                    return;
                }
                self.open_model(&path);
            }
            Command::SetMode(mode) => self.set_mode(mode),
            skeleton_edit!() | Command::Bind { .. } => self.apply_rig(cmd),
            Command::Autorig(c) => self.apply_autorig(c),
            Command::BeginStroke
            | Command::Dab { .. }
            | Command::EndStroke
            | Command::SampleWeight { .. }
            | Command::Tool(_)
            | Command::SetLocked { .. }
            | Command::SaveModel { .. }
            | Command::SaveWeights(_)
            | Command::Export { .. }
            | Command::ConfirmOverwrite(_) => self.apply_paint(cmd),
            Command::WeightTools(c) => self.apply_weight_tools(c),
            Command::LbsExport(c) => self.apply_lbs_export(c),
            Command::LoadPose(path) => match pose_file::read_pose_file(&path, &self.doc.model.nodes) {
                Ok(p) => {
                    self.doc.set_pose(p);
                    self.posing.playing = false;
                    self.frame.dirty = true;
                    self.set_info(format!("loaded pose {}", path.display()));
                }
                Err(e) => self.set_error(e.to_string()),
            },
            Command::SavePose(path) => {
                let text = pose_file::pose_to_json(&self.doc.pose, &self.doc.model.nodes);
                match crate::io::atomic_write(&path, |w| w.write_all(text.as_bytes())) {
                    Ok(()) => self.set_info(format!("saved pose {}", path.display())),
                    Err(e) => self.set_error(format!("{}: cannot write: {e}", path.display())),
                }
            }
            Command::SelectClip(clip) => {
                self.posing.clip = clip.filter(|&c| c < self.doc.model.clips.len());
                self.posing.playing = false;
                if self.posing.clip.is_some() {
                    // The pose shown now (a hand-made one, say) stays one Undo away.
                    self.doc.history.record(&self.doc.pose, None);
                    self.apply(Command::SetTime(self.posing.time_secs));
                }
            }
            Command::Key(k) => self.apply_key(k),
            Command::CopyPose => self.copy_pose(),
            Command::PastePose { flipped } => self.paste_pose(flipped),
            Command::SetTime(t) => {
                let (a, b) = self.timeline_range();
                let Some(clip) = self.posing.clip.and_then(|c| self.doc.model.clips.get(c)) else { return };
                self.posing.time_secs = if t.is_finite() { t.clamp(a, b) } else { a };
                let mut pose = Pose::rest();
                sample::sample_clip(clip, self.posing.time_secs, &mut pose);
                self.doc.pose = pose;
                self.doc.history.close_gesture();
                self.frame.dirty = true;
            }
            Command::Play(on) => self.posing.play(on),
            Command::AddRomClip { joints, max_angle_rad, seconds_per_motion } => {
                self.add_rom_clip(joints, max_angle_rad, seconds_per_motion);
            }
            Command::FrameSelected => match self.selected.and_then(|n| Some((n, self.node_position(n)?))) {
                Some((node, p)) => {
                    let (lo, hi) = self.drawn_bounds();
                    let diagonal = (hi - lo).length();
                    // The joint's bones, as Blender frames a bone: the joint and its children
                    // (a leaf: half its parent's bone around it), every panel of a split view alike.
                    let n = &self.doc.model.nodes.nodes[node];
                    let ends: Vec<Vec3> = n.children.iter().filter_map(|&c| self.node_position(c)).collect();
                    let (lo, hi) = if ends.is_empty() {
                        let parent = n.parent.and_then(|m| self.node_position(m)).map_or(0.0, |q| q.distance(p));
                        let r = Vec3::splat((parent * 0.5).clamp(diagonal * 0.02, diagonal * 0.15));
                        (p - r, p + r)
                    } else {
                        let (a, b) = ends.iter().fold((p, p), |(a, b), &q| (a.min(q), b.max(q)));
                        let pad = Vec3::splat(((b - a).length() * 0.1).max(diagonal * 0.01));
                        (a - pad, b + pad)
                    };
                    let aspect = self.view.panel_aspect();
                    self.view.camera.frame(lo, hi, aspect);
                }
                None => self.frame_all(),
            },
        }
    }

    fn open_model(&mut self, path: &Path) {
        // An OBJ gets a fresh glTF document, so that it can be rigged and saved as glTF.
        let loaded = crate::io::load_document(path).map(|(m, d)| (m, Some(d)));
        match loaded {
            Ok((model, source)) => {
                let name =
                    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
                self.replace_model(model, &name);
                let warnings = source.as_ref().map_or_else(String::new, |s| import_warnings(s.warnings()));
                self.files.source = source.map(Arc::new);
                self.files.model_path = Some(path.to_path_buf());
                self.set_info(format!("opened {}{warnings}{}", path.display(), self.weld_warning()));
            }
            Err(e) => self.set_error(format!("{e} (the current model is unchanged)")),
        }
    }

    /// Remembers the whole viewport's aspect ratio (for framing); the first report re-frames the
    /// model, which was framed for a guessed aspect before the window had a size.
    pub fn set_aspect(&mut self, aspect: f32) {
        if self.view.set_aspect(aspect) {
            self.frame_all();
        }
    }

    /// The box around everything the left panel draws now.
    fn drawn_bounds(&self) -> (Vec3, Vec3) {
        let f = &self.frame;
        drawn_bounds(&self.doc.model, &f.deformed[0], &f.model_from_node, &f.rigid_morphs)
    }

    /// Aims the camera at the whole deformed model.
    pub fn frame_all(&mut self) {
        let (lo, hi) = self.drawn_bounds();
        self.view.frame_box(lo, hi);
    }

    /// Shows `pose` without recording it for undo (as playback does): `open --bench-frames`
    /// drives the editor through changing poses this way.
    pub fn show_pose(&mut self, pose: Pose) {
        self.doc.pose = pose;
        self.frame.dirty = true;
    }

    /// What changed in the deformation and colours since the viewport last took it.
    #[must_use]
    pub fn gpu_changes(&self) -> &GpuChanges {
        &self.frame.gpu_changes
    }

    /// What changed in the deformation and colours since the last call (the viewport uploads
    /// exactly that).
    pub fn take_gpu_changes(&mut self) -> GpuChanges {
        std::mem::take(&mut self.frame.gpu_changes)
    }

    /// Advances playback by `dt_secs` (looping).
    pub fn advance(&mut self, dt_secs: f64) {
        if !self.posing.playing {
            return;
        }
        let Some(clip) = self.posing.clip.and_then(|c| self.doc.model.clips.get(c)) else { return };
        let (a, b) = clip.range();
        let mut t = self.posing.time_secs + dt_secs;
        if t > b {
            t = if b > a { a + (t - a) % (b - a) } else { a };
        }
        self.apply(Command::SetTime(t));
    }
}

/// The import's warnings as a suffix of the status line's "opened" message (empty without any).
pub(crate) fn import_warnings(warnings: &[String]) -> String {
    warnings.iter().map(|w| format!("; warning: {w}")).collect()
}
