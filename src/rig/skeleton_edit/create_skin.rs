//! Create a skin for unskinned meshes, or attach more unskinned meshes to an existing skin: a root
//! joint placed by the caller, JOINTS_0/WEIGHTS_0 with every vertex on the root (until automatic
//! weights bind it), and the inverse bind matrix.
//!
//! glTF ignores the transform of a node that draws a skinned mesh, so the mesh nodes' rest global
//! `N` is baked into the inverse bind matrices (`joint_from_bind = inverse(root global) · N`):
//! vertex data is not touched, the meshes stay exactly where they were drawn, and bind space is the
//! meshes' own space. Every joint added later takes the same rest offset `N`. One skin therefore
//! holds only meshes placed alike (the same rest global, as every object of an OBJ file is).

use glam::{DMat4, DVec3};

use super::{check_name, check_node, describe, record_edit, rest_globals, EditLog, SkeletonEditError, SkeletonRecord};
use crate::model::influences::VertexInfluences;
use crate::model::{Influences, JointSetTable, Model, Node, NodeTransform, NodeTree, Skin, SkinnedInstance, Trs};

/// Influence slots of a new skin's table (room for four weights per vertex before it grows).
const NEW_SKIN_SLOTS: usize = 4;

/// Two rest globals closer than this (relative to their size) place meshes alike.
const SAME_SPACE: f64 = 1e-9;

/// The model's mesh index drawn by the unskinned mesh node `mesh_node`, or why it cannot be skinned.
fn rigid_mesh(model: &Model, mesh_node: usize) -> Result<usize, SkeletonEditError> {
    check_node(model, mesh_node)?;
    let what = describe(&model.nodes, mesh_node);
    let Some(file_mesh) = model.nodes.nodes[mesh_node].mesh else {
        return Err(SkeletonEditError::NoMesh(what));
    };
    if model.nodes.nodes[mesh_node].skin.is_some() || model.instances.iter().any(|i| i.node == mesh_node) {
        return Err(SkeletonEditError::AlreadySkinned(what));
    }
    let Some(&(_, mesh)) = model.rigid_instances.iter().find(|(n, _)| *n == mesh_node) else {
        return Err(SkeletonEditError::NotInScene(what));
    };
    let shared = model.nodes.nodes.iter().enumerate().any(|(i, n)| i != mesh_node && n.mesh == Some(file_mesh))
        || model.instances.iter().any(|i| i.mesh == mesh);
    if shared || mesh >= model.meshes.len() {
        return Err(SkeletonEditError::SharedMesh(what));
    }
    Ok(mesh)
}

/// Whether two rest globals place a mesh alike.
fn same_space(a: &DMat4, b: &DMat4) -> bool {
    let scale = a.to_cols_array().iter().chain(b.to_cols_array().iter()).fold(1.0_f64, |m, v| m.max(v.abs()));
    a.abs_diff_eq(*b, SAME_SPACE * scale)
}

/// Checks every node of `mesh_nodes` (distinct unskinned mesh nodes placed as `space`) and returns
/// their mesh indices.
fn check_meshes(
    model: &Model,
    globals: &[DMat4],
    mesh_nodes: &[usize],
    space: (DMat4, &str),
) -> Result<Vec<usize>, SkeletonEditError> {
    let mut meshes = Vec::with_capacity(mesh_nodes.len());
    for (k, &node) in mesh_nodes.iter().enumerate() {
        let mesh = rigid_mesh(model, node)?;
        if mesh_nodes[..k].contains(&node) {
            return Err(SkeletonEditError::Repeated(describe(&model.nodes, node)));
        }
        if !same_space(&globals[node], &space.0) {
            return Err(SkeletonEditError::DifferentSpace {
                mesh: describe(&model.nodes, node),
                first: space.1.to_owned(),
            });
        }
        meshes.push(mesh);
    }
    Ok(meshes)
}

/// Makes the meshes `meshes` drawn by `mesh_nodes` instances of skin `skin` with every vertex
/// on skin joint 0.
fn bind_to_root(model: &mut Model, log: &mut EditLog, skin: usize, mesh_nodes: &[usize], meshes: &[usize]) {
    for (&node, &mesh) in mesh_nodes.iter().zip(meshes) {
        let sets = &mut model.skins[skin].sets;
        for (p, prim) in model.meshes[mesh].primitives.iter_mut().enumerate() {
            let all_root = vec![VertexInfluences { pairs: vec![(0, 1.0)] }; prim.positions.len()];
            // One joint per vertex always fits the table.
            prim.influences = Influences::from_vertices(&all_root, sets).ok();
            log.influences.push((mesh, p));
        }
        model.nodes.nodes[node].skin = Some(skin);
        model.rigid_instances.retain(|(n, _)| *n != node);
        model.instances.push(SkinnedInstance { node, mesh, skin });
    }
    model.instances.sort_by_key(|i| i.node);
}

