//! glTF export: writes a model back over its [`SourceDocument`], changing only what the editor
//! changed. Everything else in the JSON (nodes, names, materials, textures, images, animations,
//! extras, extensions) is carried over as read.
//!
//! - Weights: a primitive whose influences differ from the imported ones (or every skinned
//!   primitive, when a weights format is asked for) gets new JOINTS_n/WEIGHTS_n accessors: joints
//!   sorted by weight, at most `max_influences` per vertex (four per set), sums equal to 1 within
//!   the glTF validator's tolerance (float) or exactly (normalised u16/u8), zero weights with joint
//!   index 0. A mesh shared with nodes that do not use these weights is cloned first.
//! - Bake: every skinned instance of the default scene gets its deformed positions and normals
//!   (in its node's frame in the posed tree), loses its skin, its JOINTS/WEIGHTS and its TANGENT
//!   (which would be stale), and the pose is written into the nodes' transforms so that rigid
//!   attachments follow. Morph targets are kept as they are (their deltas apply to the baked mesh).
//! - Objects that only the changed data used (old skin accessors, skins nobody uses any more) are
//!   removed and indices renumbered; every buffer is re-packed into one (the GLB BIN chunk, a data
//!   URI, or an external `.bin`) and views that lost an accessor are compacted, so no dead bytes
//!   remain. Files are written through [`StagedFile`](crate::io::atomic_write::StagedFile)s (both to temporaries, then the
//!   `.bin`, named by its content, before the `.gltf`: the old pair stays complete until the new one is).

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::glb;
use super::source_document::SourceDocument;
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::SkinningMethod;

mod animations;
mod bake;
mod densify;
mod files;
mod json_refs;
mod key_morphs;
mod repack;
mod skeleton;
mod weights;

pub use densify::{densified_bytes, export_densified};
use files::{buffer_path, uri_encode, write_pair};
use json_refs::{array_len, index, push, referenced};
pub use key_morphs::{KeyMorphClip, KeyMorphs, MeshKeyMorphs};
pub use weights::{float_weights, quantized_weights};

const ARRAY_BUFFER: u64 = 34962;
const BYTE: u64 = 5120;
const UNSIGNED_BYTE: u64 = 5121;
const SHORT: u64 = 5122;
const UNSIGNED_SHORT: u64 = 5123;
const UNSIGNED_INT: u64 = 5125;
const FLOAT: u64 = 5126;

/// Extensions whose data we cannot re-pack (compressed buffer views): export refuses them.
const CANNOT_CARRY: &[&str] = &["KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_meshopt_compression"];
/// Extensions known to hold no indices of meshes, skins, accessors, buffer views or buffers (or
/// whose references this module renumbers). With any other extension in the file nothing is
/// removed or renumbered, so its references stay valid.
const SAFE_EXTENSION_PREFIXES: &[&str] = &[
    "KHR_materials_",
    "KHR_texture_",
    "KHR_lights_punctual",
    "KHR_mesh_quantization",
    "KHR_xmp",
    "EXT_texture_",
    "EXT_mesh_gpu_instancing",
];

/// Where accessor indices live in a glTF document.
const ACCESSOR_REFS: &[&[&str]] = &[
    &["meshes", "*", "primitives", "*", "attributes", "*"],
    &["meshes", "*", "primitives", "*", "indices"],
    &["meshes", "*", "primitives", "*", "targets", "*", "*"],
    &["skins", "*", "inverseBindMatrices"],
    &["animations", "*", "samplers", "*", "input"],
    &["animations", "*", "samplers", "*", "output"],
    &["nodes", "*", "extensions", "EXT_mesh_gpu_instancing", "attributes", "*"],
];
/// Where buffer-view indices live.
const VIEW_REFS: &[&[&str]] = &[
    &["accessors", "*", "bufferView"],
    &["accessors", "*", "sparse", "indices", "bufferView"],
    &["accessors", "*", "sparse", "values", "bufferView"],
    &["images", "*", "bufferView"],
];
/// Where skin indices live.
const SKIN_REFS: &[&[&str]] = &[&["nodes", "*", "skin"]];
/// Where mesh indices live.
const MESH_REFS: &[&[&str]] = &[&["nodes", "*", "mesh"]];

