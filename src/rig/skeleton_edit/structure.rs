//! Edits of the joint tree's structure: add a joint, delete a joint (children and weights go to
//! its parent), reparent, rename.

use glam::{DMat4, DVec3};

use super::{
    check_joint, check_name, check_node, describe, first_joint, keep_rest_offsets, local_for_global, meshes_of_skin,
    record_edit, rest_globals, rest_offsets, set_local, EditLog, SkeletonEditError, SkeletonRecord,
};
use crate::model::influences::MAX_SLOTS;
use crate::model::{Model, Node, NodeTransform, NodeTree, Trs};

/// Adds a joint named `name` as the last child of joint `parent`, at `pos_in_bind` in the bind
/// space of `parent`'s first skin. Its local frame has no rotation and unit scale; it joins every
/// skin that has `parent` (inverse bind matrix for the parent's rest offset) with no weights.
/// [`SkeletonRecord::created`] holds the new node.
pub fn add_joint(
    model: &mut Model,
    parent: usize,
    pos_in_bind: DVec3,
    name: &str,
) -> Result<SkeletonRecord, SkeletonEditError> {
    check_joint(model, parent)?;
    if !pos_in_bind.is_finite() {
        return Err(SkeletonEditError::NotFinite(format!("{name:?}")));
    }
    check_name(&model.nodes, name, None)?;
    for (s, skin) in model.skins.iter().enumerate() {
        if skin.joints.contains(&parent) && skin.joints.len() >= usize::from(u16::MAX) {
            return Err(SkeletonEditError::TooManyJoints(s));
        }
    }
    record_edit(model, "Add Joint", |model, log| {
        let globals = rest_globals(&model.nodes);
        let offsets = rest_offsets(model, &globals);
        let (s0, j0) = first_joint(model, parent).ok_or(SkeletonEditError::NoSuchNode(parent))?;
        let world = offsets[s0][j0].transform_point3(pos_in_bind);
        let translation = globals[parent].inverse().transform_point3(world);
        let new = model.nodes.len();
        let mut nodes = std::mem::take(&mut model.nodes.nodes);
        nodes.push(Node {
            name: Some(name.to_owned()),
            parent: Some(parent),
            rest: NodeTransform::Trs(Trs { translation, ..Trs::default() }),
            ..Node::default()
        });
        nodes[parent].children.push(new);
        let roots = std::mem::take(&mut model.nodes.scene_roots);
        model.nodes = NodeTree::new(nodes, roots);
        let global = globals[parent] * DMat4::from_translation(translation);
        for (skin, offs) in model.skins.iter_mut().zip(&offsets) {
            if let Some(j) = skin.joints.iter().position(|&n| n == parent) {
                skin.joints.push(new);
                skin.joint_from_bind.push(global.inverse() * offs[j]);
            }
        }
        log.created.push(new);
        Ok(())
    })
}

/// The nearest ancestor of `node` that is a joint of the skin with these joints.
fn parent_joint(tree: &NodeTree, joints: &[usize], node: usize) -> Option<usize> {
    let mut at = tree.nodes[node].parent;
    while let Some(p) = at {
        if let Some(j) = joints.iter().position(|&n| n == p) {
            return Some(j);
        }
        at = tree.nodes[p].parent;
    }
    None
}

