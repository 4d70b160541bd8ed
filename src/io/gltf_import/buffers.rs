//! The document's buffers: the GLB BIN chunk, data URIs and external files (capped reads).

use std::path::Path;

use base64::Engine as _;

use crate::io::source_document::percent_decode;

/// Reads the first `length` bytes of an external buffer file (all of it when shorter). Only regular
/// files are read, and never more than `length` bytes, so a URI naming a device or a huge file
/// cannot exhaust memory.
pub(super) fn read_external(file: &Path, length: usize) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let fail = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => format!("missing external buffer file {}", file.display()),
        _ => format!("cannot read external buffer file {}: {e}", file.display()),
    };
    let meta = std::fs::metadata(file).map_err(fail)?;
    if !meta.is_file() {
        return Err(format!("external buffer {} is not a regular file", file.display()));
    }
    let mut data = Vec::new();
    std::fs::File::open(file).and_then(|f| f.take(length as u64).read_to_end(&mut data)).map_err(fail)?;
    Ok(data)
}

pub(super) fn load_buffers(doc: &gltf::Document, blob: Option<Vec<u8>>, path: &Path) -> Result<Vec<Vec<u8>>, String> {
    let base = path.parent().unwrap_or(Path::new("."));
    let mut blob = blob;
    let mut out = Vec::new();
    for buffer in doc.buffers() {
        let i = buffer.index();
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => blob
                .take()
                .ok_or_else(|| format!("buffer {i} refers to the GLB binary chunk, but the file has none"))?,
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let (head, payload) = uri.split_once(',').ok_or_else(|| format!("buffer {i}: malformed data URI"))?;
                if !head.ends_with(";base64") {
                    return Err(format!("buffer {i}: data URI is not base64"));
                }
                base64::engine::general_purpose::STANDARD
                    .decode(payload)
                    .map_err(|e| format!("buffer {i}: data URI is not valid base64 ({e})"))?
            }
            gltf::buffer::Source::Uri(uri) => read_external(&base.join(percent_decode(uri)), buffer.length())
                .map_err(|e| format!("buffer {i}: {e}"))?,
        };
        if data.len() < buffer.length() {
            return Err(format!("buffer {i} has {} bytes, but its byteLength is {}", data.len(), buffer.length()));
        }
        out.push(data);
    }
    Ok(out)
}
