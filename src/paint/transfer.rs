//! Weight transfer from another model, or from another skin of the same model, after Abdrashitov
//! et al. 2023, "Robust skin weights transfer via weight inpainting":
//! 1. joints are matched by node name, else by bind position (within [`JOINT_MATCH_FRACTION`] of
//!    the diagonal); source joints left without a partner are reported and their weight dropped;
//! 2. every target weld group takes the barycentric-interpolated weights of the closest point of
//!    the source surface (a BVH over its rest triangles) when that point is within
//!    `max_distance` (a share of the target's diagonal) and the normals there agree within
//!    `max_angle_deg` (a point on the source surface itself, within [`ON_SURFACE_FRACTION`],
//!    always matches);
//! 3. the others are inpainted: the Dirichlet energy over the target's welded surface is minimised
//!    with the matched groups (and the groups the mask keeps) as constraints
//!    ([`crate::bind::inpaint`]);
//! 4. then the rules (locked joints keep their weights, the limit, normalisation), written to
//!    every weld copy as one undo record.
//!
//! Both surfaces are compared in their meshes' stored (bind) coordinates, so the models must be
//! modelled in the same place, as for Blender's Data Transfer in object space.
//! [`plan_transfer`] reads both models; [`apply_transfer`] writes the target, so a skin of one
//! model can be transferred onto another skin of the same model.

use glam::{DVec3, Vec3};

use super::blend::accumulate;
use super::error::PaintError;
use super::mirror_match::joint_bind_positions;
use super::model_surface::ModelSurface;
use super::normalize::{apply_rules, WeightRules};
use super::tools::{write_groups, ToolOutcome};
use super::writable::ensure_all_influences;
use crate::bind::inpaint::inpaint;
use crate::bind::TriangleBvh;
use crate::maths::point_grid::relative_tolerance;
use crate::model::Model;
use crate::model::StrokeRecord;

/// Joints whose bind positions are this close (a share of the target's diagonal) match when
/// their names do not.
pub const JOINT_MATCH_FRACTION: f32 = 1e-3;
/// A closest point this near (a share of the target's diagonal) lies on the source surface: it
/// matches whatever the normals say (a vertex on a sharp edge of a low-poly mesh averages normals
/// that no single point of the source has; the angle test guards against nearby other sheets).
pub const ON_SURFACE_FRACTION: f32 = 1e-4;
/// Weights below this after inpainting are dropped (the rest renormalised).
const INPAINT_DROP: f64 = 1e-3;

/// How to transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransferOptions {
    /// Farthest closest point that still counts as a match, as a share of the target's diagonal
    /// (the paper's 0.05).
    pub max_distance: f32,
    /// Largest angle between the target's normal and the source's at the closest point, degrees
    /// (the paper's 30).
    pub max_angle_deg: f32,
    /// Read only the primitives drawn with this skin of the source (`None`: every skin).
    pub source_skin: Option<usize>,
    /// Write only the primitives drawn with this skin of the target (`None`: every skin).
    pub target_skin: Option<usize>,
}

impl Default for TransferOptions {
    fn default() -> Self {
        Self { max_distance: 0.05, max_angle_deg: 30.0, source_skin: None, target_skin: None }
    }
}

/// Why a transfer could not run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TransferError {
    /// The source has no skinned triangle to read from.
    #[error("the source has no skinned triangles{}", skin_note(*.0))]
    EmptySource(Option<usize>),
    /// The target has no skinned vertex to write.
    #[error("the target has no skinned vertices{}", skin_note(*.0))]
    EmptyTarget(Option<usize>),
    /// No source joint matches a target joint by name or position.
    #[error("no joint of the source matches a joint of the target by name or bind position")]
    NoJointMatch,
    /// The inpainting system could not be solved.
    #[error("inpainting failed: {0}")]
    Inpaint(String),
    /// Writing the weights failed.
    #[error(transparent)]
    Paint(#[from] PaintError),
}

fn skin_note(skin: Option<usize>) -> String {
    skin.map_or_else(String::new, |s| format!(" in skin {s}"))
}

