//! The rotation gizmo's maths (`rig::bone_axis`, `rig::twist_bend`, `rig::axis_rotation`): twist
//! about the bone axis leaves the bone's direction unchanged (CesiumMan's right forearm, whose
//! bone lies along none of its local axes, and a synthetic rig with a scaled, skewed joint); local
//! rings turn the joint about its own axes as drawn in model space and world rings about the
//! world's (the child joint moves on a circle about the shown axis, by the angle applied); the
//! swing–twist fields round-trip.

#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use glam::{DMat4, DQuat, DVec3, EulerRot};
use proptest::prelude::*;
use skinlab::model::{Model, Node, NodeTransform, NodeTree, Skin, Trs};
use skinlab::rig::axis_rotation::{
    joint_axes_in_model, joint_axis_in_model, parent_rotation, rotate_about_joint_axis, rotate_about_model_axis,
};
use skinlab::rig::bone_axis::{bone_axis, AxisSource};
use skinlab::rig::twist_bend::{compose, decompose, BendAxes, TwistBend};
use skinlab::rig::{fk, Pose};

const FOREARM: &str = "Skeleton_arm_joint_R__2_";

fn cesium() -> (Model, usize) {
    let model = skinlab::io::load_model(&common::shared_models().join("CesiumMan.glb")).unwrap();
    let node = model.nodes.find(FOREARM).unwrap();
    (model, node)
}

fn globals(model: &Model, pose: &Pose) -> Vec<DMat4> {
    let mut g = Vec::new();
    fk::model_from_node(&model.nodes, pose, &mut g);
    g
}

/// The distance between two unit quaternions as rotations (either sign); unlike `angle_between`
/// it does not lose precision near zero.
fn quat_distance(a: DQuat, b: DQuat) -> f64 {
    (a - b).length().min((a + b).length())
}

fn position(g: &[DMat4], node: usize) -> DVec3 {
    g[node].w_axis.truncate()
}

/// A synthetic arm: a rotated, scaled root; a shoulder; a forearm with a non-uniform scale and a
/// rest rotation whose child lies along no local axis; a hand (leaf).
fn synthetic() -> Model {
    let trs = |t: DVec3, r: DQuat, s: DVec3| NodeTransform::Trs(Trs { translation: t, rotation: r, scale: s });
    let nodes = vec![
        Node {
            name: Some("root".into()),
            children: vec![1],
            rest: trs(DVec3::new(0.5, 1.0, -0.2), DQuat::from_euler(EulerRot::XYZ, 0.4, -0.3, 0.8), DVec3::splat(2.0)),
            ..Node::default()
        },
        Node {
            name: Some("shoulder".into()),
            parent: Some(0),
            children: vec![2],
            rest: trs(DVec3::new(0.1, 0.0, 0.3), DQuat::from_rotation_y(0.6), DVec3::ONE),
            ..Node::default()
        },
        Node {
            name: Some("forearm".into()),
            parent: Some(1),
            children: vec![3],
            rest: trs(
                DVec3::new(1.0, 0.2, 0.0),
                DQuat::from_euler(EulerRot::XYZ, 0.2, 0.9, -0.5),
                DVec3::new(1.0, 1.3, 0.8),
            ),
            ..Node::default()
        },
        Node {
            name: Some("hand".into()),
            parent: Some(2),
            rest: trs(DVec3::new(0.3, 0.7, -0.4), DQuat::from_rotation_z(0.3), DVec3::ONE),
            ..Node::default()
        },
    ];
    Model {
        nodes: NodeTree::new(nodes, vec![0]),
        skins: vec![Skin { joints: vec![1, 2, 3], joint_from_bind: vec![DMat4::IDENTITY; 3], ..Skin::default() }],
        ..Model::default()
    }
}

/// Some pose with every joint above and at `node` turned, so that no frame is the rest frame.
fn posed(model: &Model, node: usize) -> Pose {
    let mut pose = Pose::rest();
    let mut n = Some(node);
    let mut k = 0.0;
    while let Some(i) = n {
        let rest = model.nodes.nodes[i].rest.to_trs().rotation;
        pose.set_rotation(i, rest * DQuat::from_euler(EulerRot::XYZ, 0.3 + k, -0.5 + k, 0.7 - k));
        k += 0.2;
        n = model.nodes.nodes[i].parent;
    }
    pose
}

/// Twisting `node` (through the joint-axis rotation and through the Twist field) keeps the
/// direction from it to `child` in model space to 1e-9.
fn check_twist_keeps_the_bone(model: &Model, node: usize, child: usize) {
    let mut pose = posed(model, node);
    let axis = bone_axis(model, &pose, node);
    assert_eq!(axis.source, AxisSource::Child(child));
    let g = globals(model, &pose);
    let bone = position(&g, child) - position(&g, node);
    let local = pose.local_trs(&model.nodes, node).rotation;
    let rest = model.nodes.nodes[node].rest.to_trs().rotation;
    let axes = BendAxes::new(axis.axis);
    for angle in [-2.5, -0.7, 0.01, 1.0, 3.0] {
        let by_axis = rotate_about_joint_axis(local, axis.axis, angle);
        let mut fields = decompose(rest, local, &axes);
        fields.twist += angle;
        let by_field = compose(rest, fields, &axes);
        for q in [by_axis, by_field] {
            pose.set_rotation(node, q);
            let g = globals(model, &pose);
            let now = position(&g, child) - position(&g, node);
            assert!((now.normalize() - bone.normalize()).length() < 1e-9, "angle {angle}: {now} vs {bone}");
            assert!((now.length() - bone.length()).abs() < 1e-9 * bone.length());
            // The twist did turn the joint.
            assert!(q.angle_between(local) > 0.005, "{angle}");
        }
    }
}

