//! Writes a fit into a copy of the model: each helper that some vertex uses becomes a joint
//! (`rig::skeleton_edit::add_joint`: a child of its parent at its centre, in every skin that has
//! the parent, its inverse bind matrix keeping the parent's rest offset, so the rest pose does not
//! move), every fitted vertex gets its blend (weights in f32, each vertex normalised), and every
//! fitted clip gets a LINEAR rotation and translation channel per helper at the sample times, in
//! f32 (scale stays 1), and its driver (`live`) for poses no key sets. The source joints, their keys and the other clips are left as they were.

use glam::{DAffine3, DMat4, DQuat};

use super::fit::Fit;
use super::seeds::Seed;
use super::subject::Subject;
use crate::model::influences::VertexInfluences;
use crate::model::{
    Channel, ChannelPath, HelperDriver, Influences, Interpolation, JointSetTable, Model, NodeTransform, Trs,
};
use crate::rig::skeleton_edit::{add_joint, unique_name};
use crate::skinning::SkinningMethod;

/// The helpers' keys of one clip.
#[derive(Clone, Debug)]
pub struct ClipKeys {
    /// The clip (index into the model's clips).
    pub clip: usize,
    /// Sample times (f32-exact, increasing).
    pub times: Vec<f64>,
    /// Per time, every helper's transform in its parent's frame.
    pub transforms: Vec<Vec<DAffine3>>,
}

/// The written model and the nodes of the helpers it got.
#[derive(Clone, Debug)]
pub struct Applied {
    /// The model with helpers.
    pub model: Model,
    /// The helper nodes, in the order added.
    pub helper_nodes: Vec<usize>,
}

fn f32_exact(v: f64) -> f64 {
    f64::from(v as f32)
}

/// Writes the fit (see the module docs). Helpers no vertex uses are left out.
pub fn apply(
    model: &Model,
    subject: &Subject,
    fit: &Fit,
    seeds: &[Seed],
    method: SkinningMethod,
    keys: &[ClipKeys],
    drivers: &[HelperDriver],
) -> Result<Applied, String> {
    let users = fit.users(subject);
    let used: Vec<usize> = (0..fit.helpers.len()).filter(|&h| !users[h].is_empty()).collect();
    let mut out = model.clone();
    let tag = method.name().replace('-', "");
    let mut helper_nodes = Vec::with_capacity(used.len());
    for &h in &used {
        let seed = &seeds[h];
        let helper = &fit.helpers[h];
        let parent_name = model.nodes.nodes.get(seed.parent).and_then(|n| n.name.clone());
        let base = format!("{}.{tag}{}", parent_name.unwrap_or_else(|| format!("joint{}", seed.parent)), seed.number);
        let name = unique_name(&out.nodes, &base);
        let first_ibm = helper.parent_ibm.iter().flatten().next().copied().unwrap_or(DMat4::IDENTITY);
        let pos_in_bind = first_ibm.inverse().transform_point3(helper.centre);
        let record = add_joint(&mut out, seed.parent, pos_in_bind, &name).map_err(|e| e.to_string())?;
        let node = record.created().first().copied().ok_or("a helper joint was not created")?;
        // The rest translation exactly the (f32) centre, and each skin's inverse bind matrix
        // `T(−c) · IBM_p`, so the helper's rest offset is its parent's.
        if let Some(n) = out.nodes.nodes.get_mut(node) {
            n.rest = NodeTransform::Trs(Trs { translation: helper.centre, ..Trs::default() });
            n.driver = drivers.get(h).cloned();
        }
        for (skin, ibm) in out.skins.iter_mut().zip(&helper.parent_ibm) {
            if let (Some(j), Some(ibm)) = (skin.joints.iter().position(|&n| n == node), ibm) {
                skin.joint_from_bind[j] = DMat4::from_translation(-helper.centre) * *ibm;
            }
        }
        helper_nodes.push(node);
    }
    // Joint slots of the written skins: source joints, then the used helpers in order.
    let slot_map: Vec<Vec<Option<u16>>> = model
        .skins
        .iter()
        .enumerate()
        .map(|(s, skin)| {
            let mut map = vec![None; skin.joints.len() + fit.helper_slots[s].len()];
            for (j, m) in map.iter_mut().enumerate().take(skin.joints.len()) {
                *m = u16::try_from(j).ok();
            }
            let mut next = skin.joints.len();
            for &h in &fit.helper_slots[s] {
                if !users[h].is_empty() {
                    if let (Some(old), Ok(new)) = (fit.slot_of[h][s], u16::try_from(next)) {
                        map[usize::from(old)] = Some(new);
                    }
                    next += 1;
                }
            }
            map
        })
        .collect();
    write_influences(&mut out, subject, fit, &slot_map)?;
    for clip_keys in keys {
        let clip = out.clips.get_mut(clip_keys.clip).ok_or("a fitted clip is missing")?;
        for (k, &h) in used.iter().enumerate() {
            let centre = fit.helpers[h].centre;
            let mut rotation = Vec::with_capacity(clip_keys.times.len() * 4);
            let mut translation = Vec::with_capacity(clip_keys.times.len() * 3);
            let mut previous: Option<DQuat> = None;
            for xs in &clip_keys.transforms {
                let x = xs[h];
                let mut q = DQuat::from_mat3(&x.matrix3).normalize();
                if previous.is_some_and(|p| p.dot(q) < 0.0) {
                    q = -q;
                }
                previous = Some(q);
                rotation.extend([q.x, q.y, q.z, q.w].map(f32_exact));
                let t = x.transform_point3(centre);
                translation.extend([t.x, t.y, t.z].map(f32_exact));
            }
            let node = helper_nodes[k];
            for (path, values) in [(ChannelPath::Rotation, rotation), (ChannelPath::Translation, translation)] {
                clip.channels.push(Channel {
                    node,
                    path,
                    interpolation: Interpolation::Linear,
                    times: clip_keys.times.clone(),
                    values,
                    key_interpolation: Vec::new(),
                });
            }
        }
    }
    Ok(Applied { model: out, helper_nodes })
}

