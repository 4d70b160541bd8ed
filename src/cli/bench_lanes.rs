//! `skinlab bench`'s account of the eight-lane path: how the AVX2+FMA pass deforms the skinned
//! vertices eight at a time (runs sharing a set, mixed groups, lane-order windows), and which go
//! one by one.

use crate::model::lane_order::WINDOW;
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::deformer::skinned_vertices;
use crate::skinning::frame::{SET_ONE_JOINT, SET_STRETCH, SET_UNIFORM_STRETCH};
use crate::skinning::{dqs, lbs, Deformer, SkinningMethod};

/// Where each skinned vertex goes in the AVX2+FMA pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaneBreakdown {
    /// Skinned vertices with influences.
    pub total: usize,
    /// Skinned primitives, and those whose vertices are in joint-set order (as the importer
    /// orders a loaded file, `model::vertex_order`).
    pub primitives: (usize, usize),
    /// Vertices in aligned runs of eight consecutive vertices (model order) sharing a packed set
    /// word: the set's tables broadcast in the lanes (in frames from [`dqs::MIXED_FROM`]
    /// skinned vertices for DQS and SBS, from [`lbs::MIXED_FROM`] for LBS; DQS and SBS always
    /// without normals).
    pub contiguous: usize,
    /// Vertices in the other whole groups of eight consecutive vertices: each vertex's blend on
    /// its own, the rest in the lanes (the same methods).
    pub mixed: usize,
    /// Vertices after a primitive's last whole group of eight (one by one).
    pub tail: usize,
    /// Vertices of primitives with normals in a frame below [`lbs::MIXED_FROM`] skinned vertices
    /// (LBS takes these through the lane-order windows, as continuous SBS takes every primitive
    /// with normals, and DQS and SBS in frames below [`dqs::MIXED_FROM`]).
    pub windowed: usize,
    /// Skinned vertices of the whole frame (every instance), which choose the layout.
    pub frame_vertices: usize,
    /// Of those, vertices in lane groups (eight sharing a packed set word within a window).
    pub grouped: usize,
    /// Vertices without influence (never moved).
    pub empty: usize,
    /// Vertices of mixed groups that the per-vertex formula deforms in between, in the pose
    /// given, by method (dqs, sbs): one-joint sets and the LBS fallback (LBS's columns), empty
    /// sets, SBS's far centres (in f64).
    pub alone: (usize, usize),
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
        let frame_vertices = skinned_vertices(model);
        out.frame_vertices = frame_vertices;
        for inst in &model.instances {
            let flags = |d: &Deformer, set: usize| d.skin_frame(inst.skin).flags.get(set).copied().unwrap_or(0);
            for prim in &model.meshes[inst.mesh].primitives {
                let Some(inf) = prim.influences.as_ref() else { continue };
                let words = inf.packed_sets();
                out.primitives.0 += 1;
                out.primitives.1 += usize::from(crate::model::vertex_order::in_joint_set_order(inf));
                out.total += words.len();
                out.tail += words.len() % 8;
                out.empty += (0..inf.len()).filter(|&v| inf.set_of(v) == 0).count();
                for (g, group) in words.chunks_exact(8).enumerate() {
                    if group.iter().all(|&w| w == group[0]) {
                        out.contiguous += 8;
                        continue;
                    }
                    out.mixed += 8;
                    for v in g * 8..g * 8 + 8 {
                        for (slot, d) in [&mut out.alone.0, &mut out.alone.1].into_iter().zip(&deformers) {
                            let f = flags(d, inf.set_of(v) as usize);
                            *slot += usize::from(f & !(SET_STRETCH | SET_UNIFORM_STRETCH) != 0);
                        }
                    }
                }
                for v in 0..inf.len() {
                    let f = flags(&deformers[0], inf.set_of(v) as usize);
                    out.one_joint += usize::from(f & SET_ONE_JOINT != 0);
                    out.stretched += usize::from(f & (SET_STRETCH | SET_ONE_JOINT) == SET_STRETCH);
                }
                if prim.normals.is_none() || frame_vertices.max(words.len()) >= lbs::MIXED_FROM {
                    continue;
                }
                out.windowed += words.len();
                for w in 0..words.len().div_ceil(WINDOW) {
                    out.grouped += inf.lane_window(w).map_or(0, |order| order.grouped());
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
                "eight-lane path, {} skinned vertices ({} of {} primitives in joint-set order): {:.1}% in runs of \
                 eight sharing a set word (the set's tables broadcast), {:.1}% in mixed groups of eight (each vertex's \
                 blend alone, the rest in lanes), {:.1}% one by one after a primitive's last group",
                self.total,
                self.primitives.1,
                self.primitives.0,
                pct(self.contiguous),
                pct(self.mixed),
                pct(self.tail)
            ),
            format!(
                "  runs and mixed groups with normals: lbs in frames from {}k skinned vertices, dqs and sbs from {}k \
                 (this frame: {}k, so dqs and sbs take {}); below, lane-order windows: {:.1}% of the vertices in \
                 windows, {:.1}% of them in groups of eight sharing a set word within {WINDOW}-vertex windows; without \
                 normals: lbs one by one, dqs and sbs runs and mixed groups",
                lbs::MIXED_FROM / 1024,
                dqs::MIXED_FROM / 1024,
                self.frame_vertices.div_ceil(1024),
                if self.frame_vertices >= dqs::MIXED_FROM { "runs and mixed groups" } else { "windows" },
                pct(self.windowed),
                100.0 * self.grouped as f64 / self.windowed.max(1) as f64
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
        let (dqs, sbs) = self.alone;
        if dqs + sbs > 0 {
            lines.push(format!(
                "  of the mixed groups, per vertex in between in this pose: dqs {:.1}%, sbs {:.1}% (one-joint sets, LBS \
                 fallback, far centres in f64)",
                pct(dqs),
                pct(sbs)
            ));
        }
        lines
    }
}
