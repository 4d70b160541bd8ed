//! What is drawn over or around the skin: the skeleton as bones (octahedra from each joint to its
//! child joints, plus a small diamond per joint), the ground grid, and the colour ramp with the
//! per-vertex distance between two methods' results. Geometry is built on the CPU; the bone mesh
//! keeps a fixed vertex count so each frame only refills its buffers.

use glam::{DMat4, Vec3};
use three_d::{
    Blend, ColorMaterial, Context, CpuMaterial, CpuMesh, Cull, DepthTest, Gm, Indices, Mesh, Positions, RenderStates,
    Srgba,
};

use super::gl_convert::{linear, v3_into};
use crate::model::Model;
use crate::skinning::DeformedPrimitive;

/// Bone colour (sRGB).
pub const BONE_COLOUR: [u8; 3] = [150, 180, 235];
/// Selected-joint colour (sRGB).
pub const SELECTED_COLOUR: [u8; 3] = [255, 150, 40];

/// The joints drawn as a skeleton: every joint node of every skin with the nearest ancestor that
/// is also a joint, parents before children.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkeletonLayout {
    /// (joint node, parent joint node).
    pub joints: Vec<(usize, Option<usize>)>,
}

impl SkeletonLayout {
    /// The skeleton of every skin of `model`.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let mut is_joint = vec![false; model.nodes.len()];
        for skin in &model.skins {
            for &j in &skin.joints {
                if let Some(f) = is_joint.get_mut(j) {
                    *f = true;
                }
            }
        }
        let joints = model
            .nodes
            .order
            .iter()
            .copied()
            .filter(|&n| is_joint[n])
            .map(|n| {
                let mut p = model.nodes.nodes[n].parent;
                while let Some(q) = p {
                    if is_joint[q] {
                        break;
                    }
                    p = model.nodes.nodes[q].parent;
                }
                (n, p)
            })
            .collect();
        Self { joints }
    }

    /// Number of bones (joints with a parent joint).
    #[must_use]
    pub fn bone_count(&self) -> usize {
        self.joints.iter().filter(|(_, p)| p.is_some()).count()
    }
}

/// Pushes the 8 triangles (24 vertices) of an octahedral bone from `head` to `tail`.
pub fn push_bone(head: Vec3, tail: Vec3, width: f32, out: &mut Vec<Vec3>) {
    let axis = tail - head;
    let len = axis.length();
    let dir = if len > 1e-9 { axis / len } else { Vec3::Y };
    let side = if dir.x.abs() < 0.9 { Vec3::X } else { Vec3::Z };
    let u = dir.cross(side).normalize_or_zero() * width;
    let v = dir.cross(u).normalize_or_zero() * width;
    let mid = head + axis * 0.18;
    let ring = [mid + u, mid + v, mid - u, mid - v];
    for i in 0..4 {
        let (a, b) = (ring[i], ring[(i + 1) % 4]);
        out.extend_from_slice(&[head, b, a, tail, a, b]);
    }
}

/// Pushes a joint diamond (an octahedron of radius `r` at `c`): 8 triangles.
pub fn push_diamond(c: Vec3, r: f32, out: &mut Vec<Vec3>) {
    let axes = [Vec3::X * r, Vec3::Z * r, -Vec3::X * r, -Vec3::Z * r];
    for i in 0..4 {
        let (a, b) = (c + axes[i], c + axes[(i + 1) % 4]);
        out.extend_from_slice(&[c + Vec3::Y * r, b, a, c - Vec3::Y * r, a, b]);
    }
}

/// The skeleton drawn over the skin (no depth test, slightly transparent).
pub struct Bones {
    layout: SkeletonLayout,
    gm: Option<Gm<Mesh, ColorMaterial>>,
    points: Vec<Vec3>,
    positions: Vec<three_d::Vec3>,
    colours: Vec<three_d::Vec4>,
    vertices: usize,
}

