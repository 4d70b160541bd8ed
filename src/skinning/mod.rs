//! The deformation core: linear blend skinning, dual quaternion skinning and spherical blend
//! skinning, exactly as `shared/spec/deformation.md` defines them.
//!
//! Per pose, [`frame::SkinFrame`] turns each skin's joint matrices into the parts every method
//! needs (f32 rows, rigid rotations, stretches, dual quaternions) and, per distinct joint set,
//! member tables and the SBS centre of rotation (solved once per set per pose). The per-vertex pass
//! ([`lbs`], [`dqs`], [`sbs`], [`sbs_c`]: one driver monomorphised per method) then streams each
//! primitive's weights and packed set ids into caller-owned [`DeformedPrimitive`] buffers, split
//! over rayon's threads.
//!
//! In detail: `frame.rs` (+`frame/new_sets.rs`; `frame/joint_parts.rs`: per-joint parts, only for
//! joints some set reads and only what the method needs; skins with the same joints and IBMs share
//! them; kept across poses for joints whose node and inverse bind matrix kept every bit; DQS and SBS
//! split a joint through its inverse bind matrix's split where its node is a scaled rotation;
//! `frame/set_tables.rs`: the sets of each joint (an index kept per table), one pass over the sets
//! whose joints changed, flags and tables (only what the method's pass reads of each set: LBS's columns
//! for DQS and SBS only where they deform by them, scales or stretch matrices as the set's stretch is
//! uniform or not) then SBS centres, split over rayon's threads by measured work), `lbs.rs`, `dqs.rs`,
//! `sbs.rs`, `sbs_c.rs` (each method's maths only; continuous SBS, `docs/sbs-c.md`: per-vertex
//! centre from per-set pair tables), `kernel.rs` (what a method implements: `Method::prepare`, the
//! `VertexKernel` formula and lanes; `Sets`, the tables every method reads), `split.rs` (the shared
//! body of DQS and SBS: set-flag dispatch, stretch step, lanes; each gives its `Rigid` blend),
//! `cols.rs` (LBS's blended columns, also the one-joint and fallback path of the others),
//! `vertex_pass.rs` (the streaming driver, generic over the method: slot counts, table checks,
//! windows, mixed groups, threads), `runs.rs` (its walk of runs of sixteen and eight and mixed
//! groups), `arith.rs` (the kernels'
//! arithmetic, written once for SSE2 and AVX2+FMA: plain or fused multiply-adds, weighted table sums
//! rounded alike on every path, sqrt-free rotations, refined reciprocal square roots), `lanes.rs`
//! (eight vertices in the lanes of AVX2 registers: shared-set tables broadcast, per-lane blends
//! transposed in, packed positions and normals loaded and stored; also the pick's side pass;
//! vectors, quaternions and blends generic over the lane width), `lanes16.rs` (sixteen in the
//! lanes of AVX-512 registers, for runs sharing one set),
//! `stretch.rs` (DQS/SBS's stretch step per vertex, rounded as `lanes::stretch`), `shading.rs`
//! (`ShadingNormals`: for the editor, the rest normals of skinned primitives that carry none, which
//! `Deformer::set_shading_normals` deforms with the positions so such primitives are shaded from the
//! skinning pass, not from normals recomputed on each panel's deformed triangles every frame),
//! `morph.rs` (morph targets by model index, added to 64 rest positions and normals at a time in a
//! scratch the kernels read right after), `deformer.rs` (+`deformer/morphed.rs`: each morphed
//! primitive streamed while its weights change, held once they stay; `deformer/partial.rs`: re-skin
//! chosen vertices; `deformer/work.rs`: each method's
//! measured cost per vertex decides one thread or all, and the least task size; every primitive of
//! every instance is parallel work), `rigid_morphs.rs` (the morphed surfaces of unskinned mesh nodes
//! with morph targets, drawn at their node's matrix).
//!
//! Invariants: results equal `shared/spec/deformation.md`, and do not depend on what was kept from the
//! last pose nor on the threads (`tests/prepare.rs`, `tests/pass_threads.rs`).

mod arith;
mod cols;
pub mod deformer;
pub mod dqs;
pub mod frame;
mod kernel;
pub(crate) mod lanes;
pub(crate) mod lanes16;
pub mod lbs;
pub mod morph;
pub mod rigid_morphs;
mod runs;
pub mod sbs;
pub mod sbs_c;
pub mod shading;
mod split;
mod stretch;
mod vertex_pass;

