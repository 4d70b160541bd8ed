//! Walking and editing the glTF JSON: index references by path, checked byte spans, element sizes.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{BYTE, FLOAT, SHORT, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT};

/// Visits every value at `path` (`"*"` matches every array element or object member).
pub(super) fn visit<'a>(value: &'a Value, path: &[&str], f: &mut dyn FnMut(&'a Value)) {
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
pub(super) fn visit_mut(value: &mut Value, path: &[&str], f: &mut dyn FnMut(&mut Value)) {
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
pub(super) fn referenced(json: &Value, refs: &[&[&str]]) -> BTreeSet<usize> {
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
pub(super) fn index(v: Option<&Value>) -> Option<usize> {
    v.and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok())
}

/// The end of `count` items of `size` bytes from `start`, when it fits in 64 bits.
pub(super) fn span(start: usize, count: usize, size: usize) -> Option<usize> {
    count.checked_mul(size)?.checked_add(start)
}

pub(super) fn overflow(what: String) -> String {
    format!("{what}: sparse data size overflows 64 bits")
}

pub(super) fn array_len(json: &Value, key: &str) -> usize {
    json.get(key).and_then(Value::as_array).map_or(0, Vec::len)
}

/// Appends `item` to the top-level array `key` (created when missing) and returns its index.
pub(super) fn push(json: &mut Value, key: &str, item: Value) -> usize {
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

pub(super) fn component_size(component_type: u64) -> Option<usize> {
    match component_type {
        BYTE | UNSIGNED_BYTE => Some(1),
        SHORT | UNSIGNED_SHORT => Some(2),
        UNSIGNED_INT | FLOAT => Some(4),
        _ => None,
    }
}

/// Bytes of one element (matrix columns padded to 4 bytes) and its component count.
pub(super) fn element_size(kind: &str, component_type: u64) -> Option<usize> {
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
