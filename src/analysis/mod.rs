//! Weight-quality analysis, GUI-free: how close one weighting of a model's meshes is to another
//! (weight L1, influence precision and recall, deformation distance over poses) and the measures
//! that need no reference (influence histogram, smoothness energy, volume kept at a 90° bend).
//! `skinlab weights compare` and `skinlab weights evaluate` print these; the quality table in
//! BENCHMARKS.md is made from them. `joint_sets` tabulates what SBS solves per joint set in a pose; `sweep` turns
//! each joint through a twist or bend and measures collapse, volume, bulge and flips per method;
//! `rom` generates the range-of-motion clip that takes chosen joints through those motions.
//!
//! In detail: weight quality: `matching.rs` (a second weighting carried onto a model by mesh order and
//! joint name), `metrics.rs` (L1, precision/recall, histogram), `smoothness.rs` (cotangent Dirichlet
//! energy), `poses.rs` (bind pose, seeded random poses, clip samples, 90° bends), `deformation.rs`,
//! `volume.rs`, `report.rs` (`compare`, `evaluate`), `joint_sets.rs` (the SBS set table of a pose:
//! members, vertices, centre-system singular values and condition number, centre, far path, warnings;
//! `info --sets`), `sweep/` (stress sweeps: `region.rs` the influenced vertices, bone segments, slices
//! and the collapse/volume/bulge/flip metrics; `csv.rs` (the PNG is `crate::plot::sweep`'s); `clip.rs` the
//! sweep on a clip's keys, `sweep --clip`), `rom.rs` (the range-of-motion clip: each joint's twist and
//! two bends about the sweep's axes, rest → +max → rest → −max → rest, LINEAR keys ≤ 45° apart,
//! f32-exact; `skinlab rom`, the sweep panel's Add ROM clip).
//!
//! Invariants: GUI-free; both weightings are deformed with the reference's skeleton and poses, so only
//! weights differ.

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
