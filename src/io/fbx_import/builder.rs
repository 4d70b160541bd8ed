//! The glTF document an FBX scene becomes: accessors over one binary buffer, then the GLB.

use glam::{Vec2, Vec3, Vec4};
use serde_json::{json, Value};

const ARRAY_BUFFER: u64 = 34962;
const ELEMENT_ARRAY_BUFFER: u64 = 34963;
const FLOAT: u64 = 5126;
const UNSIGNED_SHORT: u64 = 5123;
const UNSIGNED_INT: u64 = 5125;

/// Buffer views and accessors over one growing buffer.
#[derive(Default)]
pub(super) struct Builder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Builder {
    fn add(&mut self, bytes: Vec<u8>, target: Option<u64>, mut accessor: Value) -> usize {
        let mut view = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        self.views.push(view);
        self.bin.extend_from_slice(&bytes);
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        accessor["bufferView"] = json!(self.views.len() - 1);
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// A VEC3 float vertex accessor (with bounds, as POSITION and targets need them).
    pub(super) fn vec3s(&mut self, values: &[Vec3], bounds: bool) -> usize {
        let bytes = values.iter().flat_map(|v| v.to_array()).flat_map(f32::to_le_bytes).collect();
        let mut acc = json!({"componentType": FLOAT, "count": values.len(), "type": "VEC3"});
        if bounds && !values.is_empty() {
            let lo = values.iter().copied().fold(Vec3::INFINITY, Vec3::min);
            let hi = values.iter().copied().fold(Vec3::NEG_INFINITY, Vec3::max);
            acc["min"] = json!(lo.to_array());
            acc["max"] = json!(hi.to_array());
        }
        self.add(bytes, Some(ARRAY_BUFFER), acc)
    }

    /// A VEC2 float vertex accessor.
    pub(super) fn vec2s(&mut self, values: &[Vec2]) -> usize {
        let bytes = values.iter().flat_map(|v| v.to_array()).flat_map(f32::to_le_bytes).collect();
        self.add(bytes, Some(ARRAY_BUFFER), json!({"componentType": FLOAT, "count": values.len(), "type": "VEC2"}))
    }

    /// A VEC4 float vertex accessor (weights).
    pub(super) fn vec4s(&mut self, values: &[Vec4]) -> usize {
        let bytes = values.iter().flat_map(|v| v.to_array()).flat_map(f32::to_le_bytes).collect();
        self.add(bytes, Some(ARRAY_BUFFER), json!({"componentType": FLOAT, "count": values.len(), "type": "VEC4"}))
    }

    /// A VEC4 unsigned-short vertex accessor (joints).
    pub(super) fn joints(&mut self, values: &[[u16; 4]]) -> usize {
        let bytes = values.iter().flatten().flat_map(|j| j.to_le_bytes()).collect();
        self.add(
            bytes,
            Some(ARRAY_BUFFER),
            json!({"componentType": UNSIGNED_SHORT, "count": values.len(), "type": "VEC4"}),
        )
    }

    /// Triangle indices.
    pub(super) fn indices(&mut self, triangles: &[[u32; 3]]) -> usize {
        let bytes = triangles.iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
        let acc = json!({"componentType": UNSIGNED_INT, "count": triangles.len() * 3, "type": "SCALAR"});
        self.add(bytes, Some(ELEMENT_ARRAY_BUFFER), acc)
    }

    /// Float data that is not vertex data (`kind`: SCALAR, VEC3, VEC4, MAT4), with min/max when
    /// asked (animation inputs).
    pub(super) fn floats(&mut self, values: &[f32], kind: &str, width: usize, bounds: bool) -> usize {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut acc = json!({"componentType": FLOAT, "count": values.len() / width.max(1), "type": kind});
        if bounds && !values.is_empty() {
            let lo = values.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            acc["min"] = json!([lo]);
            acc["max"] = json!([hi]);
        }
        self.add(bytes, None, acc)
    }

    /// Embedded image bytes as a buffer view (for `images[].bufferView`).
    pub(super) fn image_view(&mut self, bytes: &[u8]) -> usize {
        self.views.push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        self.views.len() - 1
    }

    /// Puts the accessors, views and buffer into `doc` and returns the GLB bytes.
    pub(super) fn finish(self, mut doc: Value) -> Result<Vec<u8>, String> {
        if !self.views.is_empty() {
            doc["accessors"] = json!(self.accessors);
            doc["bufferViews"] = json!(self.views);
            doc["buffers"] = json!([{"byteLength": self.bin.len()}]);
        }
        let json = serde_json::to_vec(&doc).map_err(|e| format!("cannot write the converted document: {e}"))?;
        crate::io::glb::glb_bytes(&json, (!self.bin.is_empty()).then_some(self.bin.as_slice()))
    }
}
