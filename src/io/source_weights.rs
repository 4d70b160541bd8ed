//! Which vertices of a source primitive carry skin weights that the exporter must not copy as they
//! are, although the contract's import repairs them (the model holds them normalised and
//! merged): sums that are not 1 or one joint listed twice with a non-zero weight (the Khronos
//! validator rejects both), and more non-zero influences than the export's limit (a loader that
//! reads the first set only, or the limit the user asked for, would see other weights). The
//! exporter rewrites those primitives from the model: the largest influences kept, normalised.
//!
//! The validator's rule (2.0.0-dev.3.10, `ACCESSOR_WEIGHTS_NON_NORMALIZED` and
//! `ACCESSOR_JOINTS_INDEX_DUPLICATE`): per vertex, components are visited set by set within each
//! of the four components; every non-zero weight of a joint not yet seen is added in f32 and
//! widens the tolerance by 2e-7; a vertex fails when |sum − 1| exceeds the tolerance.

use serde_json::Value;

const UNSIGNED_BYTE: u64 = 5121;
const UNSIGNED_SHORT: u64 = 5123;
const UNSIGNED_INT: u64 = 5125;
const FLOAT: u64 = 5126;

/// One VEC4 accessor's values, element by element (`None` when it cannot be read plainly: sparse,
/// out of range, or of an unexpected type; the importer has already refused broken data).
fn read_vec4(json: &Value, buffers: &[Vec<u8>], accessor: usize) -> Option<Vec<[f64; 4]>> {
    let acc = json.get("accessors")?.get(accessor)?;
    if acc.get("sparse").is_some() || acc.get("type")?.as_str()? != "VEC4" {
        return None;
    }
    let count = usize::try_from(acc.get("count")?.as_u64()?).ok()?;
    let ctype = acc.get("componentType")?.as_u64()?;
    let normalized = acc.get("normalized").and_then(Value::as_bool).unwrap_or(false);
    let size = match ctype {
        UNSIGNED_BYTE => 1,
        UNSIGNED_SHORT => 2,
        UNSIGNED_INT | FLOAT => 4,
        _ => return None,
    };
    let view = json.get("bufferViews")?.get(usize::try_from(acc.get("bufferView")?.as_u64()?).ok()?)?;
    let buffer = buffers.get(usize::try_from(view.get("buffer")?.as_u64()?).ok()?)?;
    let offset = |v: &Value| v.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
    let start = offset(view) + offset(acc);
    let stride = view.get("byteStride").and_then(Value::as_u64).map_or(4 * size, |s| s as usize);
    let mut out = Vec::with_capacity(count);
    for e in 0..count {
        let at = start + e * stride;
        let bytes = buffer.get(at..at + 4 * size)?;
        let mut v = [0.0; 4];
        for (c, x) in v.iter_mut().enumerate() {
            let b = &bytes[c * size..(c + 1) * size];
            *x = match ctype {
                UNSIGNED_BYTE if normalized => f64::from(b[0]) / 255.0,
                UNSIGNED_BYTE => f64::from(b[0]),
                UNSIGNED_SHORT if normalized => f64::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0,
                UNSIGNED_SHORT => f64::from(u16::from_le_bytes([b[0], b[1]])),
                UNSIGNED_INT => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                _ => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            };
        }
        out.push(v);
    }
    Some(out)
}

/// Whether one vertex's slots (`sets` of joints and weights) fail the validator's rule.
#[must_use]
pub fn fails_validator(joints: &[[f64; 4]], weights: &[[f64; 4]]) -> bool {
    check_vertex(joints, weights).0
}

/// The validator's verdict on one vertex's slots, and its number of distinct joints with a
/// non-zero weight.
fn check_vertex(joints: &[[f64; 4]], weights: &[[f64; 4]]) -> (bool, usize) {
    let (mut sum, mut tolerance) = (0f32, 0f64);
    let mut seen: Vec<u64> = Vec::with_capacity(16);
    let mut duplicate = false;
    for c in 0..4 {
        for (j, w) in joints.iter().zip(weights) {
            if w[c] == 0.0 {
                continue;
            }
            let joint = j[c] as u64;
            if seen.contains(&joint) {
                duplicate = true;
                continue;
            }
            seen.push(joint);
            sum += w[c] as f32;
            tolerance += 2e-7;
        }
    }
    (duplicate || (f64::from(sum) - 1.0).abs() > tolerance, seen.len())
}

/// The number of vertices of source mesh `mesh` primitive `prim` whose weights fail the
/// validator or have more than `limit` non-zero influences (0 when the primitive has none or
/// they cannot be read plainly).
#[must_use]
pub fn failing_vertices(json: &Value, buffers: &[Vec<u8>], mesh: usize, prim: usize, limit: usize) -> usize {
    let Some(attrs) = json.pointer(&format!("/meshes/{mesh}/primitives/{prim}/attributes")) else { return 0 };
    let mut sets = Vec::new();
    for s in 0.. {
        let (Some(j), Some(w)) = (
            attrs.get(format!("JOINTS_{s}")).and_then(Value::as_u64),
            attrs.get(format!("WEIGHTS_{s}")).and_then(Value::as_u64),
        ) else {
            break;
        };
        let (Some(j), Some(w)) = (read_vec4(json, buffers, j as usize), read_vec4(json, buffers, w as usize)) else {
            return 0;
        };
        sets.push((j, w));
    }
    let n = sets.iter().map(|(j, w)| j.len().min(w.len())).min().unwrap_or(0);
    let mut js = Vec::with_capacity(sets.len());
    let mut ws = Vec::with_capacity(sets.len());
    (0..n)
        .filter(|&v| {
            js.clear();
            ws.clear();
            for (j, w) in &sets {
                js.push(j[v]);
                ws.push(w[v]);
            }
            let (fails, influences) = check_vertex(&js, &ws);
            fails || influences > limit
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validators_rule() {
        let j = [[0.0, 1.0, 2.0, 3.0]];
        assert!(!fails_validator(&j, &[[0.5, 0.25, 0.25, 0.0]]));
        assert!(fails_validator(&j, &[[0.5, 0.25, 0.2, 0.0]]), "sum 0.95");
        assert!(fails_validator(&j, &[[1.0, 1.0, 0.0, 0.0]]), "sum 2");
        assert!(!fails_validator(&j, &[[1.0 + 1e-7, 0.0, 0.0, 0.0]]), "within one weight's tolerance");
        assert!(fails_validator(&[[0.0, 0.0, 2.0, 3.0]], &[[0.5, 0.5, 0.0, 0.0]]), "joint 0 twice");
        let two = [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]];
        assert!(!fails_validator(&two, &[[0.5, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0]]));
        let six = [[0.25, 0.25, 0.125, 0.125], [0.125, 0.125, 0.0, 0.0]];
        assert_eq!(check_vertex(&two, &six), (false, 6), "six influences, normalised");
        assert_eq!(check_vertex(&[[0.0, 0.0, 2.0, 3.0]], &[[0.5, 0.5, 0.0, 0.0]]), (true, 1));
    }
}
