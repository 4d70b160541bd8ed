//! A model's pose library: named poses with thumbnails in one JSON file beside the model,
//! `MODEL.poses.json` with the model's whole file name (`arm.glb` → `arm.glb.poses.json`, so
//! `arm.glb` and `arm.gltf` in one folder keep separate libraries).
//!
//! ```json
//! {
//!   "format": "skinlab-pose-library",
//!   "version": 1,
//!   "poses": [
//!     {"name": "Fist", "pose": {..a pose file of the joints it holds..}, "thumbnail": "iVBORw0KGgo…"}
//!   ]
//! }
//! ```
//! Each entry's `pose` is the contract's pose file (`io::pose_file`) listing exactly the joints
//! the entry holds (a joint at rest is listed with its rest rotation, so applying the entry puts
//! it back to rest); `thumbnail` is a PNG in standard base64, so the library is one file that is
//! replaced atomically. Names are unique and non-empty.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{Map, Value};

use super::atomic_write;
use super::pose_file;
use crate::model::NodeTree;
use crate::rig::{JointOverride, Pose};

/// The `format` value of a pose library.
pub const FORMAT: &str = "skinlab-pose-library";
/// The `version` value of a pose library.
pub const VERSION: u64 = 1;
/// Thumbnails' width and height in pixels.
pub const THUMBNAIL_PX: u32 = 96;
/// The largest library file read (thumbnails are a few KiB each).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// The largest thumbnail side decoded, in pixels (skinlab writes [`THUMBNAIL_PX`]): larger ones
/// are shown as broken, never decoded (a 20000×1 picture exceeds a GPU's texture size, three
/// 16000² ones take gigabytes).
pub const MAX_THUMBNAIL_SIDE: u32 = 1024;

/// A decoded thumbnail: RGBA8 pixels, row by row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThumbnailPixels {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` RGBA8 pixels.
    pub rgba: Vec<u8>,
}

/// Decodes a thumbnail PNG, refusing a side above [`MAX_THUMBNAIL_SIDE`] from its header before
/// any pixel is decoded; the error is one line ("20000×1 pixels, more than ...", a broken PNG).
pub fn decode_thumbnail(png: &[u8]) -> Result<ThumbnailPixels, String> {
    let reader = || image::ImageReader::with_format(std::io::Cursor::new(png), image::ImageFormat::Png);
    let (width, height) = reader().into_dimensions().map_err(|e| format!("broken PNG: {e}"))?;
    if width > MAX_THUMBNAIL_SIDE || height > MAX_THUMBNAIL_SIDE {
        return Err(format!(
            "{width}×{height} pixels, more than the {MAX_THUMBNAIL_SIDE}×{MAX_THUMBNAIL_SIDE} a thumbnail may have"
        ));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_THUMBNAIL_SIDE);
    limits.max_image_height = Some(MAX_THUMBNAIL_SIDE);
    limits.max_alloc = Some(64 << 20);
    let mut reader = reader();
    reader.limits(limits);
    let image = reader.decode().map_err(|e| format!("broken PNG: {e}"))?.to_rgba8();
    Ok(ThumbnailPixels { width: image.width(), height: image.height(), rgba: image.into_raw() })
}

/// One named pose.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryPose {
    /// Its name (unique in the library).
    pub name: String,
    /// The joints it holds and their overrides.
    pub pose: Pose,
    /// A PNG picture of the model in the pose.
    pub thumbnail_png: Vec<u8>,
}

/// A model's pose library.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoseLibrary {
    /// The poses in the order shown.
    pub poses: Vec<LibraryPose>,
}

/// The library file of the model at `model`: its file name with `.poses.json` appended.
#[must_use]
pub fn library_path(model: &Path) -> PathBuf {
    let mut name = model.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(".poses.json");
    model.with_file_name(name)
}

/// The entry pose holding `nodes` of `pose`: each node's override, or its rest rotation when
/// the pose leaves it at rest.
#[must_use]
pub fn held_pose(tree: &NodeTree, pose: &Pose, nodes: &[usize]) -> Pose {
    let mut out = Pose::rest();
    for &n in nodes.iter().filter(|&&n| n < tree.len()) {
        let o = pose.overrides.get(&n).copied().filter(|o| !o.is_empty()).unwrap_or_else(|| JointOverride {
            rotation: Some(tree.nodes[n].rest.to_trs().rotation),
            ..JointOverride::default()
        });
        out.overrides.insert(n, o);
    }
    out
}

