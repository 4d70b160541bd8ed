//! The two halves of the bone-heat system (Baran and Popović 2007, §4) on a welded surface:
//! the cotangent stiffness matrix with lumped vertex areas, and each vertex's heat from its nearest
//! visible bone segments.
//!
//! Equilibrium of `∂w/∂t = Δw + H(p − w)` is `(−Δ + H) w = H p`; multiplied through by the vertex
//! areas `A` it becomes the symmetric positive-definite `(L + A H) w = A H p`, with `L` the
//! cotangent stiffness (`L_ij = −½(cot α_ij + cot β_ij)`, rows summing to 0). Robustness choices:
//! each edge weight is clamped to `[EDGE_FLOOR, ∞)` (obtuse and degenerate triangles cannot make it
//! negative, so the maximum principle keeps weights in [0, 1] and the graph of every connected part
//! stays connected); corner cotangents of near-zero-area triangles are not used; vertex areas are
//! floored at a small share of the mean. `H_i = k c / d²` (c = 3) with `d` the distance to the nearest
//! bone segment visible from the vertex (no mesh triangle on the straight path), `k` the number of
//! segments within `TIE` of that distance, each of which gets `p = 1/k`. A connected part in which
//! no vertex sees a bone takes heat from its nearest segments regardless of visibility, so every
//! part is anchored and the system is definite.

use glam::DVec3;
use rayon::prelude::*;

use super::bvh::TriangleBvh;
use super::segments::Segment;
use super::surface::Surface;

/// The heat constant `c` of `H = c / d²`. With this module's area-weighted Laplacian, c = 1 (the
/// paper's) spreads weights widely; c = 3 matches Blender's sharper normalisation and came closest to
/// the artists' weights on the shared models (mean LBS deformation distance; c = 10 was worse on the
/// Stegosaurus and Character_HumanoidRig).
const HEAT_C: f64 = 3.0;
/// Smallest edge weight (keeps every part's graph connected).
const EDGE_FLOOR: f64 = 1e-6;
/// Largest magnitude of one corner's cotangent (needle triangles).
const COT_CAP: f64 = 1e3;
/// Segments within this relative distance of the nearest share its heat.
const TIE: f64 = 1e-4;
/// Nearest distance used in `c / d²`, as a fraction of the surface diagonal.
const MIN_DISTANCE: f64 = 1e-3;
/// Most segments tried (nearest first) for a visible one before a vertex is left unheated.
const MAX_RAY_TESTS: usize = 8;
/// Ray hits this close to either end (as a fraction of the ray) are ignored.
const RAY_MARGIN: f64 = 1e-3;
/// Smallest vertex area, as a fraction of the mean vertex area.
const AREA_FLOOR: f64 = 1e-3;

/// The stiffness matrix's off-diagonal edges `(i, j, weight)` with `i < j`, unique, and the
/// lumped area of every vertex.
#[derive(Clone, Debug, Default)]
pub struct Stiffness {
    /// Edge weights `½(cot α + cot β)` clamped to at least `EDGE_FLOOR`, `i < j`, sorted.
    pub edges: Vec<(u32, u32, f64)>,
    /// Lumped (barycentric) vertex areas, floored.
    pub areas: Vec<f64>,
}

