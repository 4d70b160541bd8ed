//! Copying a pose across the symmetry plane (Blender's Paste Flipped): each source joint's
//! rotation away from its rest pose, measured in model space, is reflected across the plane and
//! given to its mirror partner (Left/Right by name, else the joint at the mirrored rest position;
//! a joint on the plane is its own partner). On a symmetric rig this makes every bone of the
//! target side point (and twist) as the mirror image of the source side, whatever local axis
//! conventions the two sides use. Translations and scales are not touched.

use glam::{DMat4, DQuat, DVec3};

use super::{fk, Pose};
use crate::model::NodeTree;

/// `q` reflected across the plane through the origin with unit normal `n`: a rotation by θ about
/// `a` becomes a rotation by θ about `−reflect(a)` (so that `reflect ∘ q ∘ reflect`).
#[must_use]
pub fn reflect_rotation(q: DQuat, n: DVec3) -> DQuat {
    let v = DVec3::new(q.x, q.y, q.z);
    let r = 2.0 * v.dot(n) * n - v;
    DQuat::from_xyzw(r.x, r.y, r.z, q.w)
}

fn rotation_of(m: &DMat4) -> DQuat {
    let (_, r, _) = m.to_scale_rotation_translation();
    if r.is_finite() {
        r.normalize()
    } else {
        DQuat::IDENTITY
    }
}

fn origin(m: &DMat4) -> DVec3 {
    m.w_axis.truncate()
}

/// The symmetry plane's normal from Left/Right pairs `(left, right)`: the mean direction between
/// partners in the rest pose (the sign is that of the first pair); +X when there are none.
#[must_use]
pub fn plane_normal(tree: &NodeTree, pairs: &[(usize, usize)]) -> DVec3 {
    let mut rest = Vec::new();
    fk::model_from_node(tree, &Pose::rest(), &mut rest);
    // Each pair's direction, turned to agree with the first (a plane's normal has no side).
    let dirs: Vec<DVec3> =
        pairs.iter().filter_map(|&(l, r)| (origin(&rest[l]) - origin(&rest[r])).try_normalize()).collect();
    let first = dirs.first().copied().unwrap_or(DVec3::X);
    let sum: DVec3 = dirs.iter().map(|&d| if d.dot(first) < 0.0 { -d } else { d }).sum();
    sum.try_normalize().unwrap_or(DVec3::X)
}

/// The mirror partner of each of `nodes` by rest position: the node (among `candidates`) nearest
/// the node's rest position reflected across the plane through `point` with normal `n`, if within
/// `tolerance`; `None` otherwise.
#[must_use]
pub fn partners_by_position(
    tree: &NodeTree,
    nodes: &[usize],
    candidates: &[usize],
    point: DVec3,
    n: DVec3,
    tolerance: f64,
) -> Vec<Option<usize>> {
    let mut rest = Vec::new();
    fk::model_from_node(tree, &Pose::rest(), &mut rest);
    nodes
        .iter()
        .map(|&j| {
            let p = origin(&rest[j]);
            let mirrored = p - 2.0 * (p - point).dot(n) * n;
            candidates
                .iter()
                .map(|&c| (c, origin(&rest[c]).distance(mirrored)))
                .filter(|&(_, d)| d <= tolerance)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(c, _)| c)
        })
        .collect()
}

/// `pose` with the rotations of `sources` (as they are in `from`) mirrored onto their partners:
/// `partners[i]` receives source `i`, reflected across the plane with unit normal `n`. Targets
/// are set parents first, each from the new pose of its parent.
#[must_use]
pub fn paste_mirrored(
    tree: &NodeTree,
    from: &Pose,
    onto: &Pose,
    sources: &[usize],
    partners: &[usize],
    n: DVec3,
) -> Pose {
    let (mut rest, mut posed) = (Vec::new(), Vec::new());
    fk::model_from_node(tree, &Pose::rest(), &mut rest);
    fk::model_from_node(tree, from, &mut posed);
    // The model-space rotation each target should have: its source's delta from rest, reflected,
    // applied to the target's own rest rotation.
    let mut wanted: Vec<(usize, DQuat)> = sources
        .iter()
        .zip(partners)
        .filter(|&(&s, &t)| s < tree.len() && t < tree.len())
        .map(|(&s, &t)| {
            let delta = rotation_of(&posed[s]) * rotation_of(&rest[s]).inverse();
            (t, (reflect_rotation(delta, n) * rotation_of(&rest[t])).normalize())
        })
        .collect();
    let rank: Vec<usize> = {
        let mut r = vec![0; tree.len()];
        for (i, &node) in tree.order.iter().enumerate() {
            r[node] = i;
        }
        r
    };
    wanted.sort_by_key(|&(t, _)| rank[t]);
    let mut out = onto.clone();
    let mut globals = Vec::new();
    for (target, world) in wanted {
        fk::model_from_node(tree, &out, &mut globals);
        let parent = tree.nodes[target].parent.map_or(DQuat::IDENTITY, |p| rotation_of(&globals[p]));
        out.set_rotation(target, (parent.inverse() * world).normalize());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflecting_conjugates_by_the_mirror() {
        let q = DQuat::from_axis_angle(DVec3::new(0.3, 0.5, -0.8).normalize(), 0.9);
        let n = DVec3::new(1.0, 0.2, 0.1).normalize();
        let reflect = |v: DVec3| v - 2.0 * v.dot(n) * n;
        let v = DVec3::new(0.4, -1.0, 2.0);
        let lhs = reflect_rotation(q, n) * v;
        let rhs = reflect(q * reflect(v));
        assert!(lhs.distance(rhs) < 1e-12, "{lhs} vs {rhs}");
    }
}
