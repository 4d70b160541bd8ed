//! The header shared by skinlab's own JSON files (pose files, weights files): the document is an
//! object with exactly the expected top-level fields, `"format"` naming the file kind and
//! `"version"` its version. Problems are returned as one line without the path. An object that
//! names a key twice is refused at any depth (plain JSON parsing would keep the last silently).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses `text` as a skinlab JSON document of `format` / `version` whose top-level fields are
/// `format`, `version` and `fields`; returns the top-level object.
pub fn parse_document(text: &str, format: &str, version: u64, fields: &[&str]) -> Result<Map<String, Value>, String> {
    let root = parse_strict(text).map_err(|e| format!("is not valid JSON: {e}"))?;
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

/// Parses JSON text like `serde_json::from_str`, but refuses an object with a duplicate key.
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

/// A JSON value read with duplicate keys refused.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom(format!("{v} is not a finite number")))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("the key {key:?} appears twice in one object")));
            }
            let Strict(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        let err = parse_document(r#"{"format":"f","version":2,"version":1}"#, "f", 1, &[]).unwrap_err();
        assert!(err.contains("\"version\" appears twice"), "{err}");
        let err = parse_strict(r#"{"a":[{"b":1,"b":2}]}"#).unwrap_err().to_string();
        assert!(err.contains("\"b\" appears twice"), "{err}");
        let text = r#"{"a":[1,-2,3.5,"x",null,true,{"b":{}}],"c":18446744073709551615}"#;
        assert_eq!(parse_strict(text).unwrap(), serde_json::from_str::<Value>(text).unwrap());
    }
}
