//! Deterministic synthetic rigs for benchmarks and tests: a branching skeleton of `J` joints, a
//! tube surface of `N` vertices around its bones, and `K` influences per vertex drawn from each
//! bone's neighbourhood in the skeleton, so that (as in real rigs) vertices share few joint sets.
//! [`animate`] poses it with a small, time-dependent rotation of every joint.
//! [`diversify_sets`] moves groups of vertices to new joint sets, for painted-like rigs with
//! thousands of them (`skinlab bench --sets`).

use std::f64::consts::TAU;

use glam::{DMat4, DQuat, DVec3};

use crate::model::influences::VertexInfluences;
use crate::model::{
    InfluenceError, Influences, JointSetTable, Mesh, Model, Node, NodeTransform, NodeTree, Primitive, Skin,
    SkinnedInstance, Topology, Trs,
};
use crate::rig::Pose;

/// The shape of a synthetic rig.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyntheticRig {
    /// Number of vertices.
    pub vertices: usize,
    /// Number of joints (at least 1).
    pub joints: usize,
    /// Influences per vertex (1 to 16; fewer where a bone's neighbourhood has fewer joints).
    pub influences: usize,
}

/// Vertices per ring of a bone's tube.
const RING: usize = 16;
/// Radius of the tubes (bones are one unit long).
const RADIUS: f64 = 0.25;
/// Bones per chain before the skeleton branches off an earlier joint.
const CHAIN: usize = 4;

/// A small deterministic generator (SplitMix64).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A unit vector leaning towards +Y.
    fn direction(&mut self) -> DVec3 {
        let d = DVec3::new(self.unit() * 2.0 - 1.0, self.unit() + 0.3, self.unit() * 2.0 - 1.0);
        d.normalize()
    }
}

