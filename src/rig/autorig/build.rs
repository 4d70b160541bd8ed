//! A fitted plan turned into the model's skeleton: one skin over every unskinned mesh placed
//! alike (an OBJ's objects all are), the plan's joints added parents first, each turned to the
//! orientation convention with its tail and flexion side; mesh nodes whose names a joint needs are
//! renamed `NAME_mesh`. All of it is one undo record.

use glam::DVec3;

use super::{AutorigError, FitOptions, Object, Plan};
use crate::model::{Model, Topology};
use crate::rig::skeleton_edit::{
    add_joint, create_skin, meshes_in_space, orient_joint_to, rename_node, unique_name, SkeletonRecord,
};

/// The character to fit: every unskinned mesh of the default scene placed like the first one,
/// as one triangle soup in their shared (bind) space.
#[derive(Clone, Debug, Default)]
pub struct Source {
    /// Vertex positions.
    pub positions: Vec<DVec3>,
    /// Triangles over them.
    pub triangles: Vec<[u32; 3]>,
    /// The mesh nodes they come from.
    pub mesh_nodes: Vec<usize>,
    /// The objects: one per mesh node, named after it.
    pub objects: Vec<Object>,
    /// Mesh nodes left out, each with the reason.
    pub skipped: Vec<String>,
}

/// Gathers the [`Source`] of `model`. Refused for a model that already has a skin or no mesh.
pub fn source(model: &Model) -> Result<Source, AutorigError> {
    if !model.skins.is_empty() || !model.instances.is_empty() {
        return Err(AutorigError::AlreadyRigged);
    }
    let first = model.rigid_instances.iter().map(|r| r.0).min().ok_or(AutorigError::NoMesh)?;
    let mut globals = Vec::new();
    crate::rig::fk::model_from_node(&model.nodes, &crate::rig::Pose::rest(), &mut globals);
    let space = globals.get(first).copied().unwrap_or_default();
    let (mesh_nodes, skipped) = meshes_in_space(model, space);
    let mut out = Source { skipped: skipped.iter().map(|(_, e)| e.to_string()).collect(), ..Source::default() };
    for &node in &mesh_nodes {
        let Some(&(_, mesh)) = model.rigid_instances.iter().find(|r| r.0 == node) else { continue };
        let first = out.triangles.len();
        for prim in &model.meshes[mesh].primitives {
            if prim.topology != Topology::Triangles {
                continue;
            }
            let base = out.positions.len() as u32;
            out.positions.extend(prim.positions.iter().map(|p| p.as_dvec3()));
            out.triangles.extend(prim.triangles.iter().map(|t| t.map(|i| i + base)));
        }
        out.objects.push(Object { name: model.nodes.key(node), triangles: first..out.triangles.len() });
    }
    out.mesh_nodes = mesh_nodes;
    if out.triangles.is_empty() {
        return Err(AutorigError::NoMesh);
    }
    Ok(out)
}

impl Source {
    /// Fits `options` to the source (`super::fit_objects` over its objects).
    pub fn fit(&self, options: &FitOptions) -> Result<Plan, AutorigError> {
        super::fit_objects(&self.positions, &self.triangles, &self.objects, options)
    }
}

fn edit_error(e: impl std::fmt::Display) -> AutorigError {
    AutorigError::Build(e.to_string())
}

/// Builds `plan` into `model` over the mesh nodes `mesh_nodes` (see the module docs); returns
/// the one record that undoes all of it. On an error the model is left as it was.
pub fn build_rig(model: &mut Model, plan: &Plan, mesh_nodes: &[usize]) -> Result<SkeletonRecord, AutorigError> {
    let Some(root) = plan.joints.first().filter(|j| j.parent.is_none()) else {
        return Err(AutorigError::Build("the plan has no root joint".into()));
    };
    let mut record: Option<SkeletonRecord> = None;
    let result = (|| {
        let mut push = |r: SkeletonRecord| {
            record = Some(match record.take() {
                Some(prev) => prev.then(r),
                None => r,
            });
        };
        for (n, node) in model.nodes.nodes.clone().iter().enumerate() {
            if let Some(name) = node.name.as_deref().filter(|name| plan.joint(name).is_some()) {
                let new = unique_name(&model.nodes, &format!("{name}_mesh"));
                push(rename_node(model, n, &new).map_err(edit_error)?);
            }
        }
        let rec = create_skin(model, mesh_nodes, root.head, &root.name).map_err(edit_error)?;
        let mut nodes = rec.created().to_vec();
        push(rec);
        for joint in &plan.joints[1..] {
            let parent = joint
                .parent
                .and_then(|p| nodes.get(p).copied())
                .ok_or_else(|| AutorigError::Build(format!("{} comes before its parent in the plan", joint.name)))?;
            let rec = add_joint(model, parent, joint.head, &joint.name).map_err(edit_error)?;
            nodes.extend(rec.created().first().copied());
            push(rec);
        }
        for (joint, &node) in plan.joints.iter().zip(&nodes) {
            push(orient_joint_to(model, node, joint.tail, joint.flex).map_err(edit_error)?);
        }
        Ok(())
    })();
    match (result, record) {
        (Ok(()), Some(record)) => Ok(record),
        (Ok(()), None) => Err(AutorigError::Build("nothing was built".into())),
        (Err(e), record) => {
            if let Some(record) = record {
                record.undo(model);
            }
            Err(e)
        }
    }
}
