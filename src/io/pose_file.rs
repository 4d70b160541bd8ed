//! The contract's JSON pose file (`"format": "skinlab-pose", "version": 1`): reading with one
//! precise message per problem, and writing.

use std::path::Path;

use glam::{DQuat, DVec3};
use serde_json::{Map, Value};

use crate::model::NodeTree;
use crate::rig::{JointOverride, Pose};

/// The `format` value a pose file must carry.
pub const FORMAT: &str = "skinlab-pose";
/// The `version` value a pose file must carry.
pub const VERSION: u64 = 1;

/// A pose file that cannot be used, with the file and what is wrong in it.
#[derive(Debug, thiserror::Error)]
#[error("pose file {path}: {problem}")]
pub struct PoseFileError {
    /// The file as given.
    pub path: String,
    /// What is wrong (naming the joint key and the field where there is one).
    pub problem: String,
}

/// Reads and resolves a pose file against a model's nodes.
pub fn read_pose_file(path: &Path, tree: &NodeTree) -> Result<Pose, PoseFileError> {
    let err = |problem: String| PoseFileError { path: path.display().to_string(), problem };
    // At most a generous 4 KiB per node (names, TRS, whitespace) plus 1 MiB.
    let cap = (1u64 << 20) + 4096 * tree.len() as u64;
    let text = super::input_file::read_input_text(path, cap).map_err(err)?;
    parse_pose(&text, tree).map_err(err)
}

/// Parses pose-file text against a model's nodes; the error is the problem without the path.
pub fn parse_pose(text: &str, tree: &NodeTree) -> Result<Pose, String> {
    let text = quote_overflowing_numbers(text);
    let root = crate::json_header::parse_document(&text, FORMAT, VERSION, &["joints"])?;
    let joints = match root.get("joints") {
        Some(Value::Object(j)) => j,
        Some(other) => return Err(format!("\"joints\" must be an object, found {other}")),
        None => return Err("missing \"joints\" (it may be empty: {})".into()),
    };
    let mut pose = Pose::default();
    for (key, entry) in joints {
        let node = tree.find(key).map_err(|e| format!("joint {key:?}: {e}"))?;
        let over = parse_joint(entry).map_err(|e| format!("joint {key:?}: {e}"))?;
        pose.overrides.insert(node, over);
    }
    Ok(pose)
}

fn parse_joint(entry: &Value) -> Result<JointOverride, String> {
    let Value::Object(fields) = entry else {
        return Err(format!("must be an object, found {entry}"));
    };
    let mut out = JointOverride::default();
    for (field, value) in fields {
        match field.as_str() {
            "rotation" => {
                let [x, y, z, w] = numbers::<4>(field, value)?;
                // Scaled by its largest component first, so that a huge or tiny finite
                // quaternion normalises to its rotation instead of overflowing or underflowing.
                let largest = [x, y, z, w].iter().fold(0.0f64, |m, v| m.max(v.abs()));
                if largest == 0.0 {
                    return Err("\"rotation\" is a zero quaternion".into());
                }
                let q = DQuat::from_xyzw(x, y, z, w);
                // The plain normalisation where the squared length neither overflows nor
                // underflows, so that a file's unit quaternion reads back bit for bit.
                out.rotation =
                    Some(if q.length_squared().is_normal() { q.normalize() } else { (q / largest).normalize() });
            }
            "translation" => out.translation = Some(DVec3::from_array(numbers::<3>(field, value)?)),
            "scale" => out.scale = Some(DVec3::from_array(numbers::<3>(field, value)?)),
            other => return Err(format!("unknown field {other:?} (expected rotation, translation, scale)")),
        }
    }
    Ok(out)
}

/// JSON number literals too large for f64 (`1e999`) made into strings, so that the error names the
/// joint and the field that holds them instead of only a line and column (serde_json rejects them
/// while parsing).
fn quote_overflowing_numbers(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let (mut i, mut copied, mut in_string) = (0, 0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if b == b'-' || b.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                i += 1;
            }
            let literal = &text[start..i];
            if literal.parse::<f64>().is_ok_and(|v| v.is_infinite()) {
                let o = out.get_or_insert_with(String::new);
                o.push_str(&text[copied..start]);
                o.push('"');
                o.push_str(literal);
                o.push('"');
                copied = i;
            }
            continue;
        }
        i += 1;
    }
    match out {
        Some(mut o) => {
            o.push_str(&text[copied..]);
            std::borrow::Cow::Owned(o)
        }
        None => std::borrow::Cow::Borrowed(text),
    }
}

fn numbers<const N: usize>(field: &str, value: &Value) -> Result<[f64; N], String> {
    let shape = || format!("{field:?} must be an array of {N} finite numbers, found {value}");
    let Value::Array(items) = value else {
        return Err(shape());
    };
    if items.len() != N {
        return Err(format!("{field:?} has {} numbers, expected {N}", items.len()));
    }
    let mut out = [0.0; N];
    for (slot, item) in out.iter_mut().zip(items) {
        if let Some(literal) = item.as_str().filter(|t| t.parse::<f64>().is_ok_and(|v| !v.is_finite())) {
            return Err(format!("{field:?} holds {literal}, which is not a finite number"));
        }
        *slot = item.as_f64().filter(|v| v.is_finite()).ok_or_else(shape)?;
    }
    Ok(out)
}

