//! The editor's side of recovery: what the unsaved work is (the history since the last save or
//! load), the recovery file that describes its effect, and restoring one onto the model it was
//! made on (its weights marked as unsaved edits; the weights and the pose together one undo
//! step, [`RESTORE_STEP`], so that Ctrl+Z shows the model as it was before the restore).

use std::path::Path;
use std::sync::Arc;

use super::EditorState;
use crate::io::clips_json::{clips_from_json, clips_to_json};
use crate::io::pose_file;
use crate::io::recovery::{self, RecoveryFile};
use crate::io::weights_file::{apply_weights, ordered_influences, weights_to_json};
use crate::model::ModelEdit;
use crate::model::StrokeRecord;

/// The label of the undo step a restore records.
pub const RESTORE_STEP: &str = "Restore unsaved work";

/// The editor's unsaved work as of one moment, from which its recovery file is made (on any
/// thread: at a million vertices that takes seconds).
pub struct RecoverySnapshot {
    model: Arc<crate::model::Model>,
    source: Option<Arc<crate::io::SourceDocument>>,
    pose: Option<crate::rig::Pose>,
    model_path: Option<std::path::PathBuf>,
    model_name: String,
    strokes: usize,
    /// The skeleton differs from the model's file (kept as a copy of the whole model).
    skeleton_changed: bool,
}

impl RecoverySnapshot {
    /// The recovery file written by process `pid`: the weights that differ from the model's
    /// file, the pose, and the clips when they differ from the file's.
    #[must_use]
    pub fn file(&self, pid: u32) -> RecoveryFile {
        let mut sections = std::collections::BTreeMap::new();
        let base = self.source.as_deref().map(crate::io::SourceDocument::original);
        let (weights, listed) = weights_to_json(&self.model, base);
        if listed > 0 {
            if let Ok(v) = serde_json::from_str(&weights) {
                sections.insert(recovery::WEIGHTS.to_owned(), v);
            }
        }
        if let Some(pose) = &self.pose {
            if let Ok(v) = serde_json::from_str(&pose_file::pose_to_json(pose, &self.model.nodes)) {
                sections.insert(recovery::POSE.to_owned(), v);
            }
            if !pose.morph_weights.is_empty() {
                let v = recovery::morph_weights_to_json(&pose.morph_weights, &self.model.nodes);
                sections.insert(recovery::MORPH_WEIGHTS.to_owned(), v);
            }
        }
        if base.map_or(!self.model.clips.is_empty(), |b| b.clips != self.model.clips) {
            sections.insert(recovery::CLIPS.to_owned(), clips_to_json(&self.model.clips, &self.model.nodes));
        }
        RecoveryFile {
            model: self.model_path.clone(),
            model_name: self.model_name.clone(),
            saved_unix_secs: recovery::now_unix_secs(),
            pid,
            strokes: self.strokes,
            sections,
        }
    }

    /// Writes the recovery file to `path` for process `pid`. While the skeleton differs from the
    /// model's file, the edited model goes first to [`recovery::companion`] and the file names
    /// it; otherwise an older companion is removed after the file.
    pub fn write(&self, pid: u32, path: &Path) -> Result<(), String> {
        let mut file = self.file(pid);
        let copy = recovery::companion(path);
        let changed_source = self.source.as_deref().filter(|_| self.skeleton_changed);
        if let Some(source) = changed_source {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            let options = crate::io::ExportOptions::default();
            crate::io::export_model(&self.model, source, &options, &copy).map_err(|e| e.to_string())?;
            let section = serde_json::json!({ "copy": copy.display().to_string() });
            file.sections.insert(recovery::SKELETON.to_owned(), section);
        }
        file.write(path).map_err(|e| e.to_string())?;
        if changed_source.is_none() {
            let _ = std::fs::remove_file(&copy);
        }
        Ok(())
    }
}

/// Whether `model`'s skeleton (node tree, skins' joints and bind matrices, skinned instances)
/// differs from `base`'s.
fn skeleton_differs(model: &crate::model::Model, base: &crate::model::Model) -> bool {
    model.nodes != base.nodes
        || model.instances != base.instances
        || model.skins.len() != base.skins.len()
        || model
            .skins
            .iter()
            .zip(&base.skins)
            .any(|(a, b)| a.joints != b.joints || a.joint_from_bind != b.joint_from_bind)
}

