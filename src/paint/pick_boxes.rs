//! Picking a large deformed mesh without testing every triangle. A primitive's triangles, in index
//! order, are cut into runs of [`RUN`]; each run gets a box around its deformed corners, and every
//! [`RUNS_PER_GROUP`] runs a box around theirs. A ray tests the group boxes, then the boxes of the
//! runs inside the groups it meets, then the triangles of the runs it meets, nearest entry first,
//! and stops when the next run starts beyond the nearest crossing found. The hit is exactly
//! [`super::pick()`]'s (the same crossing test, ties to the lower triangle index): every box holds
//! its triangles with a margin far above f32 rounding, so no run holding a nearer crossing is
//! skipped.
//!
//! The boxes follow the deformation: [`ModelPickBoxes::fit`] after a new pose (one pass over the
//! triangles), [`ModelPickBoxes::refit_vertices`] after a dab re-skinned a few vertices (only the
//! runs using them, found through a vertex → runs table built at the first such refit).

use glam::Vec3;

use super::pick::{each_crossing, hit_of, nearer, nearest_in, nearest_primitive, pick, usable, Hit, Ray};
use super::target::DabTarget;
use crate::model::Model;
use crate::model::TouchedPrimitive;
use crate::skinning::DeformedPrimitive;

/// Triangles per run (one box each).
pub const RUN: usize = 64;

/// Runs per group (one box around their boxes): one word of the refit's run bits.
pub const RUNS_PER_GROUP: usize = 64;
const _: () = assert!(RUNS_PER_GROUP == u64::BITS as usize);

/// Primitives with fewer triangles are picked by testing every triangle (no boxes).
pub const BOXED_FROM: usize = 16 * 1024;

/// An axis-aligned box; empty (`lo > hi`) when it holds no finite corner.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Aabb {
    lo: Vec3,
    hi: Vec3,
}

impl Aabb {
    const EMPTY: Self = Self { lo: Vec3::INFINITY, hi: Vec3::NEG_INFINITY };

    fn add(&mut self, p: Vec3) {
        self.lo = self.lo.min(p);
        self.hi = self.hi.max(p);
    }

    fn union(self, o: Self) -> Self {
        Self { lo: self.lo.min(o.lo), hi: self.hi.max(o.hi) }
    }

    /// Widened by far more than the rounding of any crossing computed from its corners: 1e-4 of
    /// its size plus 1e-5 of its distance from the origin (f32 rounds at 6e-8 relative).
    fn padded(self) -> Self {
        if self.lo.cmpgt(self.hi).any() {
            return self;
        }
        let size = (self.hi - self.lo).max_element();
        let reach = self.lo.abs().max(self.hi.abs()).max_element();
        let pad = Vec3::splat(size * 1e-4 + reach * 1e-5 + f32::MIN_POSITIVE);
        Self { lo: self.lo - pad, hi: self.hi + pad }
    }

    /// Where the ray `origin + t · dir` (`inv` = 1 / dir per axis) enters the box at `t ≥ 0`, if it
    /// meets it there.
    fn entry(&self, origin: Vec3, dir: Vec3, inv: Vec3) -> Option<f32> {
        let (mut near, mut far) = (0.0f32, f32::INFINITY);
        for axis in 0..3 {
            let (o, lo, hi) = (origin[axis], self.lo[axis], self.hi[axis]);
            if dir[axis] == 0.0 {
                if o < lo || o > hi {
                    return None;
                }
                continue;
            }
            let (a, b) = ((lo - o) * inv[axis], (hi - o) * inv[axis]);
            if a.is_nan() || b.is_nan() {
                // A direction too small to invert, from a face of the slab: inside it.
                continue;
            }
            near = near.max(a.min(b));
            far = far.min(a.max(b));
        }
        (near <= far).then_some(near)
    }
}

/// Boxes around the runs of one primitive's triangles in one deformation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PickBoxes {
    runs: Vec<Aabb>,
    groups: Vec<Aabb>,
    /// Per vertex, where its runs start in `vertex_runs` (one more entry than vertices); empty
    /// until the first [`PickBoxes::refit_vertices`].
    run_starts: Vec<u32>,
    vertex_runs: Vec<u32>,
}

impl PickBoxes {
    /// The boxes of `triangles` (indices into `positions`; out-of-range corners are left out,
    /// as picking skips their triangles).
    #[must_use]
    pub fn new(positions: &[Vec3], triangles: &[[u32; 3]]) -> Self {
        let mut boxes = Self::default();
        boxes.fit(positions, triangles);
        boxes
    }

