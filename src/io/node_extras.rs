//! A glTF node object's `extras`, edited key by key for the writers of skinlab's own extras
//! (`bone_extras`, `driver_extras`): other keys are kept, and an `extras` left empty is removed.

use serde_json::{json, Map, Value};

/// Removes `keys` from a node object's `extras`, and the `extras` itself once it is empty.
pub fn remove_keys(node: &mut Map<String, Value>, keys: &[&str]) {
    if let Some(Value::Object(extras)) = node.get_mut("extras") {
        for key in keys {
            extras.shift_remove(*key);
        }
        if extras.is_empty() {
            node.shift_remove("extras");
        }
    }
}

/// The node object's `extras` to write into, made an empty object first when it is absent or
/// not an object (always `Some`).
pub fn extras_mut(node: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    if !node.get("extras").is_some_and(Value::is_object) {
        node.insert("extras".into(), json!({}));
    }
    node.get_mut("extras").and_then(Value::as_object_mut)
}
