//! A tiny skinned glTF built from nothing in the test (no file is copied): one triangle weighted to
//! a two-joint chain, inverse bind matrices and a two-key rotation clip. Tests break one field of
//! its JSON or buffer at a time to reproduce a hostile input in a few hundred bytes.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use base64::Engine as _;
use serde_json::{json, Value};

/// The JSON (buffer 0 embedded as a data URI on [`TinyGltf::gltf_bytes`]) and the buffer.
#[derive(Clone, Debug)]
pub struct TinyGltf {
    /// The glTF JSON, `buffers[0].uri` filled in when written.
    pub json: Value,
    /// Buffer 0.
    pub bin: Vec<u8>,
}

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

impl TinyGltf {
    /// The valid rig: node 0 the mesh (skin 0), nodes 1 and 2 the joints (2 a child of 1, one unit
    /// up), accessors 0 POSITION, 1 JOINTS_0, 2 WEIGHTS_0, 3 inverseBindMatrices, 4 key times,
    /// 5 rotations of node 2; one buffer view per accessor.
    pub fn new() -> Self {
        let mut bin = Vec::new();
        let mut views = Vec::new();
        let mut add = |bytes: Vec<u8>| {
            views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
            bin.extend_from_slice(&bytes);
        };
        add(f32s(&[-0.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 2.0, 0.0]));
        add([0u16, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0].iter().flat_map(|j| j.to_le_bytes()).collect());
        add(f32s(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]));
        let mut ibm = Vec::new();
        for y in [0.0f32, -1.0] {
            ibm.extend_from_slice(&[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, y, 0.0, 1.0]);
        }
        add(f32s(&ibm));
        add(f32s(&[0.0, 1.0]));
        add(f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.382_683_4, 0.923_879_5]));
        let json = json!({
            "asset": {"version": "2.0", "generator": "skinlab tests (tiny_gltf.rs)"},
            "scene": 0,
            "scenes": [{"nodes": [0, 1]}],
            "nodes": [
                {"name": "Mesh", "mesh": 0, "skin": 0},
                {"name": "Root", "children": [2]},
                {"name": "Tip", "translation": [0.0, 1.0, 0.0]}
            ],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
            "skins": [{"joints": [1, 2], "inverseBindMatrices": 3}],
            "animations": [{"name": "Bend",
                "samplers": [{"input": 4, "output": 5}],
                "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]}],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [-0.5, 0.0, 0.0], "max": [0.5, 2.0, 0.0]},
                {"bufferView": 1, "componentType": 5123, "count": 3, "type": "VEC4"},
                {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"},
                {"bufferView": 3, "componentType": 5126, "count": 2, "type": "MAT4"},
                {"bufferView": 4, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
                {"bufferView": 5, "componentType": 5126, "count": 2, "type": "VEC4"}
            ],
            "bufferViews": views,
            "buffers": [{"byteLength": bin.len()}]
        });
        Self { json, bin }
    }

    /// The `.gltf` text with the buffer as a base64 data URI.
    pub fn gltf_bytes(&self) -> Vec<u8> {
        let mut json = self.json.clone();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&self.bin);
        json["buffers"][0]["uri"] = Value::String(format!("data:application/octet-stream;base64,{b64}"));
        serde_json::to_vec(&json).unwrap()
    }

    /// The `.gltf` text for an external buffer named `bin_name` (write [`TinyGltf::bin`] there).
    pub fn gltf_bytes_external(&self, bin_name: &str) -> Vec<u8> {
        let mut json = self.json.clone();
        json["buffers"][0]["uri"] = Value::String(bin_name.to_owned());
        serde_json::to_vec(&json).unwrap()
    }

    /// The GLB file (JSON chunk plus BIN chunk).
    pub fn glb_bytes(&self) -> Vec<u8> {
        skinlab::io::glb::glb_bytes(&serde_json::to_vec(&self.json).unwrap(), Some(&self.bin)).unwrap()
    }
}
