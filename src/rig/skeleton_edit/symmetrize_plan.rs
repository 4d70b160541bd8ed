//! What Symmetrize will do, decided before anything changes: which joints of the subtree are
//! mirrored (the source side), which lie on the symmetry plane, the side names given to joints
//! that have none (in the rig's own scheme, `rig::side_names`), and for each source joint the
//! joint of the other side it updates (by name, else by position) or the one it creates.

use std::collections::HashSet;

use glam::DVec3;

use super::{bind_position, describe, first_joint, SkeletonEditError};
use crate::model::Model;
use crate::rig::side_names::SideScheme;
use crate::rig::symmetry::mirror_name;

/// Positions closer to the plane than this share of the skeleton's size lie on it.
const ON_PLANE: f64 = 1e-4;
/// An unnamed joint of the other side closer than this share of the skeleton's size to a source
/// joint's mirror image is taken as its partner.
const MATCH: f64 = 0.02;

/// What Symmetrize did, for the user: joint names as they are after the edit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymmetrizeReport {
    /// The axis of the plane mirrored across (0 = x, 1 = y, 2 = z).
    pub axis: usize,
    /// `(source, created)`: joints created on the other side.
    pub created: Vec<(String, String)>,
    /// `(source, existing)`: joints of the other side moved onto the mirror image.
    pub updated: Vec<(String, String)>,
    /// `(old, new)`: names given a side marker (source joints without one, partners found by
    /// position).
    pub renamed: Vec<(String, String)>,
    /// `(joint, why)`: joints of the subtree left as they were (on the plane, a name taken).
    pub skipped: Vec<(String, String)>,
    /// Joints of the other side in the subtree that no source joint mirrors onto (left as they
    /// were).
    pub unmatched: Vec<String>,
}

impl SymmetrizeReport {
    /// One line: the counts, then the names of what was skipped or left unmatched.
    #[must_use]
    pub fn summary(&self) -> String {
        let mut line = format!(
            "{} created, {} updated, {} renamed, {} skipped, {} unmatched",
            self.created.len(),
            self.updated.len(),
            self.renamed.len(),
            self.skipped.len(),
            self.unmatched.len()
        );
        if !self.skipped.is_empty() {
            let list: Vec<String> = self.skipped.iter().map(|(n, why)| format!("{n} ({why})")).collect();
            line += &format!("; skipped: {}", list.join(", "));
        }
        if !self.unmatched.is_empty() {
            line += &format!("; unmatched: {}", self.unmatched.join(", "));
        }
        line
    }
}

/// The joint of the other side a source joint mirrors onto.
#[derive(Clone, Debug)]
pub(super) enum Target {
    /// An existing joint, renamed when it gets a side name.
    Existing { node: usize, rename: Option<String> },
    /// A joint to create with this name.
    New(String),
}

/// One source joint, its new name (when it gets a side marker) and its target.
#[derive(Clone, Debug)]
pub(super) struct Pair {
    pub(super) src: usize,
    pub(super) rename: Option<String>,
    pub(super) target: Target,
}

/// The decided edit.
#[derive(Clone, Debug)]
pub(super) struct SymPlan {
    pub(super) pairs: Vec<Pair>,
    pub(super) report: SymmetrizeReport,
}

/// The joints below and including `root` that some skin has, parents first.
fn subtree_joints(model: &Model, root: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if first_joint(model, n).is_some() {
            out.push(n);
        }
        stack.extend(model.nodes.nodes[n].children.iter().rev().copied());
    }
    out
}