/// The file layout to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// Binary glTF: JSON plus one BIN chunk.
    Glb,
    /// `.gltf` JSON with the buffer as a base64 data URI.
    GltfEmbedded,
    /// `.gltf` JSON plus one `.bin` file beside it (`<stem>.<content hash>.bin`, so that a new pair
    /// never overwrites the buffer the old one uses).
    GltfExternal,
}

impl Container {
    /// The layout for an output path: `.glb`, or `.gltf` embedded unless `external_buffer`.
    pub fn for_path(path: &Path, external_buffer: bool) -> Result<Self, String> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("glb") if external_buffer => Err("an external buffer needs a .gltf output, not .glb".into()),
            Some("glb") => Ok(Self::Glb),
            Some("gltf") if external_buffer => Ok(Self::GltfExternal),
            Some("gltf") => Ok(Self::GltfEmbedded),
            _ => Err("the output must end in .glb or .gltf".into()),
        }
    }
}

/// How rewritten weights are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightsFormat {
    /// 32-bit floats, renormalised in f32.
    Float,
    /// Normalised unsigned 16-bit integers summing to exactly 65535.
    U16,
    /// Normalised unsigned 8-bit integers summing to exactly 255.
    U8,
}

impl WeightsFormat {
    /// The name used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Float => "float",
            Self::U16 => "u16",
            Self::U8 => "u8",
        }
    }
}

impl fmt::Display for WeightsFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WeightsFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "float" | "f32" => Ok(Self::Float),
            "u16" => Ok(Self::U16),
            "u8" => Ok(Self::U8),
            _ => Err(format!("unknown weights format {s:?} (expected float, u16 or u8)")),
        }
    }
}

/// Bake a pose into the meshes instead of exporting the skinned rest model.
#[derive(Clone, Debug)]
pub struct Bake {
    /// The pose to bake (also written into the nodes' transforms).
    pub pose: Pose,
    /// The skinning method that deforms the meshes.
    pub method: SkinningMethod,
}

/// What to write.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// File layout.
    pub container: Container,
    /// Encoding of rewritten weights; `Some` also re-encodes every skinned primitive, `None` writes
    /// floats for changed primitives and keeps the others as they are in the source.
    pub weights_format: Option<WeightsFormat>,
    /// Most influences a vertex keeps (4 per JOINTS_n/WEIGHTS_n set; more than 4 adds JOINTS_1).
    pub max_influences: usize,
    /// Bake a pose instead of writing the skinned model.
    pub bake: Option<Bake>,
    /// Allow writing over the source file or one of its external files.
    pub overwrite_source: bool,
    /// Write source weights that the validator rejects (sums not 1, a joint listed twice) as
    /// they are, instead of normalised from the model.
    pub keep_weights: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            container: Container::Glb,
            weights_format: None,
            max_influences: 4,
            bake: None,
            overwrite_source: false,
            keep_weights: false,
        }
    }
}

/// What an export did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// Files written, with their sizes in bytes (the `.bin` first when there is one).
    pub files: Vec<(PathBuf, usize)>,
    /// Primitives that got new JOINTS/WEIGHTS accessors.
    pub rewritten_primitives: usize,
    /// Vertices that had more than `max_influences` influences (the smallest were dropped).
    pub trimmed_vertices: usize,
    /// Vertices without any influence (written with all weights 0).
    pub empty_vertices: usize,
    /// Source vertices whose weights the validator rejects (not normalised, a joint listed twice)
    /// or that have more than `max_influences` influences, written from the model: the largest
    /// kept, normalised (0 with `keep_weights`).
    pub repaired_vertices: usize,
    /// Skinned mesh nodes baked into static meshes.
    pub baked_nodes: usize,
    /// Unused objects were removed and buffers compacted (false when an unknown extension
    /// forbids renumbering).
    pub compacted: bool,
}

/// An export that failed: the file and why, on one line.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {problem}")]
pub struct ExportError {
    /// The file as given.
    pub path: String,
    /// What went wrong.
    pub problem: String,
}

impl ExportError {
    /// An error about `path`.
    pub fn new(path: &Path, problem: impl Into<String>) -> Self {
        Self { path: path.display().to_string(), problem: problem.into() }
    }
}

/// The bytes of an export, before anything is written.
#[derive(Clone, Debug)]
pub struct ExportedFiles {
    /// The `.glb` or `.gltf` file.
    pub main: Vec<u8>,
    /// The external buffer's path and bytes ([`Container::GltfExternal`] only).
    pub bin: Option<(PathBuf, Vec<u8>)>,
}