/// Deletes joint `node`: its children move to its parent keeping their rest globals (and bind
/// positions), its weights are added to its parent joint's in every skin and each vertex is
/// renormalised, and every later node and joint index moves down by one (animation channels of
/// the node are dropped). Refused for a node that draws a mesh, and for a joint that has weights
/// but no parent joint in its skin.
pub fn delete_joint(model: &mut Model, node: usize) -> Result<SkeletonRecord, SkeletonEditError> {
    check_joint(model, node)?;
    if model.nodes.nodes[node].mesh.is_some() {
        return Err(SkeletonEditError::DrawsMesh(describe(&model.nodes, node)));
    }
    // Per skin that has the node: (skin, joint, parent joint).
    let mut plans = Vec::new();
    for (s, skin) in model.skins.iter().enumerate() {
        let Some(j) = skin.joints.iter().position(|&n| n == node) else { continue };
        let pj = parent_joint(&model.nodes, &skin.joints, node);
        if pj.is_none() {
            let weighted =
                meshes_of_skin(model, s).into_iter().any(|m| {
                    model.meshes[m].primitives.iter().filter_map(|p| p.influences.as_ref()).any(|inf| {
                        (0..inf.len()).any(|v| inf.vertex(v, &skin.sets).any(|(jj, _)| usize::from(jj) == j))
                    })
                });
            if weighted {
                return Err(SkeletonEditError::NoParentForWeights(describe(&model.nodes, node)));
            }
        }
        plans.push((s, j, pj));
    }
    record_edit(model, "Delete Joint", |model, log| {
        let globals = rest_globals(&model.nodes);
        let mut offsets = rest_offsets(model, &globals);
        for &(s, j, pj) in &plans {
            move_weights_to_parent(model, log, s, j, pj);
            model.skins[s].joints.remove(j);
            model.skins[s].joint_from_bind.remove(j);
            offsets[s].remove(j);
        }
        // Children go to the node's parent, keeping their rest globals.
        let parent = model.nodes.nodes[node].parent;
        let children = model.nodes.nodes[node].children.clone();
        for &c in &children {
            let local = match parent {
                Some(p) => globals[p].inverse() * globals[c],
                None => globals[c],
            };
            set_local(&mut model.nodes.nodes[c], local);
            model.nodes.nodes[c].parent = parent;
        }
        let siblings = match parent {
            Some(p) => &mut model.nodes.nodes[p].children,
            None => &mut model.nodes.scene_roots,
        };
        if let Some(at) = siblings.iter().position(|&c| c == node) {
            siblings.splice(at..=at, children.iter().copied());
        }
        remove_node(model, log, node);
        let mut old_globals = globals;
        old_globals.remove(node);
        keep_rest_offsets(model, &old_globals, &offsets);
        Ok(())
    })
}

/// Moves the weights of joint `j` of skin `s` onto joint `pj` (when there is one) and renumbers
/// the skin's joint-set table and every changed vertex for `j`'s removal. One pass over the
/// vertices without allocating per vertex: the sets holding `j` are known from the table.
fn move_weights_to_parent(model: &mut Model, log: &mut EditLog, s: usize, j: usize, pj: Option<usize>) {
    let renumber = |x: u16| if usize::from(x) > j { x - 1 } else { x };
    let (j16, pj16) = (j as u16, pj.map(|x| x as u16));
    let old = model.skins[s].sets.clone();
    let holds_j: Vec<bool> = (0..old.len() as u32).map(|id| old.joints(id).contains(&j16)).collect();
    let meshes = meshes_of_skin(model, s);
    let table = &mut model.skins[s].sets;
    table.remove_joint(j16, pj16.map(renumber));
    for m in meshes {
        for (p, prim) in model.meshes[m].primitives.iter_mut().enumerate() {
            let Some(inf) = prim.influences.as_mut() else { continue };
            for v in 0..inf.len() {
                let id = inf.set_of(v);
                if !holds_j.get(id as usize).copied().unwrap_or(false) {
                    continue;
                }
                let before = inf.snapshot(v);
                // Listed against the table as it was: the pivot first, the others ascending.
                let mut listed = [(0u16, 0.0f32); MAX_SLOTS];
                let n = inf.listed_pairs(v, &old, &mut listed);
                // j's weight joins its parent's (summed in f64), then all are renormalised.
                let mut merged = [(0u16, 0.0f64); MAX_SLOTS];
                let mut len = 0;
                for &(jj, w) in &listed[..n] {
                    let Some(target) = (if jj == j16 { pj16 } else { Some(jj) }) else { continue };
                    match merged[..len].iter_mut().find(|(k, _)| *k == target) {
                        Some(pair) => pair.1 += f64::from(w),
                        None => {
                            merged[len] = (target, f64::from(w));
                            len += 1;
                        }
                    }
                }
                let sum: f64 = merged[..len].iter().map(|p| p.1).sum();
                let mut pairs = [(0u16, 0.0f32); MAX_SLOTS];
                let mut kept = 0;
                for &(k, w) in merged[..len].iter().filter(|p| p.1 > 0.0) {
                    pairs[kept] = (renumber(k), (w / sum) as f32);
                    kept += 1;
                }
                // The merged set has no more joints than the old one, so it fits the table.
                if inf.set_vertex_pairs(v, &pairs[..kept], table).is_ok() {
                    log.weights.record(m, p, v as u32, before, inf.snapshot(v));
                }
            }
        }
    }
}

