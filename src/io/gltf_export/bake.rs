//! Baking a pose: deformed positions and normals written in place of the skin. The pose's morph
//! targets are baked too: a baked primitive loses its targets, its mesh its default weights, and
//! the animations their channels of its node's weights.

use glam::{DMat3, Vec3};
use serde_json::{json, Value};

use super::weights::f32_bytes;
use super::{Bake, Exporter, FLOAT};
use crate::model::{Model, NodeTransform};
use crate::skinning::Deformer;

impl Exporter<'_> {
    /// Bakes the pose into every skinned instance of the default scene (see the module docs).
    pub(super) fn bake(&mut self, model: &Model, bake: &Bake) -> Result<(), String> {
        let mut deformer = Deformer::new();
        let mut deformed = Vec::new();
        deformer.deform_all(model, &bake.pose, bake.method, &mut deformed);
        let world = deformer.model_from_node().to_vec();
        for (&node, o) in &bake.pose.overrides {
            if o.is_empty() || node >= model.nodes.len() {
                continue;
            }
            let local = bake.pose.local_matrix(&model.nodes, node);
            let rest = model.nodes.nodes[node].rest;
            // Written as JSON numbers and read back as f32: each must stay finite in f32.
            let finite = |v: &[f64]| v.iter().all(|&x| (x as f32).is_finite());
            let pose_finite = match rest {
                NodeTransform::Matrix(_) => finite(&local.to_cols_array()),
                NodeTransform::Trs(_) => {
                    o.translation.is_none_or(|t| finite(&t.to_array()))
                        && o.rotation.is_none_or(|r| finite(&r.normalize().to_array()))
                        && o.scale.is_none_or(|s| finite(&s.to_array()))
                }
            };
            if !pose_finite {
                return Err(format!(
                    "node {}: the pose's transform is not finite in 32-bit floats; nothing was written",
                    model.nodes.key(node)
                ));
            }
            let entry = self.node_mut(node)?;
            match rest {
                NodeTransform::Matrix(_) => {
                    entry.insert("matrix".into(), json!(local.to_cols_array()));
                }
                NodeTransform::Trs(_) => {
                    if let Some(t) = o.translation {
                        entry.insert("translation".into(), json!(t.to_array()));
                    }
                    if let Some(r) = o.rotation {
                        let r = r.normalize();
                        entry.insert("rotation".into(), json!([r.x, r.y, r.z, r.w]));
                    }
                    if let Some(s) = o.scale {
                        entry.insert("scale".into(), json!(s.to_array()));
                    }
                }
            }
        }
        for (i, inst) in model.instances.iter().enumerate() {
            let key = model.nodes.key(inst.node);
            let w = world.get(inst.node).copied().ok_or_else(|| format!("node {key} is outside the node tree"))?;
            if !w.determinant().is_normal() {
                return Err(format!("node {key} has a degenerate transform in this pose; its mesh cannot be baked"));
            }
            let local_from_model = w.inverse();
            let normal_matrix = DMat3::from_mat4(w).transpose();
            let prims = &model.meshes[inst.mesh].primitives;
            let mesh = self.node_mesh(inst.node)?;
            self.check_primitive_count(mesh, prims.len())?;
            let mesh = self.own_mesh(mesh, &[inst.node])?;
            for (p, out) in deformed[i].iter().enumerate() {
                // The file's vertex order (the model's may differ: `model::vertex_order`).
                let Some(order) = prims.get(p).map(|q| &q.order) else { continue };
                let positions: Vec<Vec3> = order
                    .to_file(&out.positions)
                    .iter()
                    .map(|v| local_from_model.transform_point3(v.as_dvec3()).as_vec3())
                    .collect();
                if let Some(v) = positions.iter().position(|p| !p.is_finite()) {
                    return Err(format!(
                        "node {key} mesh primitive {p}: vertex {v} is not finite in this pose (an extreme joint \
                         scale or matrix?); nothing was written"
                    ));
                }
                let (lo, hi) = positions
                    .iter()
                    .fold((Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)), |(lo, hi), v| {
                        (lo.min(*v), hi.max(*v))
                    });
                let mut pos_acc = json!({"componentType": FLOAT, "count": positions.len(), "type": "VEC3"});
                if !positions.is_empty() {
                    pos_acc["min"] = json!(lo.to_array());
                    pos_acc["max"] = json!(hi.to_array());
                }
                let Value::Object(pos_acc) = pos_acc else { continue };
                let pos = self.add_accessor(f32_bytes(positions.iter().flat_map(|v| v.to_array())), pos_acc);
                let has_normal = {
                    let prim = self.primitive_mut(mesh, p)?;
                    prim.get("attributes").and_then(|a| a.get("NORMAL")).is_some()
                };
                let nrm = if has_normal && !out.normals.is_empty() {
                    let normals = order
                        .to_file(&out.normals)
                        .into_iter()
                        .map(|n| (normal_matrix * n.as_dvec3()).normalize_or_zero().as_vec3());
                    let acc = json!({"componentType": FLOAT, "count": out.normals.len(), "type": "VEC3"});
                    let Value::Object(acc) = acc else { continue };
                    Some(self.add_accessor(f32_bytes(normals.flat_map(|v| v.to_array())), acc))
                } else {
                    None
                };
                let prim = self.primitive_mut(mesh, p)?;
                let attrs = prim
                    .get_mut("attributes")
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| format!("mesh {mesh} primitive {p} has no attributes"))?;
                attrs.retain(|k, _| !k.starts_with("JOINTS_") && !k.starts_with("WEIGHTS_") && k != "TANGENT");
                attrs.insert("POSITION".into(), json!(pos));
                if let Some(n) = nrm {
                    attrs.insert("NORMAL".into(), json!(n));
                }
                prim.shift_remove("targets");
            }
            if let Some(m) = self.json.pointer_mut(&format!("/meshes/{mesh}")).and_then(Value::as_object_mut) {
                m.shift_remove("weights");
            }
            let node = self.node_mut(inst.node)?;
            node.shift_remove("weights");
            node.shift_remove("skin");
            self.report.baked_nodes += 1;
        }
        Ok(())
    }

    /// After the animations are written: removes every channel of a baked node's morph weights
    /// (their samplers stay, unused), and animations left without channels.
    pub(super) fn drop_baked_weight_channels(&mut self, model: &Model) {
        let baked: Vec<u64> = model.instances.iter().map(|i| i.node as u64).collect();
        let Some(animations) = self.json.get_mut("animations").and_then(Value::as_array_mut) else { return };
        for a in animations {
            if let Some(channels) = a.get_mut("channels").and_then(Value::as_array_mut) {
                channels.retain(|c| {
                    c.pointer("/target/path").and_then(Value::as_str) != Some("weights")
                        || !c.pointer("/target/node").and_then(Value::as_u64).is_some_and(|n| baked.contains(&n))
                });
            }
        }
        // An animation left without channels is invalid glTF.
        if let Some(animations) = self.json.get_mut("animations").and_then(Value::as_array_mut) {
            animations.retain(|a| a.get("channels").and_then(Value::as_array).is_some_and(|c| !c.is_empty()));
        }
    }
}
