//! Production-density copies of a model: every triangle primitive of every skinned mesh is refined
//! by midpoint edge splits until the skinned vertices number at least a target.
//!
//! Each round splits edges at their midpoints; an edge is split once for both triangles that share
//! it, so a watertight mesh stays watertight. While the target is at least one round of every edge
//! away, every edge is split (each triangle becomes four). The last round splits only the longest
//! edges, every edge at least as long as the `k`-th longest over all skinned primitives (`k` the
//! vertices still missing): equal edges are split alike, so seam copies of an edge (equal positions
//! in different vertices or primitives) never leave a crack. A triangle with one or two split edges
//! becomes two or three triangles (the shorter diagonal closes a quad).
//!
//! Original vertices keep their index, position, normal and influences bit for bit; new vertices
//! follow them (vertex `original + k` is the midpoint of [`PrimitiveRefinement::midpoints`]`[k]`,
//! whose ends are older vertices). A new vertex gets the midpoint of its ends' positions, their
//! normals' mean renormalised, and the mean of their weights held to the skin's influence limit (the
//! most influences any vertex of the skin had: a rigidly bound model stays rigid), largest kept,
//! renormalised; each morph target moves it by the mean of its ends' displacements. Lines and
//! points are left as they are.

use glam::Vec3;

use super::influences::VertexInfluences;
use super::{Influences, JointSetTable, Model, MorphTarget, Primitive, Topology, VertexOrder};

/// The most skinned vertices a densified model may have: densifying CesiumMan to 5 million peaks
/// at 1.7 GB, so the command stays under 2 GB of memory.
pub const MAX_VERTICES: usize = 5_000_000;

/// Why a model cannot be densified.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DensifyError {
    /// The target is beyond [`MAX_VERTICES`].
    #[error("{0} vertices is more than densify makes (at most {MAX_VERTICES})")]
    TooMany(usize),
    /// No skinned primitive has a triangle to split.
    #[error("no skinned triangle primitive to subdivide (the model has {0} skinned vertices)")]
    NoTriangles(usize),
}

/// How one primitive was refined.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrimitiveRefinement {
    /// Vertices before refinement (they keep their indices).
    pub original_vertices: usize,
    /// The ends of each new vertex, in order: vertex `original_vertices + k` is the midpoint of
    /// `midpoints[k]` (both older than it).
    pub midpoints: Vec<[u32; 2]>,
}

/// A densified model and how each primitive was refined.
#[derive(Clone, Debug)]
pub struct Densified {
    /// The refined model (same nodes, skins, clips and instances; more vertices and triangles).
    pub model: Model,
    /// Per model mesh and primitive: its refinement (`None`: left as it was).
    pub refinements: Vec<Vec<Option<PrimitiveRefinement>>>,
    /// Rounds of edge splits done (0 when the model already had the vertices).
    pub rounds: usize,
}

/// One undirected edge of a primitive, ends ascending by file index, with its squared rest
/// length. Edges are ordered by their ends' file indices, so that the new vertices, their numbers
/// and the written file do not depend on the model's vertex order (`model::vertex_order`).
#[derive(Clone, Copy, Debug)]
struct Edge {
    a: u32,
    b: u32,
    /// `(file index of a, file index of b)`: the sort and search key.
    key: (u32, u32),
    len2: f32,
}

