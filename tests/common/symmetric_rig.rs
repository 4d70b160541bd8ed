//! A symmetric skeleton for the mirrored-pose tests (`tests/mirror_pose.rs`,
//! `tests/ui_pose_library.rs`): two arms whose right side's rest frames are the left's reflected.

#![allow(dead_code)]

use glam::{DQuat, DVec3};
use skinlab::model::{Node, NodeTransform, NodeTree, Trs};
use skinlab::rig::mirror_pose::reflect_rotation;

/// The rig's symmetry plane's normal: the plane is x = 0.
pub const N: DVec3 = DVec3::X;

/// `v` reflected across x = 0.
pub fn reflect(v: DVec3) -> DVec3 {
    v - 2.0 * v.dot(N) * N
}

/// root (0) → spine (1) → {arm.L (2) → forearm.L (3) → hand.L (4), arm.R (5) → forearm.R (6) →
/// hand.R (7)}; the right side's rest frames are the left's reflected (translations mirrored,
/// rotations conjugated), so the rig is symmetric about x = 0.
pub fn symmetric_arms() -> NodeTree {
    let left = [
        (DVec3::new(0.2, 1.0, 0.05), DQuat::from_euler(glam::EulerRot::XYZ, 0.2, -0.4, 1.1)),
        (DVec3::new(0.0, 0.6, 0.1), DQuat::from_euler(glam::EulerRot::XYZ, -0.3, 0.2, 0.1)),
        (DVec3::new(0.05, 0.5, 0.0), DQuat::from_euler(glam::EulerRot::XYZ, 0.1, 0.7, -0.2)),
    ];
    let node = |name: &str, parent: Option<usize>, t: DVec3, r: DQuat| Node {
        name: Some(name.into()),
        parent,
        rest: NodeTransform::Trs(Trs { translation: t, rotation: r, scale: DVec3::ONE }),
        ..Node::default()
    };
    let mut nodes = vec![
        node("root", None, DVec3::new(0.0, 0.0, 0.0), DQuat::IDENTITY),
        node("spine", Some(0), DVec3::new(0.0, 1.0, 0.0), DQuat::from_rotation_x(0.2)),
    ];
    for (side, names) in [(0, ["arm.L", "forearm.L", "hand.L"]), (1, ["arm.R", "forearm.R", "hand.R"])] {
        for (k, (t, r)) in left.iter().enumerate() {
            let parent = if k == 0 { 1 } else { nodes.len() - 1 };
            let (t, r) = if side == 0 { (*t, *r) } else { (reflect(*t), reflect_rotation(*r, N)) };
            nodes.push(node(names[k], Some(parent), t, r));
        }
    }
    for i in 0..nodes.len() {
        if let Some(p) = nodes[i].parent {
            nodes[p].children.push(i);
        }
    }
    NodeTree::new(nodes, vec![0])
}