impl Bones {
    /// The bone mesh for `model`'s skeleton (nothing is drawn when it has no joints).
    #[must_use]
    pub fn new(ctx: &Context, model: &Model) -> Self {
        let layout = SkeletonLayout::new(model);
        let vertices = (layout.bone_count() + layout.joints.len()) * 24;
        let gm = (vertices > 0).then(|| {
            let cpu = CpuMesh {
                positions: Positions::F32(vec![three_d::vec3(0.0, 0.0, 0.0); vertices]),
                indices: Indices::None,
                colors: Some(vec![Srgba::WHITE; vertices]),
                ..Default::default()
            };
            let mut material = ColorMaterial::new_transparent(ctx, &CpuMaterial::default());
            material.render_states = RenderStates {
                depth_test: DepthTest::Always,
                cull: Cull::Back,
                blend: Blend::TRANSPARENCY,
                ..Default::default()
            };
            material.is_transparent = true;
            Gm::new(Mesh::new(ctx, &cpu), material)
        });
        Self { layout, gm, points: Vec::new(), positions: Vec::new(), colours: Vec::new(), vertices }
    }

    /// Moves the bones to the pose given by `model_from_node`; `scale` sets the joint size (model
    /// units) and `selected` highlights one joint node and the bones leaving it.
    pub fn update(&mut self, model_from_node: &[DMat4], scale: f32, selected: Option<usize>) {
        let Some(gm) = &mut self.gm else { return };
        let at = |n: usize| model_from_node.get(n).map_or(Vec3::ZERO, |m| m.w_axis.truncate().as_vec3());
        self.points.clear();
        self.colours.clear();
        let light = Vec3::new(0.3, 0.8, 0.5).normalize();
        let shade = |points: &[Vec3], colour: [u8; 3], colours: &mut Vec<three_d::Vec4>| {
            for tri in points.chunks_exact(3) {
                let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
                let f = 0.6 + 0.4 * n.dot(light).max(0.0);
                let c = colour.map(|c| (f32::from(c) * f) as u8);
                let lin = linear([c[0], c[1], c[2], 215]);
                colours.extend([lin; 3]);
            }
        };
        let mut tmp = Vec::with_capacity(24);
        for &(j, parent) in &self.layout.joints {
            let Some(p) = parent else { continue };
            tmp.clear();
            let (head, tail) = (at(p), at(j));
            let width = ((tail - head).length() * 0.1).min(scale * 1.5);
            push_bone(head, tail, width, &mut tmp);
            shade(&tmp, if selected == Some(p) { SELECTED_COLOUR } else { BONE_COLOUR }, &mut self.colours);
            self.points.extend_from_slice(&tmp);
        }
        for &(j, _) in &self.layout.joints {
            tmp.clear();
            push_diamond(at(j), scale, &mut tmp);
            shade(&tmp, if selected == Some(j) { SELECTED_COLOUR } else { [235, 235, 240] }, &mut self.colours);
            self.points.extend_from_slice(&tmp);
        }
        if self.points.len() != self.vertices {
            return;
        }
        v3_into(&self.points, &mut self.positions);
        let _ = gm.geometry.set_positions(&self.positions);
        let _ = gm.geometry.set_colors(&self.colours);
    }

    /// The drawable object, if there is a skeleton.
    #[must_use]
    pub fn object(&self) -> Option<&Gm<Mesh, ColorMaterial>> {
        self.gm.as_ref()
    }
}

/// Grid spacing: a round number (1, 2 or 5 × 10^k) near a fifth of `size`.
#[must_use]
pub fn grid_spacing(size: f32) -> f32 {
    let raw = (size / 5.0).max(1e-6);
    let base = 10f32.powf(raw.log10().floor());
    let m = raw / base;
    base * if m < 1.5 {
        1.0
    } else if m < 3.5 {
        2.0
    } else if m < 7.5 {
        5.0
    } else {
        10.0
    }
}

