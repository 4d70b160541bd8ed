//! `skinlab open` (and `skinlab` with no arguments): the editor window on a model or the
//! built-in demo arm.

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::app::{EditorOptions, ScreenshotPlan};
use crate::render::streamed_mesh::UploadMethod;
use crate::skinning::SkinningMethod;

/// Arguments of `skinlab open`.
#[derive(Debug, Args, Default)]
pub struct OpenArgs {
    /// The model (.glb, .gltf, .fbx or .obj); the built-in demo arm when left out.
    pub model: Option<PathBuf>,
    /// Skinning method of the viewport.
    #[arg(long)]
    pub method: Option<SkinningMethod>,
    /// Open the split view with this method on the right.
    #[arg(long)]
    pub compare: Option<SkinningMethod>,
    /// Colour the skin by the distance between the two methods.
    #[arg(long)]
    pub diff: bool,
    /// Start on this animation (name or #N).
    #[arg(long, value_name = "NAME")]
    pub animation: Option<String>,
    /// Time on the animation, seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0, allow_negative_numbers = true)]
    pub time: f64,
    /// Load this pose file.
    #[arg(long, value_name = "FILE", conflicts_with = "animation")]
    pub pose: Option<PathBuf>,
    /// Select this joint (node name).
    #[arg(long, value_name = "JOINT")]
    pub select: Option<String>,
    /// Start in paint mode (the selected joint's weights drawn on the mesh).
    #[arg(long)]
    pub paint: bool,
    /// Start in Rig mode (the skeleton in the bind pose, ready to edit; models without a skin
    /// always open in it).
    #[arg(long, conflicts_with = "paint")]
    pub rig: bool,
    /// Turn on View ▸ Joint sets (SBS centres, vertices coloured by set, the set table).
    #[arg(long)]
    pub joint_sets: bool,
    /// Open the sweep panel with this motion (twist, bend or weight) and run it on the selected joint.
    #[arg(long, value_name = "MOTION")]
    pub sweep: Option<crate::analysis::sweep::Motion>,
    /// Open File ▸ Export for LBS runtimes with this target (sbs, dqs or sbs-c) and start the fit
    /// (a screenshot then waits for the fit to finish).
    #[arg(long, value_name = "METHOD")]
    pub lbs_export: Option<crate::skinning::SkinningMethod>,
    /// Open the demo arm in its rest pose (without this, and without options that set the view,
    /// it opens with the wrist twisted 150° in LBS beside SBS).
    #[arg(long, conflicts_with = "model")]
    pub rest: bool,
    /// Restore the newest unsaved work left by an editor that did not quit, without asking.
    #[arg(long)]
    pub recover: bool,
    /// Draw N frames through a changing pose (as `bench` poses the joints), print the median
    /// time of each frame stage (FK and preparation, deformation per panel, colours, upload,
    /// draw calls, UI) and the time to the first frame, and quit. With --rig and --select, the
    /// frames drag the selected joint's bind position instead (a skeleton edit every frame).
    #[arg(long, value_name = "N", conflicts_with = "screenshot_after_frames", value_parser = super::whole(1, 100_000))]
    pub bench_frames: Option<usize>,
    /// How a new pose's vertex data reaches the GPU: written into the mapped buffers by every
    /// thread (mapped), or copied by the driver in calls of at most 1 MB (sub-data; the choice
    /// for a driver that mishandles mapped buffers, and to compare the two with --bench-frames).
    #[arg(long, value_name = "HOW", default_value = "mapped")]
    pub upload: UploadMethod,
    /// Draw N frames, save the window as PATH (PNG), and quit.
    #[arg(long, num_args = 2, value_names = ["N", "PATH"])]
    pub screenshot_after_frames: Option<Vec<String>>,
}

/// Runs the editor.
pub fn run(args: &OpenArgs) -> Result<(), CliError> {
    let screenshot = match args.screenshot_after_frames.as_deref() {
        Some([n, path]) => {
            let after_frames = n
                .parse::<u64>()
                .map_err(|_| format!("--screenshot-after-frames {n:?}: not a whole number of frames"))?;
            Some(ScreenshotPlan { after_frames, path: PathBuf::from(path) })
        }
        _ => None,
    };
    let opts = EditorOptions {
        model: args.model.clone(),
        method: args.method,
        compare: args.compare,
        difference: args.diff,
        animation: args.animation.clone(),
        time_secs: args.time,
        pose: args.pose.clone(),
        select: args.select.clone(),
        paint: args.paint,
        rig: args.rig,
        recover: args.recover,
        joint_sets: args.joint_sets,
        sweep: args.sweep,
        lbs_export: args.lbs_export,
        screenshot,
        bench_frames: args.bench_frames,
        upload: args.upload,
        rest: args.rest,
    };
    if args.bench_frames == Some(0) {
        return Err("--bench-frames 0: need at least one frame".into());
    }
    if let Some(report) = crate::app::run(opts)? {
        crate::outln!("{report}");
    }
    Ok(())
}
