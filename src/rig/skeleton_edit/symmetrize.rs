//! Symmetrize a subtree: mirror a joint and every joint below it across the model's symmetry
//! plane (Blender's Armature ▸ Symmetrize). The plan (`symmetrize_plan.rs`) decides the source
//! side, the side names and the partners; here joints of the other side are created, or moved
//! when they exist, with mirrored positions, frames, tails and rolls.

use glam::{DMat3, DMat4, DVec3, Vec3};

use super::symmetrize_plan::{plan, SymPlan, SymmetrizeReport, Target};
use super::{
    check_joint, first_joint, keep_rest_offsets, meshes_of_skin, record_edit, rest_globals, rest_offsets, set_local,
    EditLog, SkeletonEditError, SkeletonRecord,
};
use crate::model::{Model, Node, NodeTree};
use crate::rig::bone::roll_of_frame;
use crate::rig::symmetry::{mirror_name, symmetry_axis};

/// The reflection across the origin plane normal to `axis` (0 = x, 1 = y, 2 = z).
fn reflection(axis: usize) -> DMat4 {
    let mut d = DVec3::ONE;
    d[axis] = -1.0;
    DMat4::from_scale(d)
}

/// The axis of the plane the subtree is mirrored across: the plane the meshes of the root's skin,
/// taken together (a character may come as one object per limb), are most symmetric about (x
/// when there is no mesh).
fn chain_axis(model: &Model, root: usize) -> usize {
    let meshes = first_joint(model, root).map(|(s, _)| meshes_of_skin(model, s)).unwrap_or_default();
    let all: Vec<Vec3> = meshes
        .iter()
        .flat_map(|&m| model.meshes[m].primitives.iter().flat_map(|p| p.positions.iter().copied()))
        .collect();
    symmetry_axis([all.as_slice()])
}

/// Mirrors the subtree at joint `root` across the origin plane the skin's meshes are most
/// symmetric about. The source side is `root`'s (the side with more of the subtree's joints when
/// `root` lies on the plane); joints on the plane stay as they are. A source joint whose name has
/// no side marker gets one in the rig's scheme (`.L`/`.R`, `_l`/`_r`, `Left`/`Right`, `l_`/`r_`).
/// Its partner is the joint with the mirrored name, else an unmarked joint of the other side at
/// the mirror image (renamed), which is moved (and reparented under the mirror of its parent when
/// that makes no cycle); else a joint is created under the mirror of its parent (the parent
/// itself when that has no mirror) and joins the source joint's skins with no weights. Frames are
/// mirrored as `M · R · M` (a proper rotation), tails as `M · tail`, rolls recomputed from the
/// mirrored frame. Refused when no joint of the subtree lies off the plane. Returns the record
/// and what was created, updated, renamed, skipped and left unmatched.
pub fn symmetrize(model: &mut Model, root: usize) -> Result<(SkeletonRecord, SymmetrizeReport), SkeletonEditError> {
    check_joint(model, root)?;
    let axis = chain_axis(model, root);
    let sym = plan(model, root, axis)?;
    let record = record_edit(model, "Symmetrize", |model, log| mirror_subtree(model, log, &sym, axis))?;
    Ok((record, sym.report))
}

fn find_named(tree: &NodeTree, name: &str) -> Option<usize> {
    tree.nodes.iter().position(|n| n.name.as_deref() == Some(name))
}

fn is_ancestor_or_self(tree: &NodeTree, a: usize, mut of: usize) -> bool {
    loop {
        if a == of {
            return true;
        }
        match tree.nodes[of].parent {
            Some(p) => of = p,
            None => return false,
        }
    }
}

