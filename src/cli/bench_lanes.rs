//! `skinlab bench`'s account of the eight-lane path: which share of the skinned vertices the
//! AVX2+FMA pass deforms eight at a time, and why the others are not.

use crate::model::lane_order::WINDOW;
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::frame::{SET_EMPTY, SET_FAR_CENTRE, SET_LBS_FALLBACK, SET_ONE_JOINT, SET_STRETCH};
use crate::skinning::{Deformer, SkinningMethod};

/// Where each skinned vertex goes in the per-vertex pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaneBreakdown {
    /// Skinned vertices with influences.
    pub total: usize,
    /// Vertices in aligned runs of eight consecutive vertices (file order) sharing a packed set
    /// word: what the pass took eight at a time before the lane order.
    pub contiguous: usize,
    /// Vertices in lane groups (eight sharing a packed set word within a window).
    pub grouped: usize,
    /// Vertices left over: fewer than eight with their set word in their window.
    pub leftover: usize,
    /// Vertices without influence (never moved; in the lanes' count above where they group).
    pub empty: usize,
    /// Grouped vertices whose set leaves the lanes for the per-vertex path in the pose given, by
    /// method (dqs, sbs): SBS's far centres (evaluated in f64).
    pub slow_sets: (usize, usize),
    /// Vertices whose set has one joint and no non-uniform stretch (DQS and SBS deform them with
    /// LBS's columns), in the pose given.
    pub one_joint: usize,
    /// Vertices whose set is stretched (DQS and SBS blend the stretches first), in the pose given.
    pub stretched: usize,
}

impl LaneBreakdown {
    /// Counts over every skinned primitive; per-set flags from `pose` prepared for DQS and SBS.
    #[must_use]
    pub fn of(model: &Model, pose: &Pose) -> Self {
        let mut out = Self::default();
        let mut deformers = [Deformer::new(), Deformer::new()];
        for (d, m) in deformers.iter_mut().zip([SkinningMethod::Dqs, SkinningMethod::Sbs]) {
            d.prepare(model, pose, m);
        }
        for inst in &model.instances {
            let flags = |d: &Deformer, set: usize| d.skin_frame(inst.skin).flags.get(set).copied().unwrap_or(0);
            for inf in model.meshes[inst.mesh].primitives.iter().filter_map(|p| p.influences.as_ref()) {
                let words = inf.packed_sets();
                out.total += words.len();
                out.contiguous += words.chunks_exact(8).filter(|g| g.iter().all(|&w| w == g[0])).count() * 8;
                out.empty += (0..inf.len()).filter(|&v| inf.set_of(v) == 0).count();
                for v in 0..inf.len() {
                    let f = flags(&deformers[0], inf.set_of(v) as usize);
                    out.one_joint += usize::from(f & SET_ONE_JOINT != 0);
                    out.stretched += usize::from(f & (SET_STRETCH | SET_ONE_JOINT) == SET_STRETCH);
                }
                for w in 0..words.len().div_ceil(WINDOW) {
                    let Some(order) = inf.lane_window(w) else { continue };
                    out.grouped += order.grouped();
                    out.leftover += order.rest().len();
                    for group in order.groups() {
                        let set = inf.set_of(w * WINDOW + group[0] as usize) as usize;
                        for (slot, d) in [&mut out.slow_sets.0, &mut out.slow_sets.1].into_iter().zip(&deformers) {
                            let f = flags(d, set);
                            let lbs_path = f & (SET_LBS_FALLBACK | SET_ONE_JOINT) != 0;
                            if f & SET_EMPTY == 0 && !lbs_path && f & SET_FAR_CENTRE != 0 {
                                *slot += 8;
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The report lines.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let pct = |n: usize| 100.0 * n as f64 / self.total.max(1) as f64;
        let mut lines = vec![
            format!(
                "eight-lane path: {:.1}% of {} skinned vertices in groups of eight sharing a set word within \
                 {WINDOW}-vertex windows (file order alone: {:.1}% in aligned runs of eight)",
                pct(self.grouped),
                self.total,
                pct(self.contiguous)
            ),
            format!(
                "off the eight-lane path: {:.1}% with fewer than eight vertices of their set and pivot in their window",
                pct(self.leftover)
            ),
        ];
        if self.empty > 0 {
            lines.push(format!("  ({:.1}% have no influence and are not moved)", pct(self.empty)));
        }
        if self.one_joint + self.stretched > 0 {
            lines.push(format!(
                "  in this pose: {:.1}% in one-joint sets (LBS's columns in every method), {:.1}% in other stretched sets \
                 (stretches blended per lane)",
                pct(self.one_joint),
                pct(self.stretched)
            ));
        }
        let (dqs, sbs) = self.slow_sets;
        if dqs + sbs > 0 {
            lines.push(format!(
                "  of the groups, per vertex in this pose: dqs {:.1}%, sbs {:.1}% (far centres, evaluated in f64)",
                pct(dqs),
                pct(sbs)
            ));
        }
        lines
    }
}
