//! The files beside an export: the external buffer written as an atomic pair with the main file,
//! its content-derived name, and external images embedded into the document.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::json_refs::{array_len, push};
use super::ExportedFiles;
use super::Exporter;
use crate::io::atomic_write::{remove_stale_temporaries_of, StagedFile};
use crate::io::source_document::percent_decode;

/// Writes the main file and its external buffer so that at every instant `out` is either the
/// complete old file (with the buffer it references) or the complete new one: both are written to
/// temporaries first; the buffer's name carries a hash of its content, so renaming it into place
/// never touches the buffer the old file uses; then the main file is renamed over `out`; last,
/// buffers of earlier exports to `out` (`<stem>.<16 hex digits>.bin`) that nothing uses any more
/// are removed. On error every temporary is removed and the old pair is left as it was.
pub(super) fn write_pair(out: &Path, files: &ExportedFiles) -> Result<(), (PathBuf, std::io::Error)> {
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
pub(super) fn buffer_path(out: &Path, bin: &[u8]) -> PathBuf {
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

/// Percent-encodes a file name for a relative URI.
pub(super) fn uri_encode(name: &str) -> String {
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

impl Exporter<'_> {
    /// Images stored as relative files next to the source are embedded when the output goes to
    /// another directory (their paths would not resolve from there).
    pub(super) fn embed_external_images(&mut self, out: &Path) -> Result<(), String> {
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
            let data = crate::io::read_input(&file, crate::io::input_file::IMAGE_CAP)
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
}