/// A ground grid under the box `lo..hi`: thin quads on the plane y = lo.y.
#[must_use]
pub fn grid(ctx: &Context, lo: Vec3, hi: Vec3) -> Gm<Mesh, ColorMaterial> {
    let size = (hi - lo).length().max(1e-3);
    let spacing = grid_spacing(size);
    let half_lines = 12i32;
    let extent = spacing * half_lines as f32;
    let centre = ((lo + hi) * 0.5 / spacing).round() * spacing;
    let y = lo.y;
    let w = spacing * 0.012;
    let mut positions = Vec::new();
    let mut colours = Vec::new();
    let mut quad = |a: Vec3, b: Vec3, across: Vec3, c: Srgba| {
        let (p0, p1, p2, p3) = (a - across, b - across, b + across, a + across);
        for p in [p0, p1, p2, p0, p2, p3] {
            positions.push(three_d::vec3(p.x, p.y, p.z));
            colours.push(c);
        }
    };
    for i in -half_lines..=half_lines {
        let o = i as f32 * spacing;
        let colour = if i == 0 { Srgba::new(120, 125, 135, 255) } else { Srgba::new(85, 88, 96, 255) };
        let x = centre.x + o;
        quad(Vec3::new(x, y, centre.z - extent), Vec3::new(x, y, centre.z + extent), Vec3::X * w, colour);
        let z = centre.z + o;
        quad(Vec3::new(centre.x - extent, y, z), Vec3::new(centre.x + extent, y, z), Vec3::Z * w, colour);
    }
    let cpu = CpuMesh {
        positions: Positions::F32(positions),
        indices: Indices::None,
        colors: Some(colours),
        ..Default::default()
    };
    let mut material = ColorMaterial::new_opaque(ctx, &CpuMaterial::default());
    material.render_states.cull = Cull::None;
    Gm::new(Mesh::new(ctx, &cpu), material)
}

/// The difference colour ramp's stops, sRGB.
const STOPS: [[f32; 3]; 5] =
    [[45.0, 70.0, 170.0], [40.0, 160.0, 220.0], [70.0, 195.0, 95.0], [245.0, 210.0, 55.0], [220.0, 45.0, 35.0]];

/// The difference colour ramp: `t` in 0..=1 from blue (no difference) through green and yellow to
/// red (the largest difference), sRGB.
#[must_use]
pub fn ramp(t: f32) -> [u8; 4] {
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let x = t * (STOPS.len() - 1) as f32;
    // `x` is in 0..=4, so truncation is its floor, and every channel lies between two stops
    // (35..=245), where adding a half and truncating rounds as `f32::round` does: without the
    // library calls that floor and round are on x86-64 without SSE4.1 (a million vertices a
    // frame in the difference overlay).
    let i = (x as usize).min(STOPS.len() - 2);
    let f = x - i as f32;
    let c = |k: usize| (STOPS[i][k] + (STOPS[i + 1][k] - STOPS[i][k]) * f + 0.5) as u8;
    [c(0), c(1), c(2), 255]
}

/// Vertices per parallel work item of the overlay passes.
const CHUNK: usize = 16 * 1024;

/// Colours each vertex by its distance between two deformations `a` and `b` of the same model
/// into `out[instance][primitive][vertex]`, the largest distance (or `floor` where that is
/// larger; never below 1e-12) mapping to the top of the ramp, and returns the largest distance.
///
/// Each distance is computed once: the first pass keeps it in its vertex's colour slot (an `f32`
/// is four bytes too) while the largest is found, the second turns it into the colour.
pub fn difference_overlay(
    a: &[Vec<DeformedPrimitive>],
    b: &[Vec<DeformedPrimitive>],
    floor: f32,
    out: &mut Vec<Vec<Vec<[u8; 4]>>>,
) -> f32 {
    use rayon::prelude::*;
    let mut max = 0f32;
    out.resize_with(a.len(), Vec::new);
    for ((ia, ib), oi) in a.iter().zip(b).zip(out.iter_mut()) {
        oi.resize_with(ia.len(), Vec::new);
        for ((pa, pb), op) in ia.iter().zip(ib).zip(oi.iter_mut()) {
            op.clear();
            op.resize(pa.positions.len().min(pb.positions.len()), [0; 4]);
            let part = op
                .par_chunks_mut(CHUNK)
                .zip(pa.positions.par_chunks(CHUNK).zip(pb.positions.par_chunks(CHUNK)))
                .map(|(o, (p, q))| distances_in_place(p, q, o))
                .reduce(|| 0.0, f32::max);
            max = max.max(part);
        }
    }
    let scale = max.max(floor).max(1e-12);
    for op in out.iter_mut().flatten() {
        op.par_chunks_mut(CHUNK).for_each(|o| ramp_in_place(o, scale));
    }
    max
}

