//! A skinned, morphed strip as a glTF file built in the test: rings of four vertices along +Y
//! skinned to a two-joint chain, two morph targets ("Lean": the top ring sideways, sparse, with
//! normals; "Swell": every vertex, dense), default weights `[0.25, 0]`, and a clip "Bend" turning
//! the tip joint while the weights go from `[0, 0]` to `[1, 0.5]`.
#![allow(dead_code, clippy::unwrap_used)]

use base64::Engine as _;
use glam::Vec3;
use serde_json::json;

pub const RINGS: usize = 5;

fn f32s(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// The strip's vertices: rings of four along +Y from 0 to 2.
pub fn strip_positions() -> Vec<Vec3> {
    let mut out = Vec::new();
    for r in 0..RINGS {
        let y = 2.0 * r as f32 / (RINGS - 1) as f32;
        for (x, z) in [(-0.5, -0.3), (0.5, -0.3), (0.5, 0.3), (-0.5, 0.3)] {
            out.push(Vec3::new(x, y, z));
        }
    }
    out
}

/// Target 0 moves the top ring sideways (sparse) and bends its normals; target 1 moves every
/// vertex (dense).
pub fn targets(positions: &[Vec3]) -> [(Vec<Vec3>, Vec<Vec3>); 2] {
    let top = |p: &Vec3| p.y > 1.9;
    let t0 = positions.iter().map(|p| if top(p) { Vec3::new(0.4, 0.1, 0.0) } else { Vec3::ZERO }).collect();
    let n0 = positions.iter().map(|p| if top(p) { Vec3::new(0.0, 0.3, 0.0) } else { Vec3::ZERO }).collect();
    let t1 = positions.iter().map(|p| Vec3::new(0.0, 0.05 * p.y, 0.2 * p.z.signum())).collect();
    [(t0, n0), (t1, Vec::new())]
}

/// A two-joint chain skinning the strip, two morph targets, default weights `[0.25, 0]`, and a
/// clip "Bend" turning the tip joint while the weights go from `[0, 0]` to `[1, 0.5]`.
pub fn morphed_gltf() -> Vec<u8> {
    let positions = strip_positions();
    let n = positions.len();
    let normals: Vec<Vec3> = positions.iter().map(|p| Vec3::new(p.x, 0.0, p.z).normalize()).collect();
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut add = |bytes: Vec<u8>| {
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
        bin.extend_from_slice(&bytes);
        views.len() - 1
    };
    let pos = add(f32s(positions.iter().flat_map(|p| p.to_array())));
    let nrm = add(f32s(normals.iter().flat_map(|p| p.to_array())));
    let joints = add(positions.iter().flat_map(|_| [0u16, 1, 0, 0]).flat_map(u16::to_le_bytes).collect());
    let weights = add(f32s(positions.iter().flat_map(|p| [1.0 - p.y / 2.0, p.y / 2.0, 0.0, 0.0])));
    let ibm = add(f32s(
        [0.0f32, -1.0]
            .iter()
            .flat_map(|&y| [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, y, 0.0, 1.0]),
    ));
    let times = add(f32s([0.0, 1.0]));
    let rotations = add(f32s([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.382_683_4, 0.923_879_5]));
    let weight_keys = add(f32s([0.0, 0.0, 1.0, 0.5]));
    let [(t0, n0), (t1, _)] = targets(&positions);
    let t0 = add(f32s(t0.iter().flat_map(|p| p.to_array())));
    let n0 = add(f32s(n0.iter().flat_map(|p| p.to_array())));
    let t1v = targets(&positions)[1].0.clone();
    let (lo, hi) = t1v.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), p| (a.min(*p), b.max(*p)));
    let t1 = add(f32s(t1.iter().flat_map(|p| p.to_array())));
    let vec3 = |view: usize, min: Option<[f32; 3]>, max: Option<[f32; 3]>| {
        let mut a = json!({"bufferView": view, "componentType": 5126, "count": n, "type": "VEC3"});
        if let (Some(lo), Some(hi)) = (min, max) {
            a["min"] = json!(lo);
            a["max"] = json!(hi);
        }
        a
    };
    let json = json!({
        "asset": {"version": "2.0", "generator": "skinlab tests (morph.rs)"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "Strip", "mesh": 0, "skin": 0},
            {"name": "Root", "children": [2]},
            {"name": "Tip", "translation": [0.0, 1.0, 0.0]}
        ],
        "meshes": [{
            "name": "strip",
            "weights": [0.25, 0.0],
            "extras": {"targetNames": ["Lean", "Swell"]},
            "primitives": [{
                "attributes": {"POSITION": 0, "NORMAL": 1, "JOINTS_0": 2, "WEIGHTS_0": 3},
                "targets": [{"POSITION": 8, "NORMAL": 9}, {"POSITION": 10}]
            }]
        }],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 4}],
        "animations": [{"name": "Bend",
            "samplers": [{"input": 5, "output": 6}, {"input": 5, "output": 7}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                         {"sampler": 1, "target": {"node": 0, "path": "weights"}}]}],
        "accessors": [
            vec3(pos, Some([-0.5, 0.0, -0.3]), Some([0.5, 2.0, 0.3])),
            vec3(nrm, None, None),
            {"bufferView": joints, "componentType": 5123, "count": n, "type": "VEC4"},
            {"bufferView": weights, "componentType": 5126, "count": n, "type": "VEC4"},
            {"bufferView": ibm, "componentType": 5126, "count": 2, "type": "MAT4"},
            {"bufferView": times, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": rotations, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": weight_keys, "componentType": 5126, "count": 4, "type": "SCALAR"},
            vec3(t0, Some([0.0, 0.0, 0.0]), Some([0.4, 0.1, 0.0])),
            vec3(n0, None, None),
            vec3(t1, Some(lo.to_array()), Some(hi.to_array()))
        ],
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len(),
            "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin))}]
    });
    serde_json::to_vec(&json).unwrap()
}

/// The same strip without its skin: a plain mesh node with the two targets and the clip (whose
/// joint rotation now moves nothing drawn).
pub fn unskinned_gltf() -> Vec<u8> {
    let mut json: serde_json::Value = serde_json::from_slice(&morphed_gltf()).unwrap();
    json["nodes"][0].as_object_mut().unwrap().remove("skin");
    json.as_object_mut().unwrap().remove("skins");
    let attributes = json["meshes"][0]["primitives"][0]["attributes"].as_object_mut().unwrap();
    attributes.remove("JOINTS_0");
    attributes.remove("WEIGHTS_0");
    serde_json::to_vec(&json).unwrap()
}