/// What a transfer found (and, after [`apply_transfer`], changed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransferReport {
    /// Target weld groups that took the closest point's weights.
    pub matched: usize,
    /// Target weld groups filled by inpainting.
    pub inpainted: usize,
    /// Target weld groups in parts without any matched group (left unchanged).
    pub unreached: usize,
    /// Source joints with weight but without a target joint (their weight was dropped), by name.
    pub unmatched_joints: Vec<String>,
    /// Source joints matched by bind position because no target joint has their name.
    pub matched_by_position: usize,
    /// Vertices written (every weld copy), after [`apply_transfer`].
    pub changed: usize,
    /// The skins' tables were re-padded (prepare the deformer again).
    pub layout_changed: bool,
}

impl TransferReport {
    /// One line for the status bar and the CLI.
    #[must_use]
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} vertex groups matched by closest point, {} inpainted, {} unreached",
            self.matched, self.inpainted, self.unreached
        );
        if self.matched_by_position > 0 {
            s.push_str(&format!("; {} joints matched by position", self.matched_by_position));
        }
        if !self.unmatched_joints.is_empty() {
            s.push_str(&format!("; unmatched source joints (weight dropped): {}", self.unmatched_joints.join(", ")));
        }
        s
    }
}

/// The weights a transfer will write: per target weld group (representative), in target surface
/// joints, before the rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransferPlan {
    /// `(group, weights)`, ascending by group.
    pub weights: Vec<(u32, Vec<(u16, f32)>)>,
    /// The counts (nothing changed yet).
    pub report: TransferReport,
}

/// Source surface joints → target surface joints (`None`: unmatched), and how many matched by
/// position.
fn match_joints(source: &Model, ss: &ModelSurface, target: &Model, ts: &ModelSurface) -> (Vec<Option<u16>>, usize) {
    let name = |m: &Model, n: usize| m.nodes.nodes.get(n).and_then(|x| x.name.clone());
    let target_names: Vec<Option<String>> = ts.joint_nodes().iter().map(|&n| name(target, n)).collect();
    let mut map: Vec<Option<u16>> = ss
        .joint_nodes()
        .iter()
        .map(|&n| {
            let nm = name(source, n)?;
            target_names.iter().position(|t| t.as_deref() == Some(nm.as_str())).map(|k| k as u16)
        })
        .collect();
    let (sp, tp) = (joint_bind_positions(source, ss), joint_bind_positions(target, ts));
    let tol = relative_tolerance(ts.rest_positions(), JOINT_MATCH_FRACTION);
    let mut by_position = 0;
    for (j, m) in map.iter_mut().enumerate().filter(|(_, m)| m.is_none()) {
        let Some(p) = sp.get(j).copied().flatten() else { continue };
        let best = tp
            .iter()
            .enumerate()
            .filter_map(|(k, q)| q.map(|q| (q.distance(p), k)))
            .filter(|&(d, _)| d <= tol)
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, k)) = best {
            *m = Some(k as u16);
            by_position += 1;
        }
    }
    (map, by_position)
}

/// Area-weighted normals of the weld groups (on each representative) from `triangles`.
fn group_normals(surface: &ModelSurface, triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let (rest, adj) = (surface.rest_positions(), surface.adjacency());
    let mut n = vec![Vec3::ZERO; rest.len()];
    for t in triangles {
        let [a, b, c] = t.map(|k| rest[k as usize]);
        let face = (b - a).cross(c - a);
        for &k in t {
            n[adj.rep(k) as usize] += face;
        }
    }
    n.iter_mut().for_each(|v| *v = v.normalize_or_zero());
    n
}

/// The triangles of `surface` whose primitive is drawn with `skin` (all when `None`).
fn triangles_of(surface: &ModelSurface, skin: Option<usize>) -> Vec<[u32; 3]> {
    let n = surface.len() as u32;
    let mut out = Vec::new();
    let parts = surface.parts();
    for (k, part) in parts.iter().enumerate().filter(|(_, p)| skin.is_none_or(|s| p.skin == s)) {
        let end = parts.get(k + 1).map_or(surface.triangles().len() as u32, |q| q.first_triangle);
        let tris = &surface.triangles()[part.first_triangle as usize..end as usize];
        out.extend(tris.iter().filter(|t| t.iter().all(|&i| i < n)));
    }
    out
}

