//! One inverse-kinematics solve (`rig::ik::solve`, FK and conversion to local rotations
//! included) on a two-bone arm (analytic) and an eight-bone chain (FABRIK), each toward a
//! reachable target away from the rest pose. Run with `cargo bench --bench ik`.

#![allow(missing_docs, clippy::expect_used)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{DQuat, DVec3};
use skinlab::model::{Node, NodeTransform, NodeTree, Trs};
use skinlab::rig::ik::{self, IkGoal, IkSolver};
use skinlab::rig::Pose;

/// A chain of `bones` bones of length 0.5 under one root node, each joint twisted a little.
fn chain(bones: usize) -> NodeTree {
    let mut nodes = vec![Node { name: Some("root".into()), ..Node::default() }];
    for i in 1..=bones + 1 {
        let translation = if i == 1 { DVec3::ZERO } else { DVec3::new(0.02, 0.5, 0.0) };
        nodes.push(Node {
            name: Some(format!("j{i}")),
            parent: Some(i - 1),
            rest: NodeTransform::Trs(Trs { translation, rotation: DQuat::from_rotation_y(0.2), ..Trs::default() }),
            ..Node::default()
        });
        nodes[i - 1].children.push(i);
    }
    NodeTree::new(nodes, vec![0])
}

fn bench(c: &mut Criterion) {
    for (bones, label) in [(2, "ik two-bone solve"), (8, "ik FABRIK 8-bone solve")] {
        let tree = chain(bones);
        let end = bones + 1;
        let goal = IkGoal {
            end,
            target: DVec3::new(0.3, 0.25, 0.2) * bones as f64,
            chain: bones,
            pole: None,
            solver: IkSolver::Auto,
        };
        let mut check = Pose::rest();
        let out = ik::solve(&tree, &mut check, &goal, &[]).expect("valid goal");
        assert!(out.distance <= 1e-6 * out.chain_length, "{label}: {out:?}");
        c.bench_function(label, |b| {
            b.iter(|| {
                let mut pose = Pose::rest();
                black_box(ik::solve(black_box(&tree), &mut pose, black_box(&goal), &[]).expect("valid goal"));
                pose
            });
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