/// Each slot of `slots` gets the bytes of the distance between `p` and `q` at its vertex (all
/// three as long); returns the largest (NaN distances left out). Eight at a time in AVX2
/// registers where the CPU has them: the same operations in the same order as
/// `Vec3::distance`, so the same distances.
fn distances_in_place(p: &[Vec3], q: &[Vec3], slots: &mut [[u8; 4]]) -> f32 {
    let mut done = 0;
    let mut max = 0f32;
    #[cfg(target_arch = "x86_64")]
    if crate::skinning::lanes::available() {
        // SAFETY: the CPU has AVX2 and FMA.
        (done, max) = unsafe { distances_in_place_avx2(p, q, slots) };
    }
    for (c, (p, q)) in slots[done..].iter_mut().zip(p[done..].iter().zip(&q[done..])) {
        let d = p.distance(*q);
        max = max.max(d);
        *c = d.to_ne_bytes();
    }
    max
}

/// [`distances_in_place`] of the leading multiple of eight vertices: how many, and their
/// largest distance.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma")]
unsafe fn distances_in_place_avx2(p: &[Vec3], q: &[Vec3], slots: &mut [[u8; 4]]) -> (usize, f32) {
    use crate::skinning::lanes::V8;
    let n = p.len().min(q.len()).min(slots.len()) / 8 * 8;
    let mut max = [0f32; 8];
    for ((a, b), o) in p[..n].chunks_exact(8).zip(q[..n].chunks_exact(8)).zip(slots[..n].chunks_exact_mut(8)) {
        let d = V8::load(a).sub(V8::load(b)).length_squared().sqrt().to_array();
        for ((m, c), d) in max.iter_mut().zip(o.iter_mut()).zip(d) {
            *m = m.max(d);
            *c = d.to_ne_bytes();
        }
    }
    (n, max.into_iter().fold(0.0, f32::max))
}

/// Each slot of `slots`, holding a distance's bytes, becomes `ramp(distance / scale)`: eight at a
/// time in AVX2 registers where the CPU has them (the same operations in the same order, so the
/// same colours), the rest one by one.
fn ramp_in_place(slots: &mut [[u8; 4]], scale: f32) {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        done = unsafe { ramp_in_place_avx2(slots, scale) };
    }
    for c in &mut slots[done..] {
        *c = ramp(f32::from_ne_bytes(*c) / scale);
    }
}

