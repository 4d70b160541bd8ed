//! Inverse kinematics (`rig::ik`): the two-bone solver reaches every reachable target within 1e-6
//! of the chain's length and the nearest point of the reachable shell otherwise, in the pole's
//! plane; FABRIK converges on an 8-bone chain; degenerate targets give no NaN; non-uniform parent
//! scale; pins; real models; and `skinlab pose` (pose file written, one-line errors).

#![allow(clippy::unwrap_used, missing_docs)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;

use cli_run::{assert_one_error_line, skinlab};
use glam::{DMat4, DQuat, DVec3};
use skinlab::model::{Node, NodeTransform, NodeTree, Trs};
use skinlab::rig::ik::{self, IkError, IkGoal, IkSolver};
use skinlab::rig::{fk, Pose};

/// A chain of nodes: node 0 is a scaled, rotated parent (not part of chains), then one node per
/// offset, each the child of the previous, with a twist in its rest rotation.
fn chain(parent: Trs, offsets: &[DVec3]) -> NodeTree {
    let mut nodes = vec![Node { name: Some("parent".into()), rest: NodeTransform::Trs(parent), ..Node::default() }];
    for (i, &t) in offsets.iter().enumerate() {
        let rotation = DQuat::from_rotation_y(0.3 * i as f64) * DQuat::from_rotation_x(0.1);
        nodes.push(Node {
            name: Some(format!("j{i}")),
            parent: Some(i),
            rest: NodeTransform::Trs(Trs { translation: t, rotation, scale: DVec3::ONE }),
            ..Node::default()
        });
        nodes[i].children.push(i + 1);
    }
    NodeTree::new(nodes, vec![0])
}

fn globals(tree: &NodeTree, pose: &Pose) -> Vec<DMat4> {
    let mut g = Vec::new();
    fk::model_from_node(tree, pose, &mut g);
    g
}

fn pos(g: &[DMat4], n: usize) -> DVec3 {
    g[n].w_axis.truncate()
}

/// A deterministic stream of numbers in [0, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn unit(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(self.next(), self.next(), self.next()) * 2.0 - 1.0;
            if v.length() > 0.1 && v.length() < 1.0 {
                return v.normalize();
            }
        }
    }
}

fn arm() -> NodeTree {
    let parent =
        Trs { translation: DVec3::new(0.5, 1.0, -0.2), rotation: DQuat::from_rotation_z(0.4), ..Trs::default() };
    // shoulder (j0) → elbow (j1): 1.0; elbow → wrist (j2): 0.8, bent a little.
    chain(parent, &[DVec3::new(0.0, 0.2, 0.0), DVec3::new(0.0, 1.0, 0.0), DVec3::new(0.3, 0.74, 0.0)])
}

#[test]
fn two_bone_reaches_reachable_targets_and_keeps_the_pole_plane() {
    let tree = arm();
    let (root, mid, end) = (1, 2, 3);
    let g0 = globals(&tree, &Pose::rest());
    let (a, b) = (pos(&g0, mid).distance(pos(&g0, root)), pos(&g0, end).distance(pos(&g0, mid)));
    let length = a + b;
    let mut rng = Lcg(7);
    for case in 0..500 {
        // Radii across the whole shell, including its two boundaries.
        let r = match case {
            0 => a + b,
            1 => (a - b).abs(),
            _ => (a - b).abs() + rng.next() * 2.0 * b,
        };
        let target = pos(&g0, root) + r * rng.unit();
        let pole = pos(&g0, root) + 3.0 * rng.unit();
        let mut pose = Pose::rest();
        let goal = IkGoal { end, target, chain: 2, pole: Some(pole), solver: IkSolver::Auto };
        let out = ik::solve(&tree, &mut pose, &goal, &[]).unwrap();
        let g = globals(&tree, &pose);
        assert!(out.distance <= 1e-6 * length, "case {case}: {} from {target}", out.distance);
        assert!(pos(&g, end).distance(target) <= 1e-6 * length);
        assert!(pos(&g, root).distance(pos(&g0, root)) < 1e-12, "the root stays put");
        assert!((pos(&g, mid).distance(pos(&g, root)) - a).abs() < 1e-9, "bone lengths kept");
        // The elbow lies in the plane of root, target and pole, on the pole's side.
        let (o, t, p, m) = (pos(&g, root), target - pos(&g, root), pole - pos(&g, root), pos(&g, mid) - pos(&g, root));
        let normal = t.cross(p);
        if normal.length() > 1e-3 && (r - (a + b)).abs() > 1e-9 && (r - (a - b).abs()).abs() > 1e-9 {
            assert!(normal.normalize().dot(m).abs() < 1e-9 * length, "case {case}: elbow off the pole plane");
            let side = p - p.dot(t.normalize()) * t.normalize();
            assert!(side.dot(m) > 0.0, "case {case}: elbow bends away from the pole");
        }
        let _ = o;
    }
}