impl EditorState {
    /// Whether the history changed since the model was loaded or saved (or the work was restored
    /// from a recovery file and not saved since).
    #[must_use]
    pub fn has_unsaved_work(&self) -> bool {
        self.files.clean_revision != Some(self.doc.history.revision())
    }

    /// The recovery file describing the current unsaved work, written by process `pid`: the
    /// weights that differ from the model's file and the pose.
    #[must_use]
    pub fn recovery_file(&self, pid: u32) -> RecoveryFile {
        self.recovery_snapshot().file(pid)
    }

    /// What the recovery file is made from, shared rather than copied (the model and its source
    /// document by reference count), so that another thread can write it.
    #[must_use]
    pub fn recovery_snapshot(&self) -> RecoverySnapshot {
        RecoverySnapshot {
            model: Arc::clone(&self.doc.model),
            source: self.files.source.clone(),
            pose: (!self.doc.pose.overrides.is_empty() || !self.doc.pose.morph_weights.is_empty())
                .then(|| self.doc.pose.clone()),
            model_path: self.files.model_path.clone(),
            model_name: self.doc.model_name.clone(),
            strokes: self.doc.history.paint_steps(),
            skeleton_changed: self
                .files
                .source
                .as_deref()
                .is_some_and(|s| skeleton_differs(&self.doc.model, crate::io::SourceDocument::original(s))),
        }
    }

    /// Opens the recovery file's model (unless it is the one shown) and applies its weights and
    /// pose; returns a one-line summary. Nothing is changed when a section does not apply.
    pub fn restore(&mut self, file: &RecoveryFile) -> Result<String, String> {
        let same_model = match (&file.model, &self.files.model_path) {
            (Some(a), Some(b)) => same_file(a, b),
            (None, None) => self.doc.model_name == file.model_name,
            _ => false,
        };
        let fresh = if same_model { None } else { Some(load_model_of(file)?) };
        let mut model = match &fresh {
            Some((m, _, _)) => m.clone(),
            None => (*self.doc.model).clone(),
        };
        let skeleton = file.sections.get(recovery::SKELETON);
        if let Some(copy) = skeleton {
            model = skeleton_copy(copy, &model)?;
        }
        if let Some(text) = file.section_text(recovery::WEIGHTS) {
            apply_weights(&text, &mut model).map_err(|e| format!("the recovered weights do not apply: {e}"))?;
        }
        if let Some(clips) = file.sections.get(recovery::CLIPS) {
            model.clips =
                clips_from_json(clips, &model.nodes).map_err(|e| format!("the recovered clips do not apply: {e}"))?;
        }
        let mut pose = match file.section_text(recovery::POSE) {
            Some(text) => Some(
                pose_file::parse_pose(&text, &model.nodes)
                    .map_err(|e| format!("the recovered pose does not apply: {e}"))?,
            ),
            None => None,
        };
        if let Some(value) = file.sections.get(recovery::MORPH_WEIGHTS) {
            let weights = recovery::morph_weights_from_json(value, &model.nodes)
                .map_err(|e| format!("the recovered pose does not apply: {e}"))?;
            pose.get_or_insert_with(crate::rig::Pose::rest).morph_weights = weights;
        }
        if let Some((m, source, name)) = fresh {
            self.replace_model(m, &name);
            self.files.source = Some(std::sync::Arc::new(source));
            self.files.model_path = file.model.clone();
        }
        // Mark every vertex whose weights differ from the model's file as edited.
        let mut marks = StrokeRecord::new("Restore");
        let base = self.files.source.as_deref().map(crate::io::SourceDocument::original).unwrap_or(&self.doc.model);
        for inst in &model.instances {
            let table = &model.skins[inst.skin].sets;
            for (p, prim) in model.meshes[inst.mesh].primitives.iter().enumerate() {
                let Some(inf) = &prim.influences else { continue };
                let old =
                    base.meshes.get(inst.mesh).and_then(|m| m.primitives.get(p)).and_then(|q| q.influences.as_ref());
                let old_table = base.skins.get(inst.skin).map(|s| &s.sets);
                for v in 0..inf.len() {
                    let same = match (old, old_table) {
                        (Some(o), Some(t)) if v < o.len() => {
                            ordered_influences(inf, table, v) == ordered_influences(o, t, v)
                        }
                        _ => false,
                    };
                    if !same {
                        let snap = inf.snapshot(v);
                        marks.record(inst.mesh, p, v as u32, snap, snap);
                    }
                }
            }
        }
        let vertices = marks.len();
        // One undo step for the weights and the pose: the model and pose shown before.
        let step = ModelEdit::between(RESTORE_STEP, &self.doc.model, &model);
        self.doc.history.record_model(step, &self.doc.pose);
        self.doc.model = Arc::new(model);
        if skeleton.is_some() {
            // The skeleton drawn, the brush caches' joints, the selection: all of the copy's; and
            // one unsaved skeleton edit in the status line.
            self.model_edited();
        }
        self.posing.clip = self.posing.clip.filter(|&c| c < self.doc.model.clips.len());
        self.painting.edited.note(&marks);
        if let Some(pose) = pose {
            self.doc.pose = pose;
        }
        self.files.clean_revision = None;
        self.doc.counts.restored(file.strokes);
        self.frame.dirty = true;
        self.refresh();
        let mut summary = format!(
            "restored unsaved work on {}: {} strokes ({vertices} vertices), {} posed joints, {} clip(s)",
            self.doc.model_name,
            file.strokes,
            self.doc.pose.overrides.len(),
            self.doc.model.clips.len()
        );
        if skeleton.is_some() {
            summary.push_str(", and the edited skeleton");
        }
        let unknown = file.unknown_sections();
        if !unknown.is_empty() {
            summary.push_str(&format!(" (not restored by this version: {})", unknown.join(", ")));
        }
        self.set_info(summary.clone());
        Ok(summary)
    }
}

