//! Editing small glTF files in tests: load a `.gltf` with base64 data-URI buffers into its JSON
//! and decoded buffers, patch JSON fields or buffer bytes, and write it back (re-encoding the
//! buffers as data URIs), to make precise broken inputs from a valid model.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{json, Value};

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

    /// SimpleSkin with POSITION, JOINTS_0 and WEIGHTS_0 interleaved in one new view (stride 36:
    /// position at byte 0, u16 joints 0 and 1 at 12, four f32 weights at 20).
    pub fn simple_skin_interleaved() -> Self {
        let mut doc = Self::simple_skin();
        let view = |doc: &GltfDoc, a: usize| -> (usize, usize) {
            let acc = &doc.json["accessors"][a];
            let v = &doc.json["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
            let off = v["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0);
            (v["buffer"].as_u64().unwrap() as usize, off as usize)
        };
        let ((pb, po), (jb, jo), (wb, wo)) = (view(&doc, 1), view(&doc, 2), view(&doc, 3));
        let mut data = Vec::new();
        for v in 0..10 {
            data.extend_from_slice(&doc.buffers[pb][po + 12 * v..po + 12 * v + 12]);
            data.extend_from_slice(&doc.buffers[jb][jo + 16 * v..jo + 16 * v + 8]);
            data.extend_from_slice(&doc.buffers[wb][wo + 16 * v..wo + 16 * v + 16]);
        }
        let buffer = doc.buffers.len();
        doc.json["buffers"].as_array_mut().unwrap().push(json!({"byteLength": data.len()}));
        doc.buffers.push(data);
        let views = doc.json["bufferViews"].as_array_mut().unwrap();
        views.push(json!({"buffer": buffer, "byteLength": 360, "byteStride": 36, "target": 34962}));
        let view = views.len() - 1;
        for (a, off) in [(1, 0), (2, 12), (3, 20)] {
            doc.json["accessors"][a]["bufferView"] = json!(view);
            doc.json["accessors"][a]["byteOffset"] = json!(off);
        }
        doc
    }

    /// SimpleSkin with four more joints (children of the second, at its place, so that every
    /// inverse bind matrix is valid) and two influence sets: vertices 0..4 have the six
    /// influences [`SIX_WEIGHTS`] on skin joints 0..6 (normalised, so the validator accepts the
    /// source), the others keep their two.
    pub fn simple_skin_six_influences() -> Self {
        let mut doc = Self::simple_skin();
        let nodes = doc.json["nodes"].as_array_mut().unwrap();
        let first = nodes.len();
        for k in 0..4 {
            nodes.push(json!({"name": format!("extra{k}")}));
        }
        doc.json["nodes"][2]["children"] = json!((first..first + 4).collect::<Vec<_>>());
        doc.json["skins"][0]["joints"] = json!([1, 2, first, first + 1, first + 2, first + 3]);
        // Inverse bind matrices: the two of the source, then the second one four times.
        let ibm_view = doc.json["accessors"][4]["bufferView"].as_u64().unwrap() as usize;
        let ibm_buffer = doc.json["bufferViews"][ibm_view]["buffer"].as_u64().unwrap() as usize;
        let mut ibms = doc.buffers[ibm_buffer][..128].to_vec();
        for _ in 0..4 {
            ibms.extend_from_slice(&doc.buffers[ibm_buffer][64..128]);
        }
        // Two joint/weight sets for ten vertices: u16 joints (4 × 2 bytes) then f32 weights.
        let mut skin = vec![Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        for v in 0..10 {
            let (joints, weights): ([u16; 8], [f32; 8]) = if v < 4 {
                let w = SIX_WEIGHTS;
                ([0, 1, 2, 3, 4, 5, 0, 0], [w[0], w[1], w[2], w[3], w[4], w[5], 0.0, 0.0])
            } else {
                let mut j = [0u16; 8];
                let mut w = [0f32; 8];
                for slot in 0..4 {
                    let at = simple_skin::joint_at(v, slot);
                    let b = &doc.buffers[simple_skin::SKIN_BUFFER];
                    j[slot] = u16::from_le_bytes([b[at], b[at + 1]]);
                    let at = simple_skin::weight_at(v, slot);
                    w[slot] = f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
                }
                (j, w)
            };
            for s in 0..2 {
                skin[s].extend(joints[4 * s..4 * s + 4].iter().flat_map(|j| j.to_le_bytes()));
                skin[2 + s].extend(weights[4 * s..4 * s + 4].iter().flat_map(|w| w.to_le_bytes()));
            }
        }
        let buffer = doc.buffers.len();
        let mut data = ibms;
        let mut views = Vec::new();
        for part in skin {
            views.push((data.len(), part.len()));
            data.extend_from_slice(&part);
        }
        doc.json["buffers"].as_array_mut().unwrap().push(json!({"byteLength": data.len()}));
        doc.buffers.push(data);
        let add_view = |doc: &mut GltfDoc, offset: usize, length: usize| -> usize {
            let views = doc.json["bufferViews"].as_array_mut().unwrap();
            views.push(json!({"buffer": buffer, "byteOffset": offset, "byteLength": length}));
            views.len() - 1
        };
        let ibm = add_view(&mut doc, 0, 6 * 64);
        doc.json["accessors"][4]["bufferView"] = json!(ibm);
        doc.json["accessors"][4]["count"] = json!(6);
        let mut attributes = Vec::new();
        for (k, (offset, length)) in views.into_iter().enumerate() {
            let view = add_view(&mut doc, offset, length);
            let ctype = if k < 2 { 5123 } else { 5126 };
            let accessors = doc.json["accessors"].as_array_mut().unwrap();
            accessors.push(json!({"bufferView": view, "componentType": ctype, "count": 10, "type": "VEC4"}));
            attributes.push(accessors.len() - 1);
        }
        let attrs = &mut doc.json["meshes"][0]["primitives"][0]["attributes"];
        attrs["JOINTS_0"] = json!(attributes[0]);
        attrs["JOINTS_1"] = json!(attributes[1]);
        attrs["WEIGHTS_0"] = json!(attributes[2]);
        attrs["WEIGHTS_1"] = json!(attributes[3]);
        doc
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

/// The six weights of vertices 0..4 of [`GltfDoc::simple_skin_six_influences`], largest first
/// (they sum to 1 in f32 as the validator adds them).
pub const SIX_WEIGHTS: [f32; 6] = [0.3, 0.25, 0.15, 0.125, 0.1, 0.075];

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
