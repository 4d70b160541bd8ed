//! Checks on the raw bytes and JSON before the `gltf` crate parses them: the GLB container, index
//! members that must fit a u32, integers beyond what the crate reads without truncating, and its
//! validation errors as one line.

use std::path::Path;

const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

pub(super) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Checks the container before handing it to the parser, for precise messages.
pub(super) fn check_container(bytes: &[u8], path: &Path) -> Result<(), String> {
    if bytes.is_empty() {
        return Err("the file is empty (not a glTF file)".into());
    }
    let is_glb_name = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if bytes.len() < GLB_MAGIC.len() && GLB_MAGIC.starts_with(bytes) {
        return Err(format!("truncated GLB header ({} bytes, expected 12)", bytes.len()));
    }
    if !bytes.starts_with(GLB_MAGIC) {
        let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
        if first == Some(b'{') && !is_glb_name {
            return Ok(());
        }
        let magic: String = bytes.iter().take(4).map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
        return Err(if is_glb_name {
            format!("not a GLB file: wrong magic {magic:?} (expected \"glTF\")")
        } else {
            "not a glTF file (neither GLB nor glTF JSON)".into()
        });
    }
    let (Some(version), Some(length)) = (u32_at(bytes, 4), u32_at(bytes, 8)) else {
        return Err(format!("truncated GLB header ({} bytes, expected 12)", bytes.len()));
    };
    if version != 2 {
        return Err(format!("GLB version {version} is not supported (expected 2)"));
    }
    if length as usize != bytes.len() {
        return Err(format!(
            "GLB header length {length} does not match the file size {} (truncated or corrupt)",
            bytes.len()
        ));
    }
    let mut at = 12;
    let mut index = 0;
    while at < bytes.len() {
        let (Some(len), Some(kind)) = (u32_at(bytes, at), u32_at(bytes, at + 4)) else {
            return Err(format!("GLB chunk {index} header at byte {at} is truncated"));
        };
        let end = at + 8 + len as usize;
        if end > bytes.len() {
            return Err(format!("GLB chunk {index} ({len} bytes at byte {at}) runs past the end of the file"));
        }
        if index == 0 && kind != CHUNK_JSON {
            return Err("GLB's first chunk is not JSON".into());
        }
        if index == 1 && kind != CHUNK_BIN {
            return Err(format!("GLB's second chunk has type {kind:#x}, expected BIN"));
        }
        at = end;
        index += 1;
    }
    if index == 0 {
        return Err("GLB has no JSON chunk".into());
    }
    Ok(())
}

/// The document's JSON as a generic value (the GLB JSON chunk, or the whole `.gltf` text).
pub(super) fn raw_json(bytes: &[u8]) -> Result<serde_json::Value, String> {
    let text: &[u8] = if bytes.starts_with(GLB_MAGIC) {
        let len = u32_at(bytes, 12).ok_or("truncated GLB JSON chunk header")? as usize;
        bytes.get(20..20 + len).ok_or("GLB JSON chunk runs past the end of the file")?
    } else {
        bytes.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(bytes)
    };
    let end = text.iter().rposition(|&b| b != 0 && !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    let value: serde_json::Value =
        serde_json::from_slice(&text[..end]).map_err(|e| format!("invalid glTF JSON: {e}"))?;
    if !value.is_object() {
        return Err("the glTF JSON is not an object".into());
    }
    Ok(value)
}

/// Indices that the `gltf` crate (1.4) uses without checking: its own validation reads a primitive's
/// POSITION accessor before checking that it exists, and it never checks an animation channel's
/// target node and path (all would panic). Checked here before its validation runs.
pub(super) fn check_unvalidated_indices(root: &gltf::json::Root) -> Result<(), String> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (semantic, index) in &prim.attributes {
                if index.value() >= root.accessors.len() {
                    let name = match semantic {
                        gltf::json::validation::Checked::Valid(s) => s.to_string(),
                        gltf::json::validation::Checked::Invalid => "an attribute".to_owned(),
                    };
                    return Err(format!(
                        "mesh {m} primitive {p}: {name} refers to accessor {}, but the file has {} accessors",
                        index.value(),
                        root.accessors.len()
                    ));
                }
            }
        }
    }
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, channel) in anim.channels.iter().enumerate() {
            if channel.target.path == gltf::json::validation::Checked::Invalid {
                return Err(format!("animation {a} channel {c} has an unknown target path"));
            }
            if channel.target.node.value() >= root.nodes.len() {
                return Err(format!(
                    "animation {a} channel {c} targets node {}, but the file has {} nodes",
                    channel.target.node.value(),
                    root.nodes.len()
                ));
            }
        }
    }
    Ok(())
}

/// The `gltf` crate's error as one line: its validation problems (JSON paths) joined, at most three.
pub(super) fn validation_message(e: &gltf::Error) -> String {
    match e {
        gltf::Error::Validation(problems) => {
            let mut parts: Vec<String> = problems.iter().take(3).map(|(path, err)| format!("{path}: {err}")).collect();
            if problems.len() > 3 {
                parts.push(format!("and {} more problems", problems.len() - 3));
            }
            format!("invalid glTF: {}", parts.join("; "))
        }
        other => format!("invalid glTF: {other}"),
    }
}

/// Members that hold indices or enums. The `gltf` crate reads them as u32 with `as`, so
/// `"bufferView": 4294967296` would silently read view 0: such values must fit in a u32. (Sizes
/// and offsets are u64 and are checked where they are used.)
pub(super) const INDEX_MEMBERS: &[&str] = &[
    "bufferView",
    "buffer",
    "node",
    "mesh",
    "skin",
    "camera",
    "sampler",
    "source",
    "input",
    "output",
    "inverseBindMatrices",
    "indices",
    "material",
    "scene",
    "index",
    "skeleton",
    "texCoord",
    "children",
    "joints",
    "nodes",
    "componentType",
    "mode",
    "target",
    "magFilter",
    "minFilter",
    "wrapS",
    "wrapT",
];

/// Refuses integers beyond u32 at index and enum members (and primitive attributes and morph
/// targets); `at` is the JSON path so far. Application `extras` are not looked at.
pub(super) fn check_integer_ranges(value: &serde_json::Value, at: &mut Vec<String>) -> Result<(), String> {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.as_u64().is_some_and(|v| v > u64::from(u32::MAX)) => {
            let mut keys = at.iter().rev().filter(|k| k.parse::<usize>().is_err());
            let (last, parent) = (keys.next().map_or("", String::as_str), keys.next().map_or("", String::as_str));
            if INDEX_MEMBERS.contains(&last) || parent == "attributes" || parent == "targets" {
                return Err(format!("{}: {n} is out of range for an index (at most {})", at.join("."), u32::MAX));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push(i.to_string());
                let r = check_integer_ranges(item, at);
                at.pop();
                r?;
            }
        }
        Value::Object(members) => {
            for (key, item) in members {
                if key == "extras" {
                    continue;
                }
                at.push(key.clone());
                let r = check_integer_ranges(item, at);
                at.pop();
                r?;
            }
        }
        _ => {}
    }
    Ok(())
}
