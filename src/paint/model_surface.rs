//! The whole model as one paintable surface: every primitive of every skinned mesh, concatenated
//! into one vertex numbering ("surface vertices"), with one welded adjacency across primitives
//! and across UV/normal seams, and one joint numbering ("surface joints": the union of every
//! skin's joint nodes, so that skins sharing a skeleton paint the same joint).
//!
//! Invariant: coincident rest vertices (within [`super::adjacency::WELD_FRACTION`] of the
//! diagonal) share one weld group, named by its smallest surface vertex (the representative);
//! painting computes weights once per group and writes the same weights to every member.

use glam::Vec3;

use super::adjacency::Adjacency;
use super::normalize::WeightRules;
use crate::maths::point_grid::relative_tolerance;
use crate::model::{Influences, Model};

/// Marks a surface joint that a skin does not have.
pub const NO_JOINT: u16 = u16::MAX;

/// The surface's parts: every primitive of every skinned mesh, meshes in order of their first
/// skinned instance, numbered one after another.
fn surface_parts(model: &Model) -> Vec<SurfacePart> {
    let mut parts = Vec::new();
    let (mut vertices, mut triangles) = (0u32, 0u32);
    let mut seen = vec![false; model.meshes.len()];
    for (i, inst) in model.instances.iter().enumerate() {
        let Some(mesh) = model.meshes.get(inst.mesh) else { continue };
        if std::mem::replace(&mut seen[inst.mesh], true) {
            continue;
        }
        for (p, prim) in mesh.primitives.iter().enumerate() {
            parts.push(SurfacePart {
                instance: i,
                mesh: inst.mesh,
                prim: p,
                skin: inst.skin,
                first_vertex: vertices,
                vertices: prim.positions.len() as u32,
                first_triangle: triangles,
            });
            vertices += prim.positions.len() as u32;
            triangles += prim.triangles.len() as u32;
        }
    }
    parts
}

/// The surface joints (the union of every skin's joint nodes, in order of first appearance) and,
/// per skin, its joints' surface joints and the surface joints' skin joints.
fn joint_maps(model: &Model) -> (Vec<usize>, Vec<Vec<u16>>, Vec<Vec<u16>>) {
    let mut joint_nodes: Vec<usize> = Vec::new();
    let to_surface: Vec<Vec<u16>> = model
        .skins
        .iter()
        .map(|skin| {
            skin.joints
                .iter()
                .map(|&node| match joint_nodes.iter().position(|&n| n == node) {
                    Some(k) => k as u16,
                    None => {
                        joint_nodes.push(node);
                        (joint_nodes.len() - 1) as u16
                    }
                })
                .collect()
        })
        .collect();
    let to_skin = to_surface
        .iter()
        .map(|map| {
            let mut back = vec![NO_JOINT; joint_nodes.len()];
            for (local, &s) in map.iter().enumerate() {
                if back[s as usize] == NO_JOINT {
                    back[s as usize] = local as u16;
                }
            }
            back
        })
        .collect();
    (joint_nodes, to_surface, to_skin)
}

/// One primitive's place in the surface numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfacePart {
    /// The first instance drawing the mesh (its deformed positions are painted on).
    pub instance: usize,
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub prim: usize,
    /// The skin the instance uses.
    pub skin: usize,
    /// Surface number of the primitive's vertex 0.
    pub first_vertex: u32,
    /// Number of vertices.
    pub vertices: u32,
    /// Surface number of the primitive's triangle 0.
    pub first_triangle: u32,
}

/// Every skinned primitive of a model as one surface (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelSurface {
    parts: Vec<SurfacePart>,
    rest: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    adjacency: Adjacency,
    joint_nodes: Vec<usize>,
    to_surface: Vec<Vec<u16>>,
    to_skin: Vec<Vec<u16>>,
}

