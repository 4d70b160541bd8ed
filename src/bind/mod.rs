//! Automatic weights (bone heat, Baran and Popović 2007): bind a skin's meshes to its joints, or
//! recompute only some joints' weights ("Assign Automatic"). GUI-free; the editor's Bind buttons
//! and `skinlab bind` call [`bind_skin`] and then [`BindResult::apply`].
//!
//! Pipeline: weld every primitive drawn with the skin into one surface (`surface.rs`), derive the
//! joints' bone segments (`segments.rs`), build the cotangent stiffness (`heat.rs`), heat each
//! vertex from its nearest visible segment (ray casts through `bvh.rs`), solve every wanted joint
//! with one sparse Cholesky factorisation (`solve.rs`), then apply the weight rules per vertex
//! (`rules.rs`). Nothing is written to the model until [`BindResult::apply`], which returns the
//! previous influences for undo.
//!
//! In detail: automatic weights by bone heat: `surface.rs` (weld every primitive of the skin into one
//! surface), `segments.rs` (joint segments), `heat.rs` (cotangent stiffness, nearest-visible-bone heat,
//! connected parts), `bvh.rs` (ray-cast visibility), `solve.rs` (one faer sparse Cholesky, every
//! joint), `inpaint.rs` (harmonic fill of unknown values over a triangle surface: weight transfer's
//! inpainting), `rules.rs` (clamp, drop, limit, normalise, locks, Assign Automatic merge); `bind_skin`
//! → `BindResult::apply` (returns the previous influences for undo).
//!
//! `every_mesh.rs` takes a single-skin model's unskinned meshes into the skin before a bind;
//! `rigid_parts.rs` binds small loose parts far from every bone to one joint when asked.
//!
//! Invariants: GUI-free, the only `faer` user; writes nothing until `apply`; every vertex ends with ≥ 1
//! finite, normalised influence.

pub mod bvh;
mod every_mesh;
mod heat;
pub mod inpaint;
mod rigid_parts;
mod rules;
mod segments;
mod solve;
mod surface;

pub use bvh::{ClosestPoint, TriangleBvh};
pub use every_mesh::{attach_unskinned, Attached};
pub use rules::DROP;
pub use segments::{joint_segments, Segment};
pub use solve::SolveError;

use std::time::Instant;

use crate::model::influences::{VertexInfluences, MAX_SLOTS};
use crate::model::{InfluenceError, Influences, Model};

/// What to bind and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindOptions {
    /// Most influences per vertex (1 to 16; 4 is the glTF default).
    pub limit: usize,
    /// `None`: bind every joint (replace all weights). `Some(joints)`: Assign Automatic for these
    /// skin joint indices only, inside the region they influence; every other weight is kept.
    pub joints: Option<Vec<u16>>,
    /// Skin joint indices whose weights never change.
    pub locked: Vec<u16>,
    /// Bind small loose parts far from every bone rigidly to the nearest joint (full binds only;
    /// `rigid_parts.rs`).
    pub rigid_parts: bool,
}

impl Default for BindOptions {
    fn default() -> Self {
        Self { limit: 4, joints: None, locked: Vec::new(), rigid_parts: false }
    }
}

/// Why a bind could not be computed or applied.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BindError {
    /// The skin index is out of range.
    #[error("skin {skin} does not exist (the model has {count} skins)")]
    NoSuchSkin {
        /// The requested skin.
        skin: usize,
        /// Skins in the model.
        count: usize,
    },
    /// The skin has no joints.
    #[error("skin {0} has no joints")]
    NoJoints(usize),
    /// No mesh of the default scene is drawn with the skin.
    #[error("no mesh is drawn with skin {0}")]
    NoMesh(usize),
    /// The influence limit is out of range.
    #[error("influence limit {0} is out of range (1 to 16)")]
    BadLimit(usize),
    /// A joint index is beyond the skin's joints.
    #[error("joint index {joint} is beyond the skin's {count} joints")]
    NoSuchJoint {
        /// The index given.
        joint: u16,
        /// Joints in the skin.
        count: usize,
    },
    /// Every joint to recompute is locked.
    #[error("every joint to recompute is locked")]
    AllLocked,
    /// The linear system failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// Writing the weights into the model failed.
    #[error("cannot store the weights: {0}")]
    Store(#[from] InfluenceError),
    /// The result does not fit the model (it was computed for another model).
    #[error("the bind result does not match the model's meshes")]
    Mismatch,
}

/// New influences of one primitive's vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveBind {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
    /// `(vertex, influences)` for every changed vertex, ascending (all vertices for a full bind).
    pub vertices: Vec<(u32, VertexInfluences)>,
}

