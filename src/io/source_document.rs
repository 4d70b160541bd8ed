//! The source glTF document kept beside an imported model: the JSON exactly as read (every
//! extension, extra and unknown field included), the loaded buffers and a copy of the model as
//! imported. The exporter rewrites only what the editor changed and carries everything else over.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::model::Model;

/// What `io::load_document` keeps of the file a model came from (opaque outside `io`).
#[derive(Clone, Debug)]
pub struct SourceDocument {
    pub(crate) path: PathBuf,
    pub(crate) json: Value,
    pub(crate) buffers: Vec<Vec<u8>>,
    pub(crate) original: Model,
    files: Vec<PathBuf>,
    warnings: Vec<String>,
}

impl SourceDocument {
    /// Wraps a parsed document; `original` is the model exactly as imported from it.
    pub(crate) fn new(path: &Path, json: Value, buffers: Vec<Vec<u8>>, original: Model) -> Self {
        let files =
            referenced_files(path, &json).iter().map(|f| f.canonicalize().unwrap_or_else(|_| f.clone())).collect();
        Self { path: path.to_path_buf(), json, buffers, original, files, warnings: Vec::new() }
    }

    /// The document with the import's `warnings` (what it dropped or approximated).
    pub(crate) fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }

    /// What the import dropped or approximated, one line each (empty for most files).
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The source file and the external files it uses (buffers, images), the source first.
    #[must_use]
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The file the document was read from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The model as it was imported (the base that edits are compared with).
    #[must_use]
    pub fn original(&self) -> &Model {
        &self.original
    }

    /// Whether `path` is the source file or one of the external files it uses (buffers, images).
    #[must_use]
    pub fn is_source_file(&self, path: &Path) -> bool {
        let Ok(canonical) = path.canonicalize() else {
            return false;
        };
        self.files.contains(&canonical)
    }
}

/// The glTF file at `path` and the external files its `json` names (buffers and images that are
/// not data URIs), resolved beside it; the file itself first.
pub(crate) fn referenced_files(path: &Path, json: &Value) -> Vec<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut files = vec![path.to_path_buf()];
    for kind in ["buffers", "images"] {
        for item in json.get(kind).and_then(Value::as_array).into_iter().flatten() {
            if let Some(uri) = item.get("uri").and_then(Value::as_str) {
                if !uri.starts_with("data:") {
                    files.push(dir.join(percent_decode(uri)));
                }
            }
        }
    }
    files
}

/// Decodes `%XX` escapes of a relative URI.
pub(crate) fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 3 <= bytes.len() {
            if let Some(v) = uri.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