#[test]
fn two_bone_unreachable_targets_give_the_nearest_point() {
    let tree = arm();
    let g0 = globals(&tree, &Pose::rest());
    let (a, b) = (pos(&g0, 2).distance(pos(&g0, 1)), pos(&g0, 3).distance(pos(&g0, 2)));
    let root = pos(&g0, 1);
    let mut rng = Lcg(11);
    for r in [a + b + 0.01, a + b + 5.0, 100.0, (a - b).abs() * 0.5, 1e-3] {
        let dir = rng.unit();
        let target = root + r * dir;
        let mut pose = Pose::rest();
        let goal = IkGoal { end: 3, target, chain: 2, pole: None, solver: IkSolver::Auto };
        ik::solve(&tree, &mut pose, &goal, &[]).unwrap();
        let g = globals(&tree, &pose);
        let nearest = root + r.clamp((a - b).abs(), a + b) * dir;
        assert!(pos(&g, 3).distance(nearest) < 1e-9, "r = {r}: {} vs nearest {nearest}", pos(&g, 3));
    }
}

#[test]
fn default_pole_keeps_the_current_bend_plane() {
    let tree = arm();
    let g0 = globals(&tree, &Pose::rest());
    let (root, mid, end) = (pos(&g0, 1), pos(&g0, 2), pos(&g0, 3));
    let reach = (end - root).normalize();
    let bend = (mid - root) - (mid - root).dot(reach) * reach;
    // Targets in the current plane (root, elbow, wrist): the elbow stays in that plane, same side.
    let normal = reach.cross(bend).normalize();
    for t in [0.3, 0.6, 0.9] {
        let target = root + (end - root) * t + bend * 0.5;
        let mut pose = Pose::rest();
        let goal = IkGoal { end: 3, target, chain: 2, pole: None, solver: IkSolver::Auto };
        ik::solve(&tree, &mut pose, &goal, &[]).unwrap();
        let g = globals(&tree, &pose);
        assert!((pos(&g, 2) - root).dot(normal).abs() < 1e-9, "t = {t}");
        assert!((pos(&g, 2) - root).dot(bend) > 0.0);
        assert!(pos(&g, 3).distance(target) < 1e-9);
    }
}

#[test]
fn non_uniform_parent_scale_and_shear_still_reach() {
    // A parent with non-uniform scale and a rotated child frame: world bone lengths change with
    // the rotations, so the solve repeats until the end sits on the target.
    let parent =
        Trs { translation: DVec3::ZERO, rotation: DQuat::from_rotation_x(0.7), scale: DVec3::new(1.0, 2.5, 0.6) };
    let tree = chain(parent, &[DVec3::ZERO, DVec3::new(0.0, 1.0, 0.0), DVec3::new(0.0, 1.0, 0.1)]);
    let g0 = globals(&tree, &Pose::rest());
    // Reachable: 1.3 from the root in the scaled parent's frame (bones of 1.0 and 1.005 there).
    let target = g0[0].transform_point3(DVec3::new(0.5, 0.8, -0.6).normalize() * 1.3);
    assert!(target.distance(pos(&g0, 1)) > 1.5, "the parent's scale stretches the reach");
    for solver in [IkSolver::Auto, IkSolver::Fabrik] {
        let mut pose = Pose::rest();
        let goal = IkGoal { end: 3, target, chain: 2, pole: None, solver };
        let out = ik::solve(&tree, &mut pose, &goal, &[]).unwrap();
        assert!(out.distance <= 1e-6 * out.chain_length, "{solver:?}: {out:?}");
        let g = globals(&tree, &pose);
        assert!(pos(&g, 1).distance(pos(&g0, 1)) < 1e-12);
    }
}