#[test]
fn cesium_forearm_bone_lies_along_no_local_axis_and_twist_keeps_it() {
    let (model, forearm) = cesium();
    let hand = model.nodes.nodes[forearm].children[0];
    let axis = bone_axis(&model, &Pose::rest(), forearm).axis;
    let off_axis = DVec3::AXES.iter().map(|a| axis.dot(*a).abs().acos().to_degrees()).fold(f64::MAX, f64::min);
    assert!(off_axis > 5.0, "the forearm's bone is within {off_axis:.2}° of a local axis: {axis}");
    check_twist_keeps_the_bone(&model, forearm, hand);
}

#[test]
fn synthetic_skewed_scaled_forearm_twist_keeps_the_bone() {
    let model = synthetic();
    check_twist_keeps_the_bone(&model, 2, 3);
    // The leaf continues its parent's bone, and twisting it keeps that direction.
    let leaf = bone_axis(&model, &Pose::rest(), 3);
    assert_eq!(leaf.source, AxisSource::Parent(2));
    let g = globals(&model, &Pose::rest());
    let shown = g[3].transform_vector3(leaf.axis).normalize();
    let forearm = (position(&g, 3) - position(&g, 2)).normalize();
    assert!((shown - forearm).length() < 1e-9, "{shown} vs {forearm}");
}

/// The child's positions as `node` turns by each angle: on a circle about `axis` (model space)
/// through the joint, and swept by exactly the angle.
fn check_circle(model: &Model, node: usize, child: usize, turn: &dyn Fn(&Pose, f64) -> (DQuat, DVec3)) {
    let pose = posed(model, node);
    let g0 = globals(model, &pose);
    let centre = position(&g0, node);
    let p0 = position(&g0, child) - centre;
    for angle in [-1.2, 0.4, 2.0] {
        let (q, axis) = turn(&pose, angle);
        let mut p = pose.clone();
        p.set_rotation(node, q);
        let g = globals(model, &p);
        assert!((position(&g, node) - centre).length() < 1e-12, "the pivot moved");
        let p1 = position(&g, child) - centre;
        let (h0, h1) = (p0.dot(axis), p1.dot(axis));
        assert!((h0 - h1).abs() < 1e-9, "left the circle's plane: {h0} vs {h1}");
        let (r0, r1) = (p0 - axis * h0, p1 - axis * h1);
        assert!((r0.length() - r1.length()).abs() < 1e-9, "changed radius");
        let swept = r0.cross(r1).dot(axis).atan2(r0.dot(r1));
        assert!((swept - angle).abs() < 1e-9, "swept {swept} for {angle}");
    }
}

#[test]
fn local_rings_turn_about_the_joints_axes_and_world_rings_about_the_worlds() {
    let (cesium, forearm) = cesium();
    let hand = cesium.nodes.nodes[forearm].children[0];
    let synthetic = synthetic();
    for (model, node, child) in [(&cesium, forearm, hand), (&synthetic, 2, 3), (&synthetic, 1, 2)] {
        for i in 0..3 {
            // A local ring: about the joint's own axis i, drawn at its model-space direction.
            check_circle(model, node, child, &|pose, angle| {
                let g = globals(model, pose);
                let parent = parent_rotation(&model.nodes, &g, node);
                let local = pose.local_trs(&model.nodes, node).rotation;
                let shown = joint_axes_in_model(parent, local)[i];
                (rotate_about_joint_axis(local, DVec3::AXES[i], angle), shown)
            });
            // A world ring: about model axis i.
            check_circle(model, node, child, &|pose, angle| {
                let g = globals(model, pose);
                let parent = parent_rotation(&model.nodes, &g, node);
                let local = pose.local_trs(&model.nodes, node).rotation;
                (rotate_about_model_axis(parent, local, DVec3::AXES[i], angle), DVec3::AXES[i])
            });
        }
        // The twist ring: about the bone as drawn; the child stays on the axis (radius 0).
        let pose = posed(model, node);
        let g = globals(model, &pose);
        let parent = parent_rotation(&model.nodes, &g, node);
        let local = pose.local_trs(&model.nodes, node).rotation;
        let shown = joint_axis_in_model(parent, local, bone_axis(model, &pose, node).axis);
        let bone = (position(&g, child) - position(&g, node)).normalize();
        assert!((shown - bone).length() < 1e-9, "the twist ring is drawn about {shown}, the bone is {bone}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn twist_and_bend_round_trip(
        axis in prop::array::uniform3(-1.0f64..1.0),
        rest in prop::array::uniform3(-3.0f64..3.0),
        twist in -3.1f64..3.1,
        bend_a in -2.0f64..2.0,
        bend_b in -2.0f64..2.0,
        other in prop::array::uniform4(-1.0f64..1.0),
    ) {
        let axis = DVec3::from(axis);
        prop_assume!(axis.length() > 0.1);
        let axes = BendAxes::new(axis);
        let rest = DQuat::from_euler(EulerRot::XYZ, rest[0], rest[1], rest[2]);
        // Fields → rotation → fields.
        let tb = TwistBend { twist, bend_a, bend_b };
        let q = compose(rest, tb, &axes);
        let back = decompose(rest, q, &axes);
        prop_assert!((back.twist - twist).abs() < 1e-9 && (back.bend_a - bend_a).abs() < 1e-9
            && (back.bend_b - bend_b).abs() < 1e-9, "{tb:?} → {back:?}");
        // Any rotation → fields → the same rotation.
        let any = DQuat::from_xyzw(other[0], other[1], other[2], other[3]);
        prop_assume!(any.length() > 0.1);
        let any = any.normalize();
        let again = compose(rest, decompose(rest, any, &axes), &axes);
        prop_assert!(quat_distance(again, any) < 1e-12, "{any:?} → {again:?}");
    }
}