impl PoseLibrary {
    /// The index of the pose called `name`.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<usize> {
        self.poses.iter().position(|p| p.name == name)
    }

    /// The library's JSON text (joints by their keys in `tree`).
    #[must_use]
    pub fn to_json(&self, tree: &NodeTree) -> String {
        let poses: Vec<Value> = self
            .poses
            .iter()
            .map(|p| {
                let pose: Value = serde_json::from_str(&pose_file::pose_to_json(&p.pose, tree)).unwrap_or(Value::Null);
                let mut entry = Map::new();
                entry.insert("name".into(), p.name.clone().into());
                entry.insert("pose".into(), pose);
                entry.insert(
                    "thumbnail".into(),
                    base64::engine::general_purpose::STANDARD.encode(&p.thumbnail_png).into(),
                );
                Value::Object(entry)
            })
            .collect();
        let root = serde_json::json!({ "format": FORMAT, "version": VERSION, "poses": poses });
        serde_json::to_string_pretty(&root).unwrap_or_default() + "\n"
    }

    /// Parses a library's text against the model's nodes (the problem without the path).
    pub fn parse(text: &str, tree: &NodeTree) -> Result<Self, String> {
        let root = crate::json_header::parse_document(text, FORMAT, VERSION, &["poses"])?;
        let Some(Value::Array(entries)) = root.get("poses") else {
            return Err("\"poses\" must be an array".into());
        };
        let mut out = Self::default();
        for (i, entry) in entries.iter().enumerate() {
            let at = |problem: String| format!("pose #{i}: {problem}");
            let Value::Object(fields) = entry else { return Err(at(format!("must be an object, found {entry}"))) };
            if let Some(k) = fields.keys().find(|k| !matches!(k.as_str(), "name" | "pose" | "thumbnail")) {
                return Err(at(format!("unknown field {k:?} (expected name, pose, thumbnail)")));
            }
            let name = match fields.get("name") {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                _ => return Err(at("\"name\" must be a non-empty string".into())),
            };
            let at = |problem: String| format!("pose {name:?}: {problem}");
            if out.find(&name).is_some() {
                return Err(at("the name is used twice".into()));
            }
            let pose = match fields.get("pose") {
                Some(v @ Value::Object(_)) => pose_file::parse_pose(&v.to_string(), tree).map_err(&at)?,
                _ => return Err(at("\"pose\" must be a pose file object".into())),
            };
            let thumbnail_png = match fields.get("thumbnail") {
                Some(Value::String(s)) => base64::engine::general_purpose::STANDARD
                    .decode(s)
                    .map_err(|e| at(format!("\"thumbnail\" is not base64: {e}")))?,
                _ => return Err(at("\"thumbnail\" must be a base64 string".into())),
            };
            if !thumbnail_png.starts_with(b"\x89PNG\r\n\x1a\n") {
                return Err(at("\"thumbnail\" is not a PNG picture".into()));
            }
            out.poses.push(LibraryPose { name, pose, thumbnail_png });
        }
        Ok(out)
    }

    /// Reads the library at `path`: `Ok(None)` when there is no such file; on error one line
    /// naming the file.
    pub fn read(path: &Path, tree: &NodeTree) -> Result<Option<Self>, String> {
        if !path.exists() {
            return Ok(None);
        }
        let text =
            super::input_file::read_input_text(path, MAX_FILE_BYTES).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&text, tree).map(Some).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Writes the library to `path` atomically (temporary file, then rename).
    pub fn write(&self, path: &Path, tree: &NodeTree) -> Result<(), String> {
        let text = self.to_json(tree);
        atomic_write(path, |w| w.write_all(text.as_bytes()))
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_and_broken_thumbnails_are_refused_before_decoding() {
        let png = |w: u32, h: u32| crate::thumbnail::encode_png(&vec![0u8; (w * h * 4) as usize], w, h).unwrap();
        let ok = decode_thumbnail(&png(THUMBNAIL_PX, THUMBNAIL_PX)).unwrap();
        assert_eq!(
            (ok.width, ok.height, ok.rgba.len()),
            (THUMBNAIL_PX, THUMBNAIL_PX, (THUMBNAIL_PX * THUMBNAIL_PX * 4) as usize)
        );
        let err = decode_thumbnail(&png(20_000, 1)).unwrap_err();
        assert!(err.contains("20000×1 pixels"), "{err}");
        let mut broken = png(8, 8);
        broken.truncate(broken.len() / 2);
        assert!(decode_thumbnail(&broken).unwrap_err().contains("broken PNG"));
    }
}