    /// Fits every box to `positions` (the same triangles as before).
    pub fn fit(&mut self, positions: &[Vec3], triangles: &[[u32; 3]]) {
        use rayon::prelude::*;
        let runs = triangles.len().div_ceil(RUN);
        self.runs.resize(runs, Aabb::EMPTY);
        self.runs
            .par_iter_mut()
            .with_min_len(256)
            .enumerate()
            .for_each(|(r, aabb)| *aabb = run_box(positions, triangles, r));
        self.fit_groups(0..runs.div_ceil(RUNS_PER_GROUP));
    }

    /// Fits the boxes of the runs using one of `vertices` (after they moved; the same triangles).
    pub fn refit_vertices(&mut self, positions: &[Vec3], triangles: &[[u32; 3]], vertices: &[u32]) {
        if self.run_starts.len() != positions.len() + 1 {
            self.index_vertices(positions.len(), triangles);
        }
        // One bit per run, so each is fitted once; one word per group.
        let mut marked = vec![0u64; self.groups.len()];
        for &v in vertices.iter().filter(|&&v| (v as usize) < positions.len()) {
            let (a, b) = (self.run_starts[v as usize] as usize, self.run_starts[v as usize + 1] as usize);
            for &r in &self.vertex_runs[a..b] {
                marked[r as usize / RUNS_PER_GROUP] |= 1 << (r as usize % RUNS_PER_GROUP);
            }
        }
        for (g, &word) in marked.iter().enumerate().filter(|(_, &w)| w != 0) {
            let mut bits = word;
            while bits != 0 {
                let r = g * RUNS_PER_GROUP + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.runs[r] = run_box(positions, triangles, r);
            }
            self.fit_groups(g..g + 1);
        }
    }

    /// The nearest triangle that `ray` meets: exactly [`super::pick()`]'s hit.
    #[must_use]
    pub fn pick(&self, ray: &Ray, positions: &[Vec3], triangles: &[[u32; 3]]) -> Option<Hit> {
        if !usable(ray) || self.runs.len() != triangles.len().div_ceil(RUN) {
            return pick(ray, positions, triangles);
        }
        let (origin, dir) = (ray.origin, ray.direction);
        let inv = Vec3::ONE / dir;
        let mut entries: Vec<(f32, usize)> = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            if group.entry(origin, dir, inv).is_none() {
                continue;
            }
            let first = g * RUNS_PER_GROUP;
            let end = (first + RUNS_PER_GROUP).min(self.runs.len());
            for (r, run) in self.runs[first..end].iter().enumerate() {
                if let Some(t) = run.entry(origin, dir, inv) {
                    entries.push((t, first + r));
                }
            }
        }
        entries.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut best: Option<(f32, usize, f32, f32)> = None;
        for (entry, r) in entries {
            if best.is_some_and(|b| entry > b.0) {
                break;
            }
            let first = r * RUN;
            // Ties go to the lower triangle index, as in `pick`, whatever the run order.
            best =
                nearer(best, nearest_in(ray, positions, &triangles[first..(first + RUN).min(triangles.len())], first));
        }
        best.map(|b| hit_of(ray, positions, triangles, b))
    }

    /// Every crossing of `ray` with `triangles` (at `t > 0`, as [`super::pick::ray_triangle`]
    /// finds them), given to `found` as `(triangle, t)` in ascending triangle order: exactly the
    /// crossings of a test of every triangle, in its order.
    pub fn crossings(&self, ray: &Ray, positions: &[Vec3], triangles: &[[u32; 3]], mut found: impl FnMut(usize, f32)) {
        let mut test = |first: usize, end: usize| {
            each_crossing(ray, positions, &triangles[first..end], first, |i, t, _, _| found(i, t));
        };
        if self.runs.len() != triangles.len().div_ceil(RUN) {
            test(0, triangles.len());
            return;
        }
        let (origin, dir) = (ray.origin, ray.direction);
        let inv = Vec3::ONE / dir;
        for (g, group) in self.groups.iter().enumerate() {
            if group.entry(origin, dir, inv).is_none() {
                continue;
            }
            let first_run = g * RUNS_PER_GROUP;
            for r in first_run..(first_run + RUNS_PER_GROUP).min(self.runs.len()) {
                if self.runs[r].entry(origin, dir, inv).is_some() {
                    test(r * RUN, ((r + 1) * RUN).min(triangles.len()));
                }
            }
        }
    }

    fn fit_groups(&mut self, groups: std::ops::Range<usize>) {
        self.groups.resize(self.runs.len().div_ceil(RUNS_PER_GROUP), Aabb::EMPTY);
        for g in groups {
            let first = g * RUNS_PER_GROUP;
            let end = (first + RUNS_PER_GROUP).min(self.runs.len());
            self.groups[g] = self.runs[first..end].iter().fold(Aabb::EMPTY, |acc, b| acc.union(*b));
        }
    }

    /// The vertex → runs table: a counting sort of the in-range corners' runs, each run once per
    /// vertex (triangles come in run order, so a vertex's repeats are consecutive).
    fn index_vertices(&mut self, vertices: usize, triangles: &[[u32; 3]]) {
        let mut last = vec![u32::MAX; vertices];
        let mut starts = vec![0u32; vertices + 1];
        for (i, t) in triangles.iter().enumerate() {
            let run = (i / RUN) as u32;
            for &k in t.iter().filter(|&&k| (k as usize) < vertices) {
                if std::mem::replace(&mut last[k as usize], run) != run {
                    starts[k as usize + 1] += 1;
                }
            }
        }
        for v in 0..vertices {
            starts[v + 1] += starts[v];
        }
        last.fill(u32::MAX);
        let mut next = starts.clone();
        let mut runs = vec![0u32; starts[vertices] as usize];
        for (i, t) in triangles.iter().enumerate() {
            let run = (i / RUN) as u32;
            for &k in t.iter().filter(|&&k| (k as usize) < vertices) {
                if std::mem::replace(&mut last[k as usize], run) != run {
                    runs[next[k as usize] as usize] = run;
                    next[k as usize] += 1;
                }
            }
        }
        self.run_starts = starts;
        self.vertex_runs = runs;
    }
}