/// Exports `model` (which must come from `source`) to `out`, atomically. On error nothing is left
/// behind: no partial file, no temporary file.
pub fn export_model(
    model: &Model,
    source: &SourceDocument,
    options: &ExportOptions,
    out: &Path,
) -> Result<ExportReport, ExportError> {
    export_model_with_key_morphs(model, source, options, None, out)
}

/// [`export_model`] that also adds per-key morph targets ([`KeyMorphs`]).
pub fn export_model_with_key_morphs(
    model: &Model,
    source: &SourceDocument,
    options: &ExportOptions,
    morphs: Option<&KeyMorphs>,
    out: &Path,
) -> Result<ExportReport, ExportError> {
    let (files, report) =
        export_bytes_with_key_morphs(model, source, options, morphs, out).map_err(|p| ExportError::new(out, p))?;
    write_export(files, report, source, options, out)
}

/// Writes built export files to `out` (and the external buffer beside it), refusing the source's
/// own files unless `options.overwrite_source`.
fn write_export(
    files: ExportedFiles,
    mut report: ExportReport,
    source: &SourceDocument,
    options: &ExportOptions,
    out: &Path,
) -> Result<ExportReport, ExportError> {
    let mut targets = vec![out];
    if let Some((bin_path, _)) = &files.bin {
        targets.push(bin_path);
    }
    for t in targets {
        if !options.overwrite_source && source.is_source_file(t) {
            return Err(ExportError::new(t, "is the model's source file; refusing to overwrite it (use --force)"));
        }
    }
    write_pair(out, &files).map_err(|(path, e)| ExportError::new(&path, format!("cannot write: {e}")))?;
    if let Some((bin_path, bin)) = &files.bin {
        report.files.push((bin_path.clone(), bin.len()));
    }
    report.files.push((out.to_path_buf(), files.main.len()));
    Ok(report)
}

/// Builds the exported file(s) for `out` in memory; the error is the problem without the path.
pub fn export_bytes(
    model: &Model,
    source: &SourceDocument,
    options: &ExportOptions,
    out: &Path,
) -> Result<(ExportedFiles, ExportReport), String> {
    export_bytes_with_key_morphs(model, source, options, None, out)
}

/// [`export_bytes`] that also adds per-key morph targets ([`KeyMorphs`]).
pub fn export_bytes_with_key_morphs(
    model: &Model,
    source: &SourceDocument,
    options: &ExportOptions,
    morphs: Option<&KeyMorphs>,
    out: &Path,
) -> Result<(ExportedFiles, ExportReport), String> {
    // An edited or new skeleton: compare weights with the source's as if it had this skeleton.
    let rebased = skeleton::original_with_skeleton(model, &source.original);
    let original = rebased.as_ref().unwrap_or(&source.original);
    check_matches(model, original)?;
    let mut ex = Exporter::new(source, original, options)?;
    if rebased.is_some() {
        ex.write_skeleton(model)?;
    }
    match &options.bake {
        Some(bake) => ex.bake(model, bake)?,
        None => ex.write_weights(model)?,
    }
    ex.write_animations(model, rebased.is_some())?;
    if options.bake.is_some() {
        ex.drop_baked_weight_channels(model);
    }
    if let Some(morphs) = morphs {
        ex.write_key_morphs(model, morphs)?;
    }
    ex.embed_external_images(out)?;
    ex.collect_garbage();
    let bin = ex.repack()?;
    ex.finish(out, bin)
}

fn check_matches(model: &Model, original: &Model) -> Result<(), String> {
    let mismatch = |what: &str| Err(format!("the model does not match its source document ({what} differ)"));
    if model.nodes.len() != original.nodes.len() {
        return mismatch("nodes");
    }
    if model.instances != original.instances {
        return mismatch("skinned mesh nodes");
    }
    if model.meshes.len() != original.meshes.len()
        || model.meshes.iter().zip(&original.meshes).any(|(a, b)| {
            a.primitives.len() != b.primitives.len()
                || a.primitives.iter().zip(&b.primitives).any(|(p, q)| p.positions.len() != q.positions.len())
        })
    {
        return mismatch("meshes");
    }
    if model.skins.len() != original.skins.len()
        || model.skins.iter().zip(&original.skins).any(|(a, b)| a.joints != b.joints)
    {
        return mismatch("skins");
    }
    Ok(())
}

