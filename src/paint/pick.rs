//! Picking on the CPU: the nearest triangle of the *deformed* mesh under a ray in model space
//! (a watertight crossing test, both faces), with the hit point and its nearest vertex.

use glam::Vec3;

/// A ray in model space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start point (the eye for a perspective camera).
    pub origin: Vec3,
    /// Direction (need not be unit length).
    pub direction: Vec3,
}

/// Where a ray meets a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The hit point in model space.
    pub point: Vec3,
    /// Index of the triangle hit.
    pub triangle: usize,
    /// The triangle's corner nearest to the hit point.
    pub vertex: u32,
    /// Barycentric weights of the hit point for the triangle's three corners.
    pub barycentric: [f32; 3],
    /// Ray parameter: `point = origin + t · direction`.
    pub t: f32,
}

/// Ray parameter and barycentric (u, v) of the ray's crossing of triangle `(a, b, c)`, if it
/// crosses it at `t > 0` (watertight: both faces count, and a ray through a shared edge or corner
/// crosses at least one of the triangles around it; see [`Crossing`]).
#[must_use]
pub fn ray_triangle(ray: &Ray, a: Vec3, b: Vec3, c: Vec3) -> Option<(f32, f32, f32)> {
    Crossing::new(ray.origin, ray.direction).of(a, b, c)
}

/// One ray set up for the watertight ray/triangle test (Woop, Benthin and Wald, "Watertight
/// Ray/Triangle Intersection", JCGT 2013): the corners are moved to the ray's origin and sheared
/// so that the ray runs along the z axis, and the ray meets a triangle where the signed areas of
/// the origin's three edges agree in sign. Each edge's area depends only on its two corners, so
/// neighbouring triangles see a shared edge alike and a ray cannot slip between them, as it can
/// through Möller–Trumbore's rounding (a ray aimed at a corner of a dense mesh missed all six
/// triangles around it and picked the far side). An area of exactly zero is recomputed in f64.
#[derive(Clone, Copy, Debug)]
pub(super) struct Crossing {
    origin: Vec3,
    /// The axes: `kz` the direction's largest, then `kx`, `ky`.
    kx: usize,
    ky: usize,
    kz: usize,
    /// The shear: `dir[kx] / dir[kz]`, `dir[ky] / dir[kz]`, `1 / dir[kz]`.
    sx: f32,
    sy: f32,
    sz: f32,
}

impl Crossing {
    /// The ray from `origin` along `dir` (finite, not zero: see [`usable`]).
    #[inline(always)]
    pub(super) fn new(origin: Vec3, dir: Vec3) -> Self {
        let kz = dir.abs().max_position();
        let (kx, ky) = ((kz + 1) % 3, (kz + 2) % 3);
        let sz = 1.0 / dir[kz];
        Self { origin, kx, ky, kz, sx: dir[kx] * sz, sy: dir[ky] * sz, sz }
    }

    /// Ray parameter and barycentric (u, v) (the weights of `b` and `c`) of the crossing of
    /// triangle `(a, b, c)`, if the ray crosses it at `t > 0`.
    #[inline(always)]
    pub(super) fn of(&self, a: Vec3, b: Vec3, c: Vec3) -> Option<(f32, f32, f32)> {
        let (a, b, c) = (a - self.origin, b - self.origin, c - self.origin);
        let shear = |p: Vec3| (p[self.kx] - self.sx * p[self.kz], p[self.ky] - self.sy * p[self.kz]);
        let ((ax, ay), (bx, by), (cx, cy)) = (shear(a), shear(b), shear(c));
        let (mut u, mut v, mut w) = (cx * by - cy * bx, ax * cy - ay * cx, bx * ay - by * ax);
        if u == 0.0 || v == 0.0 || w == 0.0 {
            let area = |(px, py): (f32, f32), (qx, qy): (f32, f32)| {
                (f64::from(px) * f64::from(qy) - f64::from(py) * f64::from(qx)) as f32
            };
            (u, v, w) = (area((cx, cy), (bx, by)), area((ax, ay), (cx, cy)), area((bx, by), (ax, ay)));
        }
        if (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0) {
            return None;
        }
        let det = u + v + w;
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let depth = u * a[self.kz] + v * b[self.kz] + w * c[self.kz];
        let inv = 1.0 / det;
        let t = depth * self.sz * inv;
        (t > 0.0 && t.is_finite()).then_some((t, v * inv, w * inv))
    }
}

