//! Posing and rigging a model: per-node overrides of the rest transforms, forward kinematics to
//! skin matrices, animation sampling, bone shapes and
//! skeleton edits (joints added, deleted, moved, reparented, mirrored; skins created), inverse
//! kinematics (`ik/`), keyframes on clips (`keys.rs`), poses pasted across the symmetry plane
//! (`mirror_pose.rs`), a joint's bone axis (`bone_axis.rs`), twist and bend about it
//! (`twist_bend.rs`) and turns about model-space or joint axes (`axis_rotation.rs`).
//!
//! In detail: `Pose` (per-node TRS overrides), `fk.rs`, `sample.rs` (glTF interpolation),
//! `pose_file.rs` (the contract's JSON), `bone.rs` (Blender's tail/roll convention), `ik/` (inverse
//! kinematics: `two_bone.rs` analytic with a pole, `fabrik.rs` for N bones, `mod.rs` chains, pins and
//! the conversion of solved positions to local rotations), `keys.rs` (keys of a pose on a `model::Clip`
//! at a time: set, move, delete; f32-exact so exports play back bit for bit; the clip's frame rate),
//! `key_interpolation.rs` (per-key step / linear / cubic spline and its one-sampler glTF form), `mirror_pose.rs` (Paste
//! Flipped: each joint's model-space rotation from rest reflected across the symmetry plane onto its
//! partner), `bone_axis.rs` (a joint's bone axis in its rotation frame: tail, first child joint, a
//! leaf's parent, +Y), `twist_bend.rs` (swing–twist: Twist / Bend A / Bend B relative to rest, exact
//! round trip), `axis_rotation.rs` (turning a joint about a model-space or joint axis as a new local
//! rotation), `joint_frame.rs` (the joint orientation convention: +Y along the bone, +Z the
//! flexion side, X the bend axis), `side_names.rs` (the rig's side-naming scheme, a side added to a name),
//! `skeleton_edit/` (add, delete, move, reparent, rename, symmetrize a subtree, orient joints, set
//! rolls; create a skin; each returns a `SkeletonRecord` for undo).
//!
//! Invariants: FK in f64; every skeleton edit keeps each joint's rest offset `C = global·IBM`, so the
//! mesh never moves in the rest pose.

pub mod autorig;
pub mod axis_rotation;
pub mod bone;
pub mod bone_axis;
pub mod fk;
pub mod ik;
pub mod joint_frame;
pub mod key_interpolation;
pub mod keys;
pub mod mirror_pose;
pub mod pose;
pub mod sample;
pub mod side_names;
pub mod skeleton_edit;
pub mod symmetry;
pub mod twist_bend;

pub use pose::{JointOverride, Pose};
