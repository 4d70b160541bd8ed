//! Automatic rigging: a template skeleton fitted to an unrigged character from its shape alone
//! (standing Y up, facing +Z, in a T- or A-pose) or from markers on its front view, then built
//! into the model as one skin over every mesh with the joint orientation convention
//! (`rig::joint_frame`). GUI-free; the editor's Auto-rig view and `skinlab autorig` call
//! [`fit`] and [`build::build_rig`].
//!
//! Files: `solid.rs` (a voxel grid of the inside from any triangle soup: several objects, holes,
//! non-manifold parts), `rows.rs` (horizontal slices: legs, also when they touch, torso),
//! `section.rs` (cross-sections and limbs traced through them), `front_view.rs` (the
//! silhouette: an arm's line, the shoulder where it meets the torso; a cape's sheet left out),
//! `markers.rs` (the front-view markers), `props.rs` (props held in the hands, a sword or a
//! shield, set aside by object and by connected piece before the humanoid is fitted),
//! `humanoid.rs` and `humanoid_limbs.rs` (the humanoid: legs from the slices below the crotch,
//! arms traced from the hands or pinned by wrist and elbow markers, spine along the torso's
//! centroids), `fingers.rs` (three joints per finger), `quadruped.rs`, `chain.rs` (N joints
//! between two points), `build.rs` (the plan turned into skeleton edits: one undo record).
//!
//! Landmark joints carry fixed names ([`LANDMARKS`]), each at its anatomical pivot. A fit that
//! cannot find a limb says which and why; it never returns a rig it knows to be wrong. What a
//! fit sets aside is named in the plan's notes and stays in the skin: every vertex is bound.

pub mod build;
pub mod chain;
mod fingers;
mod front_view;
mod humanoid;
mod humanoid_limbs;
pub mod markers;
mod props;
mod quadruped;
mod rows;
mod section;
pub mod solid;

use glam::DVec3;

pub use humanoid_limbs::HIP_ABOVE_CROTCH;
pub use markers::{Markers, MARKER_NAMES};
use solid::Solid;

/// The humanoid's landmark joints (each also with `.R` where it has `.L`).
pub const LANDMARKS: [&str; 12] = [
    "hips",
    "spine",
    "chest",
    "neck",
    "head",
    "upperarm.L",
    "forearm.L",
    "hand.L",
    "thigh.L",
    "shin.L",
    "foot.L",
    "toe.L",
];

/// A skeleton template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Template {
    /// Hips, spine, chest, neck, head, clavicles, arms, legs (optionally fingers).
    Humanoid,
    /// Spine, neck, head, tail, four legs.
    Quadruped,
}

impl Template {
    /// The template's name, as `--template` reads it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Humanoid => "humanoid",
            Self::Quadruped => "quadruped",
        }
    }

    /// The template a character standing Y up and facing +Z most likely needs, from its
    /// bounding box: a quadruped is longer front to back (z) than it is tall (y) and than it is
    /// wide (x); a humanoid is taller than deep, and its arms make it wide. `None` without points.
    #[must_use]
    pub fn detect(positions: &[DVec3]) -> Option<Self> {
        let (lo, hi) =
            positions.iter().fold((DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
        let size = hi - lo;
        if !size.is_finite() {
            return None;
        }
        Some(if size.z > 0.8 * size.y && size.z > size.x { Self::Quadruped } else { Self::Humanoid })
    }
}

impl std::str::FromStr for Template {
    type Err = AutorigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "humanoid" => Ok(Self::Humanoid),
            "quadruped" => Ok(Self::Quadruped),
            _ => Err(AutorigError::BadTemplate(s.to_owned())),
        }
    }
}

/// What to fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// The template.
    pub template: Template,
    /// Markers (humanoid only; empty: from the shape alone).
    pub markers: Markers,
    /// Three joints per finger (humanoid).
    pub fingers: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        Self { template: Template::Humanoid, markers: Markers::default(), fingers: false }
    }
}

/// One joint of a fitted skeleton (bind space).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanJoint {
    /// Its name.
    pub name: String,
    /// Its parent's index in the plan (parents come first).
    pub parent: Option<usize>,
    /// The joint's position (the bone's head).
    pub head: DVec3,
    /// The bone's end.
    pub tail: DVec3,
    /// The side it flexes toward (`rig::joint_frame`).
    pub flex: DVec3,
}

/// A fitted skeleton, parents before children.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// The joints.
    pub joints: Vec<PlanJoint>,
    /// Notes for the user (what was guessed).
    pub notes: Vec<String>,
}