/// Builds the cotangent stiffness and vertex areas of `surface`.
#[must_use]
pub fn stiffness(surface: &Surface) -> Stiffness {
    let n = surface.len();
    let mut raw: Vec<(u32, u32, f64)> = Vec::with_capacity(surface.triangles.len() * 3);
    let mut areas = vec![0.0; n];
    let tiny_area = 1e-14 * surface.diagonal * surface.diagonal;
    for t in &surface.triangles {
        let p = t.map(|i| surface.positions[i as usize]);
        let area = 0.5 * (p[1] - p[0]).cross(p[2] - p[0]).length();
        let usable = area.is_finite() && area > tiny_area;
        for k in 0..3 {
            let (a, b, c) = (k, (k + 1) % 3, (k + 2) % 3);
            // The corner at `a` faces the edge (b, c).
            let cot =
                if usable { ((p[b] - p[a]).dot(p[c] - p[a]) / (2.0 * area)).clamp(-COT_CAP, COT_CAP) } else { 0.0 };
            let (i, j) = (t[b].min(t[c]), t[b].max(t[c]));
            raw.push((i, j, 0.5 * cot));
            if usable {
                areas[t[a] as usize] += area / 3.0;
            }
        }
    }
    raw.par_sort_unstable_by_key(|e| (e.0, e.1));
    let mut edges: Vec<(u32, u32, f64)> = Vec::with_capacity(raw.len() / 2 + 1);
    for (i, j, w) in raw {
        match edges.last_mut() {
            Some(last) if last.0 == i && last.1 == j => last.2 += w,
            _ => edges.push((i, j, w)),
        }
    }
    for e in &mut edges {
        e.2 = if e.2.is_finite() { e.2.max(EDGE_FLOOR) } else { EDGE_FLOOR };
    }
    let mean = if n > 0 { areas.iter().sum::<f64>() / n as f64 } else { 0.0 };
    let floor = (mean * AREA_FLOOR).max(f64::MIN_POSITIVE);
    for a in &mut areas {
        *a = a.max(floor);
    }
    Stiffness { edges, areas }
}

/// Each vertex's heat: `h` (the `H_ii` of the paper, `k c / d²`) and the joints that heat it with
/// their shares `p` (summing to 1 where `h > 0`).
#[derive(Clone, Debug, Default)]
pub struct Heat {
    /// `H_ii` per vertex (0: no visible bone).
    pub h: Vec<f64>,
    /// `(joint, share)` per vertex.
    pub sources: Vec<Vec<(u16, f64)>>,
    /// Vertices whose part saw no bone and took the nearest bones regardless of visibility.
    pub unseen_vertices: usize,
}

/// Heat of every vertex of `surface` from `segments` (indexed by skin joint), with visibility
/// tested against `bvh`; `parts` labels each vertex's connected part.
#[must_use]
pub fn heat(surface: &Surface, segments: &[Segment], bvh: &TriangleBvh, parts: &[u32]) -> Heat {
    let min_d = (MIN_DISTANCE * surface.diagonal).max(f64::MIN_POSITIVE);
    let per_vertex: Vec<(f64, Vec<(u16, f64)>)> = (0..surface.len())
        .into_par_iter()
        .map_init(Vec::new, |order, i| vertex_heat(surface, segments, Some(bvh), i, min_d, order))
        .collect();
    let (mut h, mut sources): (Vec<f64>, Vec<Vec<(u16, f64)>>) = per_vertex.into_iter().unzip();
    // Parts in which no vertex is heated: nearest bones regardless of visibility.
    let part_count = parts.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut heated = vec![false; part_count];
    for (i, &part) in parts.iter().enumerate() {
        if h[i] > 0.0 {
            heated[part as usize] = true;
        }
    }
    let mut unseen_vertices = 0;
    let mut order = Vec::new();
    for i in 0..surface.len() {
        if !heated[parts[i] as usize] {
            let (hi, si) = vertex_heat(surface, segments, None, i, min_d, &mut order);
            h[i] = hi;
            sources[i] = si;
            unseen_vertices += 1;
        }
    }
    Heat { h, sources, unseen_vertices }
}

