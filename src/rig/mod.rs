//! Posing and rigging a model: per-node overrides of the rest transforms, forward kinematics to
//! skin matrices, animation sampling, bone shapes and
//! skeleton edits (joints added, deleted, moved, reparented, mirrored; skins created), inverse
//! kinematics (`ik/`), keyframes on clips (`keys.rs`), poses pasted across the symmetry plane
//! (`mirror_pose.rs`), a joint's bone axis (`bone_axis.rs`), twist and bend about it
//! (`twist_bend.rs`) and turns about model-space or joint axes (`axis_rotation.rs`).

pub mod axis_rotation;
pub mod bone;
pub mod bone_axis;
pub mod fk;
pub mod ik;
pub mod keys;
pub mod mirror_pose;
pub mod pose;
pub mod sample;
pub mod skeleton_edit;
pub mod symmetry;
pub mod twist_bend;

pub use pose::{JointOverride, Pose};
