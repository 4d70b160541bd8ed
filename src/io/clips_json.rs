//! Animation clips as JSON: the recovery file's `clips` section (the clips made or changed in
//! the editor). Every time and value is written as a JSON number that reads back to the same
//! `f64` (serde_json's `float_roundtrip`), so clips round-trip bit for bit; channels name their
//! node by its key in the model (`io::pose_file`'s joint keys).
//!
//! Morph-target weight channels go in `weights` (absent in files of versions without them):
//!
//! ```json
//! [{"name": "Action", "channels": [{"node": "elbow", "path": "rotation",
//!   "interpolation": "LINEAR", "times": [0, 1], "values": [0, 0, 0, 1, 0, 0, 0.38, 0.92]}],
//!   "weights": [{"node": "Face", "targets": 2, "interpolation": "LINEAR", "times": [0, 1],
//!   "values": [0, 0, 1, 0.5]}]}]
//! ```
//!
//! A channel whose keys differ in interpolation adds `"key_interpolation": ["STEP", ...]` (one
//! name per key) to its cubic-spline values.

use serde_json::{json, Value};

use crate::model::{Channel, ChannelPath, Clip, Interpolation, NodeTree, WeightsChannel};

fn path_name(p: ChannelPath) -> &'static str {
    match p {
        ChannelPath::Translation => "translation",
        ChannelPath::Rotation => "rotation",
        ChannelPath::Scale => "scale",
    }
}

fn interpolation_name(i: Interpolation) -> &'static str {
    match i {
        Interpolation::Step => "STEP",
        Interpolation::Linear => "LINEAR",
        Interpolation::CubicSpline => "CUBICSPLINE",
    }
}

fn interpolation_of(name: &str) -> Result<Interpolation, String> {
    match name {
        "STEP" => Ok(Interpolation::Step),
        "LINEAR" => Ok(Interpolation::Linear),
        "CUBICSPLINE" => Ok(Interpolation::CubicSpline),
        other => Err(format!("unknown interpolation {other:?}")),
    }
}

/// The clips as a JSON array.
#[must_use]
pub fn clips_to_json(clips: &[Clip], tree: &NodeTree) -> Value {
    let clip = |c: &Clip| {
        let channels: Vec<Value> = c
            .channels
            .iter()
            .map(|ch| {
                let mut v = json!({
                    "node": tree.unique_key(ch.node),
                    "path": path_name(ch.path),
                    "interpolation": interpolation_name(ch.interpolation),
                    "times": ch.times,
                    "values": ch.values,
                });
                if !ch.key_interpolation.is_empty() {
                    let names: Vec<&str> = ch.key_interpolation.iter().map(|&i| interpolation_name(i)).collect();
                    v["key_interpolation"] = json!(names);
                }
                v
            })
            .collect();
        let mut out = json!({ "name": c.name, "channels": channels });
        if !c.weights.is_empty() {
            let weights: Vec<Value> = c
                .weights
                .iter()
                .map(|ch| {
                    json!({
                        "node": tree.unique_key(ch.node),
                        "targets": ch.targets,
                        "interpolation": interpolation_name(ch.interpolation),
                        "times": ch.times,
                        "values": ch.values,
                    })
                })
                .collect();
            out["weights"] = Value::Array(weights);
        }
        out
    };
    Value::Array(clips.iter().map(clip).collect())
}

/// Reads clips written by [`clips_to_json`] against the model's nodes (one line on error).
pub fn clips_from_json(value: &Value, tree: &NodeTree) -> Result<Vec<Clip>, String> {
    let Value::Array(items) = value else { return Err("the clips must be an array".into()) };
    items.iter().enumerate().map(|(i, c)| clip_from_json(c, tree).map_err(|e| format!("clip #{i}: {e}"))).collect()
}

fn clip_from_json(value: &Value, tree: &NodeTree) -> Result<Clip, String> {
    let name = match value.get("name") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(format!("\"name\" must be a string or null, found {other}")),
    };
    let Some(Value::Array(channels)) = value.get("channels") else {
        return Err("\"channels\" must be an array".into());
    };
    let channels = channels
        .iter()
        .enumerate()
        .map(|(k, ch)| channel_from_json(ch, tree).map_err(|e| format!("channel #{k}: {e}")))
        .collect::<Result<_, _>>()?;
    let weights = match value.get("weights") {
        None => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(k, ch)| weights_from_json(ch, tree).map_err(|e| format!("weights channel #{k}: {e}")))
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("\"weights\" must be an array, found {other}")),
    };
    Ok(Clip { name, channels, weights })
}