pub use deformer::{Deformer, FrameStats};
pub use frame::SkinFrame;
pub use morph::{Morph, MorphDeltas};
pub(crate) use vertex_pass::Rest;
pub use vertex_pass::{set_sixteen_lanes, set_wide_simd};

use std::fmt;
use std::str::FromStr;

use glam::Vec3;

/// A skinning algorithm (serialised by its command-line name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SkinningMethod {
    /// Linear blend skinning.
    Lbs,
    /// Dual quaternion skinning (Kavan et al. 2008).
    Dqs,
    /// Spherical blend skinning (Kavan and Žára 2005).
    Sbs,
    /// Continuous SBS (skinlab's own, `docs/sbs-c.md`): a per-vertex centre continuous in the
    /// weights, so that painting a weight to zero never makes the vertex jump.
    #[serde(rename = "sbs-c")]
    SbsC,
}

impl SkinningMethod {
    /// The methods of the deformation contract (`shared/spec/deformation.md`).
    pub const ALL: [Self; 3] = [Self::Lbs, Self::Dqs, Self::Sbs];

    /// Every method, in menu order: the contract's, then continuous SBS.
    pub const MENU: [Self; 4] = [Self::Lbs, Self::Dqs, Self::Sbs, Self::SbsC];

    /// The short lower-case name used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Lbs => "lbs",
            Self::Dqs => "dqs",
            Self::Sbs => "sbs",
            Self::SbsC => "sbs-c",
        }
    }

    /// Deforms one primitive by this method into `out`; `frame` must be prepared for this method
    /// and the primitive's skin (otherwise the primitive keeps its rest shape).
    pub fn deform(
        self,
        frame: &SkinFrame,
        inf: &crate::model::Influences,
        positions: &[Vec3],
        normals: Option<&[Vec3]>,
        out: &mut DeformedPrimitive,
    ) {
        self.deform_rest(frame, inf, Rest { positions, normals, morph: None }, out);
    }

    /// [`SkinningMethod::deform`] from `rest`, morphed as the pass reads it where it has a morph.
    pub(crate) fn deform_rest(
        self,
        frame: &SkinFrame,
        inf: &crate::model::Influences,
        rest: Rest<'_>,
        out: &mut DeformedPrimitive,
    ) {
        match self {
            Self::Lbs => vertex_pass::deform::<lbs::Lbs>(frame, inf, rest, out),
            Self::Dqs => vertex_pass::deform::<split::Split<dqs::Dqs>>(frame, inf, rest, out),
            Self::Sbs => vertex_pass::deform::<split::Split<sbs::Sbs>>(frame, inf, rest, out),
            Self::SbsC => vertex_pass::deform::<sbs_c::SbsC>(frame, inf, rest, out),
        }
    }

    /// The upper-case label shown in the editor and pictures.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Lbs => "LBS",
            Self::Dqs => "DQS",
            Self::Sbs => "SBS",
            Self::SbsC => "SBS-C",
        }
    }
}

impl fmt::Display for SkinningMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SkinningMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "lbs" => Ok(Self::Lbs),
            "dqs" => Ok(Self::Dqs),
            "sbs" => Ok(Self::Sbs),
            "sbs-c" | "sbsc" => Ok(Self::SbsC),
            _ => Err(format!("unknown skinning method {s:?} (expected lbs, dqs, sbs or sbs-c)")),
        }
    }
}

/// Deformed positions and normals of one primitive (normals empty when the primitive has none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeformedPrimitive {
    /// Deformed positions, one per vertex.
    pub positions: Vec<Vec3>,
    /// Deformed unit normals, one per vertex, or empty.
    pub normals: Vec<Vec3>,
}

impl DeformedPrimitive {
    /// Resizes the buffers (allocates only when they grow).
    pub fn resize(&mut self, vertices: usize, with_normals: bool) {
        self.positions.resize(vertices, Vec3::ZERO);
        self.normals.resize(if with_normals { vertices } else { 0 }, Vec3::ZERO);
    }
}

/// Copies the rest shape, morphed where `rest` has a morph, into `out` (a primitive without
/// influences, or whose frame does not fit its influences).
pub(crate) fn rest_copy(rest: Rest<'_>, out: &mut DeformedPrimitive) {
    let Rest { positions, normals, morph } = rest;
    out.resize(positions.len(), normals.is_some());
    match morph {
        Some(m) => m.surface::<false>(positions, &mut out.positions),
        None => out.positions.copy_from_slice(positions),
    }
    match (normals, morph) {
        (Some(n), Some(m)) => m.surface::<true>(n, &mut out.normals),
        (Some(n), None) => out.normals.copy_from_slice(n),
        (None, _) => {}
    }
}
