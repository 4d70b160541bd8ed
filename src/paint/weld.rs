//! Weld groups hold one set of weights: writing a group (every coincident copy of a vertex, in
//! every primitive and skin of the surface), finding groups whose copies disagree (a crack once
//! posed), and the Weld Weights tool that makes them agree again (their mean, or the weights of
//! the copy in the larger primitive).
//!
//! Copies in different skins hold the same weights for the same joint nodes, bit for bit.

use super::error::PaintError;
use super::model_surface::ModelSurface;
use super::normalize::{apply_rules, WeightRules};
use crate::model::Model;
use crate::model::StrokeRecord;

/// Where the weights of a disagreeing weld group come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WeldSource {
    /// The mean of every copy's weights (then the weight rules).
    #[default]
    Mean,
    /// The copy in the primitive with the most vertices (the body rather than a small
    /// attachment; ties go to the first primitive).
    LargerSide,
}

impl WeldSource {
    /// The label shown in the editor and the CLI.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Mean => "mean",
            Self::LargerSide => "larger side",
        }
    }
}

/// Sorted by joint, for comparing weights regardless of slot order.
fn sorted(mut pairs: Vec<(u16, f32)>) -> Vec<(u16, u32)> {
    pairs.sort_unstable_by_key(|p| p.0);
    pairs.into_iter().map(|(j, w)| (j, w.to_bits())).collect()
}

/// Writes `pairs` (surface joints, valid weights) to every copy in surface vertex `g`'s weld
/// group, recording each change and pushing `(part, vertex)` of each changed copy to `changed`.
/// Copies whose skin lacks one of the joints are left alone. Returns how many copies changed.
pub fn write_group(
    model: &mut Model,
    surface: &ModelSurface,
    g: u32,
    pairs: &[(u16, f32)],
    record: &mut StrokeRecord,
    changed: &mut Vec<(usize, u32)>,
) -> Result<usize, PaintError> {
    GroupWriter::default().write(model, surface, g, pairs, None, record, changed)
}

/// [`write_group`] with its buffers kept from group to group (a dab writes thousands of groups):
/// nothing is allocated per group or copy once the buffers have grown.
#[derive(Debug, Default)]
pub struct GroupWriter {
    /// The wanted pairs in one copy's skin joints.
    local: Vec<(u16, f32)>,
    /// A copy's stored pairs in surface joints.
    stored: Vec<(u16, f32)>,
}

impl GroupWriter {
    /// See [`write_group`]. `stored`, when given, is what [`ModelSurface::append_weights`] gives
    /// for `g` itself now (a pass that read it already spares the second read).
    #[allow(clippy::too_many_arguments)]
    pub fn write(
        &mut self,
        model: &mut Model,
        surface: &ModelSurface,
        g: u32,
        pairs: &[(u16, f32)],
        stored: Option<&[(u16, f32)]>,
        record: &mut StrokeRecord,
        changed: &mut Vec<(usize, u32)>,
    ) -> Result<usize, PaintError> {
        if pairs.is_empty() {
            return Ok(0);
        }
        let mut count = 0;
        for &m in surface.adjacency().welded(g) {
            let Some((k, v)) = surface.locate(m) else { continue };
            let part = surface.parts()[k];
            self.local.clear();
            let mut complete = true;
            for &(j, w) in pairs {
                match surface.skin_joint(part.skin, j) {
                    Some(l) => self.local.push((l, w)),
                    None => complete = false,
                }
            }
            if !complete {
                continue;
            }
            self.stored.clear();
            match stored {
                Some(known) if m == g => self.stored.extend_from_slice(known),
                _ => {
                    surface.append_weights(model, m, &mut self.stored);
                }
            }
            if same_pairs(&self.stored, pairs) {
                continue;
            }
            let Model { meshes, skins, .. } = &mut *model;
            let Some(inf) = meshes
                .get_mut(part.mesh)
                .and_then(|x| x.primitives.get_mut(part.prim))
                .and_then(|p| p.influences.as_mut())
            else {
                return Err(PaintError::NoInfluences { mesh: part.mesh, prim: part.prim });
            };
            let table = &mut skins.get_mut(part.skin).ok_or(PaintError::NoInstance(part.instance))?.sets;
            let before = inf.snapshot(v as usize);
            inf.set_vertex_pairs(v as usize, &self.local, table)?;
            record.record(part.mesh, part.prim, v, before, inf.snapshot(v as usize));
            changed.push((k, v));
            count += 1;
        }
        Ok(count)
    }
}

/// Whether `stored` equals `wanted` bit for bit, whatever their order (joints are distinct on
/// both sides; a vertex holds a handful, so a scan beats sorting).
fn same_pairs(stored: &[(u16, f32)], wanted: &[(u16, f32)]) -> bool {
    stored.len() == wanted.len()
        && stored.iter().all(|&(j, w)| wanted.iter().any(|&(k, x)| k == j && x.to_bits() == w.to_bits()))
}