/// Triangles per parallel work item.
const CHUNK: usize = 16 * 1024;

/// Every crossing of `ray` with `triangles` whose corners are all in range, in order, given to
/// `found` as `(triangle, t, u, v)` with the triangle numbered from `first`.
pub(super) fn each_crossing(
    ray: &Ray,
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    first: usize,
    found: impl FnMut(usize, f32, f32, f32),
) {
    each_crossing_where(ray, positions, triangles, first, |_| true, found);
}

/// [`each_crossing`] over the triangles `keep` accepts (the others are not tested).
#[inline(always)]
fn each_crossing_where(
    ray: &Ray,
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    first: usize,
    keep: impl Fn(&[u32; 3]) -> bool,
    mut found: impl FnMut(usize, f32, f32, f32),
) {
    let crossing = Crossing::new(ray.origin, ray.direction);
    for (i, t) in triangles.iter().enumerate() {
        if !keep(t) {
            continue;
        }
        let (Some(&a), Some(&b), Some(&c)) =
            (positions.get(t[0] as usize), positions.get(t[1] as usize), positions.get(t[2] as usize))
        else {
            continue;
        };
        if let Some((d, u, v)) = crossing.of(a, b, c) {
            found(first + i, d, u, v);
        }
    }
}

/// The nearest crossing in one run of triangles numbered from `first`: (t, triangle, u, v); ties
/// go to the lower triangle.
pub(super) fn nearest_in(
    ray: &Ray,
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    first: usize,
) -> Option<(f32, usize, f32, f32)> {
    nearest_where(ray, positions, triangles, first, |_| true)
}

/// [`nearest_in`] over the triangles `keep` accepts.
#[inline(always)]
fn nearest_where(
    ray: &Ray,
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    first: usize,
    keep: impl Fn(&[u32; 3]) -> bool,
) -> Option<(f32, usize, f32, f32)> {
    let mut best: Option<(f32, usize, f32, f32)> = None;
    each_crossing_where(ray, positions, triangles, first, keep, |i, d, u, v| {
        if best.is_none_or(|bst| d < bst.0) {
            best = Some((d, i, u, v));
        }
    });
    best
}

/// The nearer of two crossings `(t, triangle, u, v)`; ties go to the lower triangle.
pub(super) fn nearer(
    a: Option<(f32, usize, f32, f32)>,
    b: Option<(f32, usize, f32, f32)>,
) -> Option<(f32, usize, f32, f32)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if (y.0, y.1) < (x.0, x.1) { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The nearest triangle of `triangles` (indices into `positions`, e.g. deformed positions) that
/// `ray` meets; ties go to the lower triangle index. Triangles with an index out of range are
/// skipped. Large meshes are split over rayon's threads.
#[must_use]
pub fn pick(ray: &Ray, positions: &[Vec3], triangles: &[[u32; 3]]) -> Option<Hit> {
    use rayon::prelude::*;
    if !usable(ray) {
        return None;
    }
    let best = if triangles.len() <= CHUNK {
        nearest_in(ray, positions, triangles, 0)
    } else {
        // At 1M vertices the triangles' corners are read from all over the positions (12 MB):
        // one pass over them first notes each vertex's side of two planes through the ray
        // (1 MB, read from cache), and a triangle with every corner clearly on one side of
        // either plane cannot be crossed.
        let sides = Sides::of(ray, positions);
        triangles
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, tris)| sides.nearest_in(ray, positions, tris, c * CHUNK))
            .reduce(|| None, nearer)
    };
    best.map(|b| hit_of(ray, positions, triangles, b))
}

/// Each vertex's side of two planes that contain a ray: bit 0 (1) where it lies clearly below
/// (above) the first plane, bits 2 and 3 the same for the second. "Clearly" is beyond 1e-5 of
/// its distance from the ray's origin, a hundred times f32 rounding: a triangle whose corners
/// share a bit misses the ray by more than the crossing test's rounding could hide, so skipping it
/// changes no pick.
struct Sides(Vec<u8>);