/// The pose as pose-file JSON (keys are node names, or `#N` where a name is missing or shared).
#[must_use]
pub fn pose_to_json(pose: &Pose, tree: &NodeTree) -> String {
    let mut joints = Map::new();
    for (&node, o) in &pose.overrides {
        if o.is_empty() {
            continue;
        }
        let mut entry = Map::new();
        if let Some(r) = o.rotation {
            entry.insert("rotation".into(), serde_json::json!([r.x, r.y, r.z, r.w]));
        }
        if let Some(t) = o.translation {
            entry.insert("translation".into(), serde_json::json!(t.to_array()));
        }
        if let Some(s) = o.scale {
            entry.insert("scale".into(), serde_json::json!(s.to_array()));
        }
        joints.insert(tree.unique_key(node), Value::Object(entry));
    }
    let root = serde_json::json!({ "format": FORMAT, "version": VERSION, "joints": joints });
    serde_json::to_string_pretty(&root).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeTransform, Trs};

    fn tree() -> NodeTree {
        let node = |name: Option<&str>| Node {
            name: name.map(str::to_owned),
            parent: None,
            children: vec![],
            rest: NodeTransform::Trs(Trs::default()),
            mesh: None,
            skin: None,
            ..Node::default()
        };
        NodeTree::new(vec![node(Some("Arm")), node(Some("Dup")), node(Some("Dup")), node(None)], vec![0, 1, 2, 3])
    }

    #[test]
    fn round_trip() {
        let text = r##"{"format":"skinlab-pose","version":1,"joints":{"Arm":{"rotation":[0,0,0,2]},"#3":{"translation":[1,2,3]}}}"##;
        let pose = parse_pose(text, &tree()).unwrap();
        assert_eq!(pose.overrides[&0].rotation, Some(DQuat::IDENTITY));
        assert_eq!(pose.overrides[&3].translation, Some(DVec3::new(1.0, 2.0, 3.0)));
        let again = parse_pose(&pose_to_json(&pose, &tree()), &tree()).unwrap();
        assert_eq!(again, pose);
    }

    #[test]
    fn overflowing_numbers_are_quoted_outside_strings_only() {
        let text = r#"{"a": [1e999, -2E+400, 1.5e3, "3e999", "x\"1e999"], "b": 0}"#;
        let quoted = quote_overflowing_numbers(text);
        assert_eq!(quoted, r#"{"a": ["1e999", "-2E+400", 1.5e3, "3e999", "x\"1e999"], "b": 0}"#);
        assert!(matches!(quote_overflowing_numbers("[1, 2]"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn problems_name_the_joint_and_field() {
        let t = tree();
        let cases = [
            (r#"{"format":"skinlab-pose","version":1,"joints":{"Leg":{}}}"#, "joint \"Leg\": no node"),
            (r#"{"format":"skinlab-pose","version":1,"joints":{"Dup":{}}}"#, "#1, #2"),
            (
                r#"{"format":"skinlab-pose","version":1,"joints":{"Arm":{"rotaton":[0,0,0,1]}}}"#,
                "unknown field \"rotaton\"",
            ),
            (r#"{"format":"skinlab-pose","version":1,"joints":{"Arm":{"rotation":[0,0,0,0]}}}"#, "zero quaternion"),
            (
                r#"{"format":"skinlab-pose","version":1,"joints":{"Arm":{"rotation":[0,0,1]}}}"#,
                "has 3 numbers, expected 4",
            ),
            (
                r#"{"format":"skinlab-pose","version":1,"joints":{"Arm":{"scale":[1,"x",1]}}}"#,
                "\"scale\" must be an array of 3 finite numbers",
            ),
            (r#"{"format":"skinlab-pose","version":2,"joints":{}}"#, "\"version\" is 2"),
            (r#"{"format":"skinlab-pose","version":1}"#, "missing \"joints\""),
            (r#"{"format":"skinlab-pose","version":1,"joints":{},"extra":1}"#, "unknown top-level field \"extra\""),
            (r#"{"format":"skinlab-pose","version":1,"joints":{"#, "not valid JSON"),
            (
                r#"{"format":"skinlab-pose","version":1,"joints":{"Arm":{"translation":[0,-1e999,0]}}}"#,
                "joint \"Arm\": \"translation\" holds -1e999, which is not a finite number",
            ),
            (
                r#"{"format":"skinlab-pose","version":1,"joints":{"Arm":{"scale":[1,"1e999",1]}}}"#,
                "joint \"Arm\": \"scale\" holds 1e999",
            ),
        ];
        for (text, needle) in cases {
            let e = parse_pose(text, &t).unwrap_err();
            assert!(e.contains(needle), "{e:?} should contain {needle:?}");
        }
    }
}
