//! Mirror Weights: copies the weights of one side of the model's symmetry plane onto the other,
//! with every joint replaced by its mirror joint. Each destination vertex reads its exact mirror,
//! or the closest point of the mirrored surface with barycentrically interpolated weights. All
//! joints, or one joint and its mirror; one undo record; locks, weld groups and the influence
//! limit respected.

use super::blend::{accumulate, set_weight, weight_of};
use super::error::PaintError;
use super::normalize::{apply_rules, WeightRules};
use super::topology::ModelTopology;
use super::weld::write_group;
use super::writable::ensure_surface_slots;
use crate::model::Model;
use crate::model::StrokeRecord;

/// Which side is copied onto which (along the mirror axis).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MirrorDirection {
    /// From the positive side (+X for X-symmetric models: a glTF character's left) to the negative.
    PositiveToNegative,
    /// From the negative side to the positive.
    NegativeToPositive,
}

impl MirrorDirection {
    /// Label for the mirror axis `axis` (0 = x, 1 = y, 2 = z), e.g. "+X to -X".
    #[must_use]
    pub fn label(self, axis: usize) -> String {
        let a = ["X", "Y", "Z"][axis.min(2)];
        match self {
            Self::PositiveToNegative => format!("+{a} to -{a}"),
            Self::NegativeToPositive => format!("-{a} to +{a}"),
        }
    }
}

/// What Mirror Weights changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MirrorOutcome {
    /// Vertex copies written.
    pub changed: usize,
    /// Destination groups that had no exact mirror and read interpolated weights.
    pub interpolated: usize,
    /// Destination groups with no mirror at all (left unchanged).
    pub unmatched: usize,
}

/// One weld group to write: its representative, the weights it had, the mirrored weights it gets.
type PlannedGroup = (u32, Vec<(u16, f32)>, Vec<(u16, f32)>);

/// Copies weights across the mirror plane in `direction`: every joint when `joint` is `None`,
/// else only `joint` and its mirror (their values copied, the vertex's other joints scaled to
/// fit). Vertices on the plane (within the weld tolerance) are left alone.
pub fn mirror_weights(
    model: &mut Model,
    topology: &ModelTopology,
    direction: MirrorDirection,
    joint: Option<u16>,
    rules: &WeightRules,
    record: &mut StrokeRecord,
) -> Result<MirrorOutcome, PaintError> {
    let surface = &topology.surface;
    ensure_surface_slots(model, surface, rules);
    let axis = topology.mirror_axis;
    let rest = surface.rest_positions();
    let plane = crate::maths::point_grid::relative_tolerance(rest, crate::rig::symmetry::MIRROR_FRACTION) * 0.5;
    let adj = surface.adjacency();
    let destination = |g: u32| {
        let c = rest[g as usize][axis];
        match direction {
            MirrorDirection::PositiveToNegative => c < -plane,
            MirrorDirection::NegativeToPositive => c > plane,
        }
    };
    let mirror_pairs = |w: &[(u16, f32)]| -> Vec<(u16, f32)> {
        let mut out = Vec::new();
        accumulate(&mut out, &w.iter().map(|&(j, x)| (topology.mirror_joint(j), x)).collect::<Vec<_>>(), 1.0);
        out
    };
    let mut outcome = MirrorOutcome::default();
    // Read every source first, so that writing one side never feeds back into another read.
    let mut plan: Vec<PlannedGroup> = Vec::new();
    for g in (0..surface.len() as u32).filter(|&g| adj.rep(g) == g && destination(g) && rules.may_change(g)) {
        let source = if let Some(m) = topology.mirror.get(g) {
            surface.weights(model, m)
        } else if let Some(c) = topology.closest_mirror(g) {
            outcome.interpolated += 1;
            let mut w = Vec::new();
            for (&k, &b) in c.corners.iter().zip(&c.barycentric) {
                accumulate(&mut w, &surface.weights(model, k), b);
            }
            w.retain(|p| p.1 > 0.0);
            w
        } else {
            outcome.unmatched += 1;
            continue;
        };
        if source.is_empty() {
            continue;
        }
        plan.push((g, surface.weights(model, g), mirror_pairs(&source)));
    }
    let mut changed = Vec::new();
    for (g, old, mirrored) in plan {
        let (mut w, held) = match joint {
            None => {
                let mut w = mirrored;
                for &(j, x) in old.iter().filter(|p| rules.is_locked(p.0)) {
                    set_weight(&mut w, j, x);
                }
                w.retain(|p| !rules.is_locked(p.0) || old.iter().any(|o| o.0 == p.0));
                (w, None)
            }
            Some(j) => (copy_pair(&old, &mirrored, [j, topology.mirror_joint(j)], rules), None),
        };
        apply_rules(&mut w, rules, held, &old);
        write_group(model, surface, g, &w, record, &mut changed)?;
    }
    outcome.changed = changed.len();
    Ok(outcome)
}

/// `old` with the joints of `pair` (unless locked) set to their values in `mirrored`, and the
/// vertex's other unlocked joints scaled to fill the rest (the pair scaled down when it alone
/// exceeds what the locks leave).
fn copy_pair(old: &[(u16, f32)], mirrored: &[(u16, f32)], pair: [u16; 2], rules: &WeightRules) -> Vec<(u16, f32)> {
    let mut w = old.to_vec();
    let copied: Vec<u16> = pair.into_iter().filter(|&d| !rules.is_locked(d)).collect();
    for &d in &copied {
        set_weight(&mut w, d, weight_of(mirrored, d));
    }
    let locked: f32 = w.iter().filter(|p| rules.is_locked(p.0)).map(|p| p.1).sum();
    let fixed: f32 = w.iter().filter(|p| copied.contains(&p.0)).map(|p| p.1).sum();
    let others: f32 = w.iter().filter(|p| !rules.is_locked(p.0) && !copied.contains(&p.0)).map(|p| p.1).sum();
    let free = (1.0 - locked).max(0.0);
    if fixed > free && fixed > 0.0 {
        let s = free / fixed;
        w.iter_mut().filter(|p| copied.contains(&p.0)).for_each(|p| p.1 *= s);
        w.iter_mut().filter(|p| !rules.is_locked(p.0) && !copied.contains(&p.0)).for_each(|p| p.1 = 0.0);
    } else if others > 0.0 {
        let s = (free - fixed) / others;
        w.iter_mut().filter(|p| !rules.is_locked(p.0) && !copied.contains(&p.0)).for_each(|p| p.1 *= s);
    }
    w
}
