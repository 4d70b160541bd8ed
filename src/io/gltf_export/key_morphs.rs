//! Morph targets added one per sampled time, with a LINEAR weight animation that is 1 at its time
//! and 0 at its neighbours (`export --emulate --exact`): each skinned mesh gets every target on
//! every primitive (POSITION deltas, in the file's vertex order, with min/max; `weights` all 0 at
//! rest), and each listed clip's animation gets one `weights` channel per mesh node, whose keys
//! are the clip's sample times. A mesh that has morph targets already is refused (its existing
//! weight channels would need every new target too).

use glam::Vec3;
use serde_json::{json, Map, Value};

use super::weights::f32_bytes;
use super::{Exporter, FLOAT};
use crate::model::Model;

/// One skinned mesh node's per-key targets.
#[derive(Clone, Debug, Default)]
pub struct MeshKeyMorphs {
    /// The node that draws the mesh with its skin (its mesh is the one changed).
    pub node: usize,
    /// The model's mesh index.
    pub mesh: usize,
    /// `targets[primitive][target][vertex]`: bind-space position deltas in the model's vertex
    /// order (every primitive has every target).
    pub targets: Vec<Vec<Vec<Vec3>>>,
}

/// The times of one clip's targets.
#[derive(Clone, Debug, Default)]
pub struct KeyMorphClip {
    /// The clip (index into the model's clips).
    pub clip: usize,
    /// Its sample times (f32-exact, increasing).
    pub times: Vec<f64>,
    /// The target of its first time; the others follow in order.
    pub first_target: usize,
}

/// Every per-key target an export adds.
#[derive(Clone, Debug, Default)]
pub struct KeyMorphs {
    /// Per skinned mesh node.
    pub meshes: Vec<MeshKeyMorphs>,
    /// Per clip.
    pub clips: Vec<KeyMorphClip>,
    /// Targets per mesh (the sum of the clips' times).
    pub count: usize,
}

impl Exporter<'_> {
    /// Adds the targets and weight channels of `morphs` (see the module docs); runs after the
    /// animations are written.
    pub(super) fn write_key_morphs(&mut self, model: &Model, morphs: &KeyMorphs) -> Result<(), String> {
        for m in &morphs.meshes {
            let mesh = self.own_mesh(self.node_mesh(m.node)?, &[m.node])?;
            let primitives = model.meshes.get(m.mesh).map_or(&[][..], |x| x.primitives.as_slice());
            for (p, (prim, targets)) in primitives.iter().zip(&m.targets).enumerate() {
                if self.primitive_mut(mesh, p)?.contains_key("targets") {
                    return Err(format!("mesh {mesh} has morph targets already: --exact cannot add its own"));
                }
                let mut list = Vec::with_capacity(targets.len());
                for deltas in targets {
                    let file = prim.order.to_file(deltas);
                    let (lo, hi) =
                        file.iter().fold((Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)), |(a, b), d| {
                            (a.min(*d), b.max(*d))
                        });
                    let (lo, hi) = if file.is_empty() { (Vec3::ZERO, Vec3::ZERO) } else { (lo, hi) };
                    let mut acc = Map::new();
                    acc.insert("componentType".into(), json!(FLOAT));
                    acc.insert("count".into(), json!(file.len()));
                    acc.insert("type".into(), json!("VEC3"));
                    acc.insert("min".into(), json!(lo.to_array()));
                    acc.insert("max".into(), json!(hi.to_array()));
                    let index = self.add_accessor(f32_bytes(file.iter().flat_map(|d| d.to_array())), acc);
                    list.push(json!({"POSITION": index}));
                }
                self.primitive_mut(mesh, p)?.insert("targets".into(), Value::Array(list));
            }
            if let Some(obj) = self.json.get_mut("meshes").and_then(|x| x.get_mut(mesh)).and_then(Value::as_object_mut)
            {
                obj.insert("weights".into(), json!(vec![0.0; morphs.count]));
            }
        }
        for clip in &morphs.clips {
            let animation = self.animation_of(model, clip.clip)?;
            let (Some(first), Some(last)) = (clip.times.first(), clip.times.last()) else { continue };
            let n = clip.times.len();
            let input = self.add_animation_accessor(
                f32_bytes(clip.times.iter().map(|&t| t as f32)),
                json!({"componentType": FLOAT, "count": n, "type": "SCALAR",
                       "min": [f64::from(*first as f32)], "max": [f64::from(*last as f32)]}),
            );
            let mut weights = vec![0.0f32; n * morphs.count];
            for k in 0..n {
                weights[k * morphs.count + clip.first_target + k] = 1.0;
            }
            let output = self.add_animation_accessor(
                f32_bytes(weights),
                json!({"componentType": FLOAT, "count": n * morphs.count, "type": "SCALAR"}),
            );
            for m in &morphs.meshes {
                let anim = self
                    .json
                    .get_mut("animations")
                    .and_then(|a| a.get_mut(animation))
                    .and_then(Value::as_object_mut)
                    .ok_or("a fitted clip has no animation in the document")?;
                let samplers = anim.entry("samplers").or_insert_with(|| json!([]));
                let sampler = samplers.as_array().map_or(0, Vec::len);
                if let Some(list) = samplers.as_array_mut() {
                    list.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
                }
                if let Some(list) = anim.entry("channels").or_insert_with(|| json!([])).as_array_mut() {
                    list.push(json!({"sampler": sampler, "target": {"node": m.node, "path": "weights"}}));
                }
            }
        }
        Ok(())
    }

    /// The document's animation of clip `clip`: the one with its name when only one has it, else
    /// its place among the written clips (clips without channels are not written).
    fn animation_of(&self, model: &Model, clip: usize) -> Result<usize, String> {
        let animations = self.json.get("animations").and_then(Value::as_array).cloned().unwrap_or_default();
        if let Some(name) = model.clips.get(clip).and_then(|c| c.name.as_deref()) {
            let hits: Vec<usize> = animations
                .iter()
                .enumerate()
                .filter(|(_, a)| a.get("name").and_then(Value::as_str) == Some(name))
                .map(|(i, _)| i)
                .collect();
            if let [one] = hits[..] {
                return Ok(one);
            }
        }
        let place = model.clips.iter().take(clip).filter(|c| !c.channels.is_empty()).count();
        if place < animations.len() {
            Ok(place)
        } else {
            Err(format!("clip #{clip} has no animation in the document"))
        }
    }
}
