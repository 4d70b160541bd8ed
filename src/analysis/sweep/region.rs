//! What one joint's sweep measures on: the vertices it influences, the bone segments they are
//! measured against, the slices along its bone, and the four artifact metrics of one step.
//!
//! - A vertex's *radius* is its distance to its own bone segment: the nearest, in the bind pose, of
//!   the swept joint's bone, its parent's bone and its child joints' bones; in a posed step the
//!   same segment moved rigidly with its joint.
//! - *collapse*: the influenced vertices are cut into slices across the swept bone (by their bind
//!   position along it); a slice's cross-section radius is the RMS radius of its vertices; collapse
//!   is the smallest posed/bind ratio over slices of at least three vertices (LBS's candy wrapper
//!   drives it to 0; 1 keeps the section).
//! - *bulge*: the largest growth of a vertex's radius beyond its bind radius, as a share of the
//!   region's RMS bind radius (0 when nothing grows; DQS's joint bulge).
//! - *flip*: the largest displacement of a vertex between consecutive steps, divided by the arc
//!   the farthest influenced vertex travels rigidly in that step (Δθ times its distance from the
//!   rotation axis): about 1 or less for a smooth motion, far above for a jump (a sign flip near
//!   180°).
//! - *volume change*: the enclosed volume of every skinned triangle together (see
//!   `analysis::volume`) against the bind pose's, minus 1; it is that of the whole closed mesh.

use glam::{DMat4, DVec3, Vec3};

use crate::analysis::poses::{bone, joint_nodes};
use crate::model::Model;
use crate::skinning::DeformedPrimitive;

/// One vertex of the region: where it lives in the deformer's output and what it is measured by.
#[derive(Clone, Copy, Debug)]
struct RegionVertex {
    instance: usize,
    primitive: usize,
    vertex: usize,
    /// Index into [`Region::segments`].
    segment: usize,
    /// Distance to that segment in the bind pose.
    rest_radius: f64,
    /// Slice index, when the vertex lies in a slice that counts.
    slice: Option<usize>,
}

/// A bone segment owned by a joint node (moves rigidly with it).
#[derive(Clone, Copy, Debug)]
struct Segment {
    node: usize,
    head: DVec3,
    tail: DVec3,
}

/// The influenced vertices of one swept joint, ready to measure posed steps against the bind pose.
#[derive(Clone, Debug)]
pub struct Region {
    vertices: Vec<RegionVertex>,
    segments: Vec<Segment>,
    /// RMS bind radius of each slice that counts.
    slice_rest: Vec<f64>,
    /// RMS bind radius of the whole region.
    rest_radius: f64,
    /// Largest bind-pose distance of an influenced vertex from the rotation axis.
    arm: f64,
}

/// Slices along the bone: about eight vertices each, between 4 and 64.
fn slice_count(vertices: usize) -> usize {
    (vertices / 8).clamp(4, 64)
}

fn point_segment_distance(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    p.distance(a + t * ab)
}

/// The bind-pose bone segment of `node`: from its head toward its child joints' centroid (a leaf
/// continues its parent's bone by that bone's length, a lone joint by `fallback`).
fn segment(model: &Model, globals: &[DMat4], joints: &[usize], node: usize, fallback: f64) -> Segment {
    let (head, dir) = bone(model, globals, node);
    let head_of = |n: usize| globals[n].w_axis.truncate();
    let children: Vec<DVec3> =
        model.nodes.nodes[node].children.iter().filter(|c| joints.contains(c)).map(|&c| head_of(c)).collect();
    let length = if children.is_empty() {
        model.nodes.nodes[node].parent.filter(|p| joints.contains(p)).map_or(fallback, |p| head.distance(head_of(p)))
    } else {
        (children.iter().copied().sum::<DVec3>() / children.len() as f64).distance(head)
    };
    Segment { node, head, tail: head + dir * length.max(1e-9) }
}

