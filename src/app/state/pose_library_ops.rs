//! The model's pose library in the editor (`io::pose_library`): read from `MODEL.poses.json`
//! beside the model when the model changes, written atomically after every change; the built-in
//! demo (no file) keeps its library in memory. Add the current pose of the selected limb or the
//! whole pose under a name (with a thumbnail drawn on the CPU from the current deformation and
//! camera), apply (one undo step), apply flipped across the symmetry plane, rename, delete (adding,
//! renaming and deleting are undo steps too: the history keeps the library before them). A
//! library file that cannot be read is reported and left alone until the user chooses to start
//! a new library in its place.

use std::path::PathBuf;

use super::pose_tools::mirror_partners;
use super::EditorState;
use crate::app::command::PoseLibraryCommand;
use crate::io::pose_library::{held_pose, library_path, LibraryPose, PoseLibrary, THUMBNAIL_PX};
use crate::rig::mirror_pose::paste_mirrored;

/// The library of the model shown, where it is kept and what went wrong reading it.
#[derive(Clone, Debug, Default)]
pub struct PoseLibraryState {
    /// The poses.
    pub library: PoseLibrary,
    /// The library file (`None`: kept in memory, the built-in demo has no file).
    pub path: Option<PathBuf>,
    /// Why the library file could not be read; while set, nothing is written over it.
    pub problem: Option<String>,
    /// The model (revision and file) the library was read for.
    loaded_for: Option<(u64, Option<PathBuf>)>,
    /// The name field of the library panel.
    pub name_field: String,
    /// The pose being renamed in the panel and the name typed so far.
    pub renaming: Option<(usize, String)>,
}

impl EditorState {
    /// Reads the model's pose library if the model changed since it was last read.
    pub fn sync_pose_library(&mut self) {
        let key = (self.doc.model_rev, self.files.model_path.clone());
        if self.posing.poses.loaded_for.as_ref() == Some(&key) {
            return;
        }
        let path = self.files.model_path.as_deref().map(library_path);
        let (library, problem) = match &path {
            Some(p) => match PoseLibrary::read(p, &self.doc.model.nodes) {
                Ok(lib) => (lib.unwrap_or_default(), None),
                Err(e) => (PoseLibrary::default(), Some(e)),
            },
            None => (PoseLibrary::default(), None),
        };
        self.posing.poses =
            PoseLibraryState { library, path, problem, loaded_for: Some(key), ..PoseLibraryState::default() };
    }

    /// Carries out one pose-library command.
    pub(super) fn apply_pose_library(&mut self, cmd: PoseLibraryCommand) {
        self.sync_pose_library();
        match cmd {
            PoseLibraryCommand::Add { name, selected_only } => self.add_library_pose(name.trim(), selected_only),
            PoseLibraryCommand::Apply { index, flipped } => self.apply_library_pose(index, flipped),
            PoseLibraryCommand::Rename { index, name } => {
                let name = name.trim().to_owned();
                if index >= self.posing.poses.library.poses.len() || name.is_empty() {
                    return;
                }
                if self.posing.poses.library.find(&name).is_some_and(|i| i != index) {
                    self.set_error(format!("a pose called {name:?} is already in the library"));
                    return;
                }
                let mut lib = self.posing.poses.library.clone();
                lib.poses[index].name.clone_from(&name);
                self.store_library(lib, "Rename Pose", format!("renamed the pose to {name:?}"));
            }
            PoseLibraryCommand::Delete(index) => {
                if index < self.posing.poses.library.poses.len() {
                    let mut lib = self.posing.poses.library.clone();
                    let gone = lib.poses.remove(index);
                    self.store_library(lib, "Delete Pose", format!("deleted the pose {:?}", gone.name));
                }
            }
            PoseLibraryCommand::ReplaceBroken => {
                if let Some(problem) = self.posing.poses.problem.take() {
                    self.set_info(format!(
                        "started a new library; the next change replaces the broken file ({problem})"
                    ));
                }
            }
        }
    }

    fn add_library_pose(&mut self, name: &str, selected_only: bool) {
        if name.is_empty() {
            self.set_error("name the pose first".into());
            return;
        }
        let nodes = if selected_only {
            self.limb_or_all()
        } else {
            crate::rig::keys::posable_nodes(&self.doc.model, &self.doc.pose)
        };
        if nodes.is_empty() {
            self.set_error("nothing to add: the model has no posed joints".into());
            return;
        }
        self.refresh();
        let rgba =
            crate::thumbnail::draw(&self.doc.model, &self.frame.deformed[0], self.view.camera.view(), THUMBNAIL_PX);
        let thumbnail_png = match crate::thumbnail::encode_png(&rgba, THUMBNAIL_PX, THUMBNAIL_PX) {
            Ok(png) => png,
            Err(e) => {
                self.set_error(format!("thumbnail: {e}"));
                return;
            }
        };
        let entry = LibraryPose {
            name: name.to_owned(),
            pose: held_pose(&self.doc.model.nodes, &self.doc.pose, &nodes),
            thumbnail_png,
        };
        let mut lib = self.posing.poses.library.clone();
        match lib.find(name) {
            Some(i) => lib.poses[i] = entry,
            None => lib.poses.push(entry),
        }
        self.store_library(lib, "Add Pose", format!("added the pose {name:?} ({} joints)", nodes.len()));
    }

    fn apply_library_pose(&mut self, index: usize, flipped: bool) {
        let Some(entry) = self.posing.poses.library.poses.get(index) else { return };
        let tree = &self.doc.model.nodes;
        let nodes: Vec<usize> = entry.pose.overrides.keys().copied().filter(|&n| n < tree.len()).collect();
        let pose = if flipped {
            let (targets, normal) = mirror_partners(&self.doc.model, &nodes);
            paste_mirrored(tree, &entry.pose, &self.doc.pose, &nodes, &targets, normal)
        } else {
            let mut p = self.doc.pose.clone();
            for &n in &nodes {
                p.overrides.insert(n, entry.pose.overrides[&n]);
            }
            p
        };
        let what = format!("applied the pose {:?}{}", entry.name, if flipped { " flipped" } else { "" });
        if pose != self.doc.pose {
            self.end_gesture();
            self.doc.set_pose(pose);
            self.posing.playing = false;
            self.frame.dirty = true;
        }
        self.set_info(what);
    }

    /// Makes `lib` the library and writes it to its file (unless it is kept in memory, or its
    /// file could not be read and the user has not chosen to replace it), as one undo step named
    /// `label`.
    fn store_library(&mut self, lib: PoseLibrary, label: &'static str, done: String) {
        if let Some(problem) = &self.posing.poses.problem {
            self.set_error(format!("the pose library is not changed: {problem}"));
            return;
        }
        if let Some(path) = &self.posing.poses.path {
            if let Err(e) = lib.write(path, &self.doc.model.nodes) {
                self.set_error(e);
                return;
            }
        }
        let before = std::mem::replace(&mut self.posing.poses.library, lib);
        self.end_gesture();
        self.doc.history.record_library(label, before);
        self.set_info(done);
    }

    /// Writes the library as it is now to its file (after Undo or Redo of a library change);
    /// a failed write, or a file that could not be read, is reported.
    pub(super) fn write_library(&mut self) {
        if let Some(problem) = &self.posing.poses.problem {
            self.set_error(format!("the pose library file is not changed: {problem}"));
            return;
        }
        if let Some(path) = &self.posing.poses.path {
            if let Err(e) = self.posing.poses.library.write(path, &self.doc.model.nodes) {
                self.set_error(e);
            }
        }
    }
}