/// The model a recovery file was made on, as loaded from its file (or the demo), with its
/// document and name.
fn load_model_of(file: &RecoveryFile) -> Result<(crate::model::Model, crate::io::SourceDocument, String), String> {
    match &file.model {
        Some(path) => {
            let (m, source) = crate::io::load_document(path).map_err(|e| e.to_string())?;
            let name = path.file_name().map_or_else(|| file.model_name.clone(), |n| n.to_string_lossy().into());
            Ok((m, source, name))
        }
        None => {
            let name = crate::demo::DEMO_NAME;
            let (m, source) = crate::io::load_document_from_bytes(&crate::demo::demo_glb(), Path::new(name))
                .map_err(|e| e.to_string())?;
            Ok((m, source, name.to_owned()))
        }
    }
}

/// The edited model a skeleton section names, checked against the file's `model`: the same
/// meshes, primitives and vertex counts (the copy changes the skeleton and the weights, never
/// the geometry).
fn skeleton_copy(section: &serde_json::Value, model: &crate::model::Model) -> Result<crate::model::Model, String> {
    let path = section.get("copy").and_then(serde_json::Value::as_str).ok_or("the skeleton section names no copy")?;
    let (copy, _) =
        crate::io::load_document(Path::new(path)).map_err(|e| format!("the recovered skeleton cannot be read: {e}"))?;
    let counts = |m: &crate::model::Model| -> Vec<Vec<usize>> {
        m.meshes.iter().map(|mesh| mesh.primitives.iter().map(|p| p.positions.len()).collect()).collect()
    };
    if counts(&copy) != counts(model) {
        return Err(format!("the recovered skeleton's model {path} has other meshes than the model's file"));
    }
    // The copy's edited weights ordered its vertices their own way (`model::vertex_order`): back
    // to the model's order, which the GPU meshes, brush caches and undo records were made for.
    let mut copy = copy;
    for (mesh, target) in copy.meshes.iter_mut().zip(&model.meshes) {
        for (prim, order) in mesh.primitives.iter_mut().zip(target.primitives.iter().map(|p| &p.order)) {
            prim.take_order(order);
        }
    }
    Ok(copy)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
