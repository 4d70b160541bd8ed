//! The built-in demo model: an arm (shoulder → elbow → wrist) skinned with smooth two-joint blends
//! across the elbow and along the whole forearm, so that bending the elbow shows LBS's volume loss
//! and twisting the wrist shows its candy-wrapper collapse. Generated here as glTF JSON plus one
//! binary buffer and written as GLB (`skinlab demo --out assets/demo_arm.glb`); the editor builds
//! the same bytes in memory, so the committed asset and the built-in model are always identical
//! (a test checks the asset against this output).
//!
//! Geometry (model units, Y up, arm along +X): the shoulder at the origin, the elbow at x = 1, the
//! wrist at x = 2, a flattened hand to x = 2.45. The cross-section is an ellipse (0.2 × 0.14) so
//! a twist is visible in the shading. Animations: `twist` (wrist 0 → 180° about the arm axis over
//! 2 s), `bend` (elbow 0 → 120° about Z over 2 s) and `twist_bend` (both).

use std::f64::consts::PI;
use std::path::Path;

use glam::DQuat;
use serde_json::{json, Value};

use crate::io::gltf_import::load_model_from_bytes;
use crate::io::{atomic_write, glb::glb_bytes, LoadError};
use crate::model::Model;

/// The file name the built-in demo model is known by.
pub const DEMO_NAME: &str = "demo_arm.glb";

/// Rings along the arm from x = `X_START` to x = `X_END`.
const RINGS: usize = 100;
/// Vertices around each ring.
const SEGMENTS: usize = 40;
const X_START: f64 = -0.15;
const X_END: f64 = 2.45;
/// Joint positions along X: shoulder, elbow, wrist.
const JOINT_X: [f64; 3] = [0.0, 1.0, 2.0];
/// Seconds each clip lasts.
const CLIP_SECS: f64 = 2.0;

fn smoothstep(a: f64, b: f64, x: f64) -> f64 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The (joint, weight) pairs of a point at `x` along the arm: shoulder→elbow blended over
/// [0.75, 1.2], elbow→wrist blended smoothly over the whole forearm [1.2, 2.0].
fn weights_at(x: f64) -> [(u16, f64); 2] {
    if x < 1.2 {
        let w = smoothstep(0.75, 1.2, x);
        [(0, 1.0 - w), (1, w)]
    } else {
        let w = smoothstep(1.2, 2.0, x);
        [(1, 1.0 - w), (2, w)]
    }
}

/// Half-axes (y, z) of the cross-section at `x`: a rounded shoulder cap, a slightly thinner
/// forearm and a flat hand, closed smoothly at both ends.
fn radii_at(x: f64) -> (f64, f64) {
    let arm = 0.2 - 0.03 * smoothstep(0.9, 1.6, x);
    let (mut ry, mut rz) = (arm, arm * 0.72);
    let hand = smoothstep(2.0, 2.2, x);
    ry += hand * 0.05;
    rz -= hand * 0.07;
    // Round the two ends (a quarter ellipse over the last 0.15).
    let end = |d: f64| if d >= 0.15 { 1.0 } else { (1.0 - (1.0 - d / 0.15).powi(2)).max(0.0).sqrt() };
    let cap = end(x - X_START).min(end(X_END - x));
    (ry * cap, rz * cap)
}

struct Buffers {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    indices: Vec<u32>,
}

fn build_geometry() -> Buffers {
    let mut b = Buffers { positions: vec![], normals: vec![], joints: vec![], weights: vec![], indices: vec![] };
    let dx = 1e-3;
    for r in 0..=RINGS {
        let x = X_START + (X_END - X_START) * r as f64 / RINGS as f64;
        let (ry, rz) = radii_at(x);
        let (ry0, rz0) = radii_at((x - dx).max(X_START));
        let (ry1, rz1) = radii_at((x + dx).min(X_END));
        let [(j0, w0), (j1, w1)] = weights_at(x);
        for s in 0..SEGMENTS {
            let a = 2.0 * PI * s as f64 / SEGMENTS as f64;
            let (sin, cos) = a.sin_cos();
            let p = [x, ry * cos, rz * sin];
            // Outward normal of the surface (x, ry(x) cos a, rz(x) sin a): the tangent around the
            // arm crossed with the tangent along it.
            let tu = [2.0 * dx, (ry1 - ry0) * cos, (rz1 - rz0) * sin];
            let ta = [0.0, -ry * sin, rz * cos];
            let mut n = [ta[1] * tu[2] - ta[2] * tu[1], ta[2] * tu[0] - ta[0] * tu[2], ta[0] * tu[1] - ta[1] * tu[0]];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if len < 1e-12 {
                n = [if r == 0 { -1.0 } else { 1.0 }, 0.0, 0.0];
            } else {
                n = [n[0] / len, n[1] / len, n[2] / len];
            }
            b.positions.push(p.map(|c| c as f32));
            b.normals.push(n.map(|c| c as f32));
            b.joints.push([j0, j1, 0, 0]);
            b.weights.push([w0 as f32, w1 as f32, 0.0, 0.0]);
        }
    }
    // Counter-clockwise seen from outside: ring r, segment s → (r,s), (r+1,s), (r+1,s+1).
    let idx = |r: usize, s: usize| (r * SEGMENTS + s % SEGMENTS) as u32;
    for r in 0..RINGS {
        for s in 0..SEGMENTS {
            let (a, b0, c, d) = (idx(r, s), idx(r + 1, s), idx(r + 1, s + 1), idx(r, s + 1));
            b.indices.extend_from_slice(&[a, c, b0, a, d, c]);
        }
    }
    b
}

