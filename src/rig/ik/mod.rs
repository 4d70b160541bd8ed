//! Inverse kinematics on a pose: move an end joint (a hand, a foot) to a target in model space
//! and let the chain of its `chain` ancestors follow, with the chain's root kept in place.
//!
//! Solves run on joint positions in the frame of the chain root's parent — the model's own space
//! up to that parent's transform, so that a scaled or sheared armature above the chain leaves bone
//! lengths constant — with the analytic two-bone solver and a pole direction (`two_bone.rs`) or
//! FABRIK for longer chains (`fabrik.rs`). The positions are then converted back into local
//! rotations, joint by joint from the root, each turned by the smallest rotation that points its
//! bone at the solved child position in its parent's frame (so twist about the bone is kept).
//! Non-uniform scale on the chain's own joints changes bone lengths as they turn; the solve is then
//! repeated from the new pose (at most [`MAX_PASSES`] times) until the end stops moving.
//! Only rotations change; translations and scales stay as they are. Never produces NaN.

mod fabrik;
mod geometry;
mod two_bone;

use glam::{DMat4, DQuat, DVec3};

pub use fabrik::{fabrik, FabrikReport};
pub use two_bone::{solve_two_bone, TwoBone};

use super::{fk, Pose};
use crate::model::NodeTree;
use geometry::unit_or;

/// Passes of solve-then-convert at most (one suffices under rigid parents).
pub const MAX_PASSES: usize = 8;
/// FABRIK iterations per pass at most.
pub const MAX_FABRIK_ITERATIONS: usize = 200;
/// FABRIK stops when the end is this close to the target, relative to the chain's length.
pub const FABRIK_TOLERANCE: f64 = 1e-9;

/// Which solver moves the chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IkSolver {
    /// Two-bone for chains of two bones, FABRIK for longer ones (and one bone: aim at the target).
    #[default]
    Auto,
    /// FABRIK whatever the chain length.
    Fabrik,
}

/// What to solve: the end joint, where it should go, and how much of the hierarchy follows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkGoal {
    /// The end joint's node index.
    pub end: usize,
    /// Where the end joint should go, in model space.
    pub target: DVec3,
    /// Bones in the chain: the end's `chain` nearest ancestors rotate (2: thigh and shin).
    pub chain: usize,
    /// A pole point in model space toward which the chain bends (the knee or elbow points at
    /// it). `None` keeps the plane the chain bends in now.
    pub pole: Option<DVec3>,
    /// The solver.
    pub solver: IkSolver,
}

/// How a solve ended.
#[derive(Clone, Debug, PartialEq)]
pub struct IkOutcome {
    /// The chain's nodes that were solved, root first, end last (pins shorten it).
    pub chain: Vec<usize>,
    /// Distance from the end joint to the target afterwards (model units).
    pub distance: f64,
    /// The chain's length (sum of its bone lengths before the solve).
    pub chain_length: f64,
}

/// Why a goal cannot be solved.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum IkError {
    /// The end node is out of range.
    #[error("node #{0} does not exist")]
    NoNode(usize),
    /// A chain of zero bones.
    #[error("the chain must have at least one bone")]
    EmptyChain,
    /// More bones asked for than the end joint has ancestors.
    #[error("joint {joint:?} has {available} ancestor(s); a chain of {asked} bones is longer than the hierarchy")]
    ChainTooLong {
        /// The end joint's key.
        joint: String,
        /// Bones asked for.
        asked: usize,
        /// Ancestors available.
        available: usize,
    },
    /// A target or pole with a NaN or infinite coordinate.
    #[error("the {0} is not a finite point")]
    NotFinite(&'static str),
    /// The end joint itself is pinned.
    #[error("joint {0:?} is pinned; unpin it to move it")]
    EndPinned(String),
    /// The starting pose, or the solution, places the chain where 64-bit floats overflow (a
    /// transform of 1e300 above it, say); the pose is left as it was.
    #[error(
        "the pose puts the chain ending at {0:?} out of numeric range (an overflowing rotation, scale or translation?)"
    )]
    OutOfRange(String),
}

/// The chain ending at `end` with `bones` bones: `bones + 1` nodes, root first.
pub fn chain_nodes(tree: &NodeTree, end: usize, bones: usize) -> Result<Vec<usize>, IkError> {
    if end >= tree.len() {
        return Err(IkError::NoNode(end));
    }
    if bones == 0 {
        return Err(IkError::EmptyChain);
    }
    let mut chain = vec![end];
    let mut node = end;
    while chain.len() <= bones {
        let Some(parent) = tree.nodes[node].parent else {
            return Err(IkError::ChainTooLong { joint: tree.key(end), asked: bones, available: chain.len() - 1 });
        };
        chain.push(parent);
        node = parent;
    }
    chain.reverse();
    Ok(chain)
}

