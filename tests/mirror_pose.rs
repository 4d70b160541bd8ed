//! Paste Flipped (`rig::mirror_pose`): on a symmetric rig whose two sides use mirrored local
//! frames, a pose of the left side pasted mirrored onto the right gives the mirror image: every
//! joint's position and frame reflected; partners by name or by rest position; centre joints
//! mirror onto themselves.

#![allow(clippy::unwrap_used, missing_docs)]

#[path = "common/symmetric_rig.rs"]
mod symmetric_rig;

use glam::{DMat4, DQuat, DVec3};
use skinlab::model::NodeTree;
use skinlab::rig::mirror_pose::{partners_by_position, paste_mirrored, plane_normal};
use skinlab::rig::{fk, Pose};
use symmetric_rig::{reflect, symmetric_arms, N};

fn globals(tree: &NodeTree, pose: &Pose) -> Vec<DMat4> {
    let mut g = Vec::new();
    fk::model_from_node(tree, pose, &mut g);
    g
}

#[test]
fn mirrored_paste_on_a_symmetric_rig_gives_the_mirrored_pose() {
    let tree = symmetric_arms();
    let rest = globals(&tree, &Pose::rest());
    for (l, r) in [(2, 5), (3, 6), (4, 7)] {
        let (pl, pr) = (rest[l].w_axis.truncate(), rest[r].w_axis.truncate());
        assert!(reflect(pl).distance(pr) < 1e-12, "the rig is symmetric");
    }
    assert!(plane_normal(&tree, &[(2, 5), (3, 6), (4, 7)]).cross(N).length() < 1e-12);
    // Partners by rest position agree with the names.
    let by_position = partners_by_position(&tree, &[2, 3, 4, 1], &(0..8).collect::<Vec<_>>(), DVec3::ZERO, N, 1e-6);
    assert_eq!(by_position, vec![Some(5), Some(6), Some(7), Some(1)]);
    let mut seed = 1u64;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..50 {
        let mut pose = Pose::rest();
        for j in 2..5 {
            let axis = DVec3::new(next(), next(), next()).normalize();
            let rest_rot = tree.nodes[j].rest.to_trs().rotation;
            pose.set_rotation(j, DQuat::from_axis_angle(axis, 1.5 * next()) * rest_rot);
        }
        let flipped = paste_mirrored(&tree, &pose, &pose, &[2, 3, 4], &[5, 6, 7], N);
        let (gl, gr) = (globals(&tree, &pose), globals(&tree, &flipped));
        for (l, r) in [(2, 5), (3, 6), (4, 7)] {
            // Any point in the left joint's frame, mirrored, is where the mirrored point sits in
            // the right joint's frame (positions and orientations, twist included).
            for v in [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(0.3, -0.2, 0.5)] {
                let left_point = gl[l].transform_point3(v);
                let right_point = gr[r].transform_point3(reflect(v));
                assert!(reflect(left_point).distance(right_point) < 1e-9, "joint {l}→{r}, v {v}");
            }
        }
        // The left side is untouched.
        for j in 2..5 {
            assert_eq!(flipped.overrides[&j], pose.overrides[&j]);
        }
    }
    // A centre joint mirrors onto itself: a twist about the vertical axis turns the other way.
    let mut pose = Pose::rest();
    pose.set_rotation(1, DQuat::from_rotation_y(0.5) * tree.nodes[1].rest.to_trs().rotation);
    let flipped = paste_mirrored(&tree, &pose, &pose, &[1], &[1], N);
    let g = globals(&tree, &flipped);
    let r = g[1].to_scale_rotation_translation().1 * tree.nodes[1].rest.to_trs().rotation.inverse();
    assert!(r.angle_between(DQuat::from_rotation_y(-0.5)) < 1e-9, "{r:?}");
}