/// The working copy of the document and the data of the buffer views added to it.
struct Exporter<'a> {
    source: &'a SourceDocument,
    /// The model the weights are compared with (the source's, with an edited skeleton's joints).
    original: &'a Model,
    options: &'a ExportOptions,
    json: Value,
    new_views: HashMap<usize, Vec<u8>>,
    meshes_before: BTreeSet<usize>,
    skins_before: BTreeSet<usize>,
    accessors_before: BTreeSet<usize>,
    views_before: BTreeSet<usize>,
    /// Views that lost an accessor (compacted when re-packed).
    touched_views: BTreeSet<usize>,
    report: ExportReport,
}

impl<'a> Exporter<'a> {
    fn new(source: &'a SourceDocument, original: &'a Model, options: &'a ExportOptions) -> Result<Self, String> {
        let json = source.json.clone();
        let mut compacted = true;
        for ext in json.get("extensionsUsed").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
        {
            if CANNOT_CARRY.contains(&ext) {
                return Err(format!("the source uses {ext}, whose compressed data skinlab cannot re-pack"));
            }
            if !SAFE_EXTENSION_PREFIXES.iter().any(|p| ext.starts_with(p)) {
                compacted = false;
            }
        }
        if !(1..=16).contains(&options.max_influences) {
            return Err(format!("max influences {} is not between 1 and 16", options.max_influences));
        }
        let ex = Self {
            source,
            original,
            options,
            meshes_before: referenced(&json, MESH_REFS),
            skins_before: referenced(&json, SKIN_REFS),
            accessors_before: referenced(&json, ACCESSOR_REFS),
            views_before: referenced(&json, VIEW_REFS),
            json,
            new_views: HashMap::new(),
            touched_views: BTreeSet::new(),
            report: ExportReport { compacted, ..ExportReport::default() },
        };
        // Every accessor's byte range, with the source's indices in messages (a count near 2^64
        // must be an error here, not an overflow when a view is compacted).
        // One pass over the accessors (a pass per view would cost views × accessors: seconds on a
        // file with thousands of animation accessors).
        let view_of = |v: Option<&Value>| index(v.and_then(|v| v.get("bufferView")));
        for (a, acc) in ex.json.get("accessors").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let sparse = acc.get("sparse");
            let views = [
                view_of(Some(acc)),
                view_of(sparse.and_then(|s| s.get("indices"))),
                view_of(sparse.and_then(|s| s.get("values"))),
            ];
            for view in views.into_iter().flatten() {
                let stride = index(ex.json["bufferViews"][view].get("byteStride"));
                let view_len = index(ex.json["bufferViews"][view].get("byteLength")).unwrap_or(usize::MAX);
                ex.accessor_users(a, acc, view, stride, view_len, &mut Vec::new())?;
            }
        }
        Ok(ex)
    }

    fn node_mut(&mut self, node: usize) -> Result<&mut Map<String, Value>, String> {
        self.json
            .get_mut("nodes")
            .and_then(|n| n.get_mut(node))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| format!("node {node} is missing from the source document"))
    }

    fn node_mesh(&self, node: usize) -> Result<usize, String> {
        index(self.json.get("nodes").and_then(|n| n.get(node)).and_then(|n| n.get("mesh")))
            .ok_or_else(|| format!("node {node} has no mesh in the source document"))
    }

    fn primitive_mut(&mut self, mesh: usize, prim: usize) -> Result<&mut Map<String, Value>, String> {
        self.json
            .get_mut("meshes")
            .and_then(|m| m.get_mut(mesh))
            .and_then(|m| m.get_mut("primitives"))
            .and_then(|p| p.get_mut(prim))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| format!("mesh {mesh} primitive {prim} is missing from the source document"))
    }

    fn check_primitive_count(&self, mesh: usize, expected: usize) -> Result<(), String> {
        let n = self
            .json
            .get("meshes")
            .and_then(|m| m.get(mesh))
            .and_then(|m| m.get("primitives"))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if n == expected {
            Ok(())
        } else {
            Err(format!("mesh {mesh} has {n} primitives in the source document, the model has {expected}"))
        }
    }

    /// The mesh that `nodes` may change alone: `mesh` itself when no other node uses it, else a
    /// clone of it that `nodes` are pointed at.
    fn own_mesh(&mut self, mesh: usize, nodes: &[usize]) -> Result<usize, String> {
        let users: Vec<usize> = self
            .json
            .get("nodes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, n)| index(n.get("mesh")) == Some(mesh))
            .map(|(i, _)| i)
            .collect();
        if users.iter().all(|u| nodes.contains(u)) {
            return Ok(mesh);
        }
        let copy = self
            .json
            .get("meshes")
            .and_then(|m| m.get(mesh))
            .cloned()
            .ok_or_else(|| format!("mesh {mesh} is missing from the source document"))?;
        let new = push(&mut self.json, "meshes", copy);
        for &n in nodes {
            self.node_mut(n)?.insert("mesh".into(), json!(new));
        }
        Ok(new)
    }

    /// Adds a vertex-attribute buffer view and an accessor over it; returns the accessor index.
    fn add_accessor(&mut self, data: Vec<u8>, mut accessor: Map<String, Value>) -> usize {
        let view =
            push(&mut self.json, "bufferViews", json!({"buffer": 0, "byteLength": data.len(), "target": ARRAY_BUFFER}));
        self.new_views.insert(view, data);
        accessor.insert("bufferView".into(), json!(view));
        accessor.shift_remove("byteOffset");
        push(&mut self.json, "accessors", Value::Object(accessor))
    }

    fn accessor_component_type(&self, accessor: Option<usize>) -> Option<u64> {
        let acc = self.json.get("accessors")?.get(accessor?)?;
        acc.get("componentType")?.as_u64()
    }

    /// Points the document at the new buffer and serialises it.
    fn finish(mut self, out: &Path, bin: Vec<u8>) -> Result<(ExportedFiles, ExportReport), String> {
        let container = self.options.container;
        let has_views = array_len(&self.json, "bufferViews") > 0;
        let mut bin_file = None;
        let Some(root) = self.json.as_object_mut() else {
            return Err("the glTF JSON is not an object".into());
        };
        if has_views {
            let mut buffer =
                root.get("buffers").and_then(|b| b.get(0)).and_then(Value::as_object).cloned().unwrap_or_default();
            buffer.shift_remove("uri");
            buffer.insert("byteLength".into(), json!(bin.len()));
            match container {
                Container::Glb => {}
                Container::GltfEmbedded => {
                    let b64 = base64::engine::general_purpose::STANDARD.encode(&bin);
                    buffer.insert("uri".into(), json!(format!("data:application/octet-stream;base64,{b64}")));
                }
                Container::GltfExternal => {
                    let path = buffer_path(out, &bin);
                    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    buffer.insert("uri".into(), json!(uri_encode(&name)));
                    bin_file = Some(path);
                }
            }
            root.insert("buffers".into(), json!([buffer]));
        } else {
            root.shift_remove("buffers");
        }
        let text = serde_json::to_vec(&self.json).map_err(|e| format!("cannot serialise the glTF JSON: {e}"))?;
        let main = match container {
            Container::Glb => glb::glb_bytes(&text, has_views.then_some(bin.as_slice()))?,
            _ => text,
        };
        let bin = bin_file.map(|p| (p, bin));
        Ok((ExportedFiles { main, bin }, self.report))
    }
}