impl SyntheticRig {
    /// Builds the rig: nodes `0..J` are the joints (node `j` is joint `j`, node 0 the root), node
    /// `J` carries the skinned mesh. Identical arguments give identical models.
    #[allow(clippy::needless_range_loop)] // parallel per-joint arrays
    pub fn build(&self) -> Result<Model, InfluenceError> {
        let j_count = self.joints.max(1);
        let k = self.influences.clamp(1, crate::model::influences::MAX_SLOTS);
        let mut rng = SplitMix(0x5EED_0000 + j_count as u64 * 131 + k as u64);

        // Skeleton: chains of CHAIN bones, each new chain starting at an earlier joint.
        let mut parent: Vec<Option<usize>> = vec![None; j_count];
        let mut offset = vec![DVec3::ZERO; j_count];
        let mut global = vec![DVec3::ZERO; j_count];
        for j in 1..j_count {
            let p = if (j - 1) % CHAIN == 0 { (rng.next() % j as u64) as usize } else { j - 1 };
            parent[j] = Some(p);
            offset[j] = rng.direction();
            global[j] = global[p] + offset[j];
        }
        let mut children = vec![Vec::new(); j_count];
        for j in 1..j_count {
            if let Some(p) = parent[j] {
                children[p].push(j);
            }
        }

        let mut nodes: Vec<Node> = (0..j_count)
            .map(|j| Node {
                name: Some(format!("joint{j}")),
                parent: parent[j],
                children: children[j].clone(),
                rest: NodeTransform::Trs(Trs { translation: offset[j], ..Trs::default() }),
                mesh: None,
                skin: None,
                ..Node::default()
            })
            .collect();
        nodes.push(Node {
            name: Some("surface".to_owned()),
            parent: None,
            children: Vec::new(),
            rest: NodeTransform::Trs(Trs::default()),
            mesh: Some(0),
            skin: Some(0),
            ..Node::default()
        });
        let tree = NodeTree::new(nodes, vec![0, j_count]);

        // Bones: (from, to) joints; a one-joint rig gets one bone pointing up from its root.
        let bones: Vec<(usize, usize)> =
            if j_count == 1 { vec![(0, 0)] } else { (1..j_count).filter_map(|j| parent[j].map(|p| (p, j))).collect() };
        let n = self.vertices;
        let mut positions = Vec::with_capacity(n);
        let mut normals = Vec::with_capacity(n);
        let mut triangles = Vec::new();
        let mut vertex_influences = Vec::with_capacity(n);
        let mut candidates: Vec<usize> = Vec::new();
        let mut scored: Vec<(f64, usize)> = Vec::new();
        for (b, &(from, to)) in bones.iter().enumerate() {
            let count = n / bones.len() + usize::from(b < n % bones.len());
            if count == 0 {
                continue;
            }
            let start = global[from];
            let end = if from == to { start + DVec3::Y } else { global[to] };
            let axis = (end - start).normalize();
            let e1 = axis.any_orthonormal_vector();
            let e2 = axis.cross(e1);
            let ring = RING.min(count);
            let rings = count.div_ceil(ring);
            // The bone's neighbourhood: both ends, then their neighbours in the skeleton, breadth
            // first, until there are a few more candidates than influences.
            candidates.clear();
            candidates.extend([to, from]);
            candidates.dedup();
            let wanted = (k + 2).max(6).min(j_count);
            let mut next = 0;
            while candidates.len() < wanted && next < candidates.len() {
                let c = candidates[next];
                next += 1;
                for nb in parent[c].iter().chain(&children[c]) {
                    if candidates.len() < wanted && !candidates.contains(nb) {
                        candidates.push(*nb);
                    }
                }
            }
            let base = positions.len() as u32;
            for i in 0..count {
                let (r, a) = (i / ring, i % ring);
                let t = (r as f64 + 0.5) / rings as f64;
                let angle = TAU * a as f64 / ring as f64 + 0.37 * r as f64;
                let radial = angle.cos() * e1 + angle.sin() * e2;
                let p = start.lerp(end, t) + RADIUS * radial;
                positions.push(p.as_vec3());
                normals.push(radial.as_vec3());
                scored.clear();
                scored.extend(candidates.iter().map(|&c| (1.0 / ((global[c] - p).length_squared() + 0.05), c)));
                scored.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
                scored.truncate(k);
                let pairs: Vec<(u16, f32)> = scored.iter().map(|&(w, c)| (c as u16, w as f32)).collect();
                let sum: f32 = pairs.iter().map(|p| p.1).sum();
                vertex_influences.push(VertexInfluences { pairs: pairs.iter().map(|&(c, w)| (c, w / sum)).collect() });
            }
            for r in 0..rings.saturating_sub(1) {
                for a in 0..ring {
                    let idx = |rr: usize, aa: usize| rr * ring + aa % ring;
                    let quad = [idx(r, a), idx(r, a + 1), idx(r + 1, a + 1), idx(r + 1, a)];
                    if quad.iter().all(|&q| q < count) {
                        let q = quad.map(|q| base + q as u32);
                        triangles.push([q[0], q[1], q[2]]);
                        triangles.push([q[0], q[2], q[3]]);
                    }
                }
            }
        }

        let mut sets = JointSetTable::new(k);
        let influences = Influences::from_vertices(&vertex_influences, &mut sets)?;
        let skin = Skin {
            name: Some("synthetic".to_owned()),
            joints: (0..j_count).collect(),
            joint_from_bind: global.iter().map(|&g| DMat4::from_translation(-g)).collect(),
            sets,
        };
        let primitive = Primitive {
            positions,
            normals: Some(normals),
            triangles,
            topology: Topology::Triangles,
            influences: Some(influences),
            order: crate::model::VertexOrder::default(),
        };
        Ok(Model {
            nodes: tree,
            meshes: vec![Mesh { name: Some("surface".to_owned()), primitives: vec![primitive], ..Mesh::default() }],
            skins: vec![skin],
            clips: Vec::new(),
            instances: vec![SkinnedInstance { node: j_count, mesh: 0, skin: 0 }],
            rigid_instances: Vec::new(),
        })
    }
}

/// Vertices per group that [`diversify_sets`] moves to a new joint set together (one ring of a
/// tube: neighbours share sets, as on real meshes).
const SET_GROUP: usize = RING;

/// Gives the first skinned primitive of a synthetic rig (from [`SyntheticRig::build`]) at least
/// `sets` distinct joint sets where it can: group by group of `SET_GROUP` consecutive vertices,
/// the lowest-weight influence of each vertex of the group moves to one joint chosen by a
/// deterministic hash of the group (weights unchanged), until the table has `sets` sets. A stand-in
/// for production rigs, whose painted weights make hundreds to thousands of distinct sets.
/// Returns the number of distinct sets.
pub fn diversify_sets(model: &mut Model, sets: usize) -> Result<usize, InfluenceError> {
    let (Some(skin), Some(prim)) =
        (model.skins.first_mut(), model.meshes.first_mut().and_then(|m| m.primitives.first_mut()))
    else {
        return Ok(0);
    };
    let joints = skin.joints.len();
    let Some(inf) = prim.influences.as_mut() else { return Ok(0) };
    let mut rng = SplitMix(0xD1CE_5E75);
    let groups = inf.len() / SET_GROUP;
    for g in 0..groups {
        if skin.sets.len() >= sets {
            break;
        }
        let extra = (rng.next() % joints as u64) as u16;
        for v in g * SET_GROUP..(g + 1) * SET_GROUP {
            let mut vi = inf.vertex_influences(v, &skin.sets);
            if vi.pairs.len() < 2 || vi.pairs.iter().any(|&(j, _)| j == extra) {
                continue;
            }
            let lowest = (0..vi.pairs.len()).min_by(|&a, &b| vi.pairs[a].1.total_cmp(&vi.pairs[b].1)).unwrap_or(0);
            vi.pairs[lowest].0 = extra;
            inf.set_vertex(v, &vi, &mut skin.sets)?;
        }
    }
    Ok(skin.sets.len())
}