/// [`ramp_in_place`] of the leading multiple of eight slots; returns how many it coloured.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2")]
unsafe fn ramp_in_place_avx2(slots: &mut [[u8; 4]], scale: f32) -> usize {
    use std::arch::x86_64::*;
    let n = slots.len() / 8 * 8;
    // Per channel, the stops and their differences, indexed by segment (lanes 0..=3).
    let table = |f: &dyn Fn(usize) -> f32| _mm256_setr_ps(f(0), f(1), f(2), f(3), 0.0, 0.0, 0.0, 0.0);
    let starts = [0, 1, 2].map(|k| table(&|i| STOPS[i][k]));
    let steps = [0, 1, 2].map(|k| table(&|i| STOPS[i + 1][k] - STOPS[i][k]));
    let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
    let last = _mm256_set1_epi32((STOPS.len() - 2) as i32);
    for chunk in slots[..n].chunks_exact_mut(8) {
        let at = chunk.as_mut_ptr().cast::<f32>();
        // SAFETY: eight slots of four bytes are 32 bytes; unaligned loads and stores.
        let t = _mm256_div_ps(_mm256_loadu_ps(at), _mm256_set1_ps(scale));
        // Not finite → 0; then `clamp(0, 1)`, which keeps -0.0 as it is.
        let t = _mm256_and_ps(t, _mm256_cmp_ps::<_CMP_EQ_OQ>(_mm256_sub_ps(t, t), zero));
        let t = _mm256_blendv_ps(t, zero, _mm256_cmp_ps::<_CMP_LT_OQ>(t, zero));
        let t = _mm256_blendv_ps(t, one, _mm256_cmp_ps::<_CMP_GT_OQ>(t, one));
        let x = _mm256_mul_ps(t, _mm256_set1_ps((STOPS.len() - 1) as f32));
        let i = _mm256_min_epi32(_mm256_cvttps_epi32(x), last);
        let f = _mm256_sub_ps(x, _mm256_cvtepi32_ps(i));
        let channel = |k: usize| {
            let start = _mm256_permutevar8x32_ps(starts[k], i);
            let step = _mm256_permutevar8x32_ps(steps[k], i);
            _mm256_cvttps_epi32(_mm256_add_ps(_mm256_add_ps(start, _mm256_mul_ps(step, f)), _mm256_set1_ps(0.5)))
        };
        let rgba = _mm256_or_si256(
            _mm256_or_si256(channel(0), _mm256_slli_epi32::<8>(channel(1))),
            _mm256_or_si256(_mm256_slli_epi32::<16>(channel(2)), _mm256_set1_epi32(-16_777_216)),
        );
        _mm256_storeu_si256(at.cast::<__m256i>(), rgba);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ramp as it was written with `floor` and `round`.
    fn ramp_by_library(t: f32) -> [u8; 4] {
        let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
        let x = t * (STOPS.len() - 1) as f32;
        let i = (x.floor() as usize).min(STOPS.len() - 2);
        let f = x - i as f32;
        let c = |k: usize| (STOPS[i][k] + (STOPS[i + 1][k] - STOPS[i][k]) * f).round() as u8;
        [c(0), c(1), c(2), 255]
    }

    /// Every f32 from 0 to 1 (and around and outside) gets the colour the library-call ramp
    /// gave it.
    #[test]
    fn the_ramp_without_library_calls_is_the_same_ramp() {
        let mut t = 0f32;
        let mut checked = 0u64;
        while t <= 1.0 {
            assert_eq!(ramp(t), ramp_by_library(t), "t = {t:e}");
            // Every f32 next to the stops inside (0, 1], 1 in 512 elsewhere (there are a billion
            // f32s in 0..=1, most of them near 0).
            let near_stop = t > 1e-3 && (t * 4.0 - (t * 4.0).round()).abs() < 1e-4;
            t = f32::from_bits(t.to_bits() + if near_stop { 1 } else { 512 });
            checked += 1;
        }
        for t in [-1.0, -0.0, 1.0, 1.5, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE] {
            assert_eq!(ramp(t), ramp_by_library(t), "t = {t:e}");
        }
        assert!(checked > 2_000_000, "{checked}");
    }

    /// Every vertex of every primitive gets `ramp(distance / largest)`, the largest over all of
    /// them is returned, a floor above it takes its place, and a NaN distance counts as none.
    #[test]
    fn the_overlay_colours_each_distance_against_the_largest() {
        let prim = |n: usize, shift: f32| DeformedPrimitive {
            positions: (0..n).map(|i| Vec3::new(i as f32 * 0.01, (i % 7) as f32 * shift, 1.0)).collect(),
            normals: Vec::new(),
        };
        let a = vec![vec![prim(40_000, 0.0), prim(5, 0.0)], vec![prim(3, 0.0)]];
        let mut b = vec![vec![prim(40_000, 0.002), prim(5, 0.5)], vec![prim(3, 0.1)]];
        b[0][0].positions[17] = Vec3::NAN;
        let largest = 4.0 * 0.5;
        let mut out = Vec::new();
        let max = difference_overlay(&a, &b, 0.0, &mut out);
        assert_eq!(max, largest);
        for floor in [0.0, 10.0] {
            difference_overlay(&a, &b, floor, &mut out);
            let scale = largest.max(floor);
            for ((ia, ib), oi) in a.iter().zip(&b).zip(&out) {
                for ((pa, pb), op) in ia.iter().zip(ib).zip(oi) {
                    let expected: Vec<[u8; 4]> =
                        pa.positions.iter().zip(&pb.positions).map(|(p, q)| ramp(p.distance(*q) / scale)).collect();
                    assert_eq!(op, &expected, "floor {floor}");
                }
            }
        }
        assert_eq!(out[0][0][17], ramp(0.0));
        assert_eq!(out[0][1][1], ramp(0.5 / 10.0));
    }

    /// The distances in AVX2 lanes are `Vec3::distance`'s bit for bit, and their largest
    /// leaves NaN out.
    #[test]
    fn distances_in_lanes_are_the_distances() {
        let p: Vec<Vec3> =
            (0..1_005).map(|k| Vec3::new(k as f32 * 0.37, (k % 13) as f32 - 6.0, 1e-3 * k as f32)).collect();
        let mut q: Vec<Vec3> = p.iter().map(|v| *v * 1.0001 + Vec3::new(0.1, -0.2, 0.3)).collect();
        q[9] = Vec3::NAN;
        q[500] = Vec3::new(1e5, 0.0, 0.0);
        let mut slots = vec![[0u8; 4]; p.len()];
        let max = distances_in_place(&p, &q, &mut slots);
        let expected: Vec<f32> = p.iter().zip(&q).map(|(a, b)| a.distance(*b)).collect();
        for (k, (c, d)) in slots.iter().zip(&expected).enumerate() {
            assert_eq!(f32::from_ne_bytes(*c).to_bits(), d.to_bits(), "vertex {k}");
        }
        assert_eq!(max, expected.iter().copied().fold(0.0, f32::max));
        assert!(max > 9e4);
    }

    /// The ramp over slots in AVX2 lanes colours every distance as [`ramp`] does, including
    /// negative zero, NaN, infinities and distances beyond the scale.
    #[test]
    fn the_ramp_in_lanes_is_the_ramp() {
        let scale = 0.37f32;
        let mut distances: Vec<f32> = (0..200_003).map(|k| k as f32 * scale / 200_000.0).collect();
        let specials = [-0.0, 0.0, -1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, scale, scale * 2.0, 1e-30];
        for (k, d) in specials.into_iter().enumerate() {
            distances[k * 7 + 3] = d;
        }
        let mut slots: Vec<[u8; 4]> = distances.iter().map(|d| d.to_ne_bytes()).collect();
        ramp_in_place(&mut slots, scale);
        for (d, c) in distances.iter().zip(&slots) {
            assert_eq!(*c, ramp(d / scale), "distance {d:e}");
        }
    }

    #[test]
    fn ramp_ends_are_blue_and_red() {
        assert!(ramp(0.0)[2] > ramp(0.0)[0]);
        assert!(ramp(1.0)[0] > ramp(1.0)[2]);
        assert_eq!(ramp(f32::NAN), ramp(0.0));
    }

    #[test]
    fn grid_spacing_is_round() {
        assert_eq!(grid_spacing(5.0), 1.0);
        assert_eq!(grid_spacing(12.0), 2.0);
        assert!((grid_spacing(0.25) - 0.05).abs() < 1e-6);
    }

    #[test]
    fn bone_has_eight_outward_triangles() {
        let mut out = Vec::new();
        push_bone(Vec3::ZERO, Vec3::X, 0.1, &mut out);
        assert_eq!(out.len(), 24);
        let centre = Vec3::new(0.3, 0.0, 0.0);
        for t in out.chunks_exact(3) {
            let n = (t[1] - t[0]).cross(t[2] - t[0]);
            let c = (t[0] + t[1] + t[2]) / 3.0;
            assert!(n.dot(c - centre) > 0.0, "triangle {t:?} faces inwards");
        }
        out.clear();
        push_diamond(Vec3::ONE, 0.5, &mut out);
        for t in out.chunks_exact(3) {
            let n = (t[1] - t[0]).cross(t[2] - t[0]);
            assert!(n.dot((t[0] + t[1] + t[2]) / 3.0 - Vec3::ONE) > 0.0, "diamond {t:?} faces inwards");
        }
    }
}