/// Facts about a bind, for messages and benchmarks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BindStats {
    /// Vertices of the bound primitives.
    pub vertices: usize,
    /// Surface vertices after welding.
    pub welded_vertices: usize,
    /// Connected parts of the welded surface.
    pub parts: usize,
    /// Vertices of parts that saw no bone (heated from the nearest bones regardless).
    pub unseen_vertices: usize,
    /// Joints solved for.
    pub solved_joints: usize,
    /// Vertices whose influences change.
    pub changed_vertices: usize,
    /// Vertices of small loose parts bound rigidly to one joint.
    pub rigid_vertices: usize,
    /// Meshes bound (distinct meshes of the bound primitives).
    pub meshes: usize,
    /// Seconds welding, building segments, the stiffness matrix and the ray-casting hierarchy.
    pub prepare_secs: f64,
    /// Seconds finding each vertex's nearest visible bones.
    pub heat_secs: f64,
    /// Seconds factorising and solving.
    pub solve_secs: f64,
    /// Seconds applying the weight rules.
    pub rules_secs: f64,
}

/// A computed bind, not yet applied.
#[derive(Clone, Debug, PartialEq)]
pub struct BindResult {
    /// The skin it binds.
    pub skin: usize,
    /// New influences per primitive.
    pub primitives: Vec<PrimitiveBind>,
    /// Facts about it.
    pub stats: BindStats,
}

/// The influences a primitive had before [`BindResult::apply`] (after its joint-set table grew,
/// so restoring them is exact and valid); `None` when it had none.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveBefore {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index.
    pub primitive: usize,
    /// The previous influences.
    pub influences: Option<Influences>,
}

/// Computes automatic weights for skin `skin` of `model` (see the module docs); `progress` gets
/// fractions from 0 to 1 as the stages finish.
pub fn bind_skin(
    model: &Model,
    skin: usize,
    options: &BindOptions,
    progress: &mut dyn FnMut(f32),
) -> Result<BindResult, BindError> {
    let skin_ref = model.skins.get(skin).ok_or(BindError::NoSuchSkin { skin, count: model.skins.len() })?;
    let joint_count = skin_ref.joints.len();
    if joint_count == 0 {
        return Err(BindError::NoJoints(skin));
    }
    if options.limit == 0 || options.limit > MAX_SLOTS {
        return Err(BindError::BadLimit(options.limit));
    }
    for &joint in options.joints.iter().flatten().chain(&options.locked) {
        if usize::from(joint) >= joint_count {
            return Err(BindError::NoSuchJoint { joint, count: joint_count });
        }
    }
    let locked_mask: Vec<bool> = (0..joint_count).map(|j| options.locked.contains(&(j as u16))).collect();
    let selected_mask: Vec<bool> = match &options.joints {
        None => vec![true; joint_count],
        Some(list) => (0..joint_count).map(|j| list.contains(&(j as u16))).collect(),
    };
    let solve_joints: Vec<u16> =
        (0..joint_count as u16).filter(|&j| selected_mask[j as usize] && !locked_mask[j as usize]).collect();
    if solve_joints.is_empty() {
        return Err(BindError::AllLocked);
    }
    progress(0.0);
    let t0 = Instant::now();
    let surface = surface::weld_skin_surface(model, skin);
    if surface.primitives.is_empty() {
        return Err(BindError::NoMesh(skin));
    }
    let segments = joint_segments(model, skin, surface.diagonal);
    let stiffness = heat::stiffness(&surface);
    let parts = heat::connected_parts(&surface);
    progress(0.1);
    let bvh = bvh::TriangleBvh::build(&surface.positions, &surface.triangles);
    let t1 = Instant::now();
    let heat = heat::heat(&surface, &segments, &bvh, &parts);
    progress(0.3);
    let t2 = Instant::now();
    let columns = solve::solve_heat(&stiffness, &heat, &solve_joints, &mut |f| progress(0.3 + 0.6 * f))?;
    let nearest = nearest_heated(&heat, &segments, &surface, &solve_joints);
    let t3 = Instant::now();

    let full = options.joints.is_none();
    let rigid = if full && options.rigid_parts {
        rigid_parts::rigid_joints(&surface, &parts, &segments, &solve_joints)
    } else {
        vec![None; surface.len()]
    };
    let table = &skin_ref.sets;
    let mut primitives = Vec::with_capacity(surface.primitives.len());
    let mut stats = BindStats {
        welded_vertices: surface.len(),
        parts: parts.iter().copied().max().map_or(0, |m| m as usize + 1),
        unseen_vertices: heat.unseen_vertices,
        solved_joints: solve_joints.len(),
        prepare_secs: (t1 - t0).as_secs_f64(),
        heat_secs: (t2 - t1).as_secs_f64(),
        solve_secs: (t3 - t2).as_secs_f64(),
        ..BindStats::default()
    };
    let locked = |j: u16| locked_mask.get(usize::from(j)).copied().unwrap_or(false);
    let selected = |j: u16| selected_mask.get(usize::from(j)).copied().unwrap_or(false);
    let mut heat_row: Vec<(u16, f64)> = Vec::with_capacity(solve_joints.len());
    for (p, &(mesh, prim_idx)) in surface.primitives.iter().enumerate() {
        let prim = &model.meshes[mesh].primitives[prim_idx];
        let mut vertices = Vec::new();
        let mut current: Vec<(u16, f32)> = Vec::new();
        for (v, &s) in surface.vertex_of[p].iter().enumerate() {
            let s = s as usize;
            current.clear();
            if let Some(inf) = &prim.influences {
                current.extend(inf.vertex(v, table));
            }
            heat_row.clear();
            match rigid[s] {
                Some(j) => {
                    heat_row.push((j, 1.0));
                    stats.rigid_vertices += 1;
                }
                None => heat_row.extend(solve_joints.iter().zip(&columns).map(|(&j, col)| (j, col[s]))),
            }
            if !full {
                // Region: where a recomputed joint has weight now, or its heat reaches DROP.
                let inside = current.iter().any(|&(j, w)| w > 0.0 && selected(j) && !locked(j))
                    || heat_row.iter().any(|&(_, w)| w >= DROP);
                if !inside {
                    continue;
                }
            }
            let inputs = rules::VertexInputs {
                current: &current,
                heat: &heat_row,
                locked: &locked,
                selected: &selected,
                fallback: nearest[s],
            };
            let weights = rules::vertex_weights(&inputs, options.limit);
            let has_selected = |pairs: &[(u16, f32)]| pairs.iter().any(|&(j, w)| w > 0.0 && selected(j) && !locked(j));
            if !full && !has_selected(&current) && !has_selected(&weights.pairs) {
                continue; // the recomputed joints do not reach this vertex after all
            }
            vertices.push((v as u32, weights));
        }
        stats.vertices += prim.positions.len();
        stats.changed_vertices += vertices.len();
        primitives.push(PrimitiveBind { mesh, primitive: prim_idx, vertices });
    }
    let mut meshes: Vec<usize> = primitives.iter().map(|p| p.mesh).collect();
    meshes.dedup();
    stats.meshes = meshes.len();
    stats.rules_secs = t3.elapsed().as_secs_f64();
    progress(1.0);
    Ok(BindResult { skin, primitives, stats })
}

