//! Export of an edited or new skeleton: when the model's nodes, skins or skinned instances differ
//! from the source's, the document's `nodes` are rewritten in the model's order (each node that
//! came from the file keeps its object: mesh, camera, extensions, other extras), with names,
//! children, transforms, skins and the bone tail and roll in `extras`
//! (`io::bone_extras`). Scenes and animation channels are renumbered (channels of deleted nodes
//! are dropped, and animations left without a channel), and every skin gets its joint list, a
//! fresh explicit `inverseBindMatrices` accessor (the old one is then garbage) and its skeleton
//! root (the joints' lowest common ancestor). Weights are compared with the source's by joint
//! index, so primitives whose joint indices moved (a deleted joint) or that had none (a new skin)
//! get new JOINTS/WEIGHTS.

use serde_json::{json, Map, Value};

use super::json_refs::{index, push};
use super::weights::f32_bytes;
use super::{Exporter, FLOAT};
use crate::io::bone_extras::write_bone;
use crate::io::driver_extras::write_driver;
use crate::model::{Model, NodeTransform, NodeTree, Skin, Trs};

/// The source's model with `model`'s skeleton (nodes, instances, skins' joints and inverse bind
/// matrices; the source's joint-set tables, which its influences index), or `None` when the
/// skeleton is the source's.
pub(super) fn original_with_skeleton(model: &Model, original: &Model) -> Option<Model> {
    let same_skins = model.skins.len() == original.skins.len()
        && model
            .skins
            .iter()
            .zip(&original.skins)
            .all(|(a, b)| a.joints == b.joints && a.joint_from_bind == b.joint_from_bind);
    if same_skins
        && model.nodes == original.nodes
        && model.instances == original.instances
        && model.rigid_instances == original.rigid_instances
    {
        return None;
    }
    let skins = model
        .skins
        .iter()
        .enumerate()
        .map(|(s, skin)| Skin {
            name: skin.name.clone(),
            joints: skin.joints.clone(),
            joint_from_bind: skin.joint_from_bind.clone(),
            sets: original.skins.get(s).map_or_else(|| skin.sets.clone(), |o| o.sets.clone()),
        })
        .collect();
    Some(Model {
        nodes: model.nodes.clone(),
        meshes: original.meshes.clone(),
        skins,
        clips: model.clips.clone(),
        instances: model.instances.clone(),
        rigid_instances: model.rigid_instances.clone(),
    })
}

/// Writes a node's rest transform into its object (TRS components only when not the default).
fn write_transform(node: &mut Map<String, Value>, rest: &NodeTransform) {
    for key in ["matrix", "translation", "rotation", "scale"] {
        node.shift_remove(key);
    }
    match rest {
        NodeTransform::Matrix(m) => {
            if *m != glam::DMat4::IDENTITY {
                node.insert("matrix".into(), json!(m.to_cols_array()));
            }
        }
        NodeTransform::Trs(t) => {
            let d = Trs::default();
            if t.translation != d.translation {
                node.insert("translation".into(), json!(t.translation.to_array()));
            }
            if t.rotation != d.rotation {
                node.insert("rotation".into(), json!(t.rotation.normalize().to_array()));
            }
            if t.scale != d.scale {
                node.insert("scale".into(), json!(t.scale.to_array()));
            }
        }
    }
}

/// The lowest node that is an ancestor (or itself) of every joint, if the joints share a root.
fn common_root(tree: &NodeTree, joints: &[usize]) -> Option<usize> {
    let chain = |mut n: usize| {
        let mut out = vec![n];
        while let Some(p) = tree.nodes.get(n).and_then(|x| x.parent) {
            out.push(p);
            n = p;
        }
        out.reverse();
        out
    };
    let mut common = chain(*joints.first()?);
    for &j in &joints[1..] {
        let other = chain(j);
        let same = common.iter().zip(&other).take_while(|(a, b)| a == b).count();
        common.truncate(same);
    }
    common.last().copied()
}