/// Refines every skinned triangle primitive of `model` until its skinned vertex count (over every
/// skinned instance, as [`Model::skinned_vertex_count`]) is at least `target`.
pub fn densify(model: &Model, target: usize) -> Result<Densified, DensifyError> {
    if target > MAX_VERTICES {
        return Err(DensifyError::TooMany(target));
    }
    let mut dense = model.clone();
    let mut users = vec![0usize; model.meshes.len()];
    let mut skin_of = vec![None; model.meshes.len()];
    for inst in &model.instances {
        users[inst.mesh] += 1;
        skin_of[inst.mesh] = Some(inst.skin);
    }
    let limits = influence_limits(model);
    let mut refinements: Vec<Vec<Option<PrimitiveRefinement>>> = model
        .meshes
        .iter()
        .zip(&users)
        .map(|(mesh, &n)| {
            mesh.primitives
                .iter()
                .map(|p| {
                    (n > 0 && p.topology == Topology::Triangles && !p.triangles.is_empty())
                        .then(|| PrimitiveRefinement { original_vertices: p.positions.len(), midpoints: Vec::new() })
                })
                .collect()
        })
        .collect();
    let mut rounds = 0;
    loop {
        let count = dense.skinned_vertex_count();
        if count >= target {
            break;
        }
        let mut edges: Vec<(usize, usize, Vec<Edge>)> = Vec::new();
        for (m, prims) in refinements.iter().enumerate() {
            for (p, r) in prims.iter().enumerate() {
                if r.is_some() {
                    edges.push((m, p, edges_of(&dense.meshes[m].primitives[p])));
                }
            }
        }
        let total: usize = edges.iter().map(|(m, _, e)| e.len() * users[*m]).sum();
        if total == 0 {
            return Err(DensifyError::NoTriangles(count));
        }
        let threshold = split_threshold(&edges, &users, target - count);
        for (m, p, e) in &edges {
            let skin = skin_of[*m];
            let limit = skin.map_or(1, |s| limits[s]);
            let table = skin.map(|s| &mut dense.skins[s].sets);
            let mesh = &mut dense.meshes[*m];
            let prim = &mut mesh.primitives[*p];
            if let Some(r) = refinements[*m][*p].as_mut() {
                let done = r.midpoints.len();
                split_edges(prim, e, threshold, table, limit, &mut r.midpoints);
                if let Some(targets) = mesh.morphs.primitives.get_mut(*p) {
                    for target in targets {
                        refine_target(target, &prim.order, done + r.original_vertices, &r.midpoints[done..]);
                    }
                }
            }
        }
        rounds += 1;
    }
    Ok(Densified { model: dense, refinements, rounds })
}

/// The most influences any vertex of each skin has (at least 1).
fn influence_limits(model: &Model) -> Vec<usize> {
    let mut limits = vec![1usize; model.skins.len()];
    for inst in &model.instances {
        let table = &model.skins[inst.skin].sets;
        for inf in model.meshes[inst.mesh].primitives.iter().filter_map(|p| p.influences.as_ref()) {
            for v in 0..inf.len() {
                limits[inst.skin] = limits[inst.skin].max(inf.count(v, table));
            }
        }
    }
    limits
}

/// The distinct edges of a primitive's non-degenerate triangles, sorted by their ends.
fn edges_of(p: &Primitive) -> Vec<Edge> {
    let mut edges = Vec::with_capacity(p.triangles.len() * 3);
    for t in p.triangles.iter().filter(|t| t[0] != t[1] && t[1] != t[2] && t[2] != t[0]) {
        for k in 0..3 {
            edges.push(edge(p, t[k], t[(k + 1) % 3]));
        }
    }
    edges.sort_unstable_by_key(|e| e.key);
    edges.dedup_by_key(|e| e.key);
    for e in &mut edges {
        e.len2 = (p.positions[e.b as usize] - p.positions[e.a as usize]).length_squared();
    }
    edges
}

/// The edge between model vertices `a` and `b` (its length still unset).
fn edge(p: &Primitive, a: u32, b: u32) -> Edge {
    let key = edge_key(&p.order, a, b);
    let a_first = p.order.file_index(a as usize) as u32 == key.0;
    let (a, b) = if a_first { (a, b) } else { (b, a) };
    Edge { a, b, key, len2: 0.0 }
}

/// The key of the edge between model vertices `a` and `b`: its ends' file indices, ascending.
fn edge_key(order: &VertexOrder, a: u32, b: u32) -> (u32, u32) {
    let (fa, fb) = (order.file_index(a as usize) as u32, order.file_index(b as usize) as u32);
    (fa.min(fb), fa.max(fb))
}

/// The squared length from which edges are split so that at least `need` vertices are added
/// (each edge of a mesh counted once per instance drawing it); every edge when `need` reaches the
/// total.
fn split_threshold(edges: &[(usize, usize, Vec<Edge>)], users: &[usize], need: usize) -> f32 {
    let mut lengths: Vec<f32> = Vec::new();
    for (m, _, e) in edges {
        for edge in e {
            lengths.extend(std::iter::repeat_n(edge.len2, users[*m]));
        }
    }
    if need >= lengths.len() || need == 0 {
        return f32::NEG_INFINITY;
    }
    let (_, kth, _) = lengths.select_nth_unstable_by(need - 1, |a, b| b.total_cmp(a));
    *kth
}