/// Poses `model`'s joints for animation frame `frame`: each joint of skin 0 turns from its rest
/// rotation by up to about 40° about its own fixed axis, with its own phase. Works on any model;
/// updates the overrides in place (no allocation once every joint has one).
pub fn animate(model: &Model, frame: usize, pose: &mut Pose) {
    animate_moving(model, frame, usize::MAX, pose);
}

/// [`animate`] with only `moving` of skin 0's joints (spread evenly over its joint list, the
/// first at index n/moving − 1, so never the root unless all move) at
/// frame `frame`; the others hold their frame-0 pose (their descendants still move with them).
pub fn animate_moving(model: &Model, frame: usize, moving: usize, pose: &mut Pose) {
    let Some(skin) = model.skins.first() else {
        return;
    };
    let n = skin.joints.len();
    let m = moving.min(n);
    for (j, &node) in skin.joints.iter().enumerate() {
        let frame = if (j + 1) * m / n != j * m / n { frame } else { 0 };
        let seed = j as f64;
        let axis = DVec3::new((seed * 1.3).sin(), (seed * 0.7).cos(), (seed * 2.1).sin() + 0.2).normalize_or(DVec3::Y);
        let angle = 0.7 * (0.05 * frame as f64 + 0.9 * seed).sin();
        let rest = model.nodes.nodes[node].rest.to_trs().rotation;
        pose.set_rotation(node, rest * DQuat::from_axis_angle(axis, angle));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rig_is_deterministic_and_local() {
        let spec = SyntheticRig { vertices: 5000, joints: 64, influences: 4 };
        let a = spec.build().unwrap();
        let b = spec.build().unwrap();
        let (pa, pb) = (&a.meshes[0].primitives[0], &b.meshes[0].primitives[0]);
        assert_eq!(pa.positions, pb.positions);
        assert_eq!(pa.influences, pb.influences);
        assert_eq!(pa.positions.len(), 5000);
        let inf = pa.influences.as_ref().unwrap();
        let table = &a.skins[0].sets;
        assert!((0..inf.len()).all(|v| inf.count(v, table) == 4));
        // Locality: far fewer distinct sets than vertices.
        assert!(table.len() < 600, "{} sets", table.len());
        assert!(pa.triangles.iter().flatten().all(|&i| (i as usize) < pa.positions.len()));
    }

    #[test]
    fn diversified_rig_has_the_sets_asked_for_and_valid_weights() {
        let mut m = SyntheticRig { vertices: 100_000, joints: 250, influences: 4 }.build().unwrap();
        let before = m.skins[0].sets.len();
        let sets = diversify_sets(&mut m, 2000).unwrap();
        assert!(before < 2000 && sets >= 2000, "{before} -> {sets}");
        let inf = m.meshes[0].primitives[0].influences.as_ref().unwrap();
        for v in (0..inf.len()).step_by(97) {
            let vi = inf.vertex_influences(v, &m.skins[0].sets);
            let sum: f32 = vi.pairs.iter().map(|p| p.1).sum();
            assert!((sum - 1.0).abs() < 1e-5 && vi.pairs.len() == 4, "{v}: {vi:?}");
        }
        // Deterministic.
        let mut again = SyntheticRig { vertices: 100_000, joints: 250, influences: 4 }.build().unwrap();
        diversify_sets(&mut again, 2000).unwrap();
        assert_eq!(again.meshes[0].primitives[0].influences, m.meshes[0].primitives[0].influences);
    }

    #[test]
    fn one_joint_rig_works() {
        let m = SyntheticRig { vertices: 10, joints: 1, influences: 4 }.build().unwrap();
        assert_eq!(m.meshes[0].primitives[0].positions.len(), 10);
        let mut pose = Pose::rest();
        animate(&m, 3, &mut pose);
        assert_eq!(pose.overrides.len(), 1);
    }
}
