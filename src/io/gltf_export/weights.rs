//! Exported weights: per-vertex ordering and trimming, float and normalised-integer encodings that
//! sum exactly, and the rewrite of a primitive's JOINTS_n/WEIGHTS_n accessors.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::json_refs::index;
use super::{Exporter, WeightsFormat, FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT};
use crate::io::source_weights::failing_vertices;
use crate::io::weights_file::ordered_influences;
use crate::model::{Influences, JointSetTable, Model, VertexOrder};

/// Weights of one vertex, pivot first then by weight (largest first), trimmed and normalised.
pub(super) fn vertex_weights(inf: &Influences, table: &JointSetTable, v: usize, max: usize) -> (Vec<(u16, f64)>, bool) {
    let mut pairs: Vec<(u16, f64)> =
        ordered_influences(inf, table, v).into_iter().filter(|p| p.1 > 0.0).map(|(j, w)| (j, f64::from(w))).collect();
    let trimmed = pairs.len() > max;
    pairs.truncate(max);
    let sum: f64 = pairs.iter().map(|p| p.1).sum();
    if sum > 0.0 {
        for p in &mut pairs {
            p.1 /= sum;
        }
    }
    (pairs, trimmed)
}

/// f32 weights whose f32 sum, taken in the validator's order (component 0 of every set, then
/// component 1, ...), is 1 as closely as f32 allows; the largest weight (slot 0) absorbs the error.
#[must_use]
pub fn float_weights(weights: &[f64], sets: usize) -> Vec<f32> {
    let mut out: Vec<f32> = weights.iter().map(|&w| w as f32).collect();
    out.resize(sets * 4, 0.0);
    if weights.is_empty() {
        return out;
    }
    for _ in 0..4 {
        let mut sum = 0f32;
        for c in 0..4 {
            for s in 0..sets {
                if out[s * 4 + c] != 0.0 {
                    sum += out[s * 4 + c];
                }
            }
        }
        if sum == 1.0 {
            break;
        }
        let fixed = (f64::from(out[0]) + (1.0 - f64::from(sum))) as f32;
        if fixed == out[0] || fixed <= 0.0 {
            break;
        }
        out[0] = fixed;
    }
    out
}

/// Quantises normalised weights to integers summing to exactly `scale` (largest remainder).
#[must_use]
pub fn quantized_weights(weights: &[f64], scale: u32) -> Vec<u32> {
    if weights.is_empty() {
        return Vec::new();
    }
    let scaled: Vec<f64> = weights.iter().map(|&w| w * f64::from(scale)).collect();
    let mut q: Vec<u32> = scaled.iter().map(|&x| x.floor() as u32).collect();
    let total: u32 = q.iter().sum();
    let mut order: Vec<usize> = (0..q.len()).collect();
    order.sort_by(|&a, &b| (scaled[b] - scaled[b].floor()).total_cmp(&(scaled[a] - scaled[a].floor())).then(a.cmp(&b)));
    for &i in order.iter().cycle().take(scale.saturating_sub(total) as usize) {
        q[i] += 1;
    }
    q
}

/// JOINTS_n / WEIGHTS_n data of one primitive, `sets` of 4 slots per vertex.
pub(super) struct EncodedWeights {
    pub(super) sets: usize,
    pub(super) joints: Vec<Vec<u8>>,
    pub(super) weights: Vec<Vec<u8>>,
    pub(super) trimmed: usize,
    pub(super) empty: usize,
}