/// Plans the transfer from `source` (its surface `ss`) onto `target` (its surface `ts`): joints
/// matched, closest points interpolated, the rest inpainted. `rules.mask` marks the groups that
/// may change; the others constrain the inpainting with their current weights.
pub fn plan_transfer(
    source: &Model,
    ss: &ModelSurface,
    target: &Model,
    ts: &ModelSurface,
    rules: &WeightRules,
    options: &TransferOptions,
) -> Result<TransferPlan, TransferError> {
    let source_tris = triangles_of(ss, options.source_skin);
    if source_tris.is_empty() {
        return Err(TransferError::EmptySource(options.source_skin));
    }
    let target_tris = triangles_of(ts, options.target_skin);
    let (adj, rest) = (ts.adjacency(), ts.rest_positions());
    // The target's groups, in a compact numbering for the inpainting.
    let mut in_target = vec![false; ts.len()];
    for part in ts.parts().iter().filter(|p| options.target_skin.is_none_or(|s| p.skin == s)) {
        for g in part.first_vertex..part.first_vertex + part.vertices {
            in_target[adj.rep(g) as usize] = true;
        }
    }
    let groups: Vec<u32> = (0..ts.len() as u32).filter(|&g| in_target[g as usize]).collect();
    if groups.is_empty() {
        return Err(TransferError::EmptyTarget(options.target_skin));
    }
    let (joint_map, matched_by_position) = match_joints(source, ss, target, ts);
    if joint_map.iter().all(Option::is_none) {
        return Err(TransferError::NoJointMatch);
    }
    let mut report = TransferReport { matched_by_position, ..TransferReport::default() };
    let mut lost: Vec<bool> = vec![false; joint_map.len()];
    let source_rest: Vec<DVec3> = ss.rest_positions().iter().map(|p| p.as_dvec3()).collect();
    let bvh = TriangleBvh::build(&source_rest, &source_tris);
    let source_normals = group_normals(ss, &source_tris);
    let target_normals = group_normals(ts, &target_tris);
    let diagonal = relative_tolerance(rest, 1.0);
    let reach = f64::from(options.max_distance.max(0.0) * diagonal);
    let cos_max = options.max_angle_deg.clamp(0.0, 180.0).to_radians().cos();
    let interpolate = |g: u32, lost: &mut Vec<bool>| -> Option<Vec<(u16, f32)>> {
        let hit = bvh.closest(rest[g as usize].as_dvec3(), reach)?;
        let corners = source_tris[hit.triangle as usize];
        let sadj = ss.adjacency();
        let n: Vec3 =
            corners.iter().zip(hit.barycentric).map(|(&c, b)| source_normals[sadj.rep(c) as usize] * b as f32).sum();
        let tn = target_normals[g as usize];
        let on_surface = hit.distance <= f64::from(ON_SURFACE_FRACTION * diagonal);
        if !on_surface && tn != Vec3::ZERO && n != Vec3::ZERO && tn.dot(n.normalize()) < cos_max {
            return None;
        }
        let mut w = Vec::new();
        for (&c, b) in corners.iter().zip(hit.barycentric) {
            let mapped: Vec<(u16, f32)> = ss
                .weights(source, c)
                .into_iter()
                .filter_map(|(j, x)| match joint_map.get(j as usize).copied().flatten() {
                    Some(t) => Some((t, x)),
                    None => {
                        if x > 0.0 && b > 0.0 {
                            if let Some(l) = lost.get_mut(j as usize) {
                                *l = true;
                            }
                        }
                        None
                    }
                })
                .collect();
            accumulate(&mut w, &mapped, b as f32);
        }
        w.retain(|p| p.1 > 0.0);
        let sum: f32 = w.iter().map(|p| p.1).sum();
        (sum > 0.0).then(|| {
            w.iter_mut().for_each(|p| p.1 /= sum);
            w
        })
    };
    let mut known: GroupWeights = Vec::with_capacity(groups.len());
    let mut writable = Vec::with_capacity(groups.len());
    for &g in &groups {
        let may = rules.may_change(g);
        writable.push(may);
        if !may {
            known.push(Some(ts.weights(target, g)).filter(|w| !w.is_empty()));
            continue;
        }
        let w = interpolate(g, &mut lost);
        report.matched += usize::from(w.is_some());
        known.push(w);
    }
    report.unmatched_joints = lost
        .iter()
        .enumerate()
        .filter(|(_, &l)| l)
        .map(|(j, _)| ss.joint_nodes().get(j).map_or_else(|| format!("joint {j}"), |&n| source.nodes.key(n)))
        .collect();
    let mut weights: Vec<(u32, Vec<(u16, f32)>)> = Vec::new();
    let unknown = known.iter().zip(&writable).filter(|(k, &w)| k.is_none() && w).count();
    if unknown > 0 {
        let filled = inpaint_groups(ts, &groups, &target_tris, &known).map_err(TransferError::Inpaint)?;
        for (i, w) in filled.into_iter().enumerate() {
            if known[i].is_none() && writable[i] {
                match w {
                    Some(w) => {
                        report.inpainted += 1;
                        weights.push((groups[i], w));
                    }
                    None => report.unreached += 1,
                }
            }
        }
    }
    for (i, w) in known.into_iter().enumerate() {
        if let (Some(w), true) = (w, writable[i]) {
            weights.push((groups[i], w));
        }
    }
    weights.sort_unstable_by_key(|e| e.0);
    Ok(TransferPlan { weights, report })
}