#[test]
fn fabrik_converges_on_an_eight_bone_chain() {
    let offsets: Vec<DVec3> =
        std::iter::once(DVec3::ZERO).chain((0..8).map(|i| DVec3::new(0.05 * f64::from(i % 3), 0.5, 0.02))).collect();
    let tree = chain(Trs { scale: DVec3::splat(1.5), ..Trs::default() }, &offsets);
    let end = 9;
    let g0 = globals(&tree, &Pose::rest());
    let lengths: Vec<f64> = (1..9).map(|n| pos(&g0, n + 1).distance(pos(&g0, n))).collect();
    let total: f64 = lengths.iter().sum();
    let mut rng = Lcg(3);
    for case in 0..200 {
        let target = pos(&g0, 1) + rng.unit() * total * (0.1 + 0.85 * rng.next());
        let mut pose = Pose::rest();
        let goal = IkGoal { end, target, chain: 8, pole: None, solver: IkSolver::Auto };
        let out = ik::solve(&tree, &mut pose, &goal, &[]).unwrap();
        assert_eq!(out.chain, (1..=9).collect::<Vec<_>>());
        assert!(out.distance <= 1e-6 * total, "case {case}: {} of {total}", out.distance);
        let g = globals(&tree, &pose);
        for n in 1..9 {
            assert!((pos(&g, n + 1).distance(pos(&g, n)) - lengths[n - 1]).abs() < 1e-9, "bone lengths kept");
        }
        assert!(pos(&g, 1).distance(pos(&g0, 1)) < 1e-12, "the root stays put");
    }
    // Out of reach: the chain points straight at the target.
    let target = pos(&g0, 1) + DVec3::new(3.0, 1.0, -2.0).normalize() * total * 2.0;
    let mut pose = Pose::rest();
    ik::solve(&tree, &mut pose, &IkGoal { end, target, chain: 8, pole: None, solver: IkSolver::Auto }, &[]).unwrap();
    let g = globals(&tree, &pose);
    let nearest = pos(&g0, 1) + (target - pos(&g0, 1)).normalize() * total;
    assert!(pos(&g, end).distance(nearest) < 1e-9 * total);
}

#[test]
fn degenerate_targets_give_no_nan() {
    let straight = chain(Trs::default(), &[DVec3::ZERO, DVec3::Y, DVec3::Y, DVec3::Y, DVec3::Y]);
    let zero_bone = chain(Trs::default(), &[DVec3::ZERO, DVec3::Y, DVec3::ZERO, DVec3::Y]);
    let bent = arm();
    for (name, tree) in [("straight", &straight), ("zero-length bone", &zero_bone), ("bent", &bent)] {
        let g0 = globals(tree, &Pose::rest());
        let root = pos(&g0, 1);
        let end = tree.len() - 1;
        let tip = pos(&g0, end);
        let targets = [
            root,
            tip,
            root + (tip - root) * 0.5,
            root + (tip - root) * 3.0,
            root - (tip - root),
            tip + DVec3::X * 1e-14,
        ];
        for chain_len in 1..end {
            for solver in [IkSolver::Auto, IkSolver::Fabrik] {
                for (k, &target) in targets.iter().enumerate() {
                    for pole in [None, Some(root), Some(tip)] {
                        let mut pose = Pose::rest();
                        let goal = IkGoal { end, target, chain: chain_len, pole, solver };
                        ik::solve(tree, &mut pose, &goal, &[]).unwrap();
                        let g = globals(tree, &pose);
                        assert!(
                            g.iter().all(|m| m.is_finite()),
                            "{name}: chain {chain_len}, {solver:?}, target {k}, pole {pole:?}: NaN"
                        );
                        assert!(pose.overrides.values().all(|o| o.rotation.is_none_or(|r| r.is_finite())));
                    }
                }
            }
        }
    }
    // A straight chain folds to reach a target on its own line, closer than its length.
    let g0 = globals(&straight, &Pose::rest());
    let target = pos(&g0, 1) + DVec3::Y * 1.5;
    for (chain_len, solver) in [(2, IkSolver::Auto), (4, IkSolver::Auto), (2, IkSolver::Fabrik)] {
        let end = 1 + chain_len;
        let target = if chain_len == 4 { target } else { pos(&g0, 1) + DVec3::Y * 1.2 };
        let mut pose = Pose::rest();
        let out = ik::solve(&straight, &mut pose, &IkGoal { end, target, chain: chain_len, pole: None, solver }, &[])
            .unwrap();
        assert!(out.distance < 1e-6 * out.chain_length, "{chain_len} {solver:?}: {out:?}");
    }
}

