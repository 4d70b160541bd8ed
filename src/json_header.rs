//! The header shared by skinlab's own JSON files (pose files, weights files): the document is an
//! object with exactly the expected top-level fields, `"format"` naming the file kind and
//! `"version"` its version. Problems are returned as one line without the path.

use serde_json::{Map, Value};

/// Parses `text` as a skinlab JSON document of `format` / `version` whose top-level fields are
/// `format`, `version` and `fields`; returns the top-level object.
pub fn parse_document(text: &str, format: &str, version: u64, fields: &[&str]) -> Result<Map<String, Value>, String> {
    let root: Value = serde_json::from_str(text).map_err(|e| format!("is not valid JSON: {e}"))?;
    let Value::Object(root) = root else {
        return Err("must be a JSON object".into());
    };
    for key in root.keys() {
        if !matches!(key.as_str(), "format" | "version") && !fields.contains(&key.as_str()) {
            return Err(format!("unknown top-level field {key:?} (expected format, version, {})", fields.join(", ")));
        }
    }
    match root.get("format") {
        Some(Value::String(s)) if s == format => {}
        Some(other) => return Err(format!("\"format\" is {other}, expected \"{format}\"")),
        None => return Err(format!("missing \"format\": \"{format}\"")),
    }
    match root.get("version") {
        Some(v) if v.as_u64() == Some(version) => {}
        Some(other) => return Err(format!("\"version\" is {other}, expected {version}")),
        None => return Err(format!("missing \"version\": {version}")),
    }
    Ok(root)
}
