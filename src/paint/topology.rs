//! Per-model brush caches built once after loading: every primitive's welded adjacency and vertex
//! mirror map (both from rest positions, which painting never changes), and every skin's joint
//! mirror map (by joint names).

use super::adjacency::Adjacency;
use super::mirror::{joint_mirror_map, MirrorMap};
use crate::model::Model;

/// Connectivity and mirror map of one primitive.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrimTopology {
    /// Welded vertex neighbours.
    pub adjacency: Adjacency,
    /// The x-mirror of each vertex.
    pub mirror: MirrorMap,
}

impl PrimTopology {
    /// Builds the caches of one primitive with the default tolerances.
    #[must_use]
    pub fn new(positions: &[glam::Vec3], triangles: &[[u32; 3]]) -> Self {
        Self {
            adjacency: Adjacency::with_default_weld(positions, triangles),
            mirror: MirrorMap::with_default_tolerance(positions),
        }
    }
}

/// The brush caches of a whole model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelTopology {
    /// `prims[mesh][primitive]`.
    pub prims: Vec<Vec<PrimTopology>>,
    /// Per skin: each joint's mirror joint (itself when none).
    pub joint_mirrors: Vec<Vec<u16>>,
}

impl ModelTopology {
    /// Builds every cache of `model`.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let prims = model
            .meshes
            .iter()
            .map(|m| m.primitives.iter().map(|p| PrimTopology::new(&p.positions, &p.triangles)).collect())
            .collect();
        let joint_mirrors = model
            .skins
            .iter()
            .map(|skin| {
                let names: Vec<Option<&str>> = skin
                    .joints
                    .iter()
                    .map(|&n| model.nodes.nodes.get(n).and_then(|node| node.name.as_deref()))
                    .collect();
                joint_mirror_map(&names)
            })
            .collect();
        Self { prims, joint_mirrors }
    }

    /// The caches of primitive `prim` of mesh `mesh`.
    #[must_use]
    pub fn prim(&self, mesh: usize, prim: usize) -> Option<&PrimTopology> {
        self.prims.get(mesh)?.get(prim)
    }

    /// The mirror of `joint` in skin `skin` (itself when unknown).
    #[must_use]
    pub fn mirror_joint(&self, skin: usize, joint: u16) -> u16 {
        self.joint_mirrors.get(skin).and_then(|m| m.get(joint as usize)).copied().unwrap_or(joint)
    }
}