/// Weights of coincident copies that differ by no more than this are taken to agree when
/// reporting (a file written and read back re-normalises weights in the last bits; a difference
/// of 1e-5 moves a vertex by 1e-5 of a joint's displacement). Painting keeps copies bit for bit
/// identical regardless.
pub const AGREEMENT_TOLERANCE: f32 = 1e-5;

/// Whether two weight lists (surface joints) differ by more than `tolerance` on some joint (bit
/// for bit when `tolerance` is 0).
fn differ(a: &[(u16, f32)], b: &[(u16, f32)], tolerance: f32) -> bool {
    if tolerance <= 0.0 {
        return sorted(a.to_vec()) != sorted(b.to_vec());
    }
    let w = |list: &[(u16, f32)], j: u16| list.iter().find(|p| p.0 == j).map_or(0.0, |p| p.1);
    a.iter().chain(b).any(|&(j, _)| (w(a, j) - w(b, j)).abs() > tolerance)
}

/// Representatives of the weld groups whose copies hold different weights (joints compared by
/// node; weights bit for bit when `tolerance` is 0, else by more than `tolerance`), ascending.
#[must_use]
pub fn disagreeing_groups(model: &Model, surface: &ModelSurface, tolerance: f32) -> Vec<u32> {
    let adj = surface.adjacency();
    (0..surface.len() as u32)
        .filter(|&g| adj.rep(g) == g && adj.welded(g).len() > 1)
        .filter(|&g| {
            let first = surface.weights(model, g);
            adj.welded(g)[1..].iter().any(|&m| differ(&surface.weights(model, m), &first, tolerance))
        })
        .collect()
}

/// Weld Weights: every group whose copies differ (bit for bit) gets the weights `source` picks
/// (then `rules`, in surface joints), as one undo record. Returns the number of groups welded.
pub fn weld_groups(
    model: &mut Model,
    surface: &ModelSurface,
    source: WeldSource,
    rules: &WeightRules,
    record: &mut StrokeRecord,
) -> Result<usize, PaintError> {
    let groups = disagreeing_groups(model, surface, 0.0);
    weld_these(model, surface, &groups, source, rules, record)?;
    Ok(groups.len())
}

/// After importing a weights file: welds (by their mean) the groups that disagree now but did not
/// in `before` (the representatives [`disagreeing_groups`] gave with [`AGREEMENT_TOLERANCE`]
/// before the import), so that the
/// import cannot open a crack. Returns how many groups were welded.
pub fn weld_after_import(model: &mut Model, surface: &ModelSurface, before: &[u32]) -> Result<usize, PaintError> {
    let groups: Vec<u32> = disagreeing_groups(model, surface, AGREEMENT_TOLERANCE)
        .into_iter()
        .filter(|g| before.binary_search(g).is_err())
        .collect();
    let mut record = StrokeRecord::new("import");
    weld_these(model, surface, &groups, WeldSource::Mean, &WeightRules::default(), &mut record)?;
    Ok(groups.len())
}

/// A one-line warning for the weld groups of `model` that disagree by more than
/// [`AGREEMENT_TOLERANCE`] (`None` when all agree).
#[must_use]
pub fn disagreement_warning(model: &Model, surface: &ModelSurface) -> Option<String> {
    match disagreeing_groups(model, surface, AGREEMENT_TOLERANCE).len() {
        0 => None,
        n => Some(format!(
            "{n} weld group{} of coincident vertices hold different weights: the mesh cracks there when posed \
             (Weld Weights in the editor's paint panel fixes them)",
            if n == 1 { "" } else { "s" }
        )),
    }
}

fn weld_these(
    model: &mut Model,
    surface: &ModelSurface,
    groups: &[u32],
    source: WeldSource,
    rules: &WeightRules,
    record: &mut StrokeRecord,
) -> Result<(), PaintError> {
    super::writable::ensure_surface_slots(model, surface, rules);
    let mut changed = Vec::new();
    for &g in groups.iter().filter(|&&g| rules.may_change(g)) {
        let members = surface.adjacency().welded(g);
        let mut w: Vec<(u16, f32)> = match source {
            WeldSource::Mean => {
                let mut mean = Vec::new();
                let mut n = 0usize;
                for &m in members {
                    let pairs = surface.weights(model, m);
                    if !pairs.is_empty() {
                        super::blend::accumulate(&mut mean, &pairs, 1.0);
                        n += 1;
                    }
                }
                mean.iter_mut().for_each(|p| p.1 /= n.max(1) as f32);
                mean
            }
            WeldSource::LargerSide => {
                let size = |m: u32| surface.locate(m).map_or(0, |(k, _)| surface.parts()[k].vertices);
                let mut best = members[0];
                for &m in &members[1..] {
                    let has = !surface.weights(model, m).is_empty();
                    if has && (size(m) > size(best) || surface.weights(model, best).is_empty()) {
                        best = m;
                    }
                }
                surface.weights(model, best)
            }
        };
        let old = w.clone();
        apply_rules(&mut w, rules, None, &old);
        write_group(model, surface, g, &w, record, &mut changed)?;
    }
    Ok(())
}
