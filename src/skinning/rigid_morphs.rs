//! Morph targets of meshes drawn without a skin (a face, an eye or a prop with blend shapes on a
//! plain node): each such node's morphed surface for a pose, `rest + Σ weight · target` in model
//! order, which the viewport and pictures draw at the node's matrix. Skinned meshes are morphed by
//! the [`super::Deformer`] before skinning instead.

use glam::Vec3;

use super::{Morph, MorphDeltas};
use crate::model::{Model, Primitive};
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
    /// Each primitive's targets, prepared by model index.
    deltas: Vec<MorphDeltas>,
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
            slot.deltas.resize_with(mesh.primitives.len(), MorphDeltas::default);
            let parts = mesh.primitives.iter().zip(slot.primitives.iter_mut().zip(&mut slot.deltas));
            for (prim, (p, (out, deltas))) in parts.enumerate() {
                let targets = mesh.morphs.primitives.get(prim).map_or(&[][..], Vec::as_slice);
                deltas.prepare(&p.positions, &p.order, targets);
                morph_primitive(p, Morph::new(deltas, weights), out);
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

/// `out` = primitive `p`'s rest surface with `morph` added (as the skinning pass adds it), or
/// the rest surface where no target is active.
fn morph_primitive(p: &Primitive, morph: Option<Morph<'_>>, out: &mut MorphedSurface) {
    let normals = p.normals.as_deref().filter(|n| n.len() == p.positions.len());
    out.positions.resize(p.positions.len(), Vec3::ZERO);
    out.normals.resize(normals.map_or(0, <[Vec3]>::len), Vec3::ZERO);
    match morph {
        Some(morph) => {
            morph.surface::<false>(&p.positions, &mut out.positions);
            if let Some(n) = normals {
                morph.surface::<true>(n, &mut out.normals);
            }
        }
        None => {
            out.positions.copy_from_slice(&p.positions);
            if let Some(n) = normals {
                out.normals.copy_from_slice(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mesh, MeshMorphs, MorphTarget, Topology, VertexOrder};

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