/// The padded box of run `r`'s in-range corners. NaN coordinates are left out (`f32::min` and
/// `max` ignore them) and infinite ones only widen the box: a triangle with such a corner, or a
/// corner out of range, is never hit, so every box still holds every crossing of its run.
fn run_box(positions: &[Vec3], triangles: &[[u32; 3]], r: usize) -> Aabb {
    let first = r * RUN;
    // One box per corner slot: three independent chains of min/max instead of one.
    let mut corners = [Aabb::EMPTY; 3];
    for t in &triangles[first..(first + RUN).min(triangles.len())] {
        for (aabb, &k) in corners.iter_mut().zip(t) {
            if let Some(&p) = positions.get(k as usize) {
                aabb.add(p);
            }
        }
    }
    corners[0].union(corners[1]).union(corners[2]).padded()
}

/// Pick boxes for every primitive of every skinned instance of a model, in one deformation
/// (`deformed[instance][primitive]`); small primitives have none and are tested whole.
#[derive(Clone, Debug, Default)]
pub struct ModelPickBoxes {
    boxes: Vec<Vec<Option<PickBoxes>>>,
}

impl ModelPickBoxes {
    /// Fits the boxes to `deformed` (a new pose), keeping each primitive's vertex → runs table:
    /// the model's meshes and instances must be those of the last fit (start from a fresh value
    /// for another model or a skeleton edit).
    pub fn fit(&mut self, model: &Model, deformed: &[Vec<DeformedPrimitive>]) {
        self.boxes.resize_with(model.instances.len(), Vec::new);
        for (i, inst) in model.instances.iter().enumerate() {
            let prims = model.meshes.get(inst.mesh).map_or(&[][..], |m| &m.primitives[..]);
            let slots = &mut self.boxes[i];
            slots.resize_with(prims.len(), || None);
            for (p, prim) in prims.iter().enumerate() {
                let buf = deformed.get(i).and_then(|d| d.get(p)).filter(|b| b.positions.len() == prim.positions.len());
                match buf.filter(|_| prim.triangles.len() >= BOXED_FROM) {
                    Some(buf) => slots[p].get_or_insert_with(PickBoxes::default).fit(&buf.positions, &prim.triangles),
                    None => slots[p] = None,
                }
            }
        }
    }

