//! Small pictures of a posed model drawn on the CPU (no GPU, no window): the pose library's
//! thumbnails. The deformed skinned surfaces are seen along a view direction (the editor's
//! camera), framed to fill the square, drawn orthographically with a depth buffer and flat
//! shading, and encoded as PNG.

use glam::{Mat4, Vec3};

use crate::model::Model;
use crate::skinning::DeformedPrimitive;

/// The background (sRGB, opaque).
pub const BACKGROUND: [u8; 4] = [38, 40, 46, 255];
const SURFACE: [f32; 3] = [196.0, 182.0, 160.0];

/// Draws `deformed` (`[instance][primitive]`, model space, of `model`'s skinned instances) seen
/// through `view` (a camera's view matrix: only its rotation matters) into a `size`×`size` RGBA
/// picture, rows top-down.
#[must_use]
pub fn draw(model: &Model, deformed: &[Vec<DeformedPrimitive>], view: Mat4, size: u32) -> Vec<u8> {
    let size = size.max(1);
    let n = size as usize;
    let mut rgba: Vec<u8> = BACKGROUND.iter().copied().cycle().take(n * n * 4).collect();
    let points = |f: &mut dyn FnMut(Vec3)| {
        for d in deformed.iter().flatten() {
            for p in &d.positions {
                f(view.transform_point3(*p));
            }
        }
    };
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    points(&mut |p: Vec3| {
        if p.is_finite() {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    });
    let extent = (hi - lo).truncate().max_element();
    if !(extent.is_finite() && extent > 0.0) {
        return rgba;
    }
    // 6 % margin on each side, centred.
    let scale = size as f32 * 0.88 / extent;
    let centre = (lo + hi) * 0.5;
    let to_px = |p: Vec3| {
        let x = (p.x - centre.x) * scale + size as f32 * 0.5;
        let y = size as f32 * 0.5 - (p.y - centre.y) * scale;
        Vec3::new(x, y, p.z)
    };
    let light = Vec3::new(-0.35, 0.5, 0.8).normalize();
    let mut depth = vec![f32::NEG_INFINITY; n * n];
    for (inst, prims) in model.instances.iter().zip(deformed) {
        let Some(mesh) = model.meshes.get(inst.mesh) else { continue };
        for (prim, d) in mesh.primitives.iter().zip(prims) {
            for t in &prim.triangles {
                let Some(v) = t.iter().map(|&i| d.positions.get(i as usize).copied()).collect::<Option<Vec<Vec3>>>()
                else {
                    continue;
                };
                let (a, b, c) = (view.transform_point3(v[0]), view.transform_point3(v[1]), view.transform_point3(v[2]));
                let normal = (b - a).cross(c - a).normalize_or_zero();
                let shade = 0.25 + 0.75 * normal.dot(light).abs();
                let colour = SURFACE.map(|c| (c * shade).clamp(0.0, 255.0) as u8);
                fill_triangle([to_px(a), to_px(b), to_px(c)], size, &mut depth, &mut rgba, colour);
            }
        }
    }
    rgba
}

/// Fills one triangle (pixel coordinates, z toward the viewer larger) where it is nearer than
/// what `depth` holds.
fn fill_triangle(v: [Vec3; 3], size: u32, depth: &mut [f32], rgba: &mut [u8], colour: [u8; 3]) {
    if !v.iter().all(|p| p.is_finite()) {
        return;
    }
    let area = (v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[2].x - v[0].x) * (v[1].y - v[0].y);
    if area.abs() < 1e-12 {
        return;
    }
    let max = size as f32 - 1.0;
    let x0 = v.iter().map(|p| p.x).fold(f32::MAX, f32::min).floor().clamp(0.0, max) as usize;
    let x1 = v.iter().map(|p| p.x).fold(f32::MIN, f32::max).ceil().clamp(0.0, max) as usize;
    let y0 = v.iter().map(|p| p.y).fold(f32::MAX, f32::min).floor().clamp(0.0, max) as usize;
    let y1 = v.iter().map(|p| p.y).fold(f32::MIN, f32::max).ceil().clamp(0.0, max) as usize;
    let edge = |a: Vec3, b: Vec3, x: f32, y: f32| (b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let w0 = edge(v[1], v[2], px, py) / area;
            let w1 = edge(v[2], v[0], px, py) / area;
            let w2 = 1.0 - w0 - w1;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            let z = w0 * v[0].z + w1 * v[1].z + w2 * v[2].z;
            let i = y * size as usize + x;
            if z > depth[i] {
                depth[i] = z;
                rgba[i * 4..i * 4 + 3].copy_from_slice(&colour);
            }
        }
    }
}

/// Encodes an RGBA picture (rows top-down) as PNG.
pub fn encode_png(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    use image::ImageEncoder as _;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(rgba, width, height, image::ExtendedColorType::Rgba8)
        .map_err(|e| format!("cannot encode PNG: {e}"))?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_arm_fills_part_of_the_picture() {
        let model = crate::demo::demo_model().unwrap();
        let mut out = Vec::new();
        crate::skinning::Deformer::new().deform_all(
            &model,
            &crate::rig::Pose::rest(),
            crate::skinning::SkinningMethod::Lbs,
            &mut out,
        );
        let rgba = draw(&model, &out, Mat4::IDENTITY, 64);
        let covered = rgba.chunks(4).filter(|p| p != &BACKGROUND).count();
        assert!(covered > 64 * 4 && covered < 64 * 64, "{covered}");
        let png = encode_png(&rgba, 64, 64).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
}