fn vertex_heat(
    surface: &Surface,
    segments: &[Segment],
    bvh: Option<&TriangleBvh>,
    i: usize,
    min_d: f64,
    order: &mut Vec<(f64, usize)>,
) -> (f64, Vec<(u16, f64)>) {
    let p = surface.positions[i];
    order.clear();
    order.extend(segments.iter().enumerate().map(|(j, s)| (s.distance(p), j)));
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let visible = |j: usize| -> bool {
        match bvh {
            None => true,
            Some(bvh) => {
                let target: DVec3 = segments[j].closest_point(p);
                (target - p).length() <= min_d || !bvh.blocked(p, target, i as u32, RAY_MARGIN)
            }
        }
    };
    let tries = if bvh.is_some() { MAX_RAY_TESTS.min(order.len()) } else { order.len().min(1) };
    let Some(first) = (0..tries).find(|&k| visible(order[k].1)) else {
        return (0.0, Vec::new());
    };
    let nearest = order[first].0;
    let limit = nearest * (1.0 + TIE) + min_d * TIE;
    let mut closest: Vec<u16> = vec![order[first].1 as u16];
    for &(d, j) in &order[first + 1..] {
        if d > limit {
            break;
        }
        if visible(j) {
            closest.push(j as u16);
        }
    }
    let d = nearest.max(min_d);
    let k = closest.len() as f64;
    (HEAT_C * k / (d * d), closest.into_iter().map(|j| (j, 1.0 / k)).collect())
}

/// Connected parts of the surface's triangle graph: a label per vertex, `0..count`.
#[must_use]
pub fn connected_parts(surface: &Surface) -> Vec<u32> {
    let mut sets = crate::maths::DisjointSets::new(surface.len());
    for t in &surface.triangles {
        for k in 0..3 {
            sets.union(t[k], t[(k + 1) % 3]);
        }
    }
    sets.labels()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Surface {
        Surface {
            primitives: vec![(0, 0)],
            vertex_of: vec![vec![0, 1, 2, 3, 4]],
            positions: vec![
                DVec3::new(0.0, 0.0, 0.0),
                DVec3::new(1.0, 0.0, 0.0),
                DVec3::new(1.0, 1.0, 0.0),
                DVec3::new(0.0, 1.0, 0.0),
                DVec3::new(0.3, 0.6, 1.0),
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            diagonal: 8.0,
        }
    }

    #[test]
    fn cotangent_weights_of_a_square() {
        let s = stiffness(&square());
        // Right isosceles triangles: the diagonal's corners are 90° (cot 0) twice, the sides 45°.
        let w = |i, j| s.edges.iter().find(|e| e.0 == i && e.1 == j).map(|e| e.2);
        assert!((w(0, 1).unwrap() - 0.5).abs() < 1e-12);
        assert!((w(0, 2).unwrap() - EDGE_FLOOR).abs() < 1e-12);
        assert!((s.areas[0] - 1.0 / 3.0).abs() < 1e-12);
        assert!(s.areas[4] > 0.0, "the lone vertex gets the floor area");
        assert_eq!(connected_parts(&square()), vec![0, 0, 0, 0, 1]);
    }

    #[test]
    fn heat_comes_from_the_nearest_visible_segment_and_splits_ties() {
        let surface = square();
        let bvh = TriangleBvh::build(&surface.positions, &surface.triangles);
        let parts = connected_parts(&surface);
        // Segment 0 just below the square, segment 1 far above it.
        let segs = [
            Segment { head: DVec3::new(0.0, 0.0, -0.5), tail: DVec3::new(1.0, 1.0, -0.5) },
            Segment { head: DVec3::new(0.0, 0.0, 3.0), tail: DVec3::new(1.0, 1.0, 3.0) },
        ];
        let heat = heat(&surface, &segs, &bvh, &parts);
        assert_eq!(heat.sources[0], vec![(0, 1.0)]);
        assert!((heat.h[0] - HEAT_C * 4.0).abs() < 1e-9);
        // The loose vertex above the square: segment 0 is nearer but hidden behind the square.
        assert_eq!(heat.sources[4], vec![(1, 1.0)]);
        let d = segs[1].distance(surface.positions[4]);
        assert!((heat.h[4] - HEAT_C / (d * d)).abs() < 1e-9);
        let tie = [segs[0], Segment { head: DVec3::new(0.0, 0.0, 0.5), tail: DVec3::new(1.0, 1.0, 0.5) }];
        let heat = super::heat(&surface, &tie, &bvh, &parts);
        assert_eq!(heat.sources[1], vec![(0, 0.5), (1, 0.5)]);
        assert!((heat.h[1] - HEAT_C * 2.0 / 0.75).abs() < 1e-9, "two sources at distance √0.75");
    }
}
