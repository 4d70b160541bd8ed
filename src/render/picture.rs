//! One picture of a posed model: one labelled panel per skinning method side by side, sharing
//! one camera, optionally coloured by the per-vertex distance between the first two methods with
//! a legend. `skinlab render` and the README screenshots come from here.

use glam::Vec3;
use three_d::ScissorBox;

use super::camera::{CameraPreset, OrbitCamera};
use super::headless::Headless;
use super::overlays::difference_overlay;
use super::scene::{drawn_bounds, Scene, ViewOptions, BACKGROUND};
use crate::model::Model;
use crate::plot::label::{stamp, Legend};
use crate::rig::Pose;
use crate::skinning::rigid_morphs::RigidMorphs;
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

/// Supersampling factor: pictures are drawn this many times larger and averaged down.
const SUPERSAMPLE: u32 = 2;

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct PictureRequest {
    /// One panel per method, left to right.
    pub methods: Vec<SkinningMethod>,
    /// Picture width in pixels.
    pub width: u32,
    /// Picture height in pixels.
    pub height: u32,
    /// The viewpoint.
    pub camera: CameraPreset,
    /// Colour every panel by the distance between the first two methods.
    pub difference: bool,
    /// Bones, grid, wireframe.
    pub view: ViewOptions,
}

/// An RGBA picture, rows top-down.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 4 bytes per pixel.
    pub rgba: Vec<u8>,
    /// The largest distance between the first two methods (model units), when drawn.
    pub max_difference: Option<f32>,
}

/// Deforms `model` in `pose` by each method (`out[method][instance][primitive]`) and returns the
/// deformer of the last one (for the skeleton's pose).
fn deform_each(model: &Model, pose: &Pose, methods: &[SkinningMethod]) -> (Vec<Vec<Vec<DeformedPrimitive>>>, Deformer) {
    let mut deformer = Deformer::new();
    let mut all = Vec::new();
    for &m in methods {
        let mut out = Vec::new();
        deformer.deform_all(model, pose, m, &mut out);
        all.push(out);
    }
    (all, deformer)
}

/// Averages `factor` × `factor` blocks of a `w` × `h` RGBA image.
fn downsample(rgba: &[u8], w: u32, h: u32, factor: u32) -> Vec<u8> {
    let (ow, oh) = (w / factor, h / factor);
    let mut out = vec![0u8; (ow * oh * 4) as usize];
    let n = factor * factor;
    for y in 0..oh {
        for x in 0..ow {
            for c in 0..4 {
                let mut sum = 0u32;
                for dy in 0..factor {
                    for dx in 0..factor {
                        let i = (((y * factor + dy) * w + x * factor + dx) * 4 + c) as usize;
                        sum += u32::from(rgba.get(i).copied().unwrap_or(0));
                    }
                }
                out[((y * ow + x) * 4 + c) as usize] = ((sum + n / 2) / n) as u8;
            }
        }
    }
    out
}

/// Draws the picture with a headless context. A panel whose deformation is not finite (a pose that
/// overflows 32-bit floats) is refused with the first such vertex (`io::obj::check_finite`).
pub fn render_picture(gl: &Headless, model: &Model, pose: &Pose, req: &PictureRequest) -> Result<Picture, String> {
    let methods = if req.methods.is_empty() { vec![SkinningMethod::Sbs] } else { req.methods.clone() };
    let n = methods.len() as u32;
    let (all, deformer) = deform_each(model, pose, &methods);
    for deformed in &all {
        crate::io::obj::check_finite(model, deformed)?;
    }
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    let mut rigid_morphs = RigidMorphs::default();
    rigid_morphs.update(model, pose);
    for d in &all {
        let (a, b) = drawn_bounds(model, d, deformer.model_from_node(), &rigid_morphs);
        lo = lo.min(a);
        hi = hi.max(b);
    }
    let (w, h) = (req.width.max(n) * SUPERSAMPLE, req.height.max(1) * SUPERSAMPLE);
    let panel_w = w / n;
    let mut camera = OrbitCamera::default();
    (camera.yaw_rad, camera.pitch_rad) = req.camera.angles_rad();
    camera.frame(lo, hi, panel_w as f32 / h as f32);

    let mut scene = Scene::new(gl.context(), model, methods.len(), (lo, hi), None);
    let diff = (req.difference && all.len() >= 2).then(|| {
        let mut colours = Vec::new();
        let max = difference_overlay(&all[0], &all[1], 0.0, &mut colours);
        (max, colours)
    });
    for (i, d) in all.iter().enumerate() {
        if let Some(panel) = scene.panel_mut(i) {
            panel.upload(d, deformer.model_from_node());
            panel.upload_rigid_morphs(&rigid_morphs);
            panel.set_colours(diff.as_ref().map(|(_, c)| c.as_slice()), false);
        }
    }
    scene.update_bones(deformer.model_from_node(), None);
    let big = gl.draw(w, h, BACKGROUND, |target| {
        for i in 0..n {
            let scissor = ScissorBox { x: (i * panel_w) as i32, y: 0, width: panel_w, height: h };
            scene.draw(target, scissor, &camera, i as usize, &req.view);
        }
    });
    let (width, height) = (w / SUPERSAMPLE, h / SUPERSAMPLE);
    let mut rgba = downsample(&big, w, h, SUPERSAMPLE);
    let names: Vec<&str> = methods.iter().map(|m| m.label()).collect();
    let legend = diff.as_ref().map(|&(full_scale, _)| Legend { full_scale, ramp: super::overlays::ramp });
    stamp(&mut rgba, width, height, &names, legend).map_err(|e| e.to_string())?;
    Ok(Picture { width, height, rgba, max_difference: diff.map(|(m, _)| m) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downsample_averages_blocks() {
        let px = [0u8, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255];
        let out = downsample(&px, 2, 2, 2);
        assert_eq!(out, vec![128, 128, 128, 255]);
    }
}
