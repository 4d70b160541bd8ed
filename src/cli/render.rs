//! `skinlab render`: draws a posed model offscreen (no window, no display server) with one
//! labelled panel per skinning method, optionally coloured by the difference between the first
//! two, and writes a PNG atomically.

use std::path::PathBuf;

use clap::Args;

use super::{load_model_checked, CliError, PoseArgs};
use crate::io::{atomic_write, OutputPlan};
use crate::render::{render_picture, CameraPreset, Headless, PictureRequest, ViewOptions};
use crate::skinning::SkinningMethod;

/// Arguments of `skinlab render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The model (.glb, .gltf, .fbx or .obj).
    pub model: PathBuf,
    /// The pose.
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Skinning methods, one panel each, comma-separated (e.g. lbs,sbs).
    #[arg(long, value_delimiter = ',', default_value = "lbs,sbs")]
    pub method: Vec<SkinningMethod>,
    /// The PNG file to write (replaced atomically).
    #[arg(long, value_name = "PICTURE.png")]
    pub out: PathBuf,
    /// Picture size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1600x900", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Viewpoint: front, back, side, left, top or three-quarter.
    #[arg(long, default_value = "front")]
    pub camera: CameraPreset,
    /// Colour each vertex by the distance between the first two methods (with a legend).
    #[arg(long)]
    pub diff: bool,
    /// Draw the mesh's edges over its shading.
    #[arg(long)]
    pub wireframe: bool,
    /// Hide the skeleton.
    #[arg(long)]
    pub no_bones: bool,
    /// Hide the ground grid.
    #[arg(long)]
    pub no_grid: bool,
}

/// The most pixels a picture may have (4096x4096, or 8192x2048): at about 64 bytes a pixel at the
/// peak (colour and depth targets, the read-back, the PNG), the memory stays under about 1.1 GB.
pub const MAX_PIXELS: u64 = 1 << 24;

/// Parses `WIDTHxHEIGHT`: each side 1..=8192, at most [`MAX_PIXELS`] in all.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!(
            "size {s:?} must be WIDTHxHEIGHT with each side from 1 to 8192 and at most {MAX_PIXELS} pixels \
             (4096x4096), e.g. 1600x900"
        )
    };
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?);
    if !(1..=8192).contains(&w) || !(1..=8192).contains(&h) || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(bad());
    }
    Ok((w, h))
}

/// Runs `skinlab render`.
pub fn run(args: &RenderArgs) -> Result<(), CliError> {
    let mut plan = OutputPlan::new();
    args.pose.record_input(&mut plan);
    plan.write("--out", &args.out);
    let model = load_model_checked(&mut plan, &args.model)?;
    let pose = args.pose.resolve(&model)?;
    if args.diff && args.method.len() < 2 {
        return Err("--diff needs two methods, e.g. --method lbs,sbs".into());
    }
    let gl = Headless::new()?;
    let req = PictureRequest {
        methods: args.method.clone(),
        width: args.size.0,
        height: args.size.1,
        camera: args.camera,
        difference: args.diff,
        view: ViewOptions {
            wireframe: args.wireframe,
            bones: !args.no_bones,
            grid: !args.no_grid,
            ..ViewOptions::default()
        },
    };
    let picture = render_picture(&gl, &model, &pose, &req).map_err(|e| format!("{}: {e}", args.model.display()))?;
    let mut png = Vec::new();
    use image::ImageEncoder as _;
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&picture.rgba, picture.width, picture.height, image::ExtendedColorType::Rgba8)
        .map_err(|e| format!("{}: cannot encode PNG: {e}", args.out.display()))?;
    atomic_write(&args.out, |w| w.write_all(&png)).map_err(|e| format!("{}: cannot write: {e}", args.out.display()))?;
    if let Some(max) = picture.max_difference {
        crate::outln!("largest {} vs {} distance: {max} model units", args.method[0].label(), args.method[1].label());
    }
    Ok(())
}
