//! Morph targets of meshes drawn without a skin (a face, an eye or a prop with blend shapes on a
//! plain node): each such node's morphed surface for a pose, `rest + Σ weight · target` in model
//! order, which the viewport and pictures draw at the node's matrix. Skinned meshes are morphed by
//! the [`super::Deformer`] before skinning instead.

use glam::Vec3;

use crate::model::{Model, MorphTarget, Primitive, VertexOrder};
use crate::rig::Pose;

/// One primitive's morphed surface.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphedSurface {
    /// Morphed positions in model order.
    pub positions: Vec<Vec3>,
    /// Morphed normals in model order (empty when the primitive carries none: the viewport
    /// computes them from the triangles).
    pub normals: Vec<Vec3>,
}

/// The morphed surfaces of one unskinned mesh node.
#[derive(Clone, Debug, Default)]
struct NodeSurfaces {
    node: usize,
    mesh: usize,
    primitives: Vec<MorphedSurface>,
    /// The weights the surfaces hold.
    weights: Vec<f32>,
    /// Address and length of each primitive's rest positions the surfaces were made from.
    sources: Vec<(usize, usize)>,
}

/// Every unskinned mesh node with morph targets, morphed to a pose; kept between poses and
/// computed again only where the node's weights (or the model) changed.
#[derive(Clone, Debug, Default)]
pub struct RigidMorphs {
    nodes: Vec<NodeSurfaces>,
    /// Bumped whenever a surface changes.
    revision: u64,
}

impl RigidMorphs {
    /// Brings every unskinned morphed node of `model` to `pose`'s weights (the node's weights in
    /// `pose`, else its mesh's defaults). Returns whether any surface changed.
    pub fn update(&mut self, model: &Model, pose: &Pose) -> bool {
        let rigid: Vec<(usize, usize)> = model
            .rigid_instances
            .iter()
            .copied()
            .filter(|&(_, m)| model.meshes.get(m).is_some_and(|m| !m.morphs.is_empty()))
            .collect();
        let mut changed = rigid.len() != self.nodes.len();
        self.nodes.retain(|n| rigid.contains(&(n.node, n.mesh)));
        for (k, &(node, mesh)) in rigid.iter().enumerate() {
            if self.nodes.get(k).is_none_or(|n| (n.node, n.mesh) != (node, mesh)) {
                self.nodes.insert(k, NodeSurfaces { node, mesh, ..NodeSurfaces::default() });
            }
            let mesh = &model.meshes[mesh];
            let weights = pose.morph_weights.get(&node).map_or(mesh.morphs.default_weights.as_slice(), Vec::as_slice);
            let slot = &mut self.nodes[k];
            let sources: Vec<(usize, usize)> =
                mesh.primitives.iter().map(|p| (p.positions.as_ptr() as usize, p.positions.len())).collect();
            if slot.sources == sources && slot.weights == weights {
                continue;
            }
            slot.primitives.resize_with(mesh.primitives.len(), MorphedSurface::default);
            for (prim, (p, out)) in mesh.primitives.iter().zip(&mut slot.primitives).enumerate() {
                let targets = mesh.morphs.primitives.get(prim).map_or(&[][..], Vec::as_slice);
                morph_primitive(p, targets, weights, out);
            }
            slot.sources = sources;
            slot.weights.clear();
            slot.weights.extend_from_slice(weights);
            changed = true;
        }
        self.nodes.truncate(rigid.len());
        if changed {
            self.revision += 1;
        }
        changed
    }

    /// The morphed surface of primitive `prim` of unskinned mesh node `node`, if it has targets.
    #[must_use]
    pub fn surface(&self, node: usize, prim: usize) -> Option<&MorphedSurface> {
        self.nodes.iter().find(|n| n.node == node)?.primitives.get(prim)
    }

    /// Bumped whenever a surface changes (the viewport uploads when it sees a new value).
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }
}

/// `out` = primitive `p`'s rest surface plus `Σ weights[t] · targets[t]`; displacements name
/// file vertices, found in the model through the primitive's vertex order.
fn morph_primitive(p: &Primitive, targets: &[MorphTarget], weights: &[f32], out: &mut MorphedSurface) {
    out.positions.clear();
    out.positions.extend_from_slice(&p.positions);
    out.normals.clear();
    if let Some(n) = p.normals.as_ref().filter(|n| n.len() == p.positions.len()) {
        out.normals.extend_from_slice(n);
    }
    let order: &VertexOrder = &p.order;
    for (target, &w) in targets.iter().zip(weights).filter(|(_, &w)| w != 0.0) {
        for (k, (&f, &d)) in target.vertices.iter().zip(&target.positions).enumerate() {
            let v = order.model_index(f as usize);
            if let Some(pos) = out.positions.get_mut(v) {
                *pos += w * d;
            }
            if let (Some(n), Some(dn)) = (out.normals.get_mut(v), target.normals.get(k)) {
                *n += w * *dn;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mesh, MeshMorphs, Topology};

    fn model() -> Model {
        let target = MorphTarget::from_dense(&[Vec3::ZERO, Vec3::Z, Vec3::ZERO], &[]);
        let primitive = Primitive {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            normals: None,
            triangles: vec![[0, 1, 2]],
            topology: Topology::Triangles,
            influences: None,
            order: VertexOrder::default(),
        };
        let morphs =
            MeshMorphs { names: vec![Some("Lift".into())], default_weights: vec![0.5], primitives: vec![vec![target]] };
        let mesh = Mesh { name: None, primitives: vec![primitive], morphs };
        Model { meshes: vec![mesh], rigid_instances: vec![(0, 0)], ..Model::default() }
    }

    #[test]
    fn an_unskinned_node_follows_its_default_then_posed_weights_and_returns_to_rest() {
        let model = model();
        let mut morphs = RigidMorphs::default();
        assert!(morphs.update(&model, &Pose::rest()));
        assert_eq!(morphs.surface(0, 0).unwrap().positions, vec![Vec3::ZERO, Vec3::new(1.0, 0.0, 0.5), Vec3::Y]);
        let rev = morphs.revision();
        assert!(!morphs.update(&model, &Pose::rest()), "the same weights changed nothing");
        assert_eq!(morphs.revision(), rev);
        let mut pose = Pose::rest();
        pose.morph_weights.insert(0, vec![0.0]);
        assert!(morphs.update(&model, &pose));
        assert_eq!(morphs.surface(0, 0).unwrap().positions, model.meshes[0].primitives[0].positions);
        assert!(morphs.revision() > rev);
        assert!(morphs.surface(1, 0).is_none());
    }
}