/// Solves `goal` into `pose` (rotations of the chain's joints above the end). Joints in `pinned`
/// keep their model-space position: a pinned joint inside the chain becomes its root.
pub fn solve(tree: &NodeTree, pose: &mut Pose, goal: &IkGoal, pinned: &[usize]) -> Result<IkOutcome, IkError> {
    if !goal.target.is_finite() {
        return Err(IkError::NotFinite("target"));
    }
    if goal.pole.is_some_and(|p| !p.is_finite()) {
        return Err(IkError::NotFinite("pole"));
    }
    let mut chain = chain_nodes(tree, goal.end, goal.chain)?;
    if pinned.contains(&goal.end) {
        return Err(IkError::EndPinned(tree.key(goal.end)));
    }
    if let Some(k) = chain.iter().rposition(|n| pinned.contains(n)) {
        chain.drain(..k);
    }
    let mut globals = Vec::new();
    fk::model_from_node(tree, pose, &mut globals);
    // Solve in the frame of the chain root's parent: there the chain's bone lengths do not change
    // as its joints turn, whatever scale or shear lies above it.
    let frame = tree.nodes[chain[0]].parent.map_or(DMat4::IDENTITY, |p| globals[p]);
    let to_frame = if frame.determinant().abs() > 1e-300 && frame.inverse().is_finite() {
        frame.inverse()
    } else {
        DMat4::IDENTITY
    };
    let in_frame = |globals: &[DMat4]| -> Vec<DVec3> {
        chain.iter().map(|&n| to_frame.transform_point3(origin(&globals[n]))).collect()
    };
    let start = in_frame(&globals);
    let chain_length: f64 = start.windows(2).map(|w| w[1].distance(w[0])).sum();
    let target = to_frame.transform_point3(goal.target);
    let pole_dir = goal.pole.map_or_else(|| bend_direction(&start), |p| to_frame.transform_point3(p) - start[0]);
    let fallback_bend = to_frame.transform_vector3(globals[chain[chain.len() / 2]].z_axis.truncate());
    let out_of_range = || IkError::OutOfRange(tree.key(goal.end));
    if !(chain_length.is_finite() && target.is_finite() && pole_dir.is_finite() && fallback_bend.is_finite()) {
        return Err(out_of_range());
    }
    let before = pose.clone();
    let mut points = start;
    for _ in 0..MAX_PASSES {
        let wanted = solve_points(&points, target, goal.solver, pole_dir, fallback_bend, chain_length);
        aim_chain(tree, pose, &chain, &wanted);
        fk::model_from_node(tree, pose, &mut globals);
        points = in_frame(&globals);
        let end = points[points.len() - 1];
        if end.distance(wanted[wanted.len() - 1]) <= 1e-12 * chain_length.max(1e-300) {
            break;
        }
    }
    let distance = origin(&globals[goal.end]).distance(goal.target);
    let world_length: f64 = chain.windows(2).map(|w| origin(&globals[w[1]]).distance(origin(&globals[w[0]]))).sum();
    let solved = chain.iter().all(|n| {
        pose.overrides.get(n).is_none_or(|o| o.rotation.is_none_or(|r| r.is_finite() && r.length_squared() > 0.5))
    });
    if !(solved && distance.is_finite() && world_length.is_finite()) {
        *pose = before;
        return Err(out_of_range());
    }
    Ok(IkOutcome { chain, distance, chain_length: world_length })
}

/// The solved positions of the chain's joints for one pass (in the solving frame).
fn solve_points(
    points: &[DVec3],
    target: DVec3,
    solver: IkSolver,
    pole: DVec3,
    fallback_bend: DVec3,
    length: f64,
) -> Vec<DVec3> {
    let mut out = points.to_vec();
    if points.len() == 3 && solver == IkSolver::Auto {
        let s =
            solve_two_bone(TwoBone { root: points[0], mid: points[1], end: points[2] }, target, pole, fallback_bend);
        out[1] = s.mid;
        out[2] = s.end;
    } else {
        let bend = if pole.length_squared() > 0.0 { pole } else { fallback_bend };
        fabrik(&mut out, target, bend, FABRIK_TOLERANCE * length, MAX_FABRIK_ITERATIONS);
    }
    out
}

/// The direction the chain bends toward now: the interior joints' offset from the root-to-end
/// line (zero for a straight chain).
fn bend_direction(points: &[DVec3]) -> DVec3 {
    let root = points[0];
    let axis = unit_or(points[points.len() - 1] - root, DVec3::ZERO);
    points[1..points.len() - 1]
        .iter()
        .map(|p| {
            let v = *p - root;
            v - v.dot(axis) * axis
        })
        .sum()
}

fn origin(m: &DMat4) -> DVec3 {
    m.w_axis.truncate()
}

/// Turns each chain joint above the end, root first, by the smallest rotation (in its parent's
/// frame) that points it at the wanted position of the next chain joint (`wanted` is in the frame
/// of the chain root's parent).
fn aim_chain(tree: &NodeTree, pose: &mut Pose, chain: &[usize], wanted: &[DVec3]) {
    let mut parent_global = DMat4::IDENTITY;
    for k in 0..chain.len() - 1 {
        let (node, child) = (chain[k], chain[k + 1]);
        let trs = pose.local_trs(tree, node);
        let child_offset = pose.local_trs(tree, child).translation;
        let current = trs.rotation.normalize() * (trs.scale * child_offset);
        let want_in_parent = parent_global.inverse().transform_point3(wanted[k + 1]) - trs.translation;
        let rotation = if current.length() > geometry::TINY && want_in_parent.length() > geometry::TINY {
            let delta = DQuat::from_rotation_arc(current.normalize(), want_in_parent.normalize());
            let r = (delta * trs.rotation.normalize()).normalize();
            if r.is_finite() {
                r
            } else {
                trs.rotation
            }
        } else {
            trs.rotation
        };
        pose.set_rotation(node, rotation);
        parent_global *= pose.local_matrix(tree, node);
    }
}