/// Gives the unskinned meshes drawn by `mesh_nodes` (one or more, all placed alike) one new skin
/// whose only joint is a new root joint named `root_name` at `root_in_bind` (the meshes' own
/// coordinates), placed beside the first mesh node (a child of its parent, or a scene root).
/// Every vertex of every primitive gets weight 1 on the root. Refused for a node without a mesh,
/// an already skinned one, one outside the default scene, a mesh other nodes draw too, and meshes
/// placed differently. [`SkeletonRecord::created`] holds the root.
pub fn create_skin(
    model: &mut Model,
    mesh_nodes: &[usize],
    root_in_bind: DVec3,
    root_name: &str,
) -> Result<SkeletonRecord, SkeletonEditError> {
    let Some(&first) = mesh_nodes.first() else {
        return Err(SkeletonEditError::NoMesh("the list of meshes".into()));
    };
    check_node(model, first)?;
    let globals = rest_globals(&model.nodes);
    let first_name = describe(&model.nodes, first);
    let meshes = check_meshes(model, &globals, mesh_nodes, (globals[first], &first_name))?;
    if !root_in_bind.is_finite() {
        return Err(SkeletonEditError::NotFinite(format!("{root_name:?}")));
    }
    check_name(&model.nodes, root_name, None)?;
    record_edit(model, "Create Skin", |model, log| {
        let mesh_global = globals[first];
        let parent = model.nodes.nodes[first].parent;
        let parent_global = parent.map_or(DMat4::IDENTITY, |p| globals[p]);
        let translation = parent_global.inverse().transform_point3(mesh_global.transform_point3(root_in_bind));
        let root = model.nodes.len();
        let mut nodes = std::mem::take(&mut model.nodes.nodes);
        let mut roots = std::mem::take(&mut model.nodes.scene_roots);
        nodes.push(Node {
            name: Some(root_name.to_owned()),
            parent,
            rest: NodeTransform::Trs(Trs { translation, ..Trs::default() }),
            ..Node::default()
        });
        match parent {
            Some(p) => nodes[p].children.push(root),
            None => roots.push(root),
        }
        model.nodes = NodeTree::new(nodes, roots);
        let root_global = parent_global * DMat4::from_translation(translation);
        let skin_name =
            model.nodes.nodes[first].name.as_deref().map_or_else(|| "Skin".to_owned(), |n| format!("{n} skin"));
        let skin = model.skins.len();
        model.skins.push(Skin {
            name: Some(skin_name),
            joints: vec![root],
            joint_from_bind: vec![root_global.inverse() * mesh_global],
            sets: JointSetTable::new(NEW_SKIN_SLOTS),
        });
        bind_to_root(model, log, skin, mesh_nodes, &meshes);
        log.created.push(root);
        Ok(())
    })
}

/// Adds the unskinned meshes drawn by `mesh_nodes` to skin `skin`, every vertex on the skin's
/// first joint (until automatic weights bind them). Each must be placed where the skin's bind
/// space lies at rest (the rest offset of its first joint); refused as [`create_skin`] refuses.
pub fn attach_meshes(
    model: &mut Model,
    skin: usize,
    mesh_nodes: &[usize],
) -> Result<SkeletonRecord, SkeletonEditError> {
    let globals = rest_globals(&model.nodes);
    let space = skin_space(model, skin).ok_or(SkeletonEditError::NoSuchSkin(skin))?;
    let skin_name = model.skins[skin].name.clone().unwrap_or_else(|| format!("skin {skin}"));
    let meshes = check_meshes(model, &globals, mesh_nodes, (space, &format!("the meshes of {skin_name:?}")))?;
    record_edit(model, "Attach Meshes", |model, log| {
        bind_to_root(model, log, skin, mesh_nodes, &meshes);
        Ok(())
    })
}

/// Where skin `skin`'s bind space lies at rest (the rest offset of its first joint); `None` for
/// a skin without joints or out of range.
#[must_use]
pub fn skin_space(model: &Model, skin: usize) -> Option<DMat4> {
    let s = model.skins.get(skin)?;
    let (&joint, ibm) = s.joints.first().zip(s.joint_from_bind.first())?;
    Some(rest_globals(&model.nodes).get(joint).map_or(DMat4::IDENTITY, |g| *g * *ibm))
}

/// The unskinned mesh nodes of the default scene that one skin with bind space `space` (a rest
/// global, see [`skin_space`]) can take (ascending), and the others with the reason each is
/// left out.
#[must_use]
pub fn meshes_in_space(model: &Model, space: DMat4) -> (Vec<usize>, Vec<(usize, SkeletonEditError)>) {
    let globals = rest_globals(&model.nodes);
    let mut nodes: Vec<usize> = model.rigid_instances.iter().map(|r| r.0).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let (mut ok, mut skipped) = (Vec::new(), Vec::new());
    for node in nodes {
        match check_meshes(model, &globals, &[node], (space, "the other meshes")) {
            Ok(_) => ok.push(node),
            Err(e) => skipped.push((node, e)),
        }
    }
    (ok, skipped)
}
