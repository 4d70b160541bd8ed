//! How the editor starts: [`EditorOptions`] (the `skinlab open` options) and the first
//! [`EditorState`] they give (the model or the demo arm, its view, pose, mode and panels).

use std::path::PathBuf;
use std::sync::Arc;

use super::command::Command;
use super::first_look;
use super::screenshot::ScreenshotPlan;
use super::state::{EditorState, Mode};
use crate::skinning::SkinningMethod;

/// How to start the editor.
#[derive(Clone, Debug, Default)]
pub struct EditorOptions {
    /// The model to open (`None`: the built-in demo arm).
    pub model: Option<PathBuf>,
    /// Method of the (left) viewport.
    pub method: Option<SkinningMethod>,
    /// Show the split view with this method on the right.
    pub compare: Option<SkinningMethod>,
    /// Colour by the difference between the two methods.
    pub difference: bool,
    /// Start on this animation at `time_secs`.
    pub animation: Option<String>,
    /// Timeline time for `animation`.
    pub time_secs: f64,
    /// A pose file to load.
    pub pose: Option<PathBuf>,
    /// Select this joint (name).
    pub select: Option<String>,
    /// Start in paint mode.
    pub paint: bool,
    /// Start in Rig mode.
    pub rig: bool,
    /// Restore the newest recovery file without asking.
    pub recover: bool,
    /// Turn on View ▸ Joint sets.
    pub joint_sets: bool,
    /// Open the sweep panel with this motion and run it on the selected joint.
    pub sweep: Option<crate::analysis::sweep::Motion>,
    /// Open File ▸ Export for LBS runtimes with this target and start the fit.
    pub lbs_export: Option<SkinningMethod>,
    /// Save a screenshot and quit.
    pub screenshot: Option<ScreenshotPlan>,
    /// Draw this many frames through changing poses, report the per-stage medians, and quit.
    pub bench_frames: Option<usize>,
    /// How large ranges of vertex data reach the GPU.
    pub upload: crate::render::streamed_mesh::UploadMethod,
    /// Open the demo arm in its rest pose, not on its first look ([`first_look`]).
    pub rest: bool,
}

impl EditorOptions {
    /// Whether the editor opens on the demo's first look: the demo arm, and no option that sets
    /// the view, the pose or the mode (nor `rest`, a recovery or a benchmark).
    #[must_use]
    pub fn first_look(&self) -> bool {
        self.model.is_none()
            && !self.rest
            && self.method.is_none()
            && self.compare.is_none()
            && !self.difference
            && self.animation.is_none()
            && self.pose.is_none()
            && self.select.is_none()
            && !(self.paint || self.rig || self.recover || self.joint_sets)
            && self.sweep.is_none()
            && self.lbs_export.is_none()
            && self.bench_frames.is_none()
    }
}

/// Builds the initial state from the options (the model load error names the file).
pub fn initial_state(opts: &EditorOptions) -> Result<EditorState, String> {
    let mut s = match &opts.model {
        Some(path) => {
            let name =
                path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
            // An OBJ gets a fresh glTF document (io::fresh_document), so it can be saved as glTF.
            let (model, source) = crate::io::load_document(path).map_err(|e| e.to_string())?;
            // What the import dropped, one `warning:` line each on stderr, as every command prints it.
            for w in source.warnings() {
                let line = crate::error_line::one_line(&format!("{}: {w}", path.display()));
                let _ = std::io::Write::write_fmt(&mut std::io::stderr(), format_args!("warning: {line}\n"));
            }
            EditorState::with_document(model, source, &name)
        }
        None => EditorState::demo()?,
    };
    s.files.model_path.clone_from(&opts.model);
    if opts.first_look() {
        first_look::show(&mut s);
    }
    if let Some(m) = opts.method {
        s.apply(Command::SetMethod(m));
    }
    if let Some(m) = opts.compare {
        s.apply(Command::SetCompare(m));
        s.apply(Command::SetSplit(true));
    }
    s.apply(Command::SetDifference(opts.difference));
    if let Some(name) = &opts.animation {
        let clip = s.doc.model.find_clip(name).ok_or_else(|| format!("--animation {name:?}: no such animation"))?;
        s.apply(Command::SelectClip(Some(clip)));
        s.apply(Command::SetTime(opts.time_secs));
    }
    if let Some(path) = &opts.pose {
        s.doc.pose = crate::io::pose_file::read_pose_file(path, &s.doc.model.nodes).map_err(|e| e.to_string())?;
        s.apply(Command::SetMethod(s.view.method));
    }
    if let Some(name) = &opts.select {
        let node = s.doc.model.nodes.find(name).map_err(|e| format!("--select: {e}"))?;
        s.apply(Command::Select(Some(node)));
    }
    if opts.paint {
        s.apply(Command::SetMode(Mode::Paint));
    }
    if opts.rig {
        s.apply(Command::SetMode(Mode::Rig));
    }
    s.analysis.sets.on = opts.joint_sets;
    if let Some(motion) = opts.sweep {
        s.analysis.sweep.open = true;
        s.analysis.sweep.motion = motion;
        if let Some(node) = s.selected {
            s.analysis.sweep.start(Arc::clone(&s.doc.model), s.doc.model_rev, node);
        }
    }
    s.refresh();
    s.frame_all();
    Ok(s)
}
