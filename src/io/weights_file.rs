//! The weights file: edited skinning weights as JSON, so that painted weights can be saved, applied
//! to a freshly loaded model and exported.
//!
//! ```json
//! {
//!   "format": "skinlab-weights",
//!   "version": 1,
//!   "primitives": [
//!     {"node": "Body", "primitive": 0, "vertices": [
//!       [12, [["UpperArm", 0.75], ["LowerArm", 0.25]]]
//!     ]}
//!   ]
//! }
//! ```
//!
//! `node` is the key (name, or `#N`) of a skinned mesh node of the default scene, `primitive` the
//! primitive's index in its mesh, and each vertex entry its index with its complete influence list:
//! joint keys (nodes of that node's skin) and non-negative weights, normalised when applied. Listed
//! vertices are replaced; the others keep their weights. Nodes sharing a mesh and a skin share
//! weights. A file is checked completely before anything is changed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::atomic_write;
use crate::model::influences::VertexInfluences;
use crate::model::{Influences, JointSetTable, Model};

/// The `format` field.
pub const FORMAT: &str = "skinlab-weights";
/// The `version` field.
pub const VERSION: u64 = 1;

/// A weights file that could not be read, applied or written: the file and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {problem}")]
pub struct WeightsFileError {
    /// The file as given.
    pub path: String,
    /// What is wrong (the entry, vertex and joint where there is one).
    pub problem: String,
}

/// What applying a weights file changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WeightsApplied {
    /// Vertices whose influences were replaced.
    pub vertices: usize,
    /// Primitive entries in the file.
    pub primitives: usize,
}

/// One vertex's influences with the pivot first and the rest by weight, largest first (joint index
/// on ties), so that reading them back in this order keeps the same pivot.
#[must_use]
pub fn ordered_influences(inf: &Influences, table: &JointSetTable, v: usize) -> Vec<(u16, f32)> {
    let (set, pivot_slot) = Influences::unpack(inf.packed_sets()[v]);
    let pivot = table.joints(set).get(pivot_slot).copied();
    let mut pairs: Vec<(u16, f32)> = inf.vertex(v, table).collect();
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then((Some(b.0) == pivot).cmp(&(Some(a.0) == pivot))).then(a.0.cmp(&b.0)));
    pairs
}

fn same_vertex(a: &Influences, ta: &JointSetTable, b: &Influences, tb: &JointSetTable, v: usize) -> bool {
    v < b.len() && ordered_influences(a, ta, v) == ordered_influences(b, tb, v)
}

/// The weights of `model` as weights-file JSON: every vertex, or with `base` only the vertices
/// whose influences differ from it. Returns the text and the number of vertices listed.
#[must_use]
pub fn weights_to_json(model: &Model, base: Option<&Model>) -> (String, usize) {
    let mut s = format!("{{\n  \"format\": \"{FORMAT}\",\n  \"version\": {VERSION},\n  \"primitives\": [");
    let mut first_entry = true;
    let mut written = 0;
    let mut seen = BTreeSet::new();
    for inst in &model.instances {
        if !seen.insert(inst.mesh) {
            continue;
        }
        let table = &model.skins[inst.skin].sets;
        let joints = &model.skins[inst.skin].joints;
        for (p, prim) in model.meshes[inst.mesh].primitives.iter().enumerate() {
            let Some(inf) = &prim.influences else { continue };
            let base_inf = base.and_then(|b| {
                let bi = b.meshes.get(inst.mesh)?.primitives.get(p)?.influences.as_ref()?;
                Some((bi, &b.skins.get(inst.skin)?.sets))
            });
            // Listed by file index (the model's order may differ: `model::vertex_order`).
            let vertices: Vec<usize> = (0..inf.len())
                .map(|f| prim.order.model_index(f))
                .filter(|&v| match (base, base_inf) {
                    (None, _) => true,
                    (Some(_), None) => true,
                    (Some(_), Some((bi, bt))) => !same_vertex(inf, table, bi, bt, v),
                })
                .collect();
            if vertices.is_empty() {
                continue;
            }
            let node = serde_json::to_string(&model.nodes.unique_key(inst.node)).unwrap_or_default();
            let _ = write!(
                s,
                "{}\n    {{\"node\": {node}, \"primitive\": {p}, \"vertices\": [",
                if first_entry { "" } else { "," }
            );
            first_entry = false;
            for (k, &v) in vertices.iter().enumerate() {
                let pairs: Vec<String> = ordered_influences(inf, table, v)
                    .into_iter()
                    .map(|(j, w)| {
                        let key =
                            joints.get(usize::from(j)).map_or_else(|| format!("#{j}"), |&n| model.nodes.unique_key(n));
                        format!("[{}, {w}]", serde_json::to_string(&key).unwrap_or_default())
                    })
                    .collect();
                let f = prim.order.file_index(v);
                let _ = write!(s, "{}\n      [{f}, [{}]]", if k == 0 { "" } else { "," }, pairs.join(", "));
            }
            written += vertices.len();
            s.push_str("\n    ]}");
        }
    }
    s.push_str(if first_entry { "]\n}\n" } else { "\n  ]\n}\n" });
    (s, written)
}