    /// Refits the boxes of the runs using the vertices in `parts` (re-skinned in place in
    /// `deformed`; every instance of a part's mesh).
    pub fn refit_vertices(&mut self, model: &Model, deformed: &[Vec<DeformedPrimitive>], parts: &[TouchedPrimitive]) {
        for part in parts {
            let Some(prim) = model.meshes.get(part.mesh).and_then(|m| m.primitives.get(part.prim)) else { continue };
            for (i, _) in model.instances.iter().enumerate().filter(|(_, inst)| inst.mesh == part.mesh) {
                let Some(boxes) = self.boxes.get_mut(i).and_then(|b| b.get_mut(part.prim)).and_then(Option::as_mut)
                else {
                    continue;
                };
                let Some(buf) = deformed.get(i).and_then(|d| d.get(part.prim)) else { continue };
                boxes.refit_vertices(&buf.positions, &prim.triangles, &part.vertices);
            }
        }
    }

    /// The boxes of primitive `prim` of instance `instance`, if it has them (large primitives).
    #[must_use]
    pub fn boxes(&self, instance: usize, prim: usize) -> Option<&PickBoxes> {
        self.boxes.get(instance)?.get(prim)?.as_ref()
    }

    /// The nearest hit over every primitive: exactly [`super::pick_model`]'s.
    #[must_use]
    pub fn pick(&self, ray: &Ray, model: &Model, deformed: &[Vec<DeformedPrimitive>]) -> Option<(DabTarget, Hit)> {
        nearest_primitive(model, deformed, |i, p, positions, triangles| match self.boxes(i, p) {
            Some(b) => b.pick(ray, positions, triangles),
            None => pick(ray, positions, triangles),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A `n × n` sheet folded over itself `folds` times (so rays cross several layers), its
    /// corners moved by `noise` (a hash of the vertex index and `seed`), with a few bad triangles.
    fn folded_sheet(n: u32, folds: u32, noise: f32, seed: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let jitter = |i: u32, k: u32| {
            let h = (i.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(40_503) ^ k.wrapping_mul(97)).rotate_left(13);
            (h % 10_000) as f32 / 10_000.0 - 0.5
        };
        let mut positions = Vec::new();
        for y in 0..n {
            for x in 0..n {
                let u = x as f32 / (n - 1) as f32 * (folds + 1) as f32;
                let layer = u.floor().min(folds as f32);
                let along = if (layer as u32).is_multiple_of(2) { u - layer } else { 1.0 - (u - layer) };
                let i = y * n + x;
                positions.push(Vec3::new(
                    along + noise * jitter(i, 0),
                    y as f32 / (n - 1) as f32 + noise * jitter(i, 1),
                    0.1 * layer + noise * jitter(i, 2),
                ));
            }
        }
        let mut triangles = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = y * n + x;
                triangles.push([i, i + 1, i + n]);
                triangles.push([i + 1, i + n + 1, i + n]);
            }
        }
        // A degenerate triangle, one out of range and one repeated (ties).
        triangles.push([0, 0, 1]);
        triangles.push([0, 1, n * n + 5]);
        triangles.push(triangles[3]);
        (positions, triangles)
    }

    fn ray_through(origin: [f32; 3], target: [f32; 3]) -> Ray {
        let (o, t) = (Vec3::from(origin), Vec3::from(target));
        Ray { origin: o, direction: t - o }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn boxes_pick_exactly_what_every_triangle_picks(
            n in 3u32..90, folds in 0u32..4, noise in 0.0f32..0.05, seed in any::<u32>(),
            rays in proptest::collection::vec(
                ([-2.0f32..3.0, -2.0f32..3.0, -2.0f32..3.0], [-0.2f32..1.2, -0.2f32..1.2, -0.2f32..0.6]), 1..24),
        ) {
            let (positions, triangles) = folded_sheet(n, folds, noise, seed);
            let boxes = PickBoxes::new(&positions, &triangles);
            for &(o, t) in &rays {
                let ray = ray_through(o, t);
                prop_assert_eq!(boxes.pick(&ray, &positions, &triangles), pick(&ray, &positions, &triangles));
            }
            // Axis-parallel rays (zero direction components), from inside and outside.
            for &(o, _) in &rays {
                for dir in [Vec3::Z, -Vec3::Z, Vec3::X, -Vec3::Y] {
                    let ray = Ray { origin: Vec3::from(o), direction: dir };
                    prop_assert_eq!(boxes.pick(&ray, &positions, &triangles), pick(&ray, &positions, &triangles));
                }
            }
        }

        #[test]
        fn refitted_boxes_follow_moved_vertices(
            n in 8u32..40, seed in any::<u32>(), moved in proptest::collection::vec(any::<u32>(), 1..50),
            lift in -0.5f32..0.5,
            rays in proptest::collection::vec(
                ([-1.0f32..2.0, -1.0f32..2.0, 1.0f32..3.0], [0.0f32..1.0, 0.0f32..1.0, -0.5f32..0.5]), 1..24),
        ) {
            let (mut positions, triangles) = folded_sheet(n, 1, 0.01, seed);
            let mut boxes = PickBoxes::new(&positions, &triangles);
            let mut vertices: Vec<u32> = moved.iter().map(|&v| v % (n * n)).collect();
            vertices.sort_unstable();
            vertices.dedup();
            for &v in &vertices {
                positions[v as usize].z += lift;
            }
            boxes.refit_vertices(&positions, &triangles, &vertices);
            prop_assert_eq!(&boxes, &PickBoxes { run_starts: boxes.run_starts.clone(), vertex_runs: boxes.vertex_runs.clone(), ..PickBoxes::new(&positions, &triangles) });
            for &(o, t) in &rays {
                let ray = ray_through(o, t);
                prop_assert_eq!(boxes.pick(&ray, &positions, &triangles), pick(&ray, &positions, &triangles));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn boxes_find_every_crossing_in_triangle_order(
            n in 3u32..90, folds in 0u32..4, noise in 0.0f32..0.05, seed in any::<u32>(),
            rays in proptest::collection::vec(
                ([-2.0f32..3.0, -2.0f32..3.0, -2.0f32..3.0], [-0.2f32..1.2, -0.2f32..1.2, -0.2f32..0.6]), 1..16),
        ) {
            let (positions, triangles) = folded_sheet(n, folds, noise, seed);
            let boxes = PickBoxes::new(&positions, &triangles);
            for &(o, t) in &rays {
                let ray = ray_through(o, t);
                let mut every = Vec::new();
                for (i, tri) in triangles.iter().enumerate() {
                    let corner = |k: usize| positions.get(tri[k] as usize).copied();
                    if let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2)) {
                        if let Some((d, _, _)) = crate::paint::pick::ray_triangle(&ray, a, b, c) {
                            every.push((i, d));
                        }
                    }
                }
                let mut boxed = Vec::new();
                boxes.crossings(&ray, &positions, &triangles, |i, d| boxed.push((i, d)));
                prop_assert_eq!(boxed, every);
            }
        }
    }

    #[test]
    fn a_tie_goes_to_the_lower_triangle_whatever_run_is_entered_first() {
        // Triangle 0 and triangle RUN are the same; the second run also holds a triangle nearer
        // the eye (off the ray), so the ray enters its box first.
        let mut positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.0, 0.0, -5.0)];
        positions.extend([Vec3::new(2.0, 0.0, 3.0), Vec3::new(3.0, 0.0, 3.0), Vec3::new(2.0, 1.0, 3.0)]);
        let mut triangles = vec![[0, 1, 2]];
        triangles.resize(RUN, [3, 3, 3]);
        triangles.extend([[0, 1, 2], [4, 5, 6]]);
        let ray = Ray { origin: Vec3::new(0.2, 0.2, 5.0), direction: -Vec3::Z };
        let boxes = PickBoxes::new(&positions, &triangles);
        let expected = pick(&ray, &positions, &triangles);
        assert_eq!(expected.map(|h| h.triangle), Some(0));
        assert_eq!(boxes.pick(&ray, &positions, &triangles), expected);
    }

    #[test]
    fn non_finite_corners_and_rays_are_never_hit() {
        let (mut positions, triangles) = folded_sheet(30, 2, 0.0, 1);
        positions[40] = Vec3::NAN;
        positions[41] = Vec3::INFINITY;
        let boxes = PickBoxes::new(&positions, &triangles);
        for x in 0..20 {
            let ray = ray_through([x as f32 / 20.0, 0.05, 2.0], [x as f32 / 20.0, 0.05, -1.0]);
            assert_eq!(boxes.pick(&ray, &positions, &triangles), pick(&ray, &positions, &triangles));
        }
        let bad = Ray { origin: Vec3::NAN, direction: Vec3::Z };
        assert_eq!(boxes.pick(&bad, &positions, &triangles), None);
        assert_eq!(boxes.pick(&Ray { origin: Vec3::ZERO, direction: Vec3::ZERO }, &positions, &triangles), None);
    }
}
