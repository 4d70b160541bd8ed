//! Writing a densified model (`model::densify`) over its source document: every refined primitive
//! gets new accessors for all of its attributes and morph targets and a new index list; everything
//! else (nodes, skins, materials, textures, animations, extras) is carried over as read.
//!
//! POSITION, NORMAL and JOINTS_n/WEIGHTS_n come from the densified model (weights as floats, as
//! [`super::float_weights`] makes them sum to 1). Every other attribute keeps its type and
//! component type; a new vertex takes the mean of its two ends (normalised integers re-quantised),
//! TANGENT the renormalised mean direction with the first end's handedness, and integer
//! attributes that are not normalised (ids) the first end's value. Morph-target deltas are
//! averaged the same way, so morphs carry over.

use std::collections::BTreeSet;
use std::path::Path;

use gltf::accessor::DataType;
use serde_json::{json, Map, Value};

use super::weights::{encode_weights, f32_bytes};
use super::{
    ExportError, ExportOptions, ExportReport, ExportedFiles, Exporter, WeightsFormat, ARRAY_BUFFER, BYTE, FLOAT, SHORT,
    UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT,
};
use crate::io::accessor::{components, read, Buffers};
use crate::io::SourceDocument;
use crate::model::{Densified, PrimitiveRefinement};

const ELEMENT_ARRAY_BUFFER: u64 = 34963;

/// How a new vertex's value of an attribute follows from its two ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// The mean of both ends.
    Mean,
    /// The mean direction (first three components) renormalised, the rest from the first end.
    Direction,
    /// The first end's value (integer ids).
    First,
}

/// Exports a densified model (made by `model::densify` from the model `source` holds) to `out`,
/// atomically, like [`super::export_model`].
pub fn export_densified(
    dense: &Densified,
    source: &SourceDocument,
    options: &ExportOptions,
    out: &Path,
) -> Result<ExportReport, ExportError> {
    let (files, report) = densified_bytes(dense, source, options, out).map_err(|p| ExportError::new(out, p))?;
    super::write_export(files, report, source, options, out)
}

/// Builds the exported file(s) of a densified model in memory; the error is the problem without
/// the path.
pub fn densified_bytes(
    dense: &Densified,
    source: &SourceDocument,
    options: &ExportOptions,
    out: &Path,
) -> Result<(ExportedFiles, ExportReport), String> {
    if options.bake.is_some() {
        return Err("a densified model is written skinned (bake the pose from the dense file instead)".into());
    }
    let original = &source.original;
    let model = &dense.model;
    let same_shape = model.meshes.len() == original.meshes.len()
        && dense.refinements.len() == model.meshes.len()
        && model.meshes.iter().zip(&original.meshes).zip(&dense.refinements).all(|((a, b), r)| {
            a.primitives.len() == b.primitives.len()
                && r.len() == a.primitives.len()
                && r.iter()
                    .zip(&b.primitives)
                    .all(|(r, p)| r.as_ref().is_none_or(|r| r.original_vertices == p.positions.len()))
        })
        && model.instances == original.instances
        && model.skins.iter().zip(&original.skins).all(|(a, b)| a.joints == b.joints);
    if !same_shape {
        return Err("the densified model was not made from this source document".into());
    }
    let mut ex = Exporter::new(source, original, options)?;
    ex.write_refinements(dense)?;
    ex.embed_external_images(out)?;
    ex.collect_garbage();
    let bin = ex.repack()?;
    ex.finish(out, bin)
}

