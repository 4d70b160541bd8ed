//! Bone tails and rolls in node `extras`: glTF joints are points, so the bone shape an artist
//! gave a joint (Blender's tail and roll) travels as `"extras": {"bone_tail": [x, y, z],
//! "bone_roll": r}` on the joint's node (tail in the node's own frame, roll in radians). Other
//! extras keys are left alone; a malformed value is a load error, never silently dropped.

use glam::DVec3;
use serde_json::{json, Map, Value};

use super::node_extras::{extras_mut, remove_keys};

/// The extras key of a bone's tail (three numbers, the node's frame).
pub const TAIL_KEY: &str = "bone_tail";
/// The extras key of a bone's roll (one number, radians).
pub const ROLL_KEY: &str = "bone_roll";

/// Reads the tail and roll from a node's extras JSON text (absent keys give `None`).
pub fn read_bone(extras: Option<&str>) -> Result<(Option<DVec3>, Option<f64>), String> {
    let Some(text) = extras else {
        return Ok((None, None));
    };
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return Ok((None, None));
    };
    let tail = match map.get(TAIL_KEY) {
        None => None,
        Some(v) => {
            let nums: Option<Vec<f64>> = v.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect());
            match nums {
                Some(n)
                    if n.len() == 3
                        && v.as_array().is_some_and(|a| a.len() == 3)
                        && n.iter().all(|x| x.is_finite()) =>
                {
                    Some(DVec3::new(n[0], n[1], n[2]))
                }
                _ => return Err(format!("extras.{TAIL_KEY} is not three finite numbers")),
            }
        }
    };
    let roll = match map.get(ROLL_KEY) {
        None => None,
        Some(v) => match v.as_f64() {
            Some(r) if r.is_finite() => Some(r),
            _ => return Err(format!("extras.{ROLL_KEY} is not a finite number")),
        },
    };
    Ok((tail, roll))
}

/// Writes (or removes, for `None`) the tail and roll into a node object's `extras`, keeping its
/// other extras; an `extras` that is not an object is replaced only when there is a bone to write.
pub fn write_bone(node: &mut Map<String, Value>, tail: Option<DVec3>, roll: Option<f64>) {
    if tail.is_none() && roll.is_none() {
        remove_keys(node, &[TAIL_KEY, ROLL_KEY]);
        return;
    }
    let Some(extras) = extras_mut(node) else { return };
    match tail {
        Some(t) => extras.insert(TAIL_KEY.into(), json!(t.to_array())),
        None => extras.shift_remove(TAIL_KEY),
    };
    match roll {
        Some(r) => extras.insert(ROLL_KEY.into(), json!(r)),
        None => extras.shift_remove(ROLL_KEY),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bone_extras_round_trip_and_reject_garbage() {
        let mut node = Map::new();
        node.insert("extras".into(), json!({"keep": 1}));
        write_bone(&mut node, Some(DVec3::new(0.0, 0.25, 0.0)), Some(-0.5));
        let text = node["extras"].to_string();
        assert_eq!(read_bone(Some(&text)).unwrap(), (Some(DVec3::new(0.0, 0.25, 0.0)), Some(-0.5)));
        assert_eq!(node["extras"]["keep"], json!(1));
        write_bone(&mut node, None, None);
        assert_eq!(node["extras"], json!({"keep": 1}));
        assert!(read_bone(Some(r#"{"bone_tail": [1, "a", 2]}"#)).is_err());
        assert!(read_bone(Some(r#"{"bone_tail": [1, 2]}"#)).is_err());
        assert!(read_bone(Some(r#"{"bone_roll": "x"}"#)).is_err());
        assert_eq!(read_bone(Some("[1]")).unwrap(), (None, None));
    }
}
