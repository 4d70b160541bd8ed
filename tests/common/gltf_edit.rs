//! Editing small glTF files in tests: load a `.gltf` with base64 data-URI buffers into its JSON
//! and decoded buffers, patch JSON fields or buffer bytes, and write it back (re-encoding the
//! buffers as data URIs), to make precise broken inputs from a valid model.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::Value;

/// The shared models directory (`../shared/models` beside the crate).
pub fn models_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models"))
}

/// A shared model's path.
pub fn model(name: &str) -> PathBuf {
    models_dir().join(name)
}

/// A glTF document: its JSON and its decoded buffers (index = buffer index).
#[derive(Clone, Debug)]
pub struct GltfDoc {
    /// The JSON with buffer URIs as loaded (replaced on [`GltfDoc::to_bytes`]).
    pub json: Value,
    /// Decoded buffer bytes.
    pub buffers: Vec<Vec<u8>>,
}

impl GltfDoc {
    /// Loads a `.gltf` whose buffers are all base64 data URIs.
    pub fn load(path: &Path) -> Self {
        let json: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let buffers = json["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let uri = b["uri"].as_str().unwrap();
                let (_, payload) = uri.split_once(',').unwrap();
                base64::engine::general_purpose::STANDARD.decode(payload).unwrap()
            })
            .collect();
        Self { json, buffers }
    }

    /// The shared SimpleSkin.gltf (10 vertices, 2 joints, 4 embedded buffers).
    pub fn simple_skin() -> Self {
        Self::load(&model("SimpleSkin.gltf"))
    }

    /// The `.gltf` text with every buffer re-encoded as a data URI (byteLength left as it is).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut json = self.json.clone();
        for (i, data) in self.buffers.iter().enumerate() {
            let uri = format!(
                "data:application/gltf-buffer;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(data)
            );
            json["buffers"][i]["uri"] = Value::String(uri);
        }
        serde_json::to_vec_pretty(&json).unwrap()
    }

    /// Writes the `.gltf` to `path` and returns the path.
    pub fn write(&self, path: &Path) -> PathBuf {
        std::fs::write(path, self.to_bytes()).unwrap();
        path.to_path_buf()
    }

    /// Overwrites an f32 in buffer `buffer` at byte `at`.
    pub fn set_f32(&mut self, buffer: usize, at: usize, v: f32) {
        self.buffers[buffer][at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Overwrites a u16 in buffer `buffer` at byte `at`.
    pub fn set_u16(&mut self, buffer: usize, at: usize, v: u16) {
        self.buffers[buffer][at..at + 2].copy_from_slice(&v.to_le_bytes());
    }
}

/// SimpleSkin layout: buffer 1 holds JOINTS_0 (u16 ×4, stride 16, from byte 0) and WEIGHTS_0
/// (f32 ×4, stride 16, from byte 160); buffer 0 holds the u16 indices from byte 0.
pub mod simple_skin {
    /// The buffer holding JOINTS_0 and WEIGHTS_0.
    pub const SKIN_BUFFER: usize = 1;
    /// Byte of joint slot `slot` of vertex `v`.
    pub fn joint_at(v: usize, slot: usize) -> usize {
        16 * v + 2 * slot
    }
    /// Byte of weight slot `slot` of vertex `v`.
    pub fn weight_at(v: usize, slot: usize) -> usize {
        160 + 16 * v + 4 * slot
    }
    /// The buffer holding the triangle indices (u16, from byte 0).
    pub const INDEX_BUFFER: usize = 0;
}