impl Exporter<'_> {
    /// Replaces every refined primitive's attributes, targets and indices.
    fn write_refinements(&mut self, dense: &Densified) -> Result<(), String> {
        let bytes = serde_json::to_vec(&self.source.json).map_err(|e| format!("cannot read the glTF JSON: {e}"))?;
        let gltf = gltf::Gltf::from_slice_without_validation(&bytes).map_err(|e| format!("invalid glTF: {e}"))?;
        let file_bytes: u64 = self.source.buffers.iter().map(|b| b.len() as u64).sum();
        let buffers = Buffers::new(&self.source.buffers, file_bytes);
        let accessors: Vec<gltf::Accessor<'_>> = gltf.document.accessors().collect();
        let model = &dense.model;
        let mut done = BTreeSet::new();
        for inst in &model.instances {
            let m = inst.mesh;
            let refined = &dense.refinements[m];
            if refined.iter().flatten().all(|r| r.midpoints.is_empty()) {
                continue;
            }
            let g = self.node_mesh(inst.node)?;
            // A mesh drawn by several nodes (or copied for a second skin) is written once: every
            // copy was refined alike.
            if !done.insert(g) {
                continue;
            }
            self.check_primitive_count(g, refined.len())?;
            let table = &model.skins[inst.skin].sets;
            for (p, r) in refined.iter().enumerate() {
                let Some(r) = r.as_ref().filter(|r| !r.midpoints.is_empty()) else { continue };
                let prim = &model.meshes[m].primitives[p];
                let json_prim = self.primitive_mut(g, p)?.clone();
                // The file keeps the original vertices' order; new vertices follow in both orders.
                let file_ends = PrimitiveRefinement {
                    original_vertices: r.original_vertices,
                    midpoints: r
                        .midpoints
                        .iter()
                        .map(|e| e.map(|k| prim.order.file_index(k as usize) as u32))
                        .collect(),
                };
                let what = |name: &str| format!("mesh {g} primitive {p} {name}");
                let mut attrs = Map::new();
                for (name, acc) in json_prim.get("attributes").and_then(Value::as_object).into_iter().flatten() {
                    if name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_") {
                        continue;
                    }
                    let new = match (name.as_str(), &prim.normals) {
                        ("POSITION", _) => self.vec3_accessor(&prim.order.to_file(&prim.positions), true),
                        ("NORMAL", Some(normals)) => self.vec3_accessor(&prim.order.to_file(normals), false),
                        _ => {
                            let acc = accessor(&accessors, acc, &what(name))?;
                            let rule = if name == "TANGENT" { Rule::Direction } else { Rule::Mean };
                            self.refined_accessor(&what(name), &buffers, acc, &file_ends, rule, name == "POSITION")?
                        }
                    };
                    attrs.insert(name.clone(), json!(new));
                }
                if let Some(inf) = &prim.influences {
                    let joints_u8 = model.skins[inst.skin].joints.len() <= 256;
                    let enc = encode_weights(
                        inf,
                        &prim.order,
                        table,
                        crate::model::influences::MAX_SLOTS,
                        WeightsFormat::Float,
                        joints_u8,
                    );
                    let n = inf.len();
                    for (s, (j, w)) in enc.joints.into_iter().zip(enc.weights).enumerate() {
                        let jtype = if joints_u8 { UNSIGNED_BYTE } else { UNSIGNED_SHORT };
                        let ja = json!({"componentType": jtype, "count": n, "type": "VEC4"});
                        let wa = json!({"componentType": FLOAT, "count": n, "type": "VEC4"});
                        attrs.insert(format!("JOINTS_{s}"), json!(self.add_view_accessor(j, ARRAY_BUFFER, None, ja)));
                        attrs.insert(format!("WEIGHTS_{s}"), json!(self.add_view_accessor(w, ARRAY_BUFFER, None, wa)));
                    }
                    self.report.empty_vertices += enc.empty;
                }
                let mut targets = Vec::new();
                for (t, target) in json_prim.get("targets").and_then(Value::as_array).into_iter().flatten().enumerate()
                {
                    let mut out = Map::new();
                    for (name, acc) in target.as_object().into_iter().flatten() {
                        let label = what(&format!("target {t} {name}"));
                        let acc = accessor(&accessors, acc, &label)?;
                        out.insert(
                            name.clone(),
                            json!(self.refined_accessor(
                                &label,
                                &buffers,
                                acc,
                                &file_ends,
                                Rule::Mean,
                                name == "POSITION"
                            )?),
                        );
                    }
                    targets.push(Value::Object(out));
                }
                let indices: Vec<u8> = prim.file_triangles().iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
                let ia = json!({"componentType": UNSIGNED_INT, "count": prim.triangles.len() * 3, "type": "SCALAR"});
                let indices = self.add_view_accessor(indices, ELEMENT_ARRAY_BUFFER, None, ia);
                let jp = self.primitive_mut(g, p)?;
                jp.insert("attributes".into(), Value::Object(attrs));
                if !targets.is_empty() {
                    jp.insert("targets".into(), Value::Array(targets));
                }
                jp.insert("indices".into(), json!(indices));
                jp.shift_remove("mode");
                self.report.rewritten_primitives += 1;
            }
        }
        Ok(())
    }

    /// Adds a buffer view (with `target`, and `stride` when elements are padded) and an accessor
    /// over it; returns the accessor index.
    fn add_view_accessor(&mut self, data: Vec<u8>, target: u64, stride: Option<usize>, mut accessor: Value) -> usize {
        let mut view = json!({"buffer": 0, "byteLength": data.len(), "target": target});
        if let Some(s) = stride {
            view["byteStride"] = json!(s);
        }
        let view = super::push(&mut self.json, "bufferViews", view);
        self.new_views.insert(view, data);
        accessor["bufferView"] = json!(view);
        super::push(&mut self.json, "accessors", accessor)
    }

    /// A float VEC3 accessor of `values` (with bounds when `bounds`).
    fn vec3_accessor(&mut self, values: &[glam::Vec3], bounds: bool) -> usize {
        let mut acc = json!({"componentType": FLOAT, "count": values.len(), "type": "VEC3"});
        if bounds {
            let lo = values.iter().copied().fold(glam::Vec3::splat(f32::INFINITY), glam::Vec3::min);
            let hi = values.iter().copied().fold(glam::Vec3::splat(f32::NEG_INFINITY), glam::Vec3::max);
            acc["min"] = json!(lo.to_array());
            acc["max"] = json!(hi.to_array());
        }
        let data = f32_bytes(values.iter().flat_map(|v| v.to_array()));
        self.add_view_accessor(data, ARRAY_BUFFER, None, acc)
    }

    /// The accessor `acc` extended by the refinement's new vertices, in its own type and
    /// component type; returns the new accessor's index.
    fn refined_accessor(
        &mut self,
        what: &str,
        buffers: &Buffers<'_>,
        acc: &gltf::Accessor<'_>,
        r: &PrimitiveRefinement,
        rule: Rule,
        bounds: bool,
    ) -> Result<usize, String> {
        let comps = components(acc.dimensions());
        let t = acc.data_type();
        let normalized = acc.normalized();
        let mut values = read(what, buffers, acc)?;
        if values.len() != r.original_vertices * comps {
            return Err(format!(
                "{what}: {} elements, the primitive has {} vertices",
                acc.count(),
                r.original_vertices
            ));
        }
        let integer_ids = t != DataType::F32 && !normalized;
        let rule = if integer_ids { Rule::First } else { rule };
        values.reserve(r.midpoints.len() * comps);
        for &[a, b] in &r.midpoints {
            let (a, b) = (a as usize * comps, b as usize * comps);
            let start = values.len();
            for c in 0..comps {
                let v = match rule {
                    Rule::First => values[a + c],
                    Rule::Mean | Rule::Direction => 0.5 * (values[a + c] + values[b + c]),
                };
                values.push(v);
            }
            if rule == Rule::Direction && comps >= 3 {
                let d = &mut values[start..start + 3];
                let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                if len > 1e-12 {
                    d.iter_mut().for_each(|x| *x /= len);
                }
                for c in 3..comps {
                    values[start + c] = values[a + c];
                }
            }
        }
        let (data, raw) = encode(&values, t, normalized);
        let csize = component_bytes(t);
        let elem = comps * csize;
        let stride = elem.next_multiple_of(4);
        let data = if stride == elem {
            data
        } else {
            let mut padded = Vec::with_capacity(values.len() / comps * stride);
            for e in data.chunks_exact(elem) {
                padded.extend_from_slice(e);
                padded.resize(padded.len() + stride - elem, 0);
            }
            padded
        };
        let ctype = match t {
            DataType::I8 => BYTE,
            DataType::U8 => UNSIGNED_BYTE,
            DataType::I16 => SHORT,
            DataType::U16 => UNSIGNED_SHORT,
            DataType::U32 => UNSIGNED_INT,
            DataType::F32 => FLOAT,
        };
        let kind = self.json["accessors"][acc.index()]["type"].clone();
        let mut out = json!({"componentType": ctype, "count": values.len() / comps, "type": kind});
        if normalized {
            out["normalized"] = json!(true);
        }
        if bounds {
            let mut lo = vec![f64::INFINITY; comps];
            let mut hi = vec![f64::NEG_INFINITY; comps];
            for e in raw.chunks_exact(comps) {
                for c in 0..comps {
                    lo[c] = lo[c].min(e[c]);
                    hi[c] = hi[c].max(e[c]);
                }
            }
            out["min"] = json!(lo);
            out["max"] = json!(hi);
        }
        Ok(self.add_view_accessor(data, ARRAY_BUFFER, (stride != elem).then_some(stride), out))
    }
}