/// Writes `model`'s weights (all vertices, or only those that differ from `base`) to `path`
/// atomically; returns the number of vertices written.
pub fn write_weights_file(path: &Path, model: &Model, base: Option<&Model>) -> Result<usize, WeightsFileError> {
    let (text, written) = weights_to_json(model, base);
    atomic_write(path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| WeightsFileError { path: path.display().to_string(), problem: format!("cannot write: {e}") })?;
    Ok(written)
}

/// Reads a weights file and applies it to `model`; on error the model is unchanged.
pub fn apply_weights_file(path: &Path, model: &mut Model) -> Result<WeightsApplied, WeightsFileError> {
    let err = |problem: String| WeightsFileError { path: path.display().to_string(), problem };
    // At most 16 influences per vertex at a generous 64 bytes each (joint key, weight, padding)
    // for every vertex of the model, plus 1 MiB.
    let vertices: u64 = model.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len() as u64).sum();
    let cap = (1u64 << 20) + vertices * 16 * 64;
    let text = super::input_file::read_input_text(path, cap).map_err(err)?;
    apply_weights(&text, model).map_err(err)
}

/// Parses weights-file text and applies it to `model`; the error is the problem without the path.
pub fn apply_weights(text: &str, model: &mut Model) -> Result<WeightsApplied, String> {
    let root = crate::json_header::parse_document(text, FORMAT, VERSION, &["primitives"])?;
    let entries = match root.get("primitives") {
        Some(Value::Array(e)) => e,
        Some(other) => return Err(format!("\"primitives\" must be an array, found {other}")),
        None => return Err("missing \"primitives\" (it may be empty: [])".into()),
    };
    // Everything is checked first: (mesh, primitive) -> vertex -> influences.
    let mut edits: BTreeMap<(usize, usize), BTreeMap<usize, VertexInfluences>> = BTreeMap::new();
    let mut skin_of_mesh = BTreeMap::new();
    for (e, entry) in entries.iter().enumerate() {
        let at = |problem: String| format!("primitives[{e}]: {problem}");
        let Value::Object(fields) = entry else {
            return Err(at(format!("must be an object, found {entry}")));
        };
        for key in fields.keys() {
            if !matches!(key.as_str(), "node" | "primitive" | "vertices") {
                return Err(at(format!("unknown field {key:?} (expected node, primitive, vertices)")));
            }
        }
        let key = fields.get("node").and_then(Value::as_str).ok_or_else(|| at("\"node\" must be a node key".into()))?;
        let node = model.nodes.find(key).map_err(|e| at(format!("node {key:?}: {e}")))?;
        let inst = model
            .instances
            .iter()
            .find(|i| i.node == node)
            .ok_or_else(|| at(format!("node {key:?} is not a skinned mesh node of the default scene")))?;
        let prims = &model.meshes[inst.mesh].primitives;
        let p = fields
            .get("primitive")
            .and_then(Value::as_u64)
            .ok_or_else(|| at("\"primitive\" must be a primitive index".into()))? as usize;
        let prim = prims
            .get(p)
            .ok_or_else(|| at(format!("node {key:?} has no primitive {p} (its mesh has {})", prims.len())))?;
        if prim.influences.is_none() {
            return Err(at(format!("node {key:?} primitive {p} has no skinning weights")));
        }
        let skin = &model.skins[inst.skin];
        skin_of_mesh.insert(inst.mesh, inst.skin);
        let vertices = fields
            .get("vertices")
            .and_then(Value::as_array)
            .ok_or_else(|| at("\"vertices\" must be an array".into()))?;
        let slot = edits.entry((inst.mesh, p)).or_default();
        for item in vertices {
            let shape = || at(format!("a vertex entry must be [index, [[joint, weight], ...]], found {item}"));
            let [index, pairs] = item.as_array().map(Vec::as_slice).unwrap_or_default() else {
                return Err(shape());
            };
            let v = index.as_u64().ok_or_else(shape)? as usize;
            if v >= prim.positions.len() {
                return Err(at(format!("vertex {v} is beyond the primitive's {} vertices", prim.positions.len())));
            }
            let pairs = pairs.as_array().ok_or_else(shape)?;
            let (mut joints, mut weights) = (Vec::new(), Vec::new());
            for pair in pairs {
                let [joint, weight] = pair.as_array().map(Vec::as_slice).unwrap_or_default() else {
                    return Err(shape());
                };
                let jkey = joint.as_str().ok_or_else(shape)?;
                let jnode = model.nodes.find(jkey).map_err(|e| at(format!("vertex {v}: joint {jkey:?}: {e}")))?;
                let j = skin.joints.iter().position(|&n| n == jnode).ok_or_else(|| {
                    at(format!("vertex {v}: joint {jkey:?} is not a joint of the skin of node {key:?}"))
                })?;
                let w = weight.as_f64().filter(|w| w.is_finite() && *w >= 0.0).ok_or_else(|| {
                    at(format!("vertex {v}: weight {weight} of joint {jkey:?} is not a non-negative number"))
                })?;
                joints.push(j as u32);
                weights.push(w as f32);
            }
            let inf =
                VertexInfluences::from_slots(v, &joints, &weights, skin.joints.len()).map_err(|e| at(e.to_string()))?;
            if inf.pairs.is_empty() {
                return Err(at(format!("vertex {v}: the weights sum to 0 (a vertex needs a positive weight)")));
            }
            // The file names vertices by file index (`model::vertex_order`).
            slot.insert(prim.order.model_index(v), inf);
        }
    }
    // Widen a skin's slots where a vertex now has more influences than its layout holds.
    for (&mesh, &skin) in &skin_of_mesh {
        let need = edits
            .range((mesh, 0)..(mesh + 1, 0))
            .flat_map(|(_, vs)| vs.values().map(|i| i.pairs.len()))
            .max()
            .unwrap_or(0);
        if need > model.skins[skin].sets.slots() {
            relayout_skin(model, skin, need)?;
        }
    }
    let mut applied = WeightsApplied { vertices: 0, primitives: entries.len() };
    for ((mesh, p), vertices) in edits {
        let skin = skin_of_mesh[&mesh];
        let table = &mut model.skins[skin].sets;
        let Some(inf) = model.meshes[mesh].primitives[p].influences.as_mut() else { continue };
        for (v, vi) in vertices {
            inf.set_vertex(v, &vi, table).map_err(|e| e.to_string())?;
            applied.vertices += 1;
        }
    }
    Ok(applied)
}