/// Rebuilds the influences of every primitive the subject covers, per skin in a fresh table.
fn write_influences(
    out: &mut Model,
    subject: &Subject,
    fit: &Fit,
    slot_map: &[Vec<Option<u16>>],
) -> Result<(), String> {
    let mut by_place = std::collections::HashMap::new();
    for (i, r) in subject.refs.iter().enumerate() {
        by_place.insert((r.instance, r.primitive, r.vertex), i);
    }
    for (s, map) in slot_map.iter().enumerate() {
        let old_table = out.skins[s].sets.clone();
        let mut table = JointSetTable::new(fit.limit.max(old_table.slots()));
        let mut meshes_done = Vec::new();
        for (inst_index, inst) in out.instances.clone().iter().enumerate() {
            if inst.skin != s || meshes_done.contains(&inst.mesh) {
                continue;
            }
            meshes_done.push(inst.mesh);
            let Some(mesh) = out.meshes.get_mut(inst.mesh) else { continue };
            for (p, prim) in mesh.primitives.iter_mut().enumerate() {
                let Some(inf) = &prim.influences else { continue };
                let vertices: Vec<VertexInfluences> = (0..inf.len())
                    .map(|v| match by_place.get(&(inst_index, p, v)) {
                        Some(&i) => {
                            let mut pairs: Vec<(u16, f32)> = fit.blend[i]
                                .iter()
                                .filter_map(|&(k, w)| Some((map.get(usize::from(k)).copied().flatten()?, w as f32)))
                                .collect();
                            pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                            let sum: f32 = pairs.iter().map(|p| p.1).sum();
                            for p in &mut pairs {
                                p.1 /= sum;
                            }
                            VertexInfluences { pairs }
                        }
                        None => inf.vertex_influences(v, &old_table),
                    })
                    .collect();
                prim.influences = Some(Influences::from_vertices(&vertices, &mut table).map_err(|e| e.to_string())?);
            }
        }
        out.skins[s].sets = table;
    }
    Ok(())
}
