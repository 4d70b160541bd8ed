//! Per-model brush caches built once after loading: every primitive's welded adjacency and vertex
//! mirror map (both from rest positions, which painting never changes; the mirror plane is the
//! model's symmetry plane through the origin, x unless the model is clearly symmetric across y
//! or z), and every skin's joint mirror map (by joint names).

use super::adjacency::Adjacency;
use super::mirror::{joint_mirror_map, symmetry_axis, MirrorMap};
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
    /// Builds the caches of one primitive with the default tolerances, mirroring across x.
    #[must_use]
    pub fn new(positions: &[glam::Vec3], triangles: &[[u32; 3]]) -> Self {
        Self::with_axis(positions, triangles, 0)
    }

    /// Builds the caches of one primitive, mirroring across the plane normal to `axis`.
    #[must_use]
    pub fn with_axis(positions: &[glam::Vec3], triangles: &[[u32; 3]], axis: usize) -> Self {
        Self {
            adjacency: Adjacency::with_default_weld(positions, triangles),
            mirror: MirrorMap::across_with_default_tolerance(positions, axis),
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
    /// The axis vertices are mirrored across (0 = x, 1 = y, 2 = z; see [`symmetry_axis`]).
    pub mirror_axis: usize,
}

impl ModelTopology {
    /// Builds every cache of `model`, mirroring across the model's symmetry plane.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let axis = symmetry_axis(model.meshes.iter().flat_map(|m| m.primitives.iter().map(|p| &p.positions[..])));
        Self::with_axis(model, axis)
    }

    /// Builds every cache of `model`, mirroring vertices across the plane normal to `axis`.
    #[must_use]
    pub fn with_axis(model: &Model, axis: usize) -> Self {
        let prims = model
            .meshes
            .iter()
            .map(|m| m.primitives.iter().map(|p| PrimTopology::with_axis(&p.positions, &p.triangles, axis)).collect())
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
        Self { prims, joint_mirrors, mirror_axis: axis.min(2) }
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