impl Plan {
    /// Adds a joint; returns its index.
    pub fn add(&mut self, name: &str, parent: Option<usize>, head: DVec3, tail: DVec3, flex: DVec3) -> usize {
        self.joints.push(PlanJoint { name: name.to_owned(), parent, head, tail, flex });
        self.joints.len() - 1
    }

    /// The joint named `name`.
    #[must_use]
    pub fn joint(&self, name: &str) -> Option<&PlanJoint> {
        self.joints.iter().find(|j| j.name == name)
    }
}

/// Why a fit failed. Displays as one line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AutorigError {
    /// The model has nothing to fit to.
    #[error("the model has no triangles to rig")]
    NoMesh,
    /// The model already has a skeleton.
    #[error("the model already has a skeleton (auto-rig starts from an unrigged character)")]
    AlreadyRigged,
    /// The character does not stand Y up facing +Z.
    #[error("{0}")]
    NotUpright(String),
    /// A limb could not be found.
    #[error("could not find {limb}: {why}")]
    LimbNotFound {
        /// The limb ("the left arm").
        limb: String,
        /// Why.
        why: String,
    },
    /// A marker is malformed or off the character.
    #[error("marker {0}")]
    BadMarker(String),
    /// An unknown template name.
    #[error("unknown template {0:?} (known: humanoid, quadruped)")]
    BadTemplate(String),
    /// Building the skeleton failed.
    #[error("building the skeleton: {0}")]
    Build(String),
}

/// The bind-space extent of the character: floor, height and the symmetry plane's x.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// The lowest inside y.
    pub floor: f64,
    /// Height of the inside.
    pub height: f64,
    /// The x of the symmetry plane (the median x of the inside's lower half).
    pub centre_x: f64,
    /// The low corner of the inside's box.
    pub lo: DVec3,
    /// The high corner.
    pub hi: DVec3,
}

impl Frame {
    fn of(solid: &Solid) -> Option<Self> {
        let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        for p in solid.points() {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        if lo.x > hi.x {
            return None;
        }
        // The symmetry plane from the lower half (legs, hips), as a median: a shield or a sword
        // held out to one side does not pull it over.
        let mut xs: Vec<f64> = solid.points().filter(|p| p.y < 0.5 * (lo.y + hi.y)).map(|p| p.x).collect();
        if xs.is_empty() {
            xs = solid.points().map(|p| p.x).collect();
        }
        xs.sort_by(f64::total_cmp);
        Some(Self {
            floor: lo.y - 0.5 * solid.cell,
            height: hi.y - lo.y + solid.cell,
            centre_x: xs[xs.len() / 2],
            lo,
            hi,
        })
    }
}

/// One object of the character (a mesh node, an OBJ's `o`): its name and its triangles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    /// Its name (what the plan's notes call it).
    pub name: String,
    /// Its triangles: a range of the triangle list.
    pub triangles: std::ops::Range<usize>,
}

/// Fits `options.template` to the triangles `triangles` over `positions` (bind space), taken as
/// one object.
pub fn fit(positions: &[DVec3], triangles: &[[u32; 3]], options: &FitOptions) -> Result<Plan, AutorigError> {
    let whole = [Object { name: "the mesh".into(), triangles: 0..triangles.len() }];
    fit_objects(positions, triangles, &whole, options)
}

/// Fits `options.template` to the triangles `triangles` over `positions` (bind space) made of
/// the objects `objects`. The humanoid's props held in the hands are set aside first
/// (`props.rs`) and named in the plan's notes; they stay in the triangles the rig is built and
/// bound over.
pub fn fit_objects(
    positions: &[DVec3],
    triangles: &[[u32; 3]],
    objects: &[Object],
    options: &FitOptions,
) -> Result<Plan, AutorigError> {
    let solid = Solid::build(positions, triangles).ok_or(AutorigError::NoMesh)?;
    let frame = Frame::of(&solid).ok_or(AutorigError::NoMesh)?;
    match options.template {
        Template::Humanoid => {
            let aside = props::set_aside(positions, triangles, objects, &frame);
            if aside.names.is_empty() {
                return humanoid::fit(&solid, &frame, options);
            }
            let kept: Vec<[u32; 3]> =
                triangles.iter().zip(&aside.triangle).filter(|(_, &prop)| !prop).map(|(t, _)| *t).collect();
            let body = Solid::build(positions, &kept).ok_or(AutorigError::NoMesh)?;
            let frame = Frame::of(&body).ok_or(AutorigError::NoMesh)?;
            let mut plan = humanoid::fit(&body, &frame, options)?;
            plan.notes.push(format!("set aside: {} (held in a hand; bound with the rest)", aside.names.join(", ")));
            Ok(plan)
        }
        Template::Quadruped => quadruped::fit(&solid, &frame),
    }
}