#[cfg(test)]
mod tests {
    use super::json_refs::visit_mut;
    use super::*;

    #[test]
    fn references_are_found_and_renumbered() {
        let mut doc = json!({
            "meshes": [{"primitives": [{"attributes": {"POSITION": 2, "JOINTS_0": 0}, "indices": 3}]}],
            "skins": [{"inverseBindMatrices": 1}],
            "accessors": [{}, {}, {}, {}],
        });
        assert_eq!(referenced(&doc, ACCESSOR_REFS), BTreeSet::from([0, 1, 2, 3]));
        visit_mut(&mut doc, &["meshes", "*", "primitives", "*", "attributes", "*"], &mut |v| *v = json!(9));
        assert_eq!(doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"], json!(9));
        assert_eq!(doc["meshes"][0]["primitives"][0]["indices"], json!(3));
    }

    #[test]
    fn containers_follow_the_extension() {
        assert_eq!(Container::for_path(Path::new("a.GLB"), false), Ok(Container::Glb));
        assert_eq!(Container::for_path(Path::new("a.gltf"), true), Ok(Container::GltfExternal));
        assert!(Container::for_path(Path::new("a.glb"), true).is_err());
        assert!(Container::for_path(Path::new("a.obj"), false).is_err());
        assert_eq!(uri_encode("my model.bin"), "my%20model.bin");
    }
}