#[test]
fn pins_bad_goals_and_chain_length() {
    let tree = arm();
    let g0 = globals(&tree, &Pose::rest());
    let target = pos(&g0, 3) + DVec3::new(0.2, -0.3, 0.1);
    // The elbow pinned: only the forearm turns (aims at the target), the elbow stays.
    let mut pose = Pose::rest();
    let out =
        ik::solve(&tree, &mut pose, &IkGoal { end: 3, target, chain: 2, pole: None, solver: IkSolver::Auto }, &[2])
            .unwrap();
    assert_eq!(out.chain, vec![2, 3]);
    let g = globals(&tree, &pose);
    assert!(pos(&g, 2).distance(pos(&g0, 2)) < 1e-12);
    assert!(!pose.overrides.contains_key(&1));
    let aim = (target - pos(&g, 2)).normalize();
    assert!((pos(&g, 3) - pos(&g, 2)).normalize().dot(aim) > 1.0 - 1e-12, "the forearm points at the target");
    let goal = |end, chain, target| IkGoal { end, target, chain, pole: None, solver: IkSolver::Auto };
    let mut pose = Pose::rest();
    assert!(matches!(
        ik::solve(&tree, &mut pose, &goal(3, 4, target), &[]),
        Err(IkError::ChainTooLong { asked: 4, available: 3, .. })
    ));
    assert_eq!(ik::solve(&tree, &mut pose, &goal(3, 0, target), &[]), Err(IkError::EmptyChain));
    assert_eq!(ik::solve(&tree, &mut pose, &goal(3, 2, DVec3::NAN), &[]), Err(IkError::NotFinite("target")));
    assert!(matches!(ik::solve(&tree, &mut pose, &goal(3, 2, target), &[3]), Err(IkError::EndPinned(_))));
    assert_eq!(ik::solve(&tree, &mut pose, &goal(99, 2, target), &[]), Err(IkError::NoNode(99)));
    assert!(pose.overrides.is_empty(), "failed solves change nothing");
}

#[test]
fn twist_of_the_end_joint_is_kept() {
    // Only swing: the end joint's local rotation is untouched, and each chain joint turns by the
    // smallest rotation, so a target along the current reach changes nothing.
    let tree = arm();
    let g0 = globals(&tree, &Pose::rest());
    let mut pose = Pose::rest();
    let goal = IkGoal { end: 3, target: pos(&g0, 3), chain: 2, pole: None, solver: IkSolver::Auto };
    ik::solve(&tree, &mut pose, &goal, &[]).unwrap();
    for n in 1..3 {
        let rest = tree.nodes[n].rest.to_trs().rotation;
        assert!(pose.overrides[&n].rotation.unwrap().angle_between(rest) < 1e-6, "joint {n} turned");
    }
    assert!(!pose.overrides.contains_key(&3));
}

