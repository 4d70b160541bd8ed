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
//!   remain. Files are written through [`StagedFile`]s (both to temporaries, then the
//!   `.bin`, named by its content, before the `.gltf`: the old pair stays complete until the new one is).

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use base64::Engine as _;
use glam::{DMat3, Vec3};
use serde_json::{json, Map, Value};

use super::atomic_write::{remove_stale_temporaries_of, StagedFile};
use super::glb;
use super::source_document::{percent_decode, SourceDocument};
use super::source_weights::failing_vertices;
use super::weights_file::ordered_influences;
use crate::model::{Influences, JointSetTable, Model, NodeTransform};
use crate::rig::Pose;
use crate::skinning::{Deformer, SkinningMethod};

mod animations;
mod skeleton;

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
    let (files, mut report) = export_bytes(model, source, options, out).map_err(|p| ExportError::new(out, p))?;
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

/// Writes the main file and its external buffer so that at every instant `out` is either the
/// complete old file (with the buffer it references) or the complete new one: both are written to
/// temporaries first; the buffer's name carries a hash of its content, so renaming it into place
/// never touches the buffer the old file uses; then the main file is renamed over `out`; last,
/// buffers of earlier exports to `out` (`<stem>.<16 hex digits>.bin`) that nothing uses any more
/// are removed. On error every temporary is removed and the old pair is left as it was.
fn write_pair(out: &Path, files: &ExportedFiles) -> Result<(), (PathBuf, std::io::Error)> {
    if files.bin.is_some() {
        let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        remove_stale_temporaries_of(dir, &|target| is_content_named_buffer(out, target));
    }
    let staged_bin = match &files.bin {
        Some((bin_path, bin)) => {
            Some(StagedFile::write(bin_path, |w| w.write_all(bin)).map_err(|e| (bin_path.clone(), e))?)
        }
        None => None,
    };
    let staged_main = StagedFile::write(out, |w| w.write_all(&files.main)).map_err(|e| (out.to_path_buf(), e))?;
    if let Some(staged) = staged_bin {
        let path = staged.target().to_path_buf();
        staged.commit().map_err(|e| (path, e))?;
    }
    staged_main.commit().map_err(|e| (out.to_path_buf(), e))?;
    if let Some((bin_path, _)) = &files.bin {
        remove_old_buffers(out, bin_path);
    }
    Ok(())
}

/// The external buffer's path for `out` and buffer `bin`: `<stem>.<FNV-1a hash>.bin` beside it.
fn buffer_path(out: &Path, bin: &[u8]) -> PathBuf {
    let hash = bin.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    out.with_file_name(format!("{stem}.{hash:016x}.bin"))
}