pub(super) fn encode_weights(
    inf: &Influences,
    order: &VertexOrder,
    table: &JointSetTable,
    max: usize,
    format: WeightsFormat,
    joints_u8: bool,
) -> EncodedWeights {
    let n = inf.len();
    let mut per_vertex = Vec::with_capacity(n);
    let (mut trimmed, mut empty, mut most) = (0, 0, 1);
    for f in 0..n {
        let (pairs, cut) = vertex_weights(inf, table, order.model_index(f), max);
        trimmed += usize::from(cut);
        empty += usize::from(pairs.is_empty());
        most = most.max(pairs.len());
        per_vertex.push(pairs);
    }
    let sets = most.div_ceil(4);
    let jsize = if joints_u8 { 1 } else { 2 };
    let wsize = match format {
        WeightsFormat::Float => 4,
        WeightsFormat::U16 => 2,
        WeightsFormat::U8 => 1,
    };
    let mut joints = vec![Vec::with_capacity(n * 4 * jsize); sets];
    let mut weights = vec![Vec::with_capacity(n * 4 * wsize); sets];
    for pairs in &per_vertex {
        let ws: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        // (joint, weight bytes) per slot; a zero weight gets joint 0.
        let mut slots: Vec<(u16, [u8; 4])> = Vec::with_capacity(sets * 4);
        match format {
            WeightsFormat::Float => {
                for (k, w) in float_weights(&ws, sets).into_iter().enumerate() {
                    let j = if w > 0.0 { pairs[k].0 } else { 0 };
                    slots.push((j, w.to_le_bytes()));
                }
            }
            WeightsFormat::U16 | WeightsFormat::U8 => {
                let scale = if format == WeightsFormat::U16 { 65535 } else { 255 };
                let mut q = quantized_weights(&ws, scale);
                q.resize(sets * 4, 0);
                for (k, w) in q.into_iter().enumerate() {
                    let j = if w > 0 { pairs[k].0 } else { 0 };
                    let b = (w as u16).to_le_bytes();
                    slots.push((j, [b[0], b[1], 0, 0]));
                }
            }
        }
        for (k, (j, w)) in slots.into_iter().enumerate() {
            let s = k / 4;
            if joints_u8 {
                joints[s].push(j as u8);
            } else {
                joints[s].extend_from_slice(&j.to_le_bytes());
            }
            weights[s].extend_from_slice(&w[..wsize]);
        }
    }
    EncodedWeights { sets, joints, weights, trimmed, empty }
}

/// Whether two primitives' influences are identical vertex by vertex.
pub(super) fn same_influences(a: &Influences, ta: &JointSetTable, b: &Influences, tb: &JointSetTable) -> bool {
    a.len() == b.len()
        && (0..a.len())
            .all(|v| a.vertex(v, ta).map(|(j, w)| (j, w.to_bits())).eq(b.vertex(v, tb).map(|(j, w)| (j, w.to_bits()))))
}

pub(super) fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

