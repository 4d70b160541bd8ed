//! Gradient fill between two points of the surface: the active joint's weight goes from a start
//! value at A to an end value at B, linear in `d_A / (d_A + d_B)` with `d` the distance over the
//! welded surface (Dijkstra on edge lengths of the rest mesh, across primitives and seams, so the
//! gradient follows a limb rather than cutting through the body), then the weight rules.
//!
//! Every weld group the rules' mask lets change and that both points reach gets its value (with
//! "restrict to selection" on, only the selection: the usual way to fill a twist zone). One undo
//! record; lowering a vertex's only free influence moves the removed weight to the nearest joint
//! in the hierarchy, as Subtract does.

use glam::Vec3;

use super::dab::fallback_joint;

use super::error::PaintError;
use super::model_surface::ModelSurface;
use super::normalize::WeightRules;
use super::surface::{bounded_distances, SurfaceScratch};
use super::tools::write_groups;
use super::weight_table::{set_joint_held, TableOutcome};
use super::writable::ensure_all_influences;
use crate::model::Model;
use crate::model::StrokeRecord;

/// A point of the surface: a triangle (surface numbering) and barycentric weights on it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint {
    /// Index into [`ModelSurface::triangles`].
    pub triangle: u32,
    /// Barycentric weights of the point's three corners.
    pub barycentric: [f32; 3],
}

/// A gradient: the joint, its two end points and the weights there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gradient {
    /// The surface joint whose weight is filled.
    pub joint: u16,
    /// Where the weight is `start_value`.
    pub start: SurfacePoint,
    /// Where the weight is `end_value`.
    pub end: SurfacePoint,
    /// Weight at the start point, in [0, 1].
    pub start_value: f32,
    /// Weight at the end point, in [0, 1].
    pub end_value: f32,
}

/// Surface distance from `point` to every weld group (infinite where unreached), over the rest
/// positions, indexed by surface vertex.
#[must_use]
pub fn distances_from(surface: &ModelSurface, point: SurfacePoint) -> Vec<f32> {
    let rest = surface.rest_positions();
    let mut out = vec![f32::INFINITY; surface.len()];
    let Some(t) =
        surface.triangles().get(point.triangle as usize).filter(|t| t.iter().all(|&k| (k as usize) < rest.len()))
    else {
        return out;
    };
    let corners = t.map(|k| rest[k as usize]);
    let p: Vec3 = corners.iter().zip(point.barycentric).map(|(&c, b)| c * b).sum();
    let seeds: Vec<(u32, f32)> = t.iter().zip(corners).map(|(&k, c)| (k, c.distance(p))).collect();
    let mut reached = Vec::new();
    bounded_distances(surface.adjacency(), rest, &seeds, f32::INFINITY, &mut SurfaceScratch::default(), &mut reached);
    let adj = surface.adjacency();
    for (g, d) in reached {
        for &m in adj.welded(g) {
            out[m as usize] = d;
        }
    }
    out
}

/// The gradient's value at a vertex `d_a` from the start and `d_b` from the end (`None` when a
/// point does not reach it).
#[must_use]
pub fn value_at(gradient: &Gradient, d_a: f32, d_b: f32) -> Option<f32> {
    if !(d_a.is_finite() && d_b.is_finite()) {
        return None;
    }
    let t = if d_a + d_b > 0.0 { d_a / (d_a + d_b) } else { 0.0 };
    Some(gradient.start_value + (gradient.end_value - gradient.start_value) * t)
}

/// Fills the gradient (see the module docs) as one undo record.
pub fn gradient_fill(
    model: &mut Model,
    surface: &ModelSurface,
    rules: &WeightRules,
    gradient: &Gradient,
    record: &mut StrokeRecord,
) -> Result<TableOutcome, PaintError> {
    let joints = surface.joint_nodes().len();
    if gradient.joint as usize >= joints {
        return Err(PaintError::JointOutOfRange { joint: gradient.joint, joints });
    }
    if rules.is_locked(gradient.joint) {
        return Err(PaintError::JointLocked(gradient.joint));
    }
    let (da, db) = (distances_from(surface, gradient.start), distances_from(surface, gradient.end));
    let adj = surface.adjacency();
    let groups: Vec<u32> = (0..surface.len() as u32)
        .filter(|&g| adj.rep(g) == g && da[g as usize].is_finite() && db[g as usize].is_finite())
        .collect();
    let added = ensure_all_influences(model, surface)?;
    let fallback = fallback_joint(model, surface, gradient.joint);
    let mut moved = 0usize;
    let tool = write_groups(model, surface, rules, &groups, record, |g, old| {
        let Some(value) = value_at(gradient, da[g as usize], db[g as usize]) else { return Vec::new() };
        let mut w = old.to_vec();
        moved += usize::from(set_joint_held(&mut w, old, gradient.joint, value, rules, fallback));
        w
    })?;
    Ok(TableOutcome {
        tool: super::tools::ToolOutcome { layout_changed: tool.layout_changed || added, ..tool },
        moved_to_fallback: moved,
    })
}