/// Re-lays every primitive that uses skin `skin` with a joint-set table of `slots` members (so
/// that vertices can get more influences than the skin's layout held), keeping each pivot.
pub fn relayout_skin(model: &mut Model, skin: usize, slots: usize) -> Result<(), String> {
    let meshes: BTreeSet<usize> = model.instances.iter().filter(|i| i.skin == skin).map(|i| i.mesh).collect();
    let old = model.skins[skin].sets.clone();
    let mut table = JointSetTable::new(slots);
    for m in meshes {
        for prim in &mut model.meshes[m].primitives {
            let Some(inf) = &prim.influences else { continue };
            let vertices: Vec<VertexInfluences> =
                (0..inf.len()).map(|v| VertexInfluences { pairs: ordered_influences(inf, &old, v) }).collect();
            prim.influences = Some(Influences::from_vertices(&vertices, &mut table).map_err(|e| e.to_string())?);
        }
    }
    model.skins[skin].sets = table;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pivot_comes_first_on_ties() {
        let mut table = JointSetTable::new(4);
        let inf = VertexInfluences { pairs: vec![(7, 0.25), (5, 0.375), (2, 0.375)] };
        let layout = Influences::from_vertices(&[inf], &mut table).unwrap();
        assert_eq!(ordered_influences(&layout, &table, 0), vec![(5, 0.375), (2, 0.375), (7, 0.25)]);
    }
}
