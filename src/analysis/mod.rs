//! Weight-quality analysis, GUI-free: how close one weighting of a model's meshes is to another
//! (weight L1, influence precision and recall, deformation distance over poses) and the measures
//! that need no reference (influence histogram, smoothness energy, volume kept at a 90° bend).
//! `skinlab weights compare` and `skinlab weights evaluate` print these; the quality table in
//! BENCHMARKS.md is made from them. `joint_sets` tabulates what SBS solves per joint set in a pose; `sweep` turns
//! each joint through a twist or bend and measures collapse, volume, bulge and flips per method;
//! `rom` generates the range-of-motion clip that takes chosen joints through those motions.

pub mod deformation;
pub mod joint_sets;
pub mod matching;
pub mod metrics;
pub mod poses;
pub mod report;
pub mod rom;
pub mod smoothness;
pub mod sweep;
pub mod volume;

pub use matching::{carry_weights, weights_of, with_weights, MatchError, MeshWeights, VertexWeights};
pub use report::{compare, evaluate, Comparison, Evaluation};
