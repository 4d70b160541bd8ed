//! A glTF document written from scratch for a model that has none (an OBJ import): the node tree,
//! every mesh's positions (with bounds), normals and triangle indices in one buffer. The exporter
//! then treats it like any source document and adds skins, joints and weights.

use std::path::Path;

use glam::Vec3;
use serde_json::{json, Value};

use super::SourceDocument;
use crate::model::{Model, NodeTransform};

const ARRAY_BUFFER: u64 = 34962;
const ELEMENT_ARRAY_BUFFER: u64 = 34963;
const FLOAT: u64 = 5126;
const UNSIGNED_INT: u64 = 5125;

struct Builder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Builder {
    fn add(&mut self, bytes: Vec<u8>, target: u64, accessor: Value) -> usize {
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len(), "target": target}));
        self.bin.extend_from_slice(&bytes);
        let mut accessor = accessor;
        accessor["bufferView"] = json!(self.views.len() - 1);
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn vec3s(&mut self, values: &[Vec3], bounds: bool) -> usize {
        let bytes = values.iter().flat_map(|v| v.to_array()).flat_map(f32::to_le_bytes).collect();
        let mut acc = json!({"componentType": FLOAT, "count": values.len(), "type": "VEC3"});
        if bounds {
            let lo = values.iter().copied().fold(Vec3::splat(f32::INFINITY), Vec3::min);
            let hi = values.iter().copied().fold(Vec3::splat(f32::NEG_INFINITY), Vec3::max);
            acc["min"] = json!(lo.to_array());
            acc["max"] = json!(hi.to_array());
        }
        self.add(bytes, ARRAY_BUFFER, acc)
    }
}

/// The document of `model` as if it had been read from `path` (used in messages and to refuse
/// overwriting the source). Nodes get the model's node order; the model must have no skins.
pub(crate) fn fresh_document(path: &Path, model: &Model) -> SourceDocument {
    let mut b = Builder { bin: Vec::new(), views: Vec::new(), accessors: Vec::new() };
    let mut meshes = Vec::new();
    for mesh in &model.meshes {
        let mut prims = Vec::new();
        for p in &mesh.primitives {
            // In the file's order, which the model keeps in `order`.
            let mut attributes = json!({"POSITION": b.vec3s(&p.order.to_file(&p.positions), true)});
            if let Some(n) = &p.normals {
                attributes["NORMAL"] = json!(b.vec3s(&p.order.to_file(n), false));
            }
            let mut prim = json!({"attributes": attributes, "mode": 4});
            if !p.triangles.is_empty() {
                let bytes = p.file_triangles().iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
                let acc = json!({"componentType": UNSIGNED_INT, "count": p.triangles.len() * 3, "type": "SCALAR"});
                prim["indices"] = json!(b.add(bytes, ELEMENT_ARRAY_BUFFER, acc));
            }
            prims.push(prim);
        }
        let mut m = json!({"primitives": prims});
        if let Some(name) = &mesh.name {
            m["name"] = json!(name);
        }
        meshes.push(m);
    }
    let nodes: Vec<Value> = model
        .nodes
        .nodes
        .iter()
        .map(|n| {
            let mut node = json!({});
            if let Some(name) = &n.name {
                node["name"] = json!(name);
            }
            if let Some(m) = n.mesh {
                node["mesh"] = json!(m);
            }
            if !n.children.is_empty() {
                node["children"] = json!(n.children);
            }
            match n.rest {
                NodeTransform::Matrix(m) => node["matrix"] = json!(m.to_cols_array()),
                NodeTransform::Trs(t) => {
                    if t.translation != glam::DVec3::ZERO {
                        node["translation"] = json!(t.translation.to_array());
                    }
                }
            }
            node
        })
        .collect();
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": concat!("skinlab ", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "scenes": [{"nodes": model.nodes.scene_roots}],
        "nodes": nodes,
        "meshes": meshes,
    });
    if !b.views.is_empty() {
        doc["accessors"] = json!(b.accessors);
        doc["bufferViews"] = json!(b.views);
        doc["buffers"] = json!([{"byteLength": b.bin.len()}]);
    }
    let mut original = model.clone();
    for (i, n) in original.nodes.nodes.iter_mut().enumerate() {
        n.source = Some(i);
    }
    SourceDocument::new(path, doc, vec![b.bin], original)
}