impl Sides {
    fn of(ray: &Ray, positions: &[Vec3]) -> Self {
        use rayon::prelude::*;
        let (n1, n2) = ray.direction.normalize().any_orthonormal_pair();
        let planes = Planes { origin: ray.origin, n1, n2 };
        // Chunks written in place: rayon's per-item collect cost more than the arithmetic.
        let mut sides = vec![0u8; positions.len()];
        sides.par_chunks_mut(CHUNK).zip(positions.par_chunks(CHUNK)).for_each(|(out, chunk)| planes.sides(chunk, out));
        Self(sides)
    }

    /// [`nearest_in`], skipping the triangles whose corners share a side.
    fn nearest_in(
        &self,
        ray: &Ray,
        positions: &[Vec3],
        triangles: &[[u32; 3]],
        first: usize,
    ) -> Option<(f32, usize, f32, f32)> {
        let side = |k: u32| self.0.get(k as usize).copied().unwrap_or(0);
        nearest_where(ray, positions, triangles, first, |t| side(t[0]) & side(t[1]) & side(t[2]) == 0)
    }
}

/// Two planes through a ray's origin that contain the ray (unit normals `n1`, `n2`).
#[derive(Clone, Copy)]
struct Planes {
    origin: Vec3,
    n1: Vec3,
    n2: Vec3,
}

impl Planes {
    /// [`Sides`]' bits of one point.
    #[inline(always)]
    fn side(&self, p: Vec3) -> u8 {
        let r = p - self.origin;
        let margin = r.length_squared() * 1e-10;
        let (s1, s2) = (self.n1.dot(r), self.n2.dot(r));
        let clear = |s: f32| s * s > margin;
        u8::from(s1 < 0.0 && clear(s1))
            | u8::from(s1 > 0.0 && clear(s1)) << 1
            | u8::from(s2 < 0.0 && clear(s2)) << 2
            | u8::from(s2 > 0.0 && clear(s2)) << 3
    }

    /// Each point's bits into `out` (as long as `points`), eight at a time in AVX2 registers
    /// where the CPU has them: the same operations in the same order as [`Planes::side`], so the
    /// same bits.
    fn sides(&self, points: &[Vec3], out: &mut [u8]) {
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if crate::skinning::lanes::available() {
            // SAFETY: the CPU has AVX2 and FMA.
            done = unsafe { self.sides_avx2(points, out) };
        }
        for (s, &p) in out[done..].iter_mut().zip(&points[done..]) {
            *s = self.side(p);
        }
    }

    /// [`Planes::sides`] of the leading multiple of eight points; returns how many it wrote.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,fma")]
    unsafe fn sides_avx2(&self, points: &[Vec3], out: &mut [u8]) -> usize {
        use crate::skinning::lanes::{F8, V8};
        let n = points.len().min(out.len()) / 8 * 8;
        let origin = V8::splat(self.origin.into());
        let (a, b) = (V8::splat(self.n1.into()), V8::splat(self.n2.into()));
        let dot = |n: V8, r: V8| n.x.mul(r.x).add(n.y.mul(r.y)).add(n.z.mul(r.z));
        for (p, o) in points[..n].chunks_exact(8).zip(out[..n].chunks_exact_mut(8)) {
            let r = V8::load(p).sub(origin);
            let margin = r.length_squared().mul(F8::splat(1e-10));
            let (below1, above1) = dot(a, r).clear_signs(margin);
            let (below2, above2) = dot(b, r).clear_signs(margin);
            let bytes = SPREAD[usize::from(below1)]
                | SPREAD[usize::from(above1)] << 1
                | SPREAD[usize::from(below2)] << 2
                | SPREAD[usize::from(above2)] << 3;
            o.copy_from_slice(&bytes.to_le_bytes());
        }
        n
    }
}

/// `SPREAD[m]` has byte `l` equal to bit `l` of `m`: eight lanes' mask bits, one per byte.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut l = 0;
        while l < 8 {
            table[m] |= ((m as u64 >> l) & 1) << (8 * l);
            l += 1;
        }
        m += 1;
    }
    table
};