impl Exporter<'_> {
    /// Rewrites the JOINTS/WEIGHTS of every skinned primitive whose influences changed.
    pub(super) fn write_weights(&mut self, model: &Model) -> Result<(), String> {
        let original = self.original;
        let force = self.options.weights_format.is_some();
        let format = self.options.weights_format.unwrap_or(WeightsFormat::Float);
        let mut done = BTreeSet::new();
        for inst in &model.instances {
            if !done.insert(inst.mesh) {
                continue;
            }
            let (skin, orig_skin) = (&model.skins[inst.skin], &original.skins[inst.skin]);
            let prims = &model.meshes[inst.mesh].primitives;
            let mesh = self.node_mesh(inst.node)?;
            let mut repaired = 0;
            let changed: Vec<usize> = (0..prims.len())
                .filter(|&p| match (&prims[p].influences, &original.meshes[inst.mesh].primitives[p].influences) {
                    (None, _) => false,
                    (Some(_), None) => true,
                    (Some(a), Some(b)) => {
                        let failing = if self.options.keep_weights {
                            0
                        } else {
                            failing_vertices(
                                &self.source.json,
                                &self.source.buffers,
                                mesh,
                                p,
                                self.options.max_influences,
                            )
                        };
                        repaired += failing;
                        force || failing > 0 || !same_influences(a, &skin.sets, b, &orig_skin.sets)
                    }
                })
                .collect();
            self.report.repaired_vertices += repaired;
            if changed.is_empty() {
                continue;
            }
            self.check_primitive_count(mesh, prims.len())?;
            let nodes: Vec<usize> = model.instances.iter().filter(|i| i.mesh == inst.mesh).map(|i| i.node).collect();
            let mesh = self.own_mesh(mesh, &nodes)?;
            for p in changed {
                let Some(inf) = &prims[p].influences else { continue };
                let attrs_joints = {
                    let prim = self.primitive_mut(mesh, p)?;
                    index(prim.get("attributes").and_then(|a| a.get("JOINTS_0")))
                };
                let joints_u8 =
                    skin.joints.len() <= 256 && self.accessor_component_type(attrs_joints) == Some(UNSIGNED_BYTE);
                let enc =
                    encode_weights(inf, &prims[p].order, &skin.sets, self.options.max_influences, format, joints_u8);
                self.report.trimmed_vertices += enc.trimmed;
                self.report.empty_vertices += enc.empty;
                let mut new_attrs = Vec::new();
                let (wtype, normalized) = match format {
                    WeightsFormat::Float => (FLOAT, false),
                    WeightsFormat::U16 => (UNSIGNED_SHORT, true),
                    WeightsFormat::U8 => (UNSIGNED_BYTE, true),
                };
                for (s, (j, w)) in enc.joints.into_iter().zip(enc.weights).enumerate() {
                    let ja = json!({"componentType": if joints_u8 { UNSIGNED_BYTE } else { UNSIGNED_SHORT },
                        "count": inf.len(), "type": "VEC4"});
                    let mut wa = json!({"componentType": wtype, "count": inf.len(), "type": "VEC4"});
                    if normalized {
                        wa["normalized"] = json!(true);
                    }
                    let (Value::Object(ja), Value::Object(wa)) = (ja, wa) else { continue };
                    new_attrs.push((format!("JOINTS_{s}"), self.add_accessor(j, ja)));
                    new_attrs.push((format!("WEIGHTS_{s}"), self.add_accessor(w, wa)));
                }
                debug_assert_eq!(new_attrs.len(), enc.sets * 2);
                let prim = self.primitive_mut(mesh, p)?;
                let attrs = prim
                    .get_mut("attributes")
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| format!("mesh {mesh} primitive {p} has no attributes"))?;
                attrs.retain(|k, _| !k.starts_with("JOINTS_") && !k.starts_with("WEIGHTS_"));
                for (k, a) in new_attrs {
                    attrs.insert(k, json!(a));
                }
                self.report.rewritten_primitives += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_weights_sum_exactly() {
        for ws in [vec![1.0], vec![0.5, 0.5], vec![1.0 / 3.0; 3], vec![0.7, 0.2, 0.1], vec![0.999, 0.0005, 0.0005]] {
            for scale in [255, 65535] {
                let q = quantized_weights(&ws, scale);
                assert_eq!(q.iter().sum::<u32>(), scale, "{ws:?}");
                for (w, q) in ws.iter().zip(&q) {
                    assert!((f64::from(*q) - w * f64::from(scale)).abs() <= 1.0);
                }
            }
        }
    }

    #[test]
    fn float_weights_sum_to_one_in_f32() {
        let ws = [0.1, 0.2, 0.3, 0.15, 0.1, 0.05, 0.1];
        let f = float_weights(&ws, 2);
        let mut sum = 0f32;
        for c in 0..4 {
            for s in 0..2 {
                sum += f[s * 4 + c];
            }
        }
        assert!((sum - 1.0).abs() <= 2e-7, "{sum}");
        assert_eq!(f[7], 0.0);
        assert!(float_weights(&[], 1).iter().all(|&w| w == 0.0));
    }

    #[test]
    fn encoded_weights_are_sorted_trimmed_and_padded_with_joint_zero() {
        use crate::model::influences::VertexInfluences;
        let mut table = JointSetTable::new(8);
        let five = VertexInfluences { pairs: vec![(9, 0.1), (3, 0.4), (5, 0.2), (7, 0.2), (2, 0.1)] };
        let one = VertexInfluences { pairs: vec![(4, 1.0)] };
        let inf = Influences::from_vertices(&[five, one], &mut table).unwrap();
        // Four slots: the 0.1 on joint 9 goes (joint 2 wins the tie), the rest is renormalised.
        let enc = encode_weights(&inf, &VertexOrder::default(), &table, 4, WeightsFormat::U8, true);
        assert_eq!((enc.sets, enc.trimmed, enc.empty), (1, 1, 0));
        assert_eq!(enc.joints[0], vec![3, 5, 7, 2, 4, 0, 0, 0]);
        assert_eq!(enc.weights[0].iter().map(|&w| u32::from(w)).sum::<u32>(), 2 * 255);
        assert_eq!(&enc.weights[0][4..], &[255, 0, 0, 0]);
        // Eight slots: two sets, u16 joints, float weights.
        let enc = encode_weights(&inf, &VertexOrder::default(), &table, 8, WeightsFormat::Float, false);
        assert_eq!((enc.sets, enc.trimmed), (2, 0));
        let joints: Vec<u16> = enc.joints[1].chunks(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
        assert_eq!(joints, vec![9, 0, 0, 0, 0, 0, 0, 0]);
        let w: Vec<f32> = enc.weights[0].chunks(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        assert_eq!(&w[4..], &[1.0, 0.0, 0.0, 0.0]);
    }
}