#[test]
fn real_models_reach_with_the_legs() {
    for (file, foot) in [("CesiumMan.glb", None), ("Fox.glb", None), ("Knight.glb", None)] {
        let path = common::shared_models().join(file);
        let model = skinlab::io::load_model(&path).unwrap();
        let tree = &model.nodes;
        let _: Option<&str> = foot;
        // Every skin joint with two joint ancestors: a small offset from where it is must be reached.
        let g0 = globals(tree, &Pose::rest());
        let mut tried = 0;
        for &end in &model.skins[0].joints {
            let Ok(chain) = ik::chain_nodes(tree, end, 2) else { continue };
            let a = pos(&g0, chain[1]).distance(pos(&g0, chain[0]));
            let b = pos(&g0, chain[2]).distance(pos(&g0, chain[1]));
            if a < 1e-6 || b < 1e-6 {
                continue;
            }
            // A reachable target: mid-shell, turned away from the current reach.
            let reach = (pos(&g0, end) - pos(&g0, chain[0])).normalize_or(DVec3::Y);
            let dir = (reach + 0.3 * reach.any_orthonormal_vector()).normalize();
            let target = pos(&g0, chain[0]) + dir * 0.5 * ((a - b).abs() + a + b);
            let mut pose = Pose::rest();
            let out =
                ik::solve(tree, &mut pose, &IkGoal { end, target, chain: 2, pole: None, solver: IkSolver::Auto }, &[])
                    .unwrap();
            assert!(out.distance <= 1e-6 * out.chain_length, "{file}: {}: {out:?}", tree.key(end));
            tried += 1;
        }
        assert!(tried > 5, "{file}: {tried} chains");
    }
}

#[test]
fn pose_command_writes_a_pose_file_that_deform_reads() {
    let dir = tempfile::tempdir().unwrap();
    let demo = std::path::PathBuf::from("assets/demo_arm.glb");
    let model = skinlab::io::load_model(&demo).unwrap();
    let tree = &model.nodes;
    let end = *model.skins[0].joints.last().unwrap();
    let g0 = globals(tree, &Pose::rest());
    let chain = ik::chain_nodes(tree, end, 2).unwrap();
    let target = pos(&g0, end) + (pos(&g0, chain[0]) - pos(&g0, end)) * 0.3 + DVec3::Z * 0.2;
    let out = dir.path().join("pose.json");
    let ik_arg = format!("{}={},{},{}", tree.key(end), target.x, target.y, target.z);
    let run = skinlab(["pose", demo.to_str().unwrap(), "--ik", &ik_arg, "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stdout).contains("reached"));
    let pose = skinlab::io::pose_file::read_pose_file(&out, tree).unwrap();
    let g = globals(tree, &pose);
    assert!(pos(&g, end).distance(target) < 1e-5, "the written pose reaches the target");
    let obj = dir.path().join("out.obj");
    let deform =
        skinlab(["deform", demo.to_str().unwrap(), "--pose", out.to_str().unwrap(), "--out", obj.to_str().unwrap()]);
    assert!(deform.status.success(), "{}", String::from_utf8_lossy(&deform.stderr));

    // Bad input: one line, exit 2, nothing written.
    let bad = dir.path().join("bad.json");
    let m = demo.to_str().unwrap();
    let o = bad.to_str().unwrap();
    let key = tree.key(end);
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (vec!["--ik".into(), "Nobody=0,0,0".into()], vec!["Nobody"]),
        (vec!["--ik".into(), format!("{key}=0,0")], vec!["X,Y,Z"]),
        (vec!["--ik".into(), format!("{key}=NaN,0,0")], vec!["finite"]),
        (vec!["--ik".into(), format!("{key}=0,0,0"), "--chain".into(), "40".into()], vec!["longer than the hierarchy"]),
        (vec!["--ik".into(), format!("{key}=0,0,0"), "--pole".into(), "1,inf,0".into()], vec!["--pole"]),
        (vec!["--ik".into(), format!("{key}=0,0,0"), "--pin".into(), key.clone()], vec!["pinned"]),
        (vec!["--ik".into(), key.clone()], vec!["JOINT=X,Y,Z"]),
    ];
    for (extra, needles) in cases {
        let mut args = vec!["pose".to_owned(), m.to_owned()];
        args.extend(extra);
        args.extend(["--out".to_owned(), o.to_owned()]);
        assert_one_error_line(&skinlab(&args), &needles);
        assert!(!bad.exists(), "no file written on failure");
    }
}
