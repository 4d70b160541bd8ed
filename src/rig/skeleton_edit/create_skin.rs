//! Create a skin for an unskinned mesh: a root joint placed by the caller, JOINTS_0/WEIGHTS_0
//! with every vertex on the root (until automatic weights bind it), and the inverse bind matrix.
//!
//! glTF ignores the transform of a node that draws a skinned mesh, so the mesh node's rest global
//! `N` is baked into the inverse bind matrices (`joint_from_bind = inverse(root global) · N`):
//! vertex data is not touched, the mesh stays exactly where it was drawn, and bind space is the
//! mesh's own space. Every joint added later takes the same rest offset `N`.

use glam::{DMat4, DVec3};

use super::{check_name, check_node, describe, record_edit, rest_globals, SkeletonEditError, SkeletonRecord};
use crate::model::influences::VertexInfluences;
use crate::model::{Influences, JointSetTable, Model, Node, NodeTransform, NodeTree, Skin, SkinnedInstance, Trs};

/// Influence slots of a new skin's table (room for four weights per vertex before it grows).
const NEW_SKIN_SLOTS: usize = 4;

/// Gives the unskinned mesh drawn by `mesh_node` a new skin whose only joint is a new root joint
/// named `root_name` at `root_in_bind` (the mesh's own coordinates), placed beside the mesh node
/// (a child of its parent, or a scene root). Every vertex of every primitive gets weight 1 on the
/// root. Refused for a node without a mesh, an already skinned one, one outside the default
/// scene, and a mesh other nodes draw too. [`SkeletonRecord::created`] holds the root.
pub fn create_skin(
    model: &mut Model,
    mesh_node: usize,
    root_in_bind: DVec3,
    root_name: &str,
) -> Result<SkeletonRecord, SkeletonEditError> {
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
    if !root_in_bind.is_finite() {
        return Err(SkeletonEditError::NotFinite(format!("{root_name:?}")));
    }
    check_name(&model.nodes, root_name, None)?;
    record_edit(model, "Create Skin", |model, log| {
        let globals = rest_globals(&model.nodes);
        let mesh_global = globals[mesh_node];
        let parent = model.nodes.nodes[mesh_node].parent;
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
        let skin_index = model.skins.len();
        nodes[mesh_node].skin = Some(skin_index);
        model.nodes = NodeTree::new(nodes, roots);
        let root_global = parent_global * DMat4::from_translation(translation);
        let mut sets = JointSetTable::new(NEW_SKIN_SLOTS);
        for (p, prim) in model.meshes[mesh].primitives.iter_mut().enumerate() {
            let all_root = vec![VertexInfluences { pairs: vec![(0, 1.0)] }; prim.positions.len()];
            // One joint per vertex always fits the table.
            prim.influences = Influences::from_vertices(&all_root, &mut sets).ok();
            log.influences.push((mesh, p));
        }
        let skin_name =
            model.nodes.nodes[mesh_node].name.as_deref().map_or_else(|| "Skin".to_owned(), |n| format!("{n} skin"));
        model.skins.push(Skin {
            name: Some(skin_name),
            joints: vec![root],
            joint_from_bind: vec![root_global.inverse() * mesh_global],
            sets,
        });
        model.rigid_instances.retain(|(n, _)| *n != mesh_node);
        model.instances.push(SkinnedInstance { node: mesh_node, mesh, skin: skin_index });
        model.instances.sort_by_key(|i| i.node);
        log.created.push(root);
        Ok(())
    })
}