fn mirror_subtree(model: &mut Model, log: &mut EditLog, sym: &SymPlan, axis: usize) -> Result<(), SkeletonEditError> {
    let m = reflection(axis);
    let first_globals = rest_globals(&model.nodes);
    let mut offsets = rest_offsets(model, &first_globals);
    for pair in &sym.pairs {
        if let Some(name) = &pair.rename {
            model.nodes.nodes[pair.src].name = Some(name.clone());
        }
        if let Target::Existing { node, rename: Some(name) } = &pair.target {
            model.nodes.nodes[*node].name = Some(name.clone());
        }
    }
    let mut mirror_of: Vec<(usize, usize)> = Vec::new();
    for pair in &sym.pairs {
        let src = pair.src;
        let globals = rest_globals(&model.nodes);
        let (s, j) = first_joint(model, src).ok_or(SkeletonEditError::NoSuchNode(src))?;
        let ibm = model.skins[s].joint_from_bind[j];
        let offset = globals[src] * ibm;
        let frame = m * ibm.inverse() * m;
        let src_parent = model.nodes.nodes[src].parent;
        let parent = src_parent.map(|p| {
            mirror_of.iter().find(|(a, _)| *a == p).map(|&(_, b)| b).unwrap_or_else(|| {
                let pn = model.nodes.nodes[p].name.as_deref().and_then(mirror_name);
                pn.and_then(|n| find_named(&model.nodes, &n)).unwrap_or(p)
            })
        });
        let src_node = model.nodes.nodes[src].clone();
        let target = match &pair.target {
            Target::Existing { node: t, .. } => {
                let t = *t;
                let t_offset = first_joint(model, t).map_or(offset, |(ts, tj)| offsets[ts][tj]);
                place_existing(model, &globals, t, parent, t_offset * frame);
                t
            }
            Target::New(target_name) => {
                let t = model.nodes.len();
                let mut nodes = std::mem::take(&mut model.nodes.nodes);
                nodes.push(Node { name: Some(target_name.clone()), parent, ..Node::default() });
                let mut roots = std::mem::take(&mut model.nodes.scene_roots);
                match parent {
                    Some(p) => nodes[p].children.push(t),
                    None => roots.push(t),
                }
                model.nodes = NodeTree::new(nodes, roots);
                let parent_global = parent.map_or(DMat4::IDENTITY, |p| globals[p]);
                model.nodes.nodes[t].rest = crate::model::NodeTransform::Trs(crate::model::Trs::from_matrix(
                    parent_global.inverse() * offset * frame,
                ));
                for (skin, offs) in model.skins.iter_mut().zip(offsets.iter_mut()) {
                    if let Some(sj) = skin.joints.iter().position(|&n| n == src) {
                        if skin.joints.len() >= usize::from(u16::MAX) {
                            return Err(SkeletonEditError::TooManyJoints(s));
                        }
                        let c = offs[sj];
                        skin.joints.push(t);
                        skin.joint_from_bind.push(DMat4::IDENTITY);
                        offs.push(c);
                    }
                }
                log.created.push(t);
                t
            }
        };
        let tnode = &mut model.nodes.nodes[target];
        tnode.bone_tail = src_node.bone_tail.map(|tail| m.transform_vector3(tail));
        tnode.bone_roll = src_node.bone_roll.map(|_| {
            let b = DMat3::from_mat4(frame);
            roll_of_frame(DMat3::from_cols(b.x_axis.normalize(), b.y_axis.normalize(), b.z_axis.normalize()))
        });
        mirror_of.push((src, target));
    }
    keep_rest_offsets(model, &first_globals, &offsets);
    Ok(())
}

/// Puts existing node `t` at rest global `global` under `parent` (when that makes no cycle),
/// keeping its children's rest globals.
fn place_existing(model: &mut Model, globals: &[DMat4], t: usize, parent: Option<usize>, global: DMat4) {
    let old_parent = model.nodes.nodes[t].parent;
    if parent != old_parent && !parent.is_some_and(|p| is_ancestor_or_self(&model.nodes, t, p)) {
        let mut nodes = std::mem::take(&mut model.nodes.nodes);
        let mut roots = std::mem::take(&mut model.nodes.scene_roots);
        match old_parent {
            Some(p) => nodes[p].children.retain(|&c| c != t),
            None => roots.retain(|&r| r != t),
        }
        match parent {
            Some(p) => nodes[p].children.push(t),
            None => roots.push(t),
        }
        nodes[t].parent = parent;
        model.nodes = NodeTree::new(nodes, roots);
    }
    let parent_global = model.nodes.nodes[t].parent.map_or(DMat4::IDENTITY, |p| globals[p]);
    set_local(&mut model.nodes.nodes[t], parent_global.inverse() * global);
    let local = model.nodes.nodes[t].rest.to_matrix();
    let inv = (parent_global * local).inverse();
    for c in model.nodes.nodes[t].children.clone() {
        set_local(&mut model.nodes.nodes[c], inv * globals[c]);
    }
}