/// Whether `ray` can hit anything (finite, with a direction).
pub(super) fn usable(ray: &Ray) -> bool {
    ray.origin.is_finite() && ray.direction.is_finite() && ray.direction != Vec3::ZERO
}

/// The hit of the nearest crossing `(t, triangle, u, v)` (its triangle's corners in range).
pub(super) fn hit_of(ray: &Ray, positions: &[Vec3], triangles: &[[u32; 3]], best: (f32, usize, f32, f32)) -> Hit {
    let (t, triangle, u, v) = best;
    let tri = triangles[triangle];
    let point = ray.origin + ray.direction * t;
    let barycentric = [1.0 - u - v, u, v];
    let mut vertex = tri[0];
    for &k in &tri[1..] {
        if positions[k as usize].distance_squared(point) < positions[vertex as usize].distance_squared(point) {
            vertex = k;
        }
    }
    Hit { point, triangle, vertex, barycentric, t }
}

/// The nearest hit over every primitive of every skinned instance, on the deformed positions
/// `deformed[instance][primitive]` (as `Deformer::deform_all` fills them; all in model space).
/// Primitives whose buffer is missing or sized differently from their rest positions are skipped.
#[must_use]
pub fn pick_model(
    ray: &Ray,
    model: &crate::model::Model,
    deformed: &[Vec<crate::skinning::DeformedPrimitive>],
) -> Option<(super::target::DabTarget, Hit)> {
    nearest_primitive(model, deformed, |_, _, positions, triangles| pick(ray, positions, triangles))
}

