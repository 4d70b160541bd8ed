//! Per-model brush caches built once after loading: the model as one surface (every skinned
//! primitive, welded across primitives and seams; see [`ModelSurface`]), the vertex mirror map
//! over that surface (from rest positions, which painting never changes; the mirror plane is the
//! model's symmetry plane through the origin, found over every primitive together (halves that
//! are separate parts mirror each other), x unless the model is clearly symmetric across y or z;
//! vertices without an exact mirror use the closest point of the mirrored surface), and
//! the joint mirror map over the surface joints (by mirrored bind position, names where the
//! position agrees or is missing; see [`super::mirror_match`]).

use super::mirror::MirrorMap;
use super::mirror_match::{closest_mirrors, joint_mirror_by_position, ClosestMirror, JointMirror};
use super::model_surface::ModelSurface;
use crate::model::Model;
use crate::rig::symmetry::{joint_mirror_map, symmetry_axis};

/// The brush caches of a whole model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelTopology {
    /// Every skinned primitive as one welded surface.
    pub surface: ModelSurface,
    /// The mirror of each surface vertex (across primitives).
    pub mirror: MirrorMap,
    /// Each surface joint's mirror joint (itself when none).
    pub joint_mirrors: Vec<u16>,
    /// Joints whose mirror by name is not at the mirrored position: `(joint, by name, by
    /// position)` (the position was taken).
    pub joint_mirror_disagreements: Vec<(u16, u16, u16)>,
    /// Vertices without an exact mirror, with the closest point of the mirrored surface,
    /// ascending by vertex.
    pub closest_mirrors: Vec<ClosestMirror>,
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

    /// Like [`ModelTopology::new`], reporting the share done (0 to 1, by stage) to `progress`
    /// (for a build on a background thread).
    #[must_use]
    pub fn with_progress(model: &Model, progress: &dyn Fn(f32)) -> Self {
        let axis = symmetry_axis(model.meshes.iter().flat_map(|m| m.primitives.iter().map(|p| &p.positions[..])));
        Self::build(model, axis, progress)
    }

    /// Builds every cache of `model`, mirroring vertices across the plane normal to `axis`.
    #[must_use]
    pub fn with_axis(model: &Model, axis: usize) -> Self {
        Self::build(model, axis, &|_| {})
    }

    fn build(model: &Model, axis: usize, progress: &dyn Fn(f32)) -> Self {
        progress(0.05);
        let surface = ModelSurface::new(model);
        progress(0.4);
        let mirror = MirrorMap::across_with_default_tolerance(surface.rest_positions(), axis);
        progress(0.6);
        let by_position = joint_mirrors(model, &surface, axis);
        let unmatched: Vec<u32> = (0..surface.len() as u32).filter(|&g| mirror.get(g).is_none()).collect();
        progress(0.7);
        let closest_mirrors = closest_mirrors(&surface, axis, &unmatched);
        Self {
            surface,
            mirror,
            joint_mirrors: by_position.map,
            joint_mirror_disagreements: by_position.disagreements,
            closest_mirrors,
            mirror_axis: axis.min(2),
        }
    }

    /// Takes the skeleton of `model` after a skeleton or weight edit, keeping the welded surface
    /// and the vertex mirrors (seconds at a million vertices): the surface joints and the joint
    /// mirrors are found again. `model`'s meshes must be the ones the caches were built from.
    /// Returns false, changing nothing, when its skinned primitives changed (see
    /// [`ModelSurface::rejoint`]): the caches must then be built again.
    pub fn rejoint(&mut self, model: &Model) -> bool {
        if !self.surface.rejoint(model) {
            return false;
        }
        let by_position = joint_mirrors(model, &self.surface, self.mirror_axis);
        self.joint_mirrors = by_position.map;
        self.joint_mirror_disagreements = by_position.disagreements;
        true
    }

    /// The mirror of surface vertex `g`: its exact mirror, else the nearest corner of the closest
    /// point of the mirrored surface.
    #[must_use]
    pub fn mirror_vertex(&self, g: u32) -> Option<u32> {
        self.mirror.get(g).or_else(|| self.closest_mirror(g).map(ClosestMirror::nearest_corner))
    }

    /// The closest-point mirror of a vertex without an exact mirror.
    #[must_use]
    pub fn closest_mirror(&self, g: u32) -> Option<&ClosestMirror> {
        let i = self.closest_mirrors.binary_search_by_key(&g, |c| c.vertex).ok()?;
        self.closest_mirrors.get(i)
    }

    /// The mirror of surface joint `joint` (itself when unknown).
    #[must_use]
    pub fn mirror_joint(&self, joint: u16) -> u16 {
        self.joint_mirrors.get(joint as usize).copied().unwrap_or(joint)
    }
}

/// The mirror of every surface joint: by mirrored bind position, by name where the position
/// agrees or is missing.
fn joint_mirrors(model: &Model, surface: &ModelSurface, axis: usize) -> JointMirror {
    let names: Vec<Option<&str>> =
        surface.joint_nodes().iter().map(|&n| model.nodes.nodes.get(n).and_then(|node| node.name.as_deref())).collect();
    joint_mirror_by_position(model, surface, axis, &joint_mirror_map(&names))
}