/// Removes node `node` from the tree (already detached from its parent, children and skins),
/// renumbering every node reference of the model.
fn remove_node(model: &mut Model, log: &mut EditLog, node: usize) {
    let map = |i: usize| if i > node { i - 1 } else { i };
    let mut nodes = std::mem::take(&mut model.nodes.nodes);
    nodes.remove(node);
    for n in &mut nodes {
        n.parent = n.parent.map(map);
        n.children.retain(|&c| c != node);
        for c in &mut n.children {
            *c = map(*c);
        }
    }
    let mut roots = std::mem::take(&mut model.nodes.scene_roots);
    roots.retain(|&r| r != node);
    for r in &mut roots {
        *r = map(*r);
    }
    model.nodes = NodeTree::new(nodes, roots);
    for skin in &mut model.skins {
        for n in &mut skin.joints {
            *n = map(*n);
        }
    }
    for inst in &mut model.instances {
        inst.node = map(inst.node);
    }
    for (n, _) in &mut model.rigid_instances {
        *n = map(*n);
    }
    for clip in &mut model.clips {
        let before = clip.channels.len();
        clip.channels.retain(|c| c.node != node);
        log.clips_changed |= clip.channels.len() != before;
        for c in &mut clip.channels {
            if c.node > node {
                c.node -= 1;
                log.clips_changed = true;
            }
        }
        let before = clip.weights.len();
        clip.weights.retain(|c| c.node != node);
        log.clips_changed |= clip.weights.len() != before;
        for c in &mut clip.weights {
            if c.node > node {
                c.node -= 1;
                log.clips_changed = true;
            }
        }
    }
    let total = model.nodes.len() + 1;
    log.node_map = Some((0..total).map(|i| (i != node).then(|| map(i))).collect());
}

/// Makes `node` a child of `new_parent` (or a scene root for `None`), keeping its rest global and
/// so its bind position and its whole subtree in place. Refused when `new_parent` is the node or
/// one of its descendants.
pub fn reparent(
    model: &mut Model,
    node: usize,
    new_parent: Option<usize>,
) -> Result<SkeletonRecord, SkeletonEditError> {
    check_node(model, node)?;
    if let Some(p) = new_parent {
        check_node(model, p)?;
        let mut at = Some(p);
        while let Some(a) = at {
            if a == node {
                return Err(SkeletonEditError::Cycle {
                    node: describe(&model.nodes, node),
                    parent: describe(&model.nodes, p),
                });
            }
            at = model.nodes.nodes[a].parent;
        }
    }
    record_edit(model, "Reparent Joint", |model, _| {
        if model.nodes.nodes[node].parent == new_parent {
            return Ok(());
        }
        let globals = rest_globals(&model.nodes);
        let offsets = rest_offsets(model, &globals);
        let in_scene = model.nodes.scene_nodes().contains(&node);
        let mut nodes = std::mem::take(&mut model.nodes.nodes);
        let mut roots = std::mem::take(&mut model.nodes.scene_roots);
        match nodes[node].parent {
            Some(p) => nodes[p].children.retain(|&c| c != node),
            None => roots.retain(|&r| r != node),
        }
        match new_parent {
            Some(p) => nodes[p].children.push(node),
            None if in_scene => roots.push(node),
            None => {}
        }
        nodes[node].parent = new_parent;
        model.nodes = NodeTree::new(nodes, roots);
        let local = local_for_global(&model.nodes, &globals, node, globals[node]);
        set_local(&mut model.nodes.nodes[node], local);
        keep_rest_offsets(model, &globals, &offsets);
        Ok(())
    })
}

/// Renames `node`. Refused for an empty name, a control character or a name another node has.
pub fn rename_node(model: &mut Model, node: usize, name: &str) -> Result<SkeletonRecord, SkeletonEditError> {
    check_node(model, node)?;
    check_name(&model.nodes, name, Some(node))?;
    record_edit(model, "Rename Joint", |model, _| {
        model.nodes.nodes[node].name = Some(name.to_owned());
        Ok(())
    })
}
