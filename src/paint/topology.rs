//! Per-model brush caches built once after loading: the model as one surface (every skinned
//! primitive, welded across primitives and seams; see [`ModelSurface`]), the vertex mirror map
//! over that surface (from rest positions, which painting never changes; the mirror plane is the
//! model's symmetry plane through the origin, x unless the model is clearly symmetric across y
//! or z), and the joint mirror map over the surface joints (by joint names).

use super::mirror::{joint_mirror_map, symmetry_axis, MirrorMap};
use super::model_surface::ModelSurface;
use crate::model::Model;

/// The brush caches of a whole model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelTopology {
    /// Every skinned primitive as one welded surface.
    pub surface: ModelSurface,
    /// The mirror of each surface vertex (across primitives).
    pub mirror: MirrorMap,
    /// Each surface joint's mirror joint (itself when none).
    pub joint_mirrors: Vec<u16>,
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
        let surface = ModelSurface::new(model);
        let mirror = MirrorMap::across_with_default_tolerance(surface.rest_positions(), axis);
        let names: Vec<Option<&str>> = surface
            .joint_nodes()
            .iter()
            .map(|&n| model.nodes.nodes.get(n).and_then(|node| node.name.as_deref()))
            .collect();
        let joint_mirrors = joint_mirror_map(&names);
        Self { surface, mirror, joint_mirrors, mirror_axis: axis.min(2) }
    }

    /// The mirror of surface joint `joint` (itself when unknown).
    #[must_use]
    pub fn mirror_joint(&self, joint: u16) -> u16 {
        self.joint_mirrors.get(joint as usize).copied().unwrap_or(joint)
    }
}