impl Exporter<'_> {
    /// Rewrites nodes, scenes, animation targets and skins for `model`'s skeleton (see the module
    /// docs). Runs before the weights are written, which find the meshes through the new nodes.
    pub(super) fn write_skeleton(&mut self, model: &Model) -> Result<(), String> {
        let file_nodes: Vec<Value> = self.json.get("nodes").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut new_of_file: Vec<Option<usize>> = vec![None; file_nodes.len()];
        for (i, n) in model.nodes.nodes.iter().enumerate() {
            if let Some(slot) = n.source.and_then(|k| new_of_file.get_mut(k)) {
                *slot = Some(i);
            }
        }
        let mut nodes = Vec::with_capacity(model.nodes.len());
        for n in &model.nodes.nodes {
            let mut obj =
                n.source.and_then(|k| file_nodes.get(k)).and_then(Value::as_object).cloned().unwrap_or_default();
            for key in ["children", "skin", "name"] {
                obj.shift_remove(key);
            }
            if let Some(name) = &n.name {
                obj.insert("name".into(), json!(name));
            }
            if !n.children.is_empty() {
                obj.insert("children".into(), json!(n.children));
            }
            if let Some(s) = n.skin {
                obj.insert("skin".into(), json!(s));
            }
            if n.source.is_none() {
                obj.shift_remove("mesh");
            }
            write_transform(&mut obj, &n.rest);
            write_bone(&mut obj, n.bone_tail, n.bone_roll);
            write_driver(&mut obj, n.driver.as_ref());
            nodes.push(Value::Object(obj));
        }
        let remap = |v: &Value| index(Some(v)).and_then(|k| new_of_file.get(k).copied().flatten());
        let root = self.json.as_object_mut().ok_or("the glTF JSON is not an object")?;
        root.insert("nodes".into(), Value::Array(nodes));
        let default_scene = index(root.get("scene")).unwrap_or(0);
        match root.get_mut("scenes").and_then(Value::as_array_mut) {
            Some(scenes) if !scenes.is_empty() => {
                for (i, scene) in scenes.iter_mut().enumerate() {
                    let Some(obj) = scene.as_object_mut() else { continue };
                    let list: Vec<usize> = if i == default_scene {
                        model.nodes.scene_roots.clone()
                    } else {
                        obj.get("nodes").and_then(Value::as_array).into_iter().flatten().filter_map(remap).collect()
                    };
                    obj.insert("nodes".into(), json!(list));
                }
            }
            _ => {
                root.insert("scenes".into(), json!([{"nodes": model.nodes.scene_roots}]));
                root.insert("scene".into(), json!(0));
            }
        }
        if let Some(anims) = root.get_mut("animations").and_then(Value::as_array_mut) {
            for anim in anims.iter_mut() {
                let Some(channels) = anim.get_mut("channels").and_then(Value::as_array_mut) else { continue };
                channels.retain_mut(|c| match c.get("target").and_then(|t| t.get("node")).map(remap) {
                    Some(Some(n)) => {
                        c["target"]["node"] = json!(n);
                        true
                    }
                    Some(None) => false,
                    None => true,
                });
                // Samplers only the dropped channels used go too (their accessors become garbage).
                let used: Vec<usize> = {
                    let mut u: Vec<usize> = channels.iter().filter_map(|c| index(c.get("sampler"))).collect();
                    u.sort_unstable();
                    u.dedup();
                    u
                };
                for c in channels.iter_mut() {
                    if let Some(new) = index(c.get("sampler")).and_then(|s| used.binary_search(&s).ok()) {
                        c["sampler"] = json!(new);
                    }
                }
                if let Some(samplers) = anim.get_mut("samplers").and_then(Value::as_array_mut) {
                    let old = std::mem::take(samplers);
                    *samplers = old.into_iter().enumerate().filter(|(i, _)| used.contains(i)).map(|(_, s)| s).collect();
                }
            }
            anims.retain(|a| a.get("channels").and_then(Value::as_array).is_some_and(|c| !c.is_empty()));
            if anims.is_empty() {
                root.shift_remove("animations");
            }
        }
        let file_skins: Vec<Value> = root.get("skins").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut skins = Vec::with_capacity(model.skins.len());
        for (s, skin) in model.skins.iter().enumerate() {
            let mut obj = file_skins.get(s).and_then(Value::as_object).cloned().unwrap_or_default();
            obj.insert("joints".into(), json!(skin.joints));
            if obj.get("name").is_none() {
                if let Some(name) = &skin.name {
                    obj.insert("name".into(), json!(name));
                }
            }
            match common_root(&model.nodes, &skin.joints) {
                Some(r) => obj.insert("skeleton".into(), json!(r)),
                None => obj.shift_remove("skeleton"),
            };
            let data = f32_bytes(skin.joint_from_bind.iter().flat_map(|m| m.to_cols_array()).map(|x| x as f32));
            let view = push(&mut self.json, "bufferViews", json!({"buffer": 0, "byteLength": data.len()}));
            self.new_views.insert(view, data);
            let acc = json!({"bufferView": view, "componentType": FLOAT, "count": skin.joints.len(), "type": "MAT4"});
            obj.insert("inverseBindMatrices".into(), json!(push(&mut self.json, "accessors", acc)));
            skins.push(Value::Object(obj));
        }
        let root = self.json.as_object_mut().ok_or("the glTF JSON is not an object")?;
        if skins.is_empty() {
            root.shift_remove("skins");
        } else {
            root.insert("skins".into(), Value::Array(skins));
        }
        Ok(())
    }
}