/// A field of `v` that must be a string.
fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key).and_then(Value::as_str).ok_or_else(|| format!("\"{key}\" must be a string"))
}

/// The `times` and `values` of a channel: finite numbers, times strictly increasing.
fn times_and_values(v: &Value) -> Result<(Vec<f64>, Vec<f64>), String> {
    let numbers = |key: &str| -> Result<Vec<f64>, String> {
        let Some(Value::Array(items)) = v.get(key) else { return Err(format!("\"{key}\" must be an array")) };
        items
            .iter()
            .map(|x| {
                x.as_f64().filter(|f| f.is_finite()).ok_or_else(|| format!("\"{key}\" holds {x}, not a finite number"))
            })
            .collect()
    };
    let (times, values) = (numbers("times")?, numbers("values")?);
    if times.windows(2).any(|w| w[1] <= w[0]) {
        return Err("\"times\" must increase strictly".into());
    }
    Ok((times, values))
}

fn weights_from_json(v: &Value, tree: &NodeTree) -> Result<WeightsChannel, String> {
    let node = tree.find(text(v, "node")?).map_err(|e| e.to_string())?;
    let targets = v
        .get("targets")
        .and_then(Value::as_u64)
        .and_then(|t| usize::try_from(t).ok())
        .ok_or("\"targets\" must be a whole number")?;
    let interpolation = interpolation_of(text(v, "interpolation")?)?;
    let (times, values) = times_and_values(v)?;
    let channel = WeightsChannel { node, interpolation, times, values, targets };
    channel.check()?;
    Ok(channel)
}

fn channel_from_json(v: &Value, tree: &NodeTree) -> Result<Channel, String> {
    let node = tree.find(text(v, "node")?).map_err(|e| e.to_string())?;
    let path = match text(v, "path")? {
        "translation" => ChannelPath::Translation,
        "rotation" => ChannelPath::Rotation,
        "scale" => ChannelPath::Scale,
        other => return Err(format!("unknown path {other:?}")),
    };
    let interpolation = interpolation_of(text(v, "interpolation")?)?;
    let key_interpolation = match v.get("key_interpolation") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .ok_or_else(|| format!("\"key_interpolation\" holds {i}, not a name"))
                    .and_then(interpolation_of)
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("\"key_interpolation\" must be an array, found {other}")),
    };
    let (times, values) = times_and_values(v)?;
    // The same checks as a glTF file's channels: sampling relies on them.
    let channel = Channel { node, path, interpolation, times, values, key_interpolation };
    channel.check()?;
    Ok(channel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_clips_round_trip_bit_for_bit_and_bad_ones_are_named() {
        let model = crate::demo::demo_model().unwrap();
        let mut clips = model.clips.clone();
        clips[0].channels[0].values[1] = 0.1 + 0.2; // not a short decimal
        clips[0].name = None;
        let first = clips[0].channels[0].times[0];
        assert!(crate::rig::key_interpolation::set_interpolation(
            &mut clips[0],
            None,
            Some(first),
            Interpolation::Step
        ));
        assert!(!clips[0].channels[0].key_interpolation.is_empty(), "per-key interpolation is written too");
        clips[0].weights.push(WeightsChannel {
            node: 1,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.1 + 0.2],
            values: vec![0.0, 1.0, 0.7, 0.25],
            targets: 2,
        });
        let text = clips_to_json(&clips, &model.nodes).to_string();
        let back = clips_from_json(&serde_json::from_str(&text).unwrap(), &model.nodes).unwrap();
        assert_eq!(back, clips);
        let bad = serde_json::json!([{"name": "x", "channels": [{"node": "nope", "path": "rotation",
            "interpolation": "LINEAR", "times": [0], "values": [0, 0, 0, 1]}]}]);
        let e = clips_from_json(&bad, &model.nodes).unwrap_err();
        assert!(e.starts_with("clip #0: channel #0:") && e.contains("nope"), "{e}");
    }
}