/// Splits every edge of `edges` at least `threshold` long: appends one vertex per split edge (its
/// ends to `midpoints`) and replaces the triangles.
fn split_edges(
    p: &mut Primitive,
    edges: &[Edge],
    threshold: f32,
    table: Option<&mut JointSetTable>,
    limit: usize,
    midpoints: &mut Vec<[u32; 2]>,
) {
    let first = p.positions.len() as u32;
    let mut mid = vec![u32::MAX; edges.len()];
    let mut next = first;
    for (slot, e) in mid.iter_mut().zip(edges) {
        if e.len2 >= threshold {
            *slot = next;
            next += 1;
            midpoints.push([e.a, e.b]);
        }
    }
    let split: Vec<[u32; 2]> =
        edges.iter().zip(&mid).filter(|(_, &m)| m != u32::MAX).map(|(e, _)| [e.a, e.b]).collect();
    p.positions.reserve(split.len());
    for &[a, b] in &split {
        let pos = (p.positions[a as usize] + p.positions[b as usize]) * 0.5;
        p.positions.push(pos);
    }
    if let Some(normals) = p.normals.as_mut() {
        normals.reserve(split.len());
        for &[a, b] in &split {
            let (na, nb) = (normals[a as usize], normals[b as usize]);
            normals.push(mean_normal(na, nb));
        }
    }
    if let (Some(inf), Some(table)) = (p.influences.as_mut(), table) {
        *inf = refined_influences(inf, table, &split, limit);
    }
    let order = &p.order;
    let lookup = |a: u32, b: u32| -> u32 {
        edges.binary_search_by_key(&edge_key(order, a, b), |e| e.key).map_or(u32::MAX, |i| mid[i])
    };
    let positions = &p.positions;
    let mut triangles = Vec::with_capacity(p.triangles.len() * 2);
    for &t in &p.triangles {
        if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
            triangles.push(t);
            continue;
        }
        let m = [lookup(t[0], t[1]), lookup(t[1], t[2]), lookup(t[2], t[0])];
        split_triangle(t, m, positions, &mut triangles);
    }
    p.triangles = triangles;
}

/// Extends a morph target over the vertices a round appended (the first one is vertex `first`,
/// the midpoint of `ends[0]`, ...): each gets the mean of its ends' displacements, as its position
/// is their mean (new vertices have the same index in the file and the model).
fn refine_target(target: &mut MorphTarget, order: &VertexOrder, first: usize, ends: &[[u32; 2]]) {
    let with_normals = !target.normals.is_empty();
    let displacement = |t: &MorphTarget, v: u32| -> (Vec3, Vec3) {
        let f = order.file_index(v as usize) as u32;
        t.vertices
            .binary_search(&f)
            .map_or((Vec3::ZERO, Vec3::ZERO), |k| (t.positions[k], t.normals.get(k).copied().unwrap_or(Vec3::ZERO)))
    };
    let mut added = Vec::new();
    for (k, &[a, b]) in ends.iter().enumerate() {
        let ((pa, na), (pb, nb)) = (displacement(target, a), displacement(target, b));
        let (d, n) = ((pa + pb) * 0.5, (na + nb) * 0.5);
        if d != Vec3::ZERO || n != Vec3::ZERO {
            added.push(((first + k) as u32, d, n));
        }
    }
    for (v, d, n) in added {
        target.vertices.push(v);
        target.positions.push(d);
        if with_normals {
            target.normals.push(n);
        }
    }
}

/// The mean of two unit normals, renormalised (the first when they cancel).
fn mean_normal(a: Vec3, b: Vec3) -> Vec3 {
    let n = (a + b) * 0.5;
    let len = n.length();
    if len > 1e-12 && len.is_finite() {
        n / len
    } else {
        a
    }
}

/// Emits the triangles of `t` (counter-clockwise) with midpoints `m` on edges (0,1), (1,2), (2,0)
/// (`u32::MAX`: not split).
fn split_triangle(t: [u32; 3], m: [u32; 3], positions: &[Vec3], out: &mut Vec<[u32; 3]>) {
    let none = u32::MAX;
    match m.iter().filter(|&&x| x != none).count() {
        0 => out.push(t),
        3 => {
            out.push([t[0], m[0], m[2]]);
            out.push([m[0], t[1], m[1]]);
            out.push([m[2], m[1], t[2]]);
            out.push([m[0], m[1], m[2]]);
        }
        1 => {
            // Rotate so the split edge is (a, b).
            let r = m.iter().position(|&x| x != none).unwrap_or(0);
            let (a, b, c) = (t[r], t[(r + 1) % 3], t[(r + 2) % 3]);
            out.push([a, m[r], c]);
            out.push([m[r], b, c]);
        }
        _ => {
            // Rotate so the unsplit edge is (c, a): edges (a, b) and (b, c) are split.
            let u = m.iter().position(|&x| x == none).unwrap_or(0);
            let r = (u + 1) % 3;
            let (a, b, c) = (t[r], t[(r + 1) % 3], t[(r + 2) % 3]);
            let (mab, mbc) = (m[r], m[(r + 1) % 3]);
            out.push([mab, b, mbc]);
            let p = |i: u32| positions[i as usize];
            if (p(a) - p(mbc)).length_squared() <= (p(mab) - p(c)).length_squared() {
                out.push([a, mab, mbc]);
                out.push([a, mbc, c]);
            } else {
                out.push([a, mab, c]);
                out.push([mab, mbc, c]);
            }
        }
    }
}