/// The joint each surface vertex falls back on: its largest heat source among the solved joints,
/// else the solved joint with the nearest segment.
fn nearest_heated(heat: &heat::Heat, segments: &[Segment], surface: &surface::Surface, solved: &[u16]) -> Vec<u16> {
    (0..surface.len())
        .map(|i| {
            let from_heat = heat.sources[i]
                .iter()
                .filter(|s| solved.contains(&s.0))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|s| s.0);
            from_heat.unwrap_or_else(|| {
                let p = surface.positions[i];
                solved
                    .iter()
                    .copied()
                    .min_by(|&a, &b| segments[a as usize].distance(p).total_cmp(&segments[b as usize].distance(p)))
                    .unwrap_or(0)
            })
        })
        .collect()
}

impl BindResult {
    /// Writes the new influences into `model` (growing the skin's joint-set table when the limit
    /// needs more slots) and returns each touched primitive's previous influences for undo.
    /// Nothing is changed when the result does not match the model.
    pub fn apply(&self, model: &mut Model) -> Result<Vec<PrimitiveBefore>, BindError> {
        if self.skin >= model.skins.len() {
            return Err(BindError::Mismatch);
        }
        let mut needed = 1;
        for pb in &self.primitives {
            let prim =
                model.meshes.get(pb.mesh).and_then(|m| m.primitives.get(pb.primitive)).ok_or(BindError::Mismatch)?;
            for (v, inf) in &pb.vertices {
                if *v as usize >= prim.positions.len() {
                    return Err(BindError::Mismatch);
                }
                needed = needed.max(inf.pairs.len());
            }
        }
        model.grow_skin_slots(self.skin, needed);
        let mut before = Vec::with_capacity(self.primitives.len());
        for pb in &self.primitives {
            let prim = &model.meshes[pb.mesh].primitives[pb.primitive];
            before.push(PrimitiveBefore {
                mesh: pb.mesh,
                primitive: pb.primitive,
                influences: prim.influences.clone(),
            });
        }
        let skin = &mut model.skins[self.skin];
        for pb in &self.primitives {
            let prim = &mut model.meshes[pb.mesh].primitives[pb.primitive];
            let count = prim.positions.len();
            let influences = match &mut prim.influences {
                Some(inf) => inf,
                None => prim
                    .influences
                    .insert(Influences::from_vertices(&vec![VertexInfluences::default(); count], &mut skin.sets)?),
            };
            for (v, inf) in &pb.vertices {
                influences.set_vertex(*v as usize, inf, &mut skin.sets)?;
            }
        }
        Ok(before)
    }
}

/// Restores the influences returned by [`BindResult::apply`] (undo).
pub fn restore(model: &mut Model, before: &[PrimitiveBefore]) {
    for b in before {
        if let Some(prim) = model.meshes.get_mut(b.mesh).and_then(|m| m.primitives.get_mut(b.primitive)) {
            prim.influences.clone_from(&b.influences);
        }
    }
}