impl Region {
    /// The region of joint node `node`: every vertex (each mesh once) with weight on it, measured
    /// in `rest` (the deformation in the bind pose, whose node globals are `globals`), rotating
    /// about `axis` through the joint's head. `None` when the joint influences no vertex.
    #[must_use]
    pub fn new(
        model: &Model,
        globals: &[DMat4],
        node: usize,
        axis: DVec3,
        rest: &[Vec<DeformedPrimitive>],
    ) -> Option<Self> {
        let joints = joint_nodes(model);
        let (head, dir) = bone(model, globals, node);
        let mut owners = Vec::new();
        if let Some(p) = model.nodes.nodes[node].parent.filter(|p| joints.contains(p)) {
            owners.push(p);
        }
        owners.push(node);
        owners.extend(model.nodes.nodes[node].children.iter().copied().filter(|c| joints.contains(c)));
        let mut vertices = Vec::new();
        let mut positions = Vec::new();
        for (i, inst) in model.instances.iter().enumerate() {
            if model.instances[..i].iter().any(|e| e.mesh == inst.mesh) {
                continue;
            }
            let skin = &model.skins[inst.skin];
            let Some(joint) = skin.joints.iter().position(|&n| n == node) else { continue };
            for (pi, prim) in model.meshes[inst.mesh].primitives.iter().enumerate() {
                let Some(inf) = &prim.influences else { continue };
                for v in 0..inf.len() {
                    if inf.vertex(v, &skin.sets).any(|(j, w)| usize::from(j) == joint && w > 0.0) {
                        let p = rest.get(i).and_then(|d| d.get(pi)).and_then(|d| d.positions.get(v));
                        if let Some(p) = p {
                            positions.push(p.as_dvec3());
                            vertices.push((i, pi, v));
                        }
                    }
                }
            }
        }
        if vertices.is_empty() {
            return None;
        }
        let extent = positions.iter().map(|p| p.distance(head)).fold(0.0, f64::max);
        let segments: Vec<Segment> =
            owners.iter().map(|&o| segment(model, globals, &joints, o, 0.25 * extent.max(1e-6))).collect();
        let along: Vec<f64> = positions.iter().map(|p| (*p - head).dot(dir)).collect();
        let (lo, hi) = along.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &s| (a.min(s), b.max(s)));
        let slices = slice_count(vertices.len());
        let width = (hi - lo) / slices as f64;
        let mut region_vertices = Vec::with_capacity(vertices.len());
        let mut members = vec![0usize; slices];
        let mut sums = vec![0.0f64; slices];
        let mut arm: f64 = 0.0;
        for ((&(instance, primitive, vertex), p), s) in vertices.iter().zip(&positions).zip(&along) {
            let (segment, rest_radius) = segments
                .iter()
                .enumerate()
                .map(|(k, seg)| (k, point_segment_distance(*p, seg.head, seg.tail)))
                .fold((0, f64::INFINITY), |best, c| if c.1 < best.1 { c } else { best });
            let slice = if width > 0.0 { (((s - lo) / width) as usize).min(slices - 1) } else { 0 };
            members[slice] += 1;
            sums[slice] += rest_radius * rest_radius;
            let d = *p - head;
            arm = arm.max((d - d.dot(axis) * axis).length());
            region_vertices.push(RegionVertex {
                instance,
                primitive,
                vertex,
                segment,
                rest_radius,
                slice: Some(slice),
            });
        }
        let total: f64 = sums.iter().sum();
        let rest_radius = (total / vertices.len() as f64).sqrt();
        // A slice counts with three vertices or more and a radius above a millionth of the region's.
        let mut index = vec![None; slices];
        let mut slice_rest = Vec::new();
        for k in 0..slices {
            let rms = (sums[k] / members[k].max(1) as f64).sqrt();
            if members[k] >= 3 && rms > 1e-6 * rest_radius.max(f64::MIN_POSITIVE) {
                index[k] = Some(slice_rest.len());
                slice_rest.push(rms);
            }
        }
        for v in &mut region_vertices {
            v.slice = v.slice.and_then(|k| index[k]);
        }
        Some(Self { vertices: region_vertices, segments, slice_rest, rest_radius, arm })
    }

    /// Influenced vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    /// Whether the region is empty (never, for a region [`Region::new`] returned).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// RMS bind-pose radius of the region (model units).
    #[must_use]
    pub fn rest_radius(&self) -> f64 {
        self.rest_radius
    }

    fn position(out: &[Vec<DeformedPrimitive>], v: &RegionVertex) -> DVec3 {
        out.get(v.instance)
            .and_then(|d| d.get(v.primitive))
            .and_then(|d| d.positions.get(v.vertex))
            .map_or(DVec3::ZERO, |p: &Vec3| p.as_dvec3())
    }

    /// Collapse and bulge of the posed step `out`, whose node globals are `posed` (the bind-pose
    /// globals being `bind`).
    #[must_use]
    pub fn collapse_and_bulge(&self, out: &[Vec<DeformedPrimitive>], bind: &[DMat4], posed: &[DMat4]) -> (f64, f64) {
        let moved: Vec<(DVec3, DVec3)> = self
            .segments
            .iter()
            .map(|s| {
                let m = posed[s.node] * bind[s.node].inverse();
                (m.transform_point3(s.head), m.transform_point3(s.tail))
            })
            .collect();
        let mut sums = vec![0.0f64; self.slice_rest.len()];
        let mut counts = vec![0usize; self.slice_rest.len()];
        let mut bulge: f64 = 0.0;
        for v in &self.vertices {
            let (a, b) = moved[v.segment];
            let r = point_segment_distance(Self::position(out, v), a, b);
            bulge = bulge.max(r - v.rest_radius);
            if let Some(k) = v.slice {
                sums[k] += r * r;
                counts[k] += 1;
            }
        }
        let collapse = sums
            .iter()
            .zip(&counts)
            .zip(&self.slice_rest)
            .map(|((s, &n), rest)| (s / n.max(1) as f64).sqrt() / rest)
            .fold(f64::INFINITY, f64::min);
        let collapse = if collapse.is_finite() { collapse } else { 1.0 };
        (collapse, if self.rest_radius > 0.0 { bulge.max(0.0) / self.rest_radius } else { 0.0 })
    }

    /// The largest vertex displacement from `previous` to `out`, over the arc the farthest vertex
    /// travels rigidly through `step_rad`.
    #[must_use]
    pub fn flip(&self, previous: &[Vec<DeformedPrimitive>], out: &[Vec<DeformedPrimitive>], step_rad: f64) -> f64 {
        let arc = step_rad.abs() * self.arm;
        if arc.is_nan() || arc <= 0.0 {
            return 0.0;
        }
        let jump = self
            .vertices
            .iter()
            .map(|v| Self::position(out, v).distance(Self::position(previous, v)))
            .fold(0.0, f64::max);
        jump / arc
    }
}