fn push_bytes(bin: &mut Vec<u8>, data: &[u8]) -> (usize, usize) {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let offset = bin.len();
    bin.extend_from_slice(data);
    (offset, data.len())
}

fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// Keyframes of one rotation channel: `keys` samples from angle 0 to `end_rad` about `axis`.
fn rotation_keys(axis: glam::DVec3, end_rad: f64, keys: usize) -> (Vec<f32>, Vec<f32>) {
    let mut times = Vec::new();
    let mut values = Vec::new();
    for k in 0..keys {
        let t = k as f64 / (keys - 1) as f64;
        times.push((t * CLIP_SECS) as f32);
        let q = DQuat::from_axis_angle(axis, t * end_rad);
        values.extend([q.x, q.y, q.z, q.w].map(|c| c as f32));
    }
    (times, values)
}

/// The demo model as GLB bytes (deterministic).
#[must_use]
pub fn demo_glb() -> Vec<u8> {
    let g = build_geometry();
    let mut bin = Vec::new();
    let mut views = Vec::<Value>::new();
    let mut accessors = Vec::<Value>::new();
    let mut add = |bin: &mut Vec<u8>, data: Vec<u8>, target: Option<u32>, accessor: Value| {
        let (offset, len) = push_bytes(bin, &data);
        let mut view = json!({"buffer": 0, "byteOffset": offset, "byteLength": len});
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        views.push(view);
        let mut acc = accessor;
        acc["bufferView"] = json!(views.len() - 1);
        accessors.push(acc);
        accessors.len() - 1
    };
    let n = g.positions.len();
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for p in &g.positions {
        for c in 0..3 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    let pos = add(
        &mut bin,
        f32_bytes(g.positions.iter().flatten().copied()),
        Some(34962),
        json!({"componentType": 5126, "count": n, "type": "VEC3", "min": lo, "max": hi}),
    );
    let nor = add(
        &mut bin,
        f32_bytes(g.normals.iter().flatten().copied()),
        Some(34962),
        json!({"componentType": 5126, "count": n, "type": "VEC3"}),
    );
    let jnt = add(
        &mut bin,
        g.joints.iter().flatten().flat_map(|j| j.to_le_bytes()).collect(),
        Some(34962),
        json!({"componentType": 5123, "count": n, "type": "VEC4"}),
    );
    let wgt = add(
        &mut bin,
        f32_bytes(g.weights.iter().flatten().copied()),
        Some(34962),
        json!({"componentType": 5126, "count": n, "type": "VEC4"}),
    );
    let ind = add(
        &mut bin,
        g.indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
        Some(34963),
        json!({"componentType": 5125, "count": g.indices.len(), "type": "SCALAR"}),
    );
    // Inverse bind matrices: the joints are unrotated translations along X.
    let ibm_data: Vec<f32> = JOINT_X
        .iter()
        .flat_map(|&x| [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -x as f32, 0.0, 0.0, 1.0])
        .collect();
    let ibm = add(&mut bin, f32_bytes(ibm_data), None, json!({"componentType": 5126, "count": 3, "type": "MAT4"}));

    // Animations: wrist twist about X, elbow bend about Z.
    let twist = rotation_keys(glam::DVec3::X, PI, 9);
    let bend = rotation_keys(glam::DVec3::Z, 120f64.to_radians(), 9);
    let mut channel_accessors = |bin: &mut Vec<u8>, (times, values): &(Vec<f32>, Vec<f32>)| {
        let input = add(
            bin,
            f32_bytes(times.iter().copied()),
            None,
            json!({"componentType": 5126, "count": times.len(), "type": "SCALAR",
                   "min": [times[0]], "max": [times[times.len() - 1]]}),
        );
        let output = add(
            bin,
            f32_bytes(values.iter().copied()),
            None,
            json!({"componentType": 5126, "count": times.len(), "type": "VEC4"}),
        );
        (input, output)
    };
    let (tw_in, tw_out) = channel_accessors(&mut bin, &twist);
    let (be_in, be_out) = channel_accessors(&mut bin, &bend);
    let sampler = |input: usize, output: usize| json!({"input": input, "output": output, "interpolation": "LINEAR"});
    let channel =
        |sampler: usize, node: usize| json!({"sampler": sampler, "target": {"node": node, "path": "rotation"}});
    let animations = json!([
        {"name": "twist", "samplers": [sampler(tw_in, tw_out)], "channels": [channel(0, 3)]},
        {"name": "bend", "samplers": [sampler(be_in, be_out)], "channels": [channel(0, 2)]},
        {"name": "twist_bend", "samplers": [sampler(tw_in, tw_out), sampler(be_in, be_out)],
         "channels": [channel(0, 3), channel(1, 2)]},
    ]);
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let doc = json!({
        "asset": {"version": "2.0", "generator": "skinlab demo (src/demo.rs)"},
        "scene": 0,
        "scenes": [{"name": "demo_arm", "nodes": [0, 1]}],
        "nodes": [
            {"name": "arm", "mesh": 0, "skin": 0},
            {"name": "shoulder", "children": [2]},
            {"name": "elbow", "translation": [1.0, 0.0, 0.0], "children": [3]},
            {"name": "wrist", "translation": [1.0, 0.0, 0.0]},
        ],
        "meshes": [{"name": "arm", "primitives": [{
            "attributes": {"POSITION": pos, "NORMAL": nor, "JOINTS_0": jnt, "WEIGHTS_0": wgt},
            "indices": ind, "mode": 4
        }]}],
        "skins": [{"name": "arm_rig", "joints": [1, 2, 3], "skeleton": 1, "inverseBindMatrices": ibm}],
        "animations": animations,
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": accessors,
    });
    let text = serde_json::to_vec(&doc).unwrap_or_default();
    // A few hundred kilobytes: far below the GLB size limit.
    glb_bytes(&text, Some(&bin)).unwrap_or_default()
}

/// The demo model, loaded through the same importer as any file.
pub fn demo_model() -> Result<Model, LoadError> {
    load_model_from_bytes(&demo_glb(), Path::new(DEMO_NAME))
}

/// Writes the demo model to `path` atomically.
pub fn write_demo(path: &Path) -> std::io::Result<()> {
    let bytes = demo_glb();
    atomic_write(path, |w| w.write_all(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{sample, Pose};
    use crate::skinning::{Deformer, SkinningMethod};

    #[test]
    fn demo_loads_with_three_joints_and_clips() {
        let m = demo_model().unwrap();
        assert_eq!(m.skins.len(), 1);
        assert_eq!(m.skins[0].joints, vec![1, 2, 3]);
        assert_eq!(m.clips.len(), 3);
        assert_eq!(m.skinned_vertex_count(), (RINGS + 1) * SEGMENTS);
    }

    /// Normals point away from the arm's axis (the brush's front-face test and the lighting
    /// rely on it), and the triangles wind counter-clockwise seen from outside.
    #[test]
    fn normals_and_winding_face_outwards() {
        let m = demo_model().unwrap();
        let p = &m.meshes[0].primitives[0];
        let normals = p.normals.as_ref().unwrap();
        for (q, n) in p.positions.iter().zip(normals) {
            let radial = glam::Vec3::new(0.0, q.y, q.z);
            if radial.length() > 1e-4 {
                assert!(n.dot(radial) > 0.0, "inward normal {n:?} at {q:?}");
            }
        }
        for t in &p.triangles {
            let [a, b, c] = t.map(|k| p.positions[k as usize]);
            let face = (b - a).cross(c - a);
            let centre = (a + b + c) / 3.0;
            if face.length() < 1e-9 {
                continue; // degenerate at the closed ends
            }
            assert!(face.dot(glam::Vec3::new(0.0, centre.y, centre.z)) > 0.0, "triangle {t:?} winds inwards");
        }
    }

    /// The whole point of the demo: at full twist, LBS collapses the mid-forearm towards the
    /// axis while SBS keeps its radius.
    #[test]
    fn full_twist_collapses_lbs_but_not_sbs() {
        let m = demo_model().unwrap();
        let clip = m.find_clip("twist").unwrap();
        let mut pose = Pose::rest();
        sample::sample_clip(&m.clips[clip], CLIP_SECS, &mut pose);
        let min_radius = |method| {
            let mut d = Deformer::new();
            let mut out = Vec::new();
            d.deform_all(&m, &pose, method, &mut out);
            let p = &m.meshes[0].primitives[0];
            p.positions
                .iter()
                .zip(&out[0][0].positions)
                .filter(|(rest, _)| (rest.x - 1.6).abs() < 0.02)
                .map(|(_, q)| (q.y * q.y + q.z * q.z).sqrt())
                .fold(f32::MAX, f32::min)
        };
        let lbs = min_radius(SkinningMethod::Lbs);
        let sbs = min_radius(SkinningMethod::Sbs);
        assert!(lbs < 0.05, "LBS mid-forearm radius {lbs}");
        assert!(sbs > 0.09, "SBS mid-forearm radius {sbs}");
    }

    #[test]
    fn committed_asset_matches_the_generator() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join(DEMO_NAME);
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes == demo_glb(), "{} is stale: run `skinlab demo --out assets/demo_arm.glb`", path.display());
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(demo_glb(), demo_glb());
    }
}