impl ModelSurface {
    /// Builds the surface of `model` (meshes in order of their first skinned instance).
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let parts = surface_parts(model);
        let vertices = parts.last().map_or(0, |p| (p.first_vertex + p.vertices) as usize);
        let mut rest = Vec::with_capacity(vertices);
        let mut triangles = Vec::new();
        for part in &parts {
            let prim = &model.meshes[part.mesh].primitives[part.prim];
            rest.extend_from_slice(&prim.positions);
            let (first, n) = (part.first_vertex, part.vertices);
            // Out-of-range triangles stay out of range of the whole surface too.
            triangles.extend(prim.triangles.iter().map(|t| t.map(|k| if k < n { first + k } else { u32::MAX })));
        }
        let adjacency = Adjacency::new(&rest, &triangles, relative_tolerance(&rest, super::adjacency::WELD_FRACTION));
        let (joint_nodes, to_surface, to_skin) = joint_maps(model);
        Self { parts, rest, triangles, adjacency, joint_nodes, to_surface, to_skin }
    }

    /// Takes the joints of `model` after a skeleton or weight edit, keeping the welded surface:
    /// the surface joints, their maps to each skin, and each part's skin. `model`'s meshes must
    /// be the ones the surface was built from. Returns false, changing nothing, when the model's
    /// skinned primitives are no longer the surface's parts (a mesh bound for the first time):
    /// the surface must then be built again.
    pub fn rejoint(&mut self, model: &Model) -> bool {
        let parts = surface_parts(model);
        let same = |a: &SurfacePart, b: &SurfacePart| SurfacePart { skin: b.skin, ..*a } == *b;
        if parts.len() != self.parts.len() || !parts.iter().zip(&self.parts).all(|(a, b)| same(a, b)) {
            return false;
        }
        self.parts = parts;
        (self.joint_nodes, self.to_surface, self.to_skin) = joint_maps(model);
        true
    }

    /// The primitives in surface order.
    #[must_use]
    pub fn parts(&self) -> &[SurfacePart] {
        &self.parts
    }

    /// Number of surface vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rest.len()
    }

    /// Whether the surface has no vertex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// Rest positions of every surface vertex.
    #[must_use]
    pub fn rest_positions(&self) -> &[Vec3] {
        &self.rest
    }

    /// Every triangle in surface numbering.
    #[must_use]
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The welded adjacency over surface vertices (across primitives).
    #[must_use]
    pub fn adjacency(&self) -> &Adjacency {
        &self.adjacency
    }

    /// The part holding primitive `prim` of mesh `mesh`.
    #[must_use]
    pub fn part_of(&self, mesh: usize, prim: usize) -> Option<usize> {
        self.parts.iter().position(|p| p.mesh == mesh && p.prim == prim)
    }

    /// The part and local vertex of surface vertex `g`.
    #[must_use]
    pub fn locate(&self, g: u32) -> Option<(usize, u32)> {
        let k = self.parts.partition_point(|p| p.first_vertex <= g).checked_sub(1)?;
        let part = &self.parts[k];
        (g - part.first_vertex < part.vertices).then_some((k, g - part.first_vertex))
    }

    /// Surface vertex `g` numbered as the files number it: its part's first surface number plus
    /// its index in the file (the model may hold a primitive's vertices in another order,
    /// `model::vertex_order`), for showing to the user.
    #[must_use]
    pub fn file_number(&self, model: &Model, g: u32) -> u32 {
        let Some((k, v)) = self.locate(g) else { return g };
        let part = &self.parts[k];
        let order = model.meshes.get(part.mesh).and_then(|m| m.primitives.get(part.prim)).map(|p| &p.order);
        part.first_vertex + order.map_or(v, |o| o.file_index(v as usize) as u32)
    }

    /// Surface joint of joint `local` of skin `skin`.
    #[must_use]
    pub fn surface_joint(&self, skin: usize, local: u16) -> Option<u16> {
        self.to_surface.get(skin)?.get(local as usize).copied()
    }

    /// Joint of skin `skin` for surface joint `joint` (`None` when the skin lacks that node).
    #[must_use]
    pub fn skin_joint(&self, skin: usize, joint: u16) -> Option<u16> {
        self.to_skin.get(skin)?.get(joint as usize).copied().filter(|&j| j != NO_JOINT)
    }

    /// The node of every surface joint.
    #[must_use]
    pub fn joint_nodes(&self) -> &[usize] {
        &self.joint_nodes
    }

    /// The weight rules in surface joints: `locked(node)` for each joint, the influence limit.
    #[must_use]
    pub fn rules(&self, locked: impl Fn(usize) -> bool, limit: usize) -> WeightRules {
        WeightRules { locked: self.joint_nodes.iter().map(|&n| locked(n)).collect(), limit, mask: None }
    }

    /// Skin `skin`'s rules (locks by skin joint) in surface joints.
    #[must_use]
    pub fn rules_from_skin(&self, skin: usize, rules: &WeightRules) -> WeightRules {
        let mut out =
            WeightRules { locked: vec![false; self.joint_nodes.len()], limit: rules.limit, mask: rules.mask.clone() };
        for (local, &s) in self.to_surface.get(skin).map(Vec::as_slice).unwrap_or_default().iter().enumerate() {
            out.locked[s as usize] |= rules.is_locked(local as u16);
        }
        out
    }

    /// The `(surface joint, weight)` pairs of surface vertex `g` (joints ascending per skin).
    #[must_use]
    pub fn weights(&self, model: &Model, g: u32) -> Vec<(u16, f32)> {
        let mut out = Vec::new();
        self.append_weights(model, g, &mut out);
        out
    }

    /// [`ModelSurface::weights`] appended to `out` (no allocation once `out` has room); returns
    /// how many pairs were appended.
    pub fn append_weights(&self, model: &Model, g: u32, out: &mut Vec<(u16, f32)>) -> usize {
        let Some((part, inf, v)) = self.vertex_influences(model, g) else { return 0 };
        let Some(skin) = model.skins.get(part.skin) else { return 0 };
        let map = &self.to_surface[part.skin];
        let before = out.len();
        out.extend(inf.vertex(v, &skin.sets).map(|(j, w)| (map.get(j as usize).copied().unwrap_or(NO_JOINT), w)));
        out.len() - before
    }

    /// Asks the processor to bring surface vertex `g`'s influences into cache ahead of
    /// [`ModelSurface::append_weights`] (a hint: no effect on results).
    #[inline]
    pub fn prefetch_weights(&self, model: &Model, g: u32) {
        if let Some((_, inf, v)) = self.vertex_influences(model, g) {
            inf.prefetch(v);
        }
    }

    /// Surface vertex `g`'s part, its primitive's influences and its index in them.
    fn vertex_influences<'m>(&self, model: &'m Model, g: u32) -> Option<(&SurfacePart, &'m Influences, usize)> {
        let (k, v) = self.locate(g)?;
        let part = &self.parts[k];
        let prim = model.meshes.get(part.mesh)?.primitives.get(part.prim)?;
        let inf = prim.influences.as_ref().filter(|inf| (v as usize) < inf.len())?;
        Some((part, inf, v as usize))
    }

    /// Surface positions of the deformed buffers `deformed[instance][prim]` into `out` (rest
    /// positions where a buffer is missing or stale), and likewise their normals into `normals`.
    pub fn gather_deformed(
        &self,
        deformed: &[Vec<crate::skinning::DeformedPrimitive>],
        out: &mut Vec<Vec3>,
        normals: &mut Vec<Vec3>,
    ) {
        out.clear();
        normals.clear();
        for part in &self.parts {
            let range = part.first_vertex as usize..(part.first_vertex + part.vertices) as usize;
            match deformed.get(part.instance).and_then(|d| d.get(part.prim)) {
                Some(buf) if buf.positions.len() == range.len() => {
                    out.extend_from_slice(&buf.positions);
                    if buf.normals.len() == range.len() {
                        normals.extend_from_slice(&buf.normals);
                    } else {
                        normals.resize(out.len(), Vec3::ZERO);
                    }
                }
                _ => {
                    out.extend_from_slice(&self.rest[range]);
                    normals.resize(out.len(), Vec3::ZERO);
                }
            }
        }
    }

    /// Brings surface buffers gathered by [`ModelSurface::gather_deformed`] up to date after
    /// only the vertices of `touched` changed in `deformed` (a dab's re-skin), copying just those.
    pub fn patch_deformed(
        &self,
        deformed: &[Vec<crate::skinning::DeformedPrimitive>],
        touched: &[crate::model::TouchedPrimitive],
        out: &mut [Vec3],
        normals: &mut [Vec3],
    ) {
        for t in touched {
            for part in self.parts.iter().filter(|p| p.mesh == t.mesh && p.prim == t.prim) {
                let Some(buf) = deformed.get(part.instance).and_then(|d| d.get(part.prim)) else { continue };
                if buf.positions.len() != part.vertices as usize {
                    continue;
                }
                for &v in t.vertices.iter().filter(|&&v| v < part.vertices) {
                    let g = (part.first_vertex + v) as usize;
                    if let (Some(o), Some(&p)) = (out.get_mut(g), buf.positions.get(v as usize)) {
                        *o = p;
                    }
                    if let (Some(o), Some(&n)) = (normals.get_mut(g), buf.normals.get(v as usize)) {
                        *o = n;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_round_trips() {
        let s = ModelSurface {
            parts: vec![
                SurfacePart { instance: 0, mesh: 0, prim: 0, skin: 0, first_vertex: 0, vertices: 3, first_triangle: 0 },
                SurfacePart { instance: 0, mesh: 0, prim: 1, skin: 0, first_vertex: 3, vertices: 0, first_triangle: 1 },
                SurfacePart { instance: 1, mesh: 1, prim: 0, skin: 1, first_vertex: 3, vertices: 2, first_triangle: 1 },
            ],
            rest: vec![Vec3::ZERO; 5],
            ..ModelSurface::default()
        };
        assert_eq!(s.locate(0), Some((0, 0)));
        assert_eq!(s.locate(2), Some((0, 2)));
        assert_eq!(s.locate(3), Some((2, 0)), "an empty part is skipped");
        assert_eq!(s.locate(4), Some((2, 1)));
        assert_eq!(s.locate(5), None);
    }
}