/// The nearest of `pick_primitive(instance, primitive, deformed positions, triangles)` over every
/// primitive of every skinned instance (ties to the first primitive), skipping primitives whose
/// buffer is missing or sized differently from their rest positions.
pub(super) fn nearest_primitive(
    model: &crate::model::Model,
    deformed: &[Vec<crate::skinning::DeformedPrimitive>],
    pick_primitive: impl Fn(usize, usize, &[Vec3], &[[u32; 3]]) -> Option<Hit>,
) -> Option<(super::target::DabTarget, Hit)> {
    let mut best: Option<(super::target::DabTarget, Hit)> = None;
    for (i, inst) in model.instances.iter().enumerate() {
        let Some(mesh) = model.meshes.get(inst.mesh) else { continue };
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let Some(buf) = deformed.get(i).and_then(|d| d.get(p)) else { continue };
            if buf.positions.len() != prim.positions.len() {
                continue;
            }
            if let Some(hit) = pick_primitive(i, p, &buf.positions, &prim.triangles) {
                if best.as_ref().is_none_or(|b| hit.t < b.1.t) {
                    best = Some((super::target::DabTarget { instance: i, prim: p }, hit));
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_triangle_is_hit() {
        // Two parallel unit triangles at z = 0 and z = -1, seen from z = 5 looking down -z.
        let p = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, -1.0),
            Vec3::new(0.0, 1.0, -1.0),
        ];
        let tris = [[3, 4, 5], [0, 1, 2]];
        let ray = Ray { origin: Vec3::new(0.6, 0.2, 5.0), direction: Vec3::new(0.0, 0.0, -2.0) };
        let hit = pick(&ray, &p, &tris).unwrap();
        assert_eq!(hit.triangle, 1);
        assert_eq!(hit.vertex, 1);
        assert!((hit.point - Vec3::new(0.6, 0.2, 0.0)).length() < 1e-6);
        assert!((hit.t - 2.5).abs() < 1e-6);
        let b = hit.barycentric;
        assert!((b[0] - 0.2).abs() < 1e-6 && (b[1] - 0.6).abs() < 1e-6 && (b[2] - 0.2).abs() < 1e-6);
        // Back faces count too; misses and rays pointing away give None.
        let up = Ray { origin: Vec3::new(0.2, 0.2, -5.0), direction: Vec3::Z };
        assert_eq!(pick(&up, &p, &tris).map(|h| h.triangle), Some(0));
        let away = Ray { origin: Vec3::new(0.2, 0.2, 5.0), direction: Vec3::Z };
        assert_eq!(pick(&away, &p, &tris), None);
        let miss = Ray { origin: Vec3::new(2.0, 2.0, 5.0), direction: -Vec3::Z };
        assert_eq!(pick(&miss, &p, &tris), None);
        assert_eq!(pick(&ray, &p, &[[0, 1, 99]]), None);
    }

    /// The sides' shortcut changes no pick: on a folded, shuffled 90k-vertex sheet (far from the
    /// origin, so that rounding is coarse), rays aimed at vertices, edge midpoints and random
    /// points from far and near hit what testing every triangle hits.
    #[test]
    fn skipping_triangles_by_side_changes_no_pick() {
        let n = 300u32;
        let offset = Vec3::new(1000.0, -500.0, 250.0);
        // 0..1 (shifting the generator's -0.5..0.5 back is exact).
        let mut centred = uniform(0x2545_f491_4f6c_dd1d);
        let mut rand = move || centred() + 0.5;
        // Vertices in a shuffled order, as the joint-set order leaves them.
        let mut order: Vec<u32> = (0..n * n).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (rand() * (i + 1) as f32) as usize % (i + 1));
        }
        let mut positions = vec![Vec3::ZERO; (n * n) as usize];
        for y in 0..n {
            for x in 0..n {
                let (u, v) = (x as f32 / n as f32, y as f32 / n as f32);
                // A sheet folded over itself, so that rays cross it several times.
                let p = Vec3::new(u.sin() * 3.0, v * 2.0, (u * 9.0).cos() * 0.5 + (v * 5.0).sin());
                positions[order[(y * n + x) as usize] as usize] = p + offset;
            }
        }
        let id = |x: u32, y: u32| order[(y * n + x) as usize];
        let mut triangles = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                triangles.push([id(x, y), id(x + 1, y), id(x, y + 1)]);
                triangles.push([id(x + 1, y), id(x + 1, y + 1), id(x, y + 1)]);
            }
        }
        assert!(triangles.len() > 4 * CHUNK);
        let mut hits = 0;
        for k in 0..300 {
            let t = triangles[(rand() * triangles.len() as f32) as usize % triangles.len()];
            let [a, b, c] = t.map(|i| positions[i as usize]);
            let target = match k % 3 {
                0 => a,
                1 => (a + b) * 0.5,
                _ => a + (b - a) * rand() + (c - a) * rand() * 0.5,
            };
            let from = Vec3::new(rand() - 0.5, rand() - 0.5, rand() - 0.5) * if k % 2 == 0 { 20.0 } else { 0.5 };
            let ray = Ray { origin: target + from, direction: -from };
            let all = nearest_in(&ray, &positions, &triangles, 0).map(|b| (b.1, b.0.to_bits()));
            let picked = pick(&ray, &positions, &triangles).map(|h| (h.triangle, h.t.to_bits()));
            assert_eq!(picked, all, "ray {k}");
            hits += usize::from(all.is_some());
        }
        assert!(hits > 250, "{hits} of 300 rays hit");
    }

    /// Rays aimed exactly at a corner or the middle of an edge of a dense tube (far from the
    /// origin, where rounding is coarse) from outside meet it there, never falling through the
    /// shared corner or edge to the far side (Möller–Trumbore lets about one ray in ten through).
    #[test]
    fn rays_through_shared_corners_and_edges_do_not_fall_through() {
        let (rings, segments) = (400u32, 256u32);
        let offset = Vec3::new(30.0, -12.0, 7.0);
        let mut positions = Vec::new();
        for r in 0..rings {
            for s in 0..segments {
                let (sin, cos) = (std::f32::consts::TAU * s as f32 / segments as f32).sin_cos();
                positions.push(offset + Vec3::new(r as f32 * 0.01, 0.5 * cos, 0.5 * sin));
            }
        }
        let id = |r: u32, s: u32| r * segments + s % segments;
        let mut triangles = Vec::new();
        for r in 0..rings - 1 {
            for s in 0..segments {
                triangles.push([id(r, s), id(r + 1, s), id(r, s + 1)]);
                triangles.push([id(r, s + 1), id(r + 1, s), id(r + 1, s + 1)]);
            }
        }
        let mut rand = uniform(0x0bad_5eed_1234_5678);
        for k in 0..400 {
            let (r, s) = ((rand() + 0.5) * (rings - 2) as f32 + 0.5, (rand() + 0.5) * segments as f32);
            let (r, s) = (r as u32, s as u32);
            let (a, b) = (positions[id(r, s) as usize], positions[id(r + 1, s + 1) as usize]);
            let target = if k % 2 == 0 { a } else { (a + b) * 0.5 };
            let outward = Vec3::new(0.0, target.y - offset.y, target.z - offset.z).normalize();
            let from = (outward * 2.0 + Vec3::new(rand(), rand(), rand())) * (1.0 + rand());
            let ray = Ray { origin: target + from, direction: -from };
            let hit = pick(&ray, &positions, &triangles);
            assert!(hit.is_some_and(|h| (h.t - 1.0).abs() < 1e-3), "ray {k} at {target}: {hit:?}");
        }
    }

    /// Numbers in -0.5..0.5 from a xorshift generator seeded with `state`.
    fn uniform(mut state: u64) -> impl FnMut() -> f32 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        }
    }

    /// No triangle that the crossing test says the ray crosses has its corners clearly on one side
    /// of a plane through the ray, even where the ray passes through a corner or an edge (the
    /// corner then lies on both planes up to rounding): fails without the margin.
    #[test]
    fn a_crossed_triangle_never_has_its_corners_on_one_side() {
        let mut rand = uniform(0x9e37_79b9_7f4a_7c15);
        let mut crossed = 0;
        for k in 0..20_000 {
            let far = Vec3::new(800.0, -300.0, 120.0);
            let corners = [0; 3].map(|_| far + Vec3::new(rand(), rand(), rand()));
            let [a, b, _] = corners;
            let target = if k % 2 == 0 { a } else { (a + b) * 0.5 };
            let from = Vec3::new(rand(), rand(), rand()) * 10.0;
            let ray = Ray { origin: target + from, direction: -from };
            if ray_triangle(&ray, corners[0], corners[1], corners[2]).is_some() {
                crossed += 1;
                let sides = Sides::of(&ray, &corners);
                assert_eq!(sides.0[0] & sides.0[1] & sides.0[2], 0, "ray {k}: {corners:?}, sides {:?}", sides.0);
            }
        }
        assert!(crossed > 5_000, "{crossed} crossings");
    }

    /// The side pass in eight lanes gives every point the bits that [`Planes::side`] gives it,
    /// including points on a plane, at the origin, and non-finite ones.
    #[test]
    fn sides_in_lanes_are_the_sides_one_by_one() {
        let mut rand = uniform(0x2545_f491_4f6c_dd1d);
        let ray = Ray { origin: Vec3::new(0.3, -2.0, 5.0), direction: Vec3::new(0.2, 0.4, -1.0) };
        let (n1, n2) = ray.direction.normalize().any_orthonormal_pair();
        let planes = Planes { origin: ray.origin, n1, n2 };
        let mut points: Vec<Vec3> =
            (0..1_003).map(|_| Vec3::new(rand(), rand(), rand()) * 20.0 + Vec3::new(0.0, 0.0, -3.0)).collect();
        for (k, p) in [
            ray.origin,
            ray.origin + ray.direction * 3.0,
            ray.origin + n1 * 1e-7 + ray.direction,
            ray.origin - n2 * 2.0,
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::splat(f32::INFINITY),
            Vec3::new(0.0, f32::NEG_INFINITY, 1.0),
        ]
        .into_iter()
        .enumerate()
        {
            points[k * 97 + 5] = p;
        }
        let mut out = vec![0u8; points.len()];
        planes.sides(&points, &mut out);
        let one_by_one: Vec<u8> = points.iter().map(|&p| planes.side(p)).collect();
        assert_eq!(out, one_by_one);
        assert!(one_by_one.contains(&0) && one_by_one.iter().filter(|&&b| b != 0).count() > 900);
    }
}