/// The size of the skeleton: the diagonal of every joint's bind position.
fn skeleton_size(model: &Model) -> f64 {
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for skin in &model.skins {
        for &n in &skin.joints {
            if let Some(p) = bind_position(model, n) {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
    }
    let size = (hi - lo).length();
    if size.is_finite() && size > 0.0 {
        size
    } else {
        1.0
    }
}

/// Decides the mirror of the subtree at `root` across the origin plane normal to `axis`.
pub(super) fn plan(model: &Model, root: usize, axis: usize) -> Result<SymPlan, SkeletonEditError> {
    let size = skeleton_size(model);
    let pos = |n: usize| bind_position(model, n).unwrap_or(DVec3::ZERO);
    let side = |n: usize| {
        let v = pos(n)[axis];
        if v.abs() <= ON_PLANE * size {
            0
        } else if v > 0.0 {
            1
        } else {
            -1
        }
    };
    let joints = subtree_joints(model, root);
    let source_side = match side(root) {
        0 => {
            let plus = joints.iter().filter(|&&n| side(n) == 1).count();
            let minus = joints.iter().filter(|&&n| side(n) == -1).count();
            if minus > plus {
                -1
            } else {
                1
            }
        }
        s => s,
    };
    let tree = &model.nodes;
    let name_of = |n: usize| tree.nodes[n].name.clone();
    let scheme = SideScheme::detect(tree.nodes.iter().filter_map(|n| n.name.as_deref()));
    let mut taken: HashSet<String> = tree.nodes.iter().filter_map(|n| n.name.clone()).collect();
    let sources: Vec<usize> = joints.iter().copied().filter(|&n| side(n) == source_side).collect();
    let mut report = SymmetrizeReport { axis, ..SymmetrizeReport::default() };
    let mut targeted: Vec<usize> = Vec::new();
    let mut pairs = Vec::new();
    for &n in &joints {
        if side(n) == 0 {
            report.skipped.push((describe(tree, n), "on the symmetry plane".into()));
        }
    }
    for &src in &sources {
        let (rename, src_name) = match name_of(src).filter(|name| mirror_name(name).is_some()) {
            Some(name) => (None, name),
            None => {
                let base = name_of(src).filter(|b| !b.trim().is_empty()).unwrap_or_else(|| "joint".into());
                let Some(named) = (0..1000)
                    .map(|i| if i == 0 { base.clone() } else { format!("{base}.{i:03}") })
                    .filter_map(|b| scheme.with_side(&b, source_side > 0))
                    .find(|n| !taken.contains(n))
                else {
                    report.skipped.push((describe(tree, src), "its name cannot take a side marker".into()));
                    continue;
                };
                taken.insert(named.clone());
                (Some(named.clone()), named)
            }
        };
        let Some(target_name) = mirror_name(&src_name) else { continue };
        let mirrored = {
            let mut p = pos(src);
            p[axis] = -p[axis];
            p
        };
        let target = match tree.nodes.iter().position(|node| node.name.as_deref() == Some(target_name.as_str())) {
            Some(t) if first_joint(model, t).is_none() => {
                report.skipped.push((src_name, format!("{target_name:?} names a node that is not a joint")));
                continue;
            }
            Some(t) if sources.contains(&t) || targeted.contains(&t) => {
                report.skipped.push((src_name, format!("{target_name:?} is on the same side or mirrored already")));
                continue;
            }
            Some(t) => Target::Existing { node: t, rename: None },
            None => {
                let near = joints
                    .iter()
                    .chain(model.skins.iter().flat_map(|s| s.joints.iter()))
                    .copied()
                    .filter(|&t| side(t) == -source_side && !targeted.contains(&t))
                    .filter(|&t| name_of(t).is_none_or(|nm| mirror_name(&nm).is_none()))
                    .map(|t| (t, (pos(t) - mirrored).length()))
                    .filter(|&(_, d)| d <= MATCH * size)
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                match near {
                    Some((t, _)) => {
                        taken.insert(target_name.clone());
                        Target::Existing { node: t, rename: Some(target_name.clone()) }
                    }
                    None => {
                        taken.insert(target_name.clone());
                        Target::New(target_name.clone())
                    }
                }
            }
        };
        if let Some(new) = &rename {
            report.renamed.push((describe(tree, src), format!("{new:?}")));
        }
        match &target {
            Target::Existing { node, rename: to } => {
                targeted.push(*node);
                if let Some(to) = to {
                    report.renamed.push((describe(tree, *node), format!("{to:?}")));
                }
                report.updated.push((format!("{src_name:?}"), format!("{target_name:?}")));
            }
            Target::New(name) => report.created.push((format!("{src_name:?}"), format!("{name:?}"))),
        }
        pairs.push(Pair { src, rename, target });
    }
    report.unmatched = joints
        .iter()
        .filter(|&&n| side(n) == -source_side && !targeted.contains(&n))
        .map(|&n| describe(tree, n))
        .collect();
    if pairs.is_empty() {
        return Err(SkeletonEditError::NothingToMirror(describe(tree, root)));
    }
    Ok(SymPlan { pairs, report })
}