/// The influences of a primitive after appending the midpoints of `split`: original vertices bit
/// for bit, each new one the mean of its ends held to `limit` influences and renormalised.
fn refined_influences(inf: &Influences, table: &mut JointSetTable, split: &[[u32; 2]], limit: usize) -> Influences {
    let mut all: Vec<VertexInfluences> = (0..inf.len()).map(|v| inf.vertex_influences(v, table)).collect();
    all.reserve(split.len());
    for &[a, b] in split {
        all.push(mean_influences(inf, table, a as usize, b as usize, limit));
    }
    // Every new vertex has at most `limit` ≤ `table.slots()` influences, so this cannot fail;
    // should it, the primitive keeps its influences and the new vertices none.
    Influences::from_vertices(&all, table).unwrap_or_else(|_| inf.clone())
}

/// The mean of two vertices' influences, the `limit` largest kept (ties: lower joint), renormalised;
/// largest first, so the pivot is the largest.
fn mean_influences(inf: &Influences, table: &JointSetTable, a: usize, b: usize, limit: usize) -> VertexInfluences {
    let mut pairs: Vec<(u16, f64)> = Vec::with_capacity(8);
    for (j, w) in inf.vertex(a, table).chain(inf.vertex(b, table)) {
        match pairs.iter_mut().find(|p| p.0 == j) {
            Some(p) => p.1 += 0.5 * f64::from(w),
            None => pairs.push((j, 0.5 * f64::from(w))),
        }
    }
    pairs.retain(|p| p.1 > 0.0);
    pairs.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    pairs.truncate(limit);
    let sum: f64 = pairs.iter().map(|p| p.1).sum();
    VertexInfluences { pairs: pairs.into_iter().map(|(j, w)| (j, (w / sum) as f32)).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_two_and_three_split_edges_tile_the_triangle() {
        let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.5, 0.5, 0.0)];
        let none = u32::MAX;
        let area = |ts: &[[u32; 3]], pos: &[Vec3]| -> f32 {
            ts.iter()
                .map(|t| {
                    let (a, b, c) = (pos[t[0] as usize], pos[t[1] as usize], pos[t[2] as usize]);
                    0.5 * (b - a).cross(c - a).z
                })
                .sum()
        };
        for m in [[3, none, none], [3, 4, none]] {
            let mut out = Vec::new();
            split_triangle([0, 1, 2], m, &positions, &mut out);
            assert_eq!(out.len(), m.iter().filter(|&&x| x != none).count() + 1);
            assert!((area(&out, &positions) - 0.5).abs() < 1e-6, "same area, all counter-clockwise");
            assert!(out.iter().all(|t| area(&[*t], &positions) > 0.0));
        }
    }

    #[test]
    fn the_limit_keeps_the_largest_and_renormalises() {
        let mut table = JointSetTable::new(2);
        let verts = [
            VertexInfluences { pairs: vec![(1, 0.6), (2, 0.4)] },
            VertexInfluences { pairs: vec![(3, 0.7), (1, 0.3)] },
        ];
        let inf = Influences::from_vertices(&verts, &mut table).unwrap();
        let mean = mean_influences(&inf, &table, 0, 1, 2);
        // Means: joint 1 0.45, joint 3 0.35, joint 2 0.2 → keep 1 and 3.
        assert_eq!(mean.pairs.len(), 2);
        assert_eq!(mean.pairs[0].0, 1);
        assert_eq!(mean.pairs[1].0, 3);
        assert!((mean.pairs[0].1 - 0.45 / 0.8).abs() < 1e-6);
        assert!((mean.pairs.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-6);
    }
}
