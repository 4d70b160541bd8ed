//! Posing a model: per-node overrides of the rest transforms, forward kinematics to skin
//! matrices, animation sampling, and the pose-file format of the contract.

pub mod fk;
pub mod pose;
pub mod pose_file;
pub mod sample;

pub use pose::{JointOverride, Pose};
