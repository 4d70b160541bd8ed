//! A helper joint's driver (`model::driver`) in its node's `extras`:
//! `"extras": {"skinlab_driver": {"inputs": [{"node": NAME, "rest_rotation": [x, y, z, w]}, ...],
//! "rest_translation": [x, y, z], "pivot": [x, y, z], "features": [...names], "matrix": [6 × 9·inputs numbers, row-major]}}`.
//! Numbers are written as f64 and read back bit for bit; other extras keys are left alone; a
//! malformed driver is a load error, never silently dropped.

use glam::{DQuat, DVec3};
use serde_json::{json, Map, Value};

use super::node_extras::{extras_mut, remove_keys};
use crate::model::driver::DriverInput;
use crate::model::driver::{FEATURES, OUTPUTS};
use crate::model::HelperDriver;

/// The extras key of a helper's driver.
pub const DRIVER_KEY: &str = "skinlab_driver";
/// The names of the features, in the matrix's column order (written for engine scripts).
pub const FEATURE_NAMES: [&str; FEATURES] = ["dx", "dy", "dz", "dx*dx", "dy*dy", "dz*dz", "dx*dy", "dy*dz", "dz*dx"];

fn numbers(map: &Map<String, Value>, key: &str, len: usize) -> Result<Vec<f64>, String> {
    let nums: Option<Vec<f64>> =
        map.get(key).and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_f64).collect());
    match nums {
        Some(n)
            if n.len() == len
                && map[key].as_array().is_some_and(|a| a.len() == len)
                && n.iter().all(|x| x.is_finite()) =>
        {
            Ok(n)
        }
        _ => Err(format!("extras.{DRIVER_KEY}.{key} is not {len} finite numbers")),
    }
}

/// Reads a driver from a node's extras JSON text (`None` without the key).
pub fn read_driver(extras: Option<&str>) -> Result<Option<HelperDriver>, String> {
    let Some(text) = extras else { return Ok(None) };
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else { return Ok(None) };
    let Some(value) = map.get(DRIVER_KEY) else { return Ok(None) };
    let Value::Object(d) = value else { return Err(format!("extras.{DRIVER_KEY} is not an object")) };
    let inputs = d
        .get("inputs")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
        .ok_or_else(|| format!("extras.{DRIVER_KEY}.inputs is not a list of inputs"))?
        .iter()
        .map(|input| {
            let Value::Object(i) = input else { return Err(format!("extras.{DRIVER_KEY}.inputs holds a non-object")) };
            let node = i
                .get("node")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("extras.{DRIVER_KEY}.inputs: an input has no node name"))?;
            let r = numbers(i, "rest_rotation", 4)?;
            let rest_rotation = DQuat::from_xyzw(r[0], r[1], r[2], r[3]);
            if rest_rotation.length_squared() == 0.0 {
                return Err(format!("extras.{DRIVER_KEY}.inputs: {node:?} has a zero rest rotation"));
            }
            Ok(DriverInput { node: node.to_owned(), rest_rotation })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let t = numbers(d, "rest_translation", 3)?;
    let p = numbers(d, "pivot", 3)?;
    let matrix = numbers(d, "matrix", OUTPUTS * FEATURES * inputs.len())?;
    Ok(Some(HelperDriver {
        inputs,
        rest_translation: DVec3::new(t[0], t[1], t[2]),
        pivot: DVec3::new(p[0], p[1], p[2]),
        matrix,
    }))
}

/// Writes (or, for `None`, removes) the driver in a node object's `extras`, keeping its other
/// extras.
pub fn write_driver(node: &mut Map<String, Value>, driver: Option<&HelperDriver>) {
    let Some(d) = driver else {
        remove_keys(node, &[DRIVER_KEY]);
        return;
    };
    let Some(extras) = extras_mut(node) else { return };
    extras.insert(
        DRIVER_KEY.into(),
        json!({
            "inputs": d.inputs.iter().map(|i| json!({"node": i.node, "rest_rotation": i.rest_rotation.to_array()})).collect::<Vec<_>>(),
            "rest_translation": d.rest_translation.to_array(),
            "pivot": d.pivot.to_array(),
            "features": FEATURE_NAMES,
            "matrix": d.matrix,
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_driver_round_trips_bit_for_bit_and_garbage_is_refused() {
        let driver = HelperDriver {
            inputs: vec![
                DriverInput { node: "arm".into(), rest_rotation: DQuat::from_rotation_y(0.1).normalize() },
                DriverInput { node: "#3".into(), rest_rotation: DQuat::IDENTITY },
            ],
            rest_translation: DVec3::new(0.1, 1.0 / 3.0, -2e-7),
            pivot: DVec3::new(0.25, -1e-3, 7.0),
            matrix: (0..2 * OUTPUTS * FEATURES).map(|k| (k as f64).sqrt() / 7.0 - 0.3).collect(),
        };
        let mut node = Map::new();
        node.insert("extras".into(), json!({"other": 1}));
        write_driver(&mut node, Some(&driver));
        let text = serde_json::to_string(&node["extras"]).unwrap();
        assert_eq!(read_driver(Some(&text)).unwrap(), Some(driver));
        assert!(text.contains("\"other\":1"));
        write_driver(&mut node, None);
        assert_eq!(node["extras"], json!({"other": 1}));
        for bad in [
            r#"{"skinlab_driver": 3}"#,
            r#"{"skinlab_driver": {"inputs": [{"node": "a", "rest_rotation": [0,0,0,1]}], "rest_translation": [0,0], "pivot": [0,0,0], "matrix": []}}"#,
            r#"{"skinlab_driver": {"inputs": [], "rest_translation": [0,0,0], "pivot": [0,0,0], "matrix": []}}"#,
            r#"{"skinlab_driver": {"inputs": [{"node": "a", "rest_rotation": [0,0,0,0]}], "rest_translation": [0,0,0], "pivot": [0,0,0], "matrix": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}}"#,
        ] {
            assert!(read_driver(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(read_driver(Some(r#"{"bone_roll": 1}"#)).unwrap(), None);
    }
}