/// Weights per group, `None` where a group has none (yet).
type GroupWeights = Vec<Option<Vec<(u16, f32)>>>;

/// Harmonic fill of the groups without weights (`known[i] == None`) from those with weights;
/// returns every group's weights (`None` where unreached).
fn inpaint_groups(
    ts: &ModelSurface,
    groups: &[u32],
    triangles: &[[u32; 3]],
    known: &[Option<Vec<(u16, f32)>>],
) -> Result<GroupWeights, String> {
    let adj = ts.adjacency();
    let mut compact = vec![u32::MAX; ts.len()];
    for (i, &g) in groups.iter().enumerate() {
        compact[g as usize] = i as u32;
    }
    let positions: Vec<DVec3> = groups.iter().map(|&g| ts.rest_positions()[g as usize].as_dvec3()).collect();
    let tris: Vec<[u32; 3]> = triangles
        .iter()
        .map(|t| t.map(|k| compact[adj.rep(k) as usize]))
        .filter(|t| t.iter().all(|&k| k != u32::MAX))
        .collect();
    let mut joints: Vec<u16> = known.iter().flatten().flatten().map(|p| p.0).collect();
    joints.sort_unstable();
    joints.dedup();
    let mut columns: Vec<Vec<f64>> = vec![vec![0.0; groups.len()]; joints.len()];
    for (i, w) in known.iter().enumerate() {
        for &(j, x) in w.iter().flatten() {
            if let Ok(c) = joints.binary_search(&j) {
                columns[c][i] = f64::from(x);
            }
        }
    }
    let is_known: Vec<bool> = known.iter().map(Option::is_some).collect();
    let out = inpaint(&positions, &tris, &is_known, &mut columns).map_err(|e| e.to_string())?;
    let mut unreached = vec![false; groups.len()];
    for &u in &out.unreached {
        unreached[u as usize] = true;
    }
    Ok((0..groups.len())
        .map(|i| {
            if let Some(w) = &known[i] {
                return Some(w.clone());
            }
            if unreached[i] {
                return None;
            }
            let mut w: Vec<(u16, f64)> =
                joints.iter().zip(&columns).map(|(&j, col)| (j, col[i])).filter(|p| p.1 > INPAINT_DROP).collect();
            let sum: f64 = w.iter().map(|p| p.1).sum();
            if !(sum > 0.0 && sum.is_finite()) {
                return None;
            }
            w.iter_mut().for_each(|p| p.1 /= sum);
            Some(w.into_iter().map(|(j, x)| (j, x as f32)).collect())
        })
        .collect())
}

/// Writes a plan to `model` (the target it was planned on): per group, locked joints keep their
/// weights and the transferred weights share the rest, then the limit; every weld copy; one
/// record. Returns the plan's report with the changes.
pub fn apply_transfer(
    model: &mut Model,
    surface: &ModelSurface,
    rules: &WeightRules,
    plan: &TransferPlan,
    record: &mut StrokeRecord,
) -> Result<TransferReport, TransferError> {
    let added = ensure_all_influences(model, surface)?;
    let groups: Vec<u32> = plan.weights.iter().map(|e| e.0).collect();
    let mut next = plan.weights.iter();
    let tool: ToolOutcome = write_groups(model, surface, rules, &groups, record, |g, old| {
        let Some((_, new)) = next.find(|e| e.0 == g) else { return Vec::new() };
        let mut w: Vec<(u16, f32)> = new.iter().copied().filter(|p| !rules.is_locked(p.0)).collect();
        w.extend(old.iter().copied().filter(|p| rules.is_locked(p.0)));
        apply_rules(&mut w, rules, None, old);
        w
    })?;
    Ok(TransferReport { changed: tool.changed, layout_changed: tool.layout_changed || added, ..plan.report.clone() })
}