/// Removes `<stem>.<16 hex digits>.bin` files beside `out` other than `keep`: the buffers of
/// earlier exports to `out`, which only the file just replaced used.
fn remove_old_buffers(out: &Path, keep: &Path) {
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if is_content_named_buffer(out, name) && Some(std::ffi::OsStr::new(name)) != keep.file_name() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether `name` is a buffer that an export to `out` names by its content: `<stem>.<16 hex>.bin`.
fn is_content_named_buffer(out: &Path, name: &str) -> bool {
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    name.strip_prefix(&stem)
        .and_then(|n| n.strip_prefix('.'))
        .and_then(|n| n.strip_suffix(".bin"))
        .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Builds the exported file(s) for `out` in memory; the error is the problem without the path.
pub fn export_bytes(
    model: &Model,
    source: &SourceDocument,
    options: &ExportOptions,
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

/// Visits every value at `path` (`"*"` matches every array element or object member).
fn visit<'a>(value: &'a Value, path: &[&str], f: &mut dyn FnMut(&'a Value)) {
    let Some((head, rest)) = path.split_first() else {
        f(value);
        return;
    };
    match (*head, value) {
        ("*", Value::Array(items)) => items.iter().for_each(|v| visit(v, rest, f)),
        ("*", Value::Object(members)) => members.values().for_each(|v| visit(v, rest, f)),
        (key, Value::Object(members)) => {
            if let Some(v) = members.get(key) {
                visit(v, rest, f);
            }
        }
        _ => {}
    }
}

/// [`visit`] with mutable access.
fn visit_mut(value: &mut Value, path: &[&str], f: &mut dyn FnMut(&mut Value)) {
    let Some((head, rest)) = path.split_first() else {
        f(value);
        return;
    };
    match (*head, value) {
        ("*", Value::Array(items)) => items.iter_mut().for_each(|v| visit_mut(v, rest, f)),
        ("*", Value::Object(members)) => members.values_mut().for_each(|v| visit_mut(v, rest, f)),
        (key, Value::Object(members)) => {
            if let Some(v) = members.get_mut(key) {
                visit_mut(v, rest, f);
            }
        }
        _ => {}
    }
}

/// Every index found at the given reference paths.
fn referenced(json: &Value, refs: &[&[&str]]) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for path in refs {
        visit(json, path, &mut |v| {
            if let Some(i) = index(Some(v)) {
                out.insert(i);
            }
        });
    }
    out
}

/// An index, size or offset from the JSON (u64 in glTF; `usize` is 64 bits wide here, see
/// `io::accessor`).
fn index(v: Option<&Value>) -> Option<usize> {
    v.and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok())
}

/// The end of `count` items of `size` bytes from `start`, when it fits in 64 bits.
fn span(start: usize, count: usize, size: usize) -> Option<usize> {
    count.checked_mul(size)?.checked_add(start)
}

fn overflow(what: String) -> String {
    format!("{what}: sparse data size overflows 64 bits")
}

fn array_len(json: &Value, key: &str) -> usize {
    json.get(key).and_then(Value::as_array).map_or(0, Vec::len)
}

/// Appends `item` to the top-level array `key` (created when missing) and returns its index.
fn push(json: &mut Value, key: &str, item: Value) -> usize {
    let Some(root) = json.as_object_mut() else {
        return 0;
    };
    let entry = root.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    if !entry.is_array() {
        *entry = Value::Array(Vec::new());
    }
    match entry.as_array_mut() {
        Some(items) => {
            items.push(item);
            items.len() - 1
        }
        None => 0,
    }
}

fn component_size(component_type: u64) -> Option<usize> {
    match component_type {
        BYTE | UNSIGNED_BYTE => Some(1),
        SHORT | UNSIGNED_SHORT => Some(2),
        UNSIGNED_INT | FLOAT => Some(4),
        _ => None,
    }
}

/// Bytes of one element (matrix columns padded to 4 bytes) and its component count.
fn element_size(kind: &str, component_type: u64) -> Option<usize> {
    let c = component_size(component_type)?;
    let (rows, cols) = match kind {
        "SCALAR" => (1, 1),
        "VEC2" => (2, 1),
        "VEC3" => (3, 1),
        "VEC4" => (4, 1),
        "MAT2" => (2, 2),
        "MAT3" => (3, 3),
        "MAT4" => (4, 4),
        _ => return None,
    };
    Some(if cols > 1 { (rows * c).next_multiple_of(4) * cols } else { rows * c })
}

/// Weights of one vertex, pivot first then by weight (largest first), trimmed and normalised.
fn vertex_weights(inf: &Influences, table: &JointSetTable, v: usize, max: usize) -> (Vec<(u16, f64)>, bool) {
    let mut pairs: Vec<(u16, f64)> =
        ordered_influences(inf, table, v).into_iter().filter(|p| p.1 > 0.0).map(|(j, w)| (j, f64::from(w))).collect();
    let trimmed = pairs.len() > max;
    pairs.truncate(max);
    let sum: f64 = pairs.iter().map(|p| p.1).sum();
    if sum > 0.0 {
        for p in &mut pairs {
            p.1 /= sum;
        }
    }
    (pairs, trimmed)
}

/// f32 weights whose f32 sum, taken in the validator's order (component 0 of every set, then
/// component 1, ...), is 1 as closely as f32 allows; the largest weight (slot 0) absorbs the error.
#[must_use]
pub fn float_weights(weights: &[f64], sets: usize) -> Vec<f32> {
    let mut out: Vec<f32> = weights.iter().map(|&w| w as f32).collect();
    out.resize(sets * 4, 0.0);
    if weights.is_empty() {
        return out;
    }
    for _ in 0..4 {
        let mut sum = 0f32;
        for c in 0..4 {
            for s in 0..sets {
                if out[s * 4 + c] != 0.0 {
                    sum += out[s * 4 + c];
                }
            }
        }
        if sum == 1.0 {
            break;
        }
        let fixed = (f64::from(out[0]) + (1.0 - f64::from(sum))) as f32;
        if fixed == out[0] || fixed <= 0.0 {
            break;
        }
        out[0] = fixed;
    }
    out
}

/// Quantises normalised weights to integers summing to exactly `scale` (largest remainder).
#[must_use]
pub fn quantized_weights(weights: &[f64], scale: u32) -> Vec<u32> {
    if weights.is_empty() {
        return Vec::new();
    }
    let scaled: Vec<f64> = weights.iter().map(|&w| w * f64::from(scale)).collect();
    let mut q: Vec<u32> = scaled.iter().map(|&x| x.floor() as u32).collect();
    let total: u32 = q.iter().sum();
    let mut order: Vec<usize> = (0..q.len()).collect();
    order.sort_by(|&a, &b| (scaled[b] - scaled[b].floor()).total_cmp(&(scaled[a] - scaled[a].floor())).then(a.cmp(&b)));
    for &i in order.iter().cycle().take(scale.saturating_sub(total) as usize) {
        q[i] += 1;
    }
    q
}

/// JOINTS_n / WEIGHTS_n data of one primitive, `sets` of 4 slots per vertex.
struct EncodedWeights {
    sets: usize,
    joints: Vec<Vec<u8>>,
    weights: Vec<Vec<u8>>,
    trimmed: usize,
    empty: usize,
}

fn encode_weights(
    inf: &Influences,
    table: &JointSetTable,
    max: usize,
    format: WeightsFormat,
    joints_u8: bool,
) -> EncodedWeights {
    let n = inf.len();
    let mut per_vertex = Vec::with_capacity(n);
    let (mut trimmed, mut empty, mut most) = (0, 0, 1);
    for v in 0..n {
        let (pairs, cut) = vertex_weights(inf, table, v, max);
        trimmed += usize::from(cut);
        empty += usize::from(pairs.is_empty());
        most = most.max(pairs.len());
        per_vertex.push(pairs);
    }
    let sets = most.div_ceil(4);
    let jsize = if joints_u8 { 1 } else { 2 };
    let wsize = match format {
        WeightsFormat::Float => 4,
        WeightsFormat::U16 => 2,
        WeightsFormat::U8 => 1,
    };
    let mut joints = vec![Vec::with_capacity(n * 4 * jsize); sets];
    let mut weights = vec![Vec::with_capacity(n * 4 * wsize); sets];
    for pairs in &per_vertex {
        let ws: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        // (joint, weight bytes) per slot; a zero weight gets joint 0.
        let mut slots: Vec<(u16, [u8; 4])> = Vec::with_capacity(sets * 4);
        match format {
            WeightsFormat::Float => {
                for (k, w) in float_weights(&ws, sets).into_iter().enumerate() {
                    let j = if w > 0.0 { pairs[k].0 } else { 0 };
                    slots.push((j, w.to_le_bytes()));
                }
            }
            WeightsFormat::U16 | WeightsFormat::U8 => {
                let scale = if format == WeightsFormat::U16 { 65535 } else { 255 };
                let mut q = quantized_weights(&ws, scale);
                q.resize(sets * 4, 0);
                for (k, w) in q.into_iter().enumerate() {
                    let j = if w > 0 { pairs[k].0 } else { 0 };
                    let b = (w as u16).to_le_bytes();
                    slots.push((j, [b[0], b[1], 0, 0]));
                }
            }
        }
        for (k, (j, w)) in slots.into_iter().enumerate() {
            let s = k / 4;
            if joints_u8 {
                joints[s].push(j as u8);
            } else {
                joints[s].extend_from_slice(&j.to_le_bytes());
            }
            weights[s].extend_from_slice(&w[..wsize]);
        }
    }
    EncodedWeights { sets, joints, weights, trimmed, empty }
}

/// Whether two primitives' influences are identical vertex by vertex.
fn same_influences(a: &Influences, ta: &JointSetTable, b: &Influences, tb: &JointSetTable) -> bool {
    a.len() == b.len()
        && (0..a.len())
            .all(|v| a.vertex(v, ta).map(|(j, w)| (j, w.to_bits())).eq(b.vertex(v, tb).map(|(j, w)| (j, w.to_bits()))))
}

fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// An accessor's use of a buffer view: (accessor, offset field: 0 its own, 1 sparse indices,
/// 2 sparse values, first byte, end byte).
type ViewUser = (usize, u8, usize, usize);

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

    /// Rewrites the JOINTS/WEIGHTS of every skinned primitive whose influences changed.
    fn write_weights(&mut self, model: &Model) -> Result<(), String> {
        let original = self.original;
        let force = self.options.weights_format.is_some();
        let format = self.options.weights_format.unwrap_or(WeightsFormat::Float);
        let mut done = BTreeSet::new();
        for inst in &model.instances {
            if !done.insert(inst.mesh) {
                continue;
            }
            let (skin, orig_skin) = (&model.skins[inst.skin], &original.skins[inst.skin]);
            let prims = &model.meshes[inst.mesh].primitives;
            let mesh = self.node_mesh(inst.node)?;
            let mut repaired = 0;
            let changed: Vec<usize> = (0..prims.len())
                .filter(|&p| match (&prims[p].influences, &original.meshes[inst.mesh].primitives[p].influences) {
                    (None, _) => false,
                    (Some(_), None) => true,
                    (Some(a), Some(b)) => {
                        let failing = if self.options.keep_weights {
                            0
                        } else {
                            failing_vertices(
                                &self.source.json,
                                &self.source.buffers,
                                mesh,
                                p,
                                self.options.max_influences,
                            )
                        };
                        repaired += failing;
                        force || failing > 0 || !same_influences(a, &skin.sets, b, &orig_skin.sets)
                    }
                })
                .collect();
            self.report.repaired_vertices += repaired;
            if changed.is_empty() {
                continue;
            }
            self.check_primitive_count(mesh, prims.len())?;
            let nodes: Vec<usize> = model.instances.iter().filter(|i| i.mesh == inst.mesh).map(|i| i.node).collect();
            let mesh = self.own_mesh(mesh, &nodes)?;
            for p in changed {
                let Some(inf) = &prims[p].influences else { continue };
                let attrs_joints = {
                    let prim = self.primitive_mut(mesh, p)?;
                    index(prim.get("attributes").and_then(|a| a.get("JOINTS_0")))
                };
                let joints_u8 =
                    skin.joints.len() <= 256 && self.accessor_component_type(attrs_joints) == Some(UNSIGNED_BYTE);
                let enc = encode_weights(inf, &skin.sets, self.options.max_influences, format, joints_u8);
                self.report.trimmed_vertices += enc.trimmed;
                self.report.empty_vertices += enc.empty;
                let mut new_attrs = Vec::new();
                let (wtype, normalized) = match format {
                    WeightsFormat::Float => (FLOAT, false),
                    WeightsFormat::U16 => (UNSIGNED_SHORT, true),
                    WeightsFormat::U8 => (UNSIGNED_BYTE, true),
                };
                for (s, (j, w)) in enc.joints.into_iter().zip(enc.weights).enumerate() {
                    let ja = json!({"componentType": if joints_u8 { UNSIGNED_BYTE } else { UNSIGNED_SHORT },
                        "count": inf.len(), "type": "VEC4"});
                    let mut wa = json!({"componentType": wtype, "count": inf.len(), "type": "VEC4"});
                    if normalized {
                        wa["normalized"] = json!(true);
                    }
                    let (Value::Object(ja), Value::Object(wa)) = (ja, wa) else { continue };
                    new_attrs.push((format!("JOINTS_{s}"), self.add_accessor(j, ja)));
                    new_attrs.push((format!("WEIGHTS_{s}"), self.add_accessor(w, wa)));
                }
                debug_assert_eq!(new_attrs.len(), enc.sets * 2);
                let prim = self.primitive_mut(mesh, p)?;
                let attrs = prim
                    .get_mut("attributes")
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| format!("mesh {mesh} primitive {p} has no attributes"))?;
                attrs.retain(|k, _| !k.starts_with("JOINTS_") && !k.starts_with("WEIGHTS_"));
                for (k, a) in new_attrs {
                    attrs.insert(k, json!(a));
                }
                self.report.rewritten_primitives += 1;
            }
        }
        Ok(())
    }

    /// Bakes the pose into every skinned instance of the default scene (see the module docs).
    fn bake(&mut self, model: &Model, bake: &Bake) -> Result<(), String> {
        let mut deformer = Deformer::new();
        let mut deformed = Vec::new();
        deformer.deform_all(model, &bake.pose, bake.method, &mut deformed);
        let world = deformer.model_from_node().to_vec();
        for (&node, o) in &bake.pose.overrides {
            if o.is_empty() || node >= model.nodes.len() {
                continue;
            }
            let local = bake.pose.local_matrix(&model.nodes, node);
            let rest = model.nodes.nodes[node].rest;
            // Written as JSON numbers and read back as f32: each must stay finite in f32.
            let finite = |v: &[f64]| v.iter().all(|&x| (x as f32).is_finite());
            let pose_finite = match rest {
                NodeTransform::Matrix(_) => finite(&local.to_cols_array()),
                NodeTransform::Trs(_) => {
                    o.translation.is_none_or(|t| finite(&t.to_array()))
                        && o.rotation.is_none_or(|r| finite(&r.normalize().to_array()))
                        && o.scale.is_none_or(|s| finite(&s.to_array()))
                }
            };
            if !pose_finite {
                return Err(format!(
                    "node {}: the pose's transform is not finite in 32-bit floats; nothing was written",
                    model.nodes.key(node)
                ));
            }
            let entry = self.node_mut(node)?;
            match rest {
                NodeTransform::Matrix(_) => {
                    entry.insert("matrix".into(), json!(local.to_cols_array()));
                }
                NodeTransform::Trs(_) => {
                    if let Some(t) = o.translation {
                        entry.insert("translation".into(), json!(t.to_array()));
                    }
                    if let Some(r) = o.rotation {
                        let r = r.normalize();
                        entry.insert("rotation".into(), json!([r.x, r.y, r.z, r.w]));
                    }
                    if let Some(s) = o.scale {
                        entry.insert("scale".into(), json!(s.to_array()));
                    }
                }
            }
        }
        for (i, inst) in model.instances.iter().enumerate() {
            let key = model.nodes.key(inst.node);
            let w = world.get(inst.node).copied().ok_or_else(|| format!("node {key} is outside the node tree"))?;
            if !w.determinant().is_normal() {
                return Err(format!("node {key} has a degenerate transform in this pose; its mesh cannot be baked"));
            }
            let local_from_model = w.inverse();
            let normal_matrix = DMat3::from_mat4(w).transpose();
            let prims = &model.meshes[inst.mesh].primitives;
            let mesh = self.node_mesh(inst.node)?;
            self.check_primitive_count(mesh, prims.len())?;
            let mesh = self.own_mesh(mesh, &[inst.node])?;
            for (p, out) in deformed[i].iter().enumerate() {
                let positions: Vec<Vec3> =
                    out.positions.iter().map(|v| local_from_model.transform_point3(v.as_dvec3()).as_vec3()).collect();
                if let Some(v) = positions.iter().position(|p| !p.is_finite()) {
                    return Err(format!(
                        "node {key} mesh primitive {p}: vertex {v} is not finite in this pose (an extreme joint \
                         scale or matrix?); nothing was written"
                    ));
                }
                let (lo, hi) = positions
                    .iter()
                    .fold((Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)), |(lo, hi), v| {
                        (lo.min(*v), hi.max(*v))
                    });
                let mut pos_acc = json!({"componentType": FLOAT, "count": positions.len(), "type": "VEC3"});
                if !positions.is_empty() {
                    pos_acc["min"] = json!(lo.to_array());
                    pos_acc["max"] = json!(hi.to_array());
                }
                let Value::Object(pos_acc) = pos_acc else { continue };
                let pos = self.add_accessor(f32_bytes(positions.iter().flat_map(|v| v.to_array())), pos_acc);
                let has_normal = {
                    let prim = self.primitive_mut(mesh, p)?;
                    prim.get("attributes").and_then(|a| a.get("NORMAL")).is_some()
                };
                let nrm = if has_normal && !out.normals.is_empty() {
                    let normals =
                        out.normals.iter().map(|n| (normal_matrix * n.as_dvec3()).normalize_or_zero().as_vec3());
                    let acc = json!({"componentType": FLOAT, "count": out.normals.len(), "type": "VEC3"});
                    let Value::Object(acc) = acc else { continue };
                    Some(self.add_accessor(f32_bytes(normals.flat_map(|v| v.to_array())), acc))
                } else {
                    None
                };
                let prim = self.primitive_mut(mesh, p)?;
                let attrs = prim
                    .get_mut("attributes")
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| format!("mesh {mesh} primitive {p} has no attributes"))?;
                attrs.retain(|k, _| !k.starts_with("JOINTS_") && !k.starts_with("WEIGHTS_") && k != "TANGENT");
                attrs.insert("POSITION".into(), json!(pos));
                if let Some(n) = nrm {
                    attrs.insert("NORMAL".into(), json!(n));
                }
            }
            self.node_mut(inst.node)?.shift_remove("skin");
            self.report.baked_nodes += 1;
        }
        Ok(())
    }

    /// Images stored as relative files next to the source are embedded when the output goes to
    /// another directory (their paths would not resolve from there).
    fn embed_external_images(&mut self, out: &Path) -> Result<(), String> {
        let src_dir = self.source.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let out_dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let same_dir = match (src_dir.canonicalize(), out_dir.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if same_dir {
            return Ok(());
        }
        for i in 0..array_len(&self.json, "images") {
            let Some(uri) = self.json["images"][i].get("uri").and_then(Value::as_str).map(str::to_owned) else {
                continue;
            };
            if uri.starts_with("data:") {
                continue;
            }
            let file = src_dir.join(percent_decode(&uri));
            let ext = file.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
            let mime = match ext.as_str() {
                "png" => "image/png",
                "jpg" | "jpeg" => "image/jpeg",
                "webp" => "image/webp",
                "ktx2" => "image/ktx2",
                _ => return Err(format!("image {i} ({uri}) is of an unknown type and cannot be embedded")),
            };
            let data = super::read_input(&file, super::input_file::IMAGE_CAP)
                .map_err(|e| format!("image {i}: {} {e}", file.display()))?;
            let view = push(&mut self.json, "bufferViews", json!({"buffer": 0, "byteLength": data.len()}));
            self.new_views.insert(view, data);
            if let Some(image) = self.json["images"][i].as_object_mut() {
                image.shift_remove("uri");
                image.insert("bufferView".into(), json!(view));
                image.insert("mimeType".into(), json!(mime));
            }
        }
        Ok(())
    }

    /// Removes `key` objects that were referenced in the source and are not any more; returns the
    /// old-to-new index map.
    fn remove_dead(&mut self, key: &str, refs: &[&[&str]], before: &BTreeSet<usize>) -> Option<Vec<Option<usize>>> {
        let now = referenced(&self.json, refs);
        let dead: BTreeSet<usize> = before.difference(&now).copied().collect();
        let len = array_len(&self.json, key);
        if dead.is_empty() || len == 0 {
            return None;
        }
        let mut map = vec![None; len];
        let mut next = 0;
        for (i, slot) in map.iter_mut().enumerate() {
            if !dead.contains(&i) {
                *slot = Some(next);
                next += 1;
            }
        }
        if let Some(items) = self.json.get_mut(key).and_then(Value::as_array_mut) {
            let kept: Vec<Value> = std::mem::take(items)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !dead.contains(i))
                .map(|(_, v)| v)
                .collect();
            *items = kept;
        }
        if array_len(&self.json, key) == 0 {
            if let Some(root) = self.json.as_object_mut() {
                root.shift_remove(key);
            }
        }
        for path in refs {
            visit_mut(&mut self.json, path, &mut |v| {
                if let Some(Some(new)) = index(Some(v)).and_then(|i| map.get(i)) {
                    *v = json!(*new);
                }
            });
        }
        Some(map)
    }

    /// Drops meshes, skins, accessors and buffer views that only the replaced data used.
    fn collect_garbage(&mut self) {
        if !self.report.compacted {
            return;
        }
        let before = self.meshes_before.clone();
        self.remove_dead("meshes", MESH_REFS, &before);
        let before = self.skins_before.clone();
        self.remove_dead("skins", SKIN_REFS, &before);
        // Views of accessors about to go are compacted later.
        let now = referenced(&self.json, ACCESSOR_REFS);
        for dead in self.accessors_before.difference(&now) {
            if let Some(acc) = self.json.get("accessors").and_then(|a| a.get(*dead)) {
                for path in
                    [&["bufferView"][..], &["sparse", "indices", "bufferView"], &["sparse", "values", "bufferView"]]
                {
                    visit(acc, path, &mut |v| {
                        if let Some(i) = index(Some(v)) {
                            self.touched_views.insert(i);
                        }
                    });
                }
            }
        }
        let before = self.accessors_before.clone();
        self.remove_dead("accessors", ACCESSOR_REFS, &before);
        let before = self.views_before.clone();
        if let Some(map) = self.remove_dead("bufferViews", VIEW_REFS, &before) {
            let remap = |i: usize| map.get(i).copied().flatten();
            self.new_views =
                std::mem::take(&mut self.new_views).into_iter().filter_map(|(i, d)| remap(i).map(|n| (n, d))).collect();
            self.touched_views = self.touched_views.iter().filter_map(|&i| remap(i)).collect();
        }
    }

    /// Byte ranges that accessors use in view `view` (`view_len` bytes), as (accessor, which
    /// offset field, start, end); `None` when something else (an image, an unknown extension) uses
    /// the whole view. A strided accessor keeps `count × stride` bytes where the view has them:
    /// loaders such as three.js read whole strides, not `(count − 1) × stride + element`.
    fn view_users(&self, view: usize, stride: Option<usize>, view_len: usize) -> Result<Option<Vec<ViewUser>>, String> {
        let images = self.json.get("images").and_then(Value::as_array).into_iter().flatten();
        if images.into_iter().any(|im| index(im.get("bufferView")) == Some(view)) {
            return Ok(None);
        }
        let mut users = Vec::new();
        for (a, acc) in self.json.get("accessors").and_then(Value::as_array).into_iter().flatten().enumerate() {
            self.accessor_users(a, acc, view, stride, view_len, &mut users)?;
        }
        Ok(Some(users))
    }

    /// The byte ranges accessor `a` (`acc`) uses in view `view`, pushed to `users` (see
    /// [`Exporter::view_users`]); an error when its count, offset or stride overflow.
    fn accessor_users(
        &self,
        a: usize,
        acc: &Value,
        view: usize,
        stride: Option<usize>,
        view_len: usize,
        users: &mut Vec<ViewUser>,
    ) -> Result<(), String> {
        let what = || format!("accessor {a}");
        let ctype = acc.get("componentType").and_then(Value::as_u64).unwrap_or(0);
        let count = index(acc.get("count")).unwrap_or(0);
        let kind = acc.get("type").and_then(Value::as_str).unwrap_or("");
        if index(acc.get("bufferView")) == Some(view) && count > 0 {
            let elem =
                element_size(kind, ctype).ok_or_else(|| format!("{}: unknown type or component type", what()))?;
            let start = index(acc.get("byteOffset")).unwrap_or(0);
            let needed = stride
                .unwrap_or(elem)
                .checked_mul(count - 1)
                .and_then(|n| n.checked_add(start))
                .and_then(|n| n.checked_add(elem))
                .ok_or_else(|| format!("{}: {count} elements from byte {start} overflow 64 bits", what()))?;
            // An interleaved view keeps count × stride bytes (loaders read that much), within
            // the view.
            let end = match stride.and_then(|s| s.checked_mul(count)).and_then(|n| n.checked_add(start)) {
                Some(full) if stride.is_some() => full.min(view_len).max(needed),
                _ => needed,
            };
            users.push((a, 0, start, end));
        }
        if let Some(sparse) = acc.get("sparse") {
            let n = index(sparse.get("count")).unwrap_or(0);
            let idx = sparse.get("indices");
            if index(idx.and_then(|i| i.get("bufferView"))) == Some(view) {
                let size = idx
                    .and_then(|i| i.get("componentType"))
                    .and_then(Value::as_u64)
                    .and_then(component_size)
                    .unwrap_or(4);
                let start = index(idx.and_then(|i| i.get("byteOffset"))).unwrap_or(0);
                users.push((a, 1, start, span(start, n, size).ok_or_else(|| overflow(what()))?));
            }
            let vals = sparse.get("values");
            if index(vals.and_then(|i| i.get("bufferView"))) == Some(view) {
                let elem = element_size(kind, ctype).ok_or_else(|| format!("{}: unknown type", what()))?;
                let start = index(vals.and_then(|i| i.get("byteOffset"))).unwrap_or(0);
                users.push((a, 2, start, span(start, n, elem).ok_or_else(|| overflow(what()))?));
            }
        }
        Ok(())
    }

    /// Keeps only the bytes of `data` (view `view`) that accessors use, moving their offsets.
    fn compact_view(&mut self, view: usize, data: Vec<u8>, stride: Option<usize>) -> Result<Vec<u8>, String> {
        let Some(mut users) = self.view_users(view, stride, data.len())? else {
            return Ok(data);
        };
        users.sort_by_key(|u| (u.2, u.3));
        let mut out = Vec::with_capacity(data.len());
        let mut moves: Vec<(usize, u8, usize)> = Vec::new();
        let mut i = 0;
        while i < users.len() {
            let (start, mut end) = (users[i].2, users[i].3);
            let mut j = i + 1;
            while j < users.len() && users[j].2 < end {
                end = end.max(users[j].3);
                j += 1;
            }
            let bytes = data.get(start..end).ok_or_else(|| {
                format!("buffer view {view}: accessor data ({start}..{end}) runs past its {} bytes", data.len())
            })?;
            while out.len() % 4 != start % 4 {
                out.push(0);
            }
            let new_start = out.len();
            out.extend_from_slice(bytes);
            for u in &users[i..j] {
                moves.push((u.0, u.1, new_start + (u.2 - start)));
            }
            i = j;
        }
        for (a, field, offset) in moves {
            let Some(acc) = self.json.get_mut("accessors").and_then(|x| x.get_mut(a)) else { continue };
            let target = match field {
                0 => Some(acc),
                1 => acc.get_mut("sparse").and_then(|s| s.get_mut("indices")),
                _ => acc.get_mut("sparse").and_then(|s| s.get_mut("values")),
            };
            if let Some(Value::Object(m)) = target {
                m.insert("byteOffset".into(), json!(offset));
            }
        }
        Ok(out)
    }

    /// Copies every buffer view into one new buffer (keeping each view's alignment modulo 4) and
    /// points the views at it; returns the buffer.
    fn repack(&mut self) -> Result<Vec<u8>, String> {
        let mut bin = Vec::new();
        for i in 0..array_len(&self.json, "bufferViews") {
            let view = &self.json["bufferViews"][i];
            let stride = index(view.get("byteStride"));
            let (data, phase) = match self.new_views.remove(&i) {
                Some(d) => (d, 0),
                None => {
                    let b = index(view.get("buffer")).unwrap_or(0);
                    let offset = index(view.get("byteOffset")).unwrap_or(0);
                    let len = index(view.get("byteLength")).unwrap_or(0);
                    let buffer =
                        self.source.buffers.get(b).ok_or_else(|| format!("buffer view {i}: buffer {b} is missing"))?;
                    let data = buffer
                        .get(offset..offset.saturating_add(len))
                        .ok_or_else(|| format!("buffer view {i} runs past the end of buffer {b}"))?;
                    (data.to_vec(), offset % 4)
                }
            };
            let data = if self.touched_views.contains(&i) { self.compact_view(i, data, stride)? } else { data };
            while bin.len() % 4 != phase {
                bin.push(0);
            }
            if let Some(v) = self.json["bufferViews"][i].as_object_mut() {
                v.insert("buffer".into(), json!(0));
                v.insert("byteOffset".into(), json!(bin.len()));
                v.insert("byteLength".into(), json!(data.len()));
            }
            bin.extend_from_slice(&data);
        }
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        Ok(bin)
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

/// Percent-encodes a file name for a relative URI.
fn uri_encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_weights_sum_exactly() {
        for ws in [vec![1.0], vec![0.5, 0.5], vec![1.0 / 3.0; 3], vec![0.7, 0.2, 0.1], vec![0.999, 0.0005, 0.0005]] {
            for scale in [255, 65535] {
                let q = quantized_weights(&ws, scale);
                assert_eq!(q.iter().sum::<u32>(), scale, "{ws:?}");
                for (w, q) in ws.iter().zip(&q) {
                    assert!((f64::from(*q) - w * f64::from(scale)).abs() <= 1.0);
                }
            }
        }
    }

    #[test]
    fn float_weights_sum_to_one_in_f32() {
        let ws = [0.1, 0.2, 0.3, 0.15, 0.1, 0.05, 0.1];
        let f = float_weights(&ws, 2);
        let mut sum = 0f32;
        for c in 0..4 {
            for s in 0..2 {
                sum += f[s * 4 + c];
            }
        }
        assert!((sum - 1.0).abs() <= 2e-7, "{sum}");
        assert_eq!(f[7], 0.0);
        assert!(float_weights(&[], 1).iter().all(|&w| w == 0.0));
    }

    #[test]
    fn encoded_weights_are_sorted_trimmed_and_padded_with_joint_zero() {
        use crate::model::influences::VertexInfluences;
        let mut table = JointSetTable::new(8);
        let five = VertexInfluences { pairs: vec![(9, 0.1), (3, 0.4), (5, 0.2), (7, 0.2), (2, 0.1)] };
        let one = VertexInfluences { pairs: vec![(4, 1.0)] };
        let inf = Influences::from_vertices(&[five, one], &mut table).unwrap();
        // Four slots: the 0.1 on joint 9 goes (joint 2 wins the tie), the rest is renormalised.
        let enc = encode_weights(&inf, &table, 4, WeightsFormat::U8, true);
        assert_eq!((enc.sets, enc.trimmed, enc.empty), (1, 1, 0));
        assert_eq!(enc.joints[0], vec![3, 5, 7, 2, 4, 0, 0, 0]);
        assert_eq!(enc.weights[0].iter().map(|&w| u32::from(w)).sum::<u32>(), 2 * 255);
        assert_eq!(&enc.weights[0][4..], &[255, 0, 0, 0]);
        // Eight slots: two sets, u16 joints, float weights.
        let enc = encode_weights(&inf, &table, 8, WeightsFormat::Float, false);
        assert_eq!((enc.sets, enc.trimmed), (2, 0));
        let joints: Vec<u16> = enc.joints[1].chunks(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
        assert_eq!(joints, vec![9, 0, 0, 0, 0, 0, 0, 0]);
        let w: Vec<f32> = enc.weights[0].chunks(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        assert_eq!(&w[4..], &[1.0, 0.0, 0.0, 0.0]);
    }

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