/// The gltf accessor an attribute's JSON index names.
fn accessor<'a, 'b>(
    accessors: &'b [gltf::Accessor<'a>],
    index: &Value,
    what: &str,
) -> Result<&'b gltf::Accessor<'a>, String> {
    index
        .as_u64()
        .and_then(|i| accessors.get(usize::try_from(i).ok()?))
        .ok_or_else(|| format!("{what}: accessor {index} is missing"))
}

fn component_bytes(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// Little-endian bytes of `values` in component type `t` (normalised integers re-quantised) and
/// the stored values (for bounds).
fn encode(values: &[f64], t: DataType, normalized: bool) -> (Vec<u8>, Vec<f64>) {
    let mut bytes = Vec::with_capacity(values.len() * component_bytes(t));
    let mut raw = Vec::with_capacity(values.len());
    for &v in values {
        let q = |scale: f64, lo: f64, hi: f64| if normalized { (v * scale).round() } else { v.round() }.clamp(lo, hi);
        match t {
            DataType::F32 => {
                let x = v as f32;
                bytes.extend_from_slice(&x.to_le_bytes());
                raw.push(f64::from(x));
            }
            DataType::U8 => {
                let x = q(255.0, 0.0, 255.0);
                bytes.push(x as u8);
                raw.push(x);
            }
            DataType::I8 => {
                let x = q(127.0, -127.0, 127.0);
                bytes.push(x as i8 as u8);
                raw.push(x);
            }
            DataType::U16 => {
                let x = q(65535.0, 0.0, 65535.0);
                bytes.extend_from_slice(&(x as u16).to_le_bytes());
                raw.push(x);
            }
            DataType::I16 => {
                let x = q(32767.0, -32767.0, 32767.0);
                bytes.extend_from_slice(&(x as i16).to_le_bytes());
                raw.push(x);
            }
            DataType::U32 => {
                let x = v.round().clamp(0.0, f64::from(u32::MAX));
                bytes.extend_from_slice(&(x as u32).to_le_bytes());
                raw.push(x);
            }
        }
    }
    (bytes, raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_integers_are_requantised_and_ids_kept() {
        let (bytes, raw) = encode(&[0.5, 1.0, 0.0], DataType::U8, true);
        assert_eq!(bytes, vec![128, 255, 0]);
        assert_eq!(raw, vec![128.0, 255.0, 0.0]);
        let (bytes, _) = encode(&[-1.0, 3.0], DataType::I16, false);
        assert_eq!(bytes, vec![0xff, 0xff, 3, 0]);
    }
}
