//! Per-pose preparation of one skin: joint parts (spec "Methods": C_i = [A_i | t_i],
//! A_i = R_i S_i) and, per distinct joint set, padded member tables and the SBS centre r_c.
//! Nothing here allocates once the buffers have grown to the skin's size.
//!
//! Across poses a frame keeps what did not change: a joint's `model_from_bind` is recomputed only
//! when its node's `model_from_node` or its inverse bind matrix changed (bitwise), its part only
//! when `model_from_bind` changed, and a set's tables and centre only when one of its joints
//! changed (the editor's usual frame moves a few joints). Results are bit-identical to a fresh
//! preparation.

mod joint_parts;
mod new_sets;
mod set_tables;

use std::time::Instant;

use glam::{DMat3, DMat4, DVec3, DVec4, Mat3, Vec3A, Vec4};

use super::SkinningMethod;
use crate::model::{Skin, EMPTY_SET};
pub use joint_parts::JointKinds;
use joint_parts::{joint_part, part, same_bits, BindSplit, JointPart, Split, REST_PART};
use set_tables::{SetPass, Tables};

/// Set flag: the set is empty (its vertices are not moved).
pub const SET_EMPTY: u8 = 1;
/// Set flag: a member joint has a non-positive determinant, so DQS and SBS fall back to LBS.
pub const SET_LBS_FALLBACK: u8 = 2;
/// Set flag: a member joint has a stretch S ≠ I, so stretches are blended first.
pub const SET_STRETCH: u8 = 4;

/// Set flag: the centre is far from the skin (rotations nearly about one axis), so its vertices
/// are evaluated in f64 from [`SkinFrame::far_quats`] and [`SkinFrame::far_points`].
pub const SET_FAR_CENTRE: u8 = 8;

/// Set flag (with `SET_STRETCH`): every member's stretch is a uniform scale s_j·I, so
/// `v_s = (Σ w_j s_j) v` and `n_s` is along `n` ([`SkinFrame::scales`]).
pub const SET_UNIFORM_STRETCH: u8 = 16;

/// Set flag: the set has one joint and no non-uniform stretch. Its vertices have weight 1, so
/// every method is `C v`, and the normals `normalise(A n)` (LBS) and `normalise(R S⁻¹ n)` (DQS,
/// SBS) agree because `S` is `I` or `s I`: every method evaluates it with LBS's columns, at LBS's
/// cost.
pub const SET_ONE_JOINT: u8 = 32;

/// A centre farther than this many skin extents from the origin is "far": in f32 the terms of
/// `Q (v_s − r_c) + Σ w_i D_i r_c` would cancel digits of size |r_c|.
pub const FAR_CENTRE_EXTENTS: f64 = 32.0;

/// The set pass goes to rayon's threads only when the sets to compute are expected to take at least
/// this long on one thread (waking the pool and splitting costs some tens of microseconds).
const PARALLEL_SETS_SECS: f64 = 60e-6;

/// Expected cost of one set's tables and centre before any was measured.
const DEFAULT_SET_SECS: f64 = 100e-9;

/// Everything the per-vertex pass reads for one skin in the current pose. Member tables hold
/// `slots` entries per set, aligned with each vertex's weight slots; the quaternion tables hold,
/// per set and per pivot slot, the members' quaternions already negated where their dot product
/// with the pivot's is negative (spec "dqs"/"sbs"), so the per-vertex blend is a plain weighted sum.
#[derive(Clone, Debug, Default)]
pub struct SkinFrame {
    /// `model_from_bind` (C_j) of each joint, f64.
    pub model_from_bind: Vec<DMat4>,
    joints: Vec<JointPart>,
    /// Weight slots per vertex (= members per set).
    pub slots: usize,
    /// Per set: `SET_*` flags.
    pub flags: Vec<u8>,
    /// Per set: the SBS centre of rotation r_c (zero for sets of fewer than two joints).
    pub centres: Vec<Vec3A>,
    /// Per member: columns of C_j (3x3 part, then translation) for LBS; for DQS and SBS filled
    /// only for the sets they deform by these columns (`SET_ONE_JOINT`, `SET_LBS_FALLBACK`).
    pub cols: Vec<[Vec3A; 4]>,
    /// Per set, pivot slot and member (`slots²` per set): the member's unit quaternion
    /// `[x, y, z, w]` of R_j, signed against the pivot's (DQS, SBS). Only the rows of pivot slots
    /// that hold a joint of the set are filled (a padding slot has weight 0, never the pivot).
    pub quats: Vec<Vec4>,
    /// Per set, pivot slot and member: the dual part of D_j's unit dual quaternion, with the same
    /// sign as in `quats` (DQS).
    pub duals: Vec<Vec4>,
    /// Per member: D_j r_c, the member's image of its set's centre (SBS).
    pub points: Vec<Vec3A>,
    /// Per member: S_j (filled and read only for sets flagged `SET_STRETCH` but not
    /// `SET_UNIFORM_STRETCH`).
    pub stretches: Vec<Mat3>,
    /// Per member: s_j of a uniform stretch s_j·I (filled and read only for sets flagged
    /// `SET_UNIFORM_STRETCH`).
    pub scales: Vec<f32>,
    /// Per set: r_c in f64 (read per vertex only for sets flagged `SET_FAR_CENTRE`, whose f32 form
    /// would cancel |r_c|-sized terms).
    pub far_centres: Vec<DVec3>,
    /// Per member of a far set: q_i in f64, `[x, y, z, w]`.
    pub far_quats: Vec<DVec4>,
    /// Per member of a far set: D_i r_c in f64.
    pub far_points: Vec<DVec3>,
    /// Per set and pair `a < b` of its slots (`slots·(slots−1)/2` per set), for continuous SBS:
    /// `DᵀD` (upper triangle: xx, xy, xz, yy, yz, zz) and `Dᵀe` of `D = R_a − R_b`,
    /// `e = t_b − t_a`, in f64.
    pub pairs: Vec<[f64; 9]>,
    /// Per member, for continuous SBS: the rigid part `(R_j, t_j)` in f64.
    pub rigid: Vec<(DMat3, DVec3)>,
    /// Per member, for continuous SBS: the columns of `[R_j | t_j]` in f32 (its fast path).
    pub rigid_cols: Vec<[Vec3A; 4]>,
    /// Per set, for continuous SBS: its number of joints (the slots before the padding; only
    /// their pairs can have non-zero weight products).
    pub set_lens: Vec<u8>,
    /// Centre solves done by the last [`SkinFrame::prepare`].
    pub centre_solves: usize,
    /// Seconds spent solving centres in the last [`SkinFrame::prepare`].
    pub centre_secs: f64,
    /// Seconds spent on `model_from_bind` and the joint parts in the last [`SkinFrame::prepare`].
    pub parts_secs: f64,
    /// Seconds spent on the per-set flags and member tables in the last [`SkinFrame::prepare`].
    pub tables_secs: f64,
    /// Joint parts computed by the last [`SkinFrame::prepare`] (those copied from a skin with the
    /// same joints, and those kept from the previous pose, are not counted).
    pub parts_computed: usize,
    /// Sets whose tables (and SBS centre) the last [`SkinFrame::prepare`] computed; the others
    /// kept theirs from the previous pose.
    pub sets_computed: usize,
    /// Whether the last [`SkinFrame::prepare`] split the set pass over rayon's threads.
    pub sets_parallel: bool,
    /// Least vertices per parallel task of the per-vertex pass (0: the pass decides by size).
    task_vertices: usize,
    /// Skinned vertices of the whole frame (every instance), for the pass's choice of lanes.
    frame_vertices: usize,
    /// The skin's extent in the prepared pose (far-centre test), for [`SkinFrame::prepare_new_sets`].
    extent: f64,
    /// Per joint: whether a set of the table reads it (only those joints get parts).
    used: Vec<bool>,
    /// The method the parts were computed for.
    method: Option<SkinningMethod>,
    /// What is kept across poses.
    kept: Kept,
}

/// What a frame keeps across poses to skip unchanged joints and sets.
#[derive(Clone, Debug, Default)]
struct Kept {
    /// Per joint: its node's `model_from_node` in the prepared pose (what `model_from_bind` was
    /// last computed from; a DQS or SBS part also reads its 3x3 part).
    nodes: Vec<DMat4>,
    /// Per joint: its inverse bind matrix when `model_from_bind` was last computed, where
    /// `bind_known` says so.
    inverse_binds: Vec<DMat4>,
    /// Per joint: `inverse_binds` holds the matrix `model_from_bind` was last computed with
    /// (recorded only while the node stands still).
    bind_known: Vec<bool>,
    /// Per joint: the polar split of its inverse bind matrix.
    binds: Vec<BindSplit>,
    /// Per joint: its part is current for `model_from_bind` and the method.
    current: Vec<bool>,
    /// Per joint: its part changed in the last prepare (or was never computed).
    dirty: Vec<bool>,
    /// Per set: its tables must be computed in the current pass.
    set_dirty: Vec<bool>,
    /// The padded members of the sets whose tables are current, `slots` per set.
    members: Vec<u16>,
    /// The sets of each joint of the current table (built on the first pose that keeps every
    /// set; dropped when the table changes).
    sets_of_joints: Option<set_tables::SetsOfJoints>,
    /// Recompute everything every pose (for measurements and tests).
    disabled: bool,
    /// Seconds per computed set (tables and centre, one thread) in the last pass that computed
    /// any; 0 before the first.
    set_secs: f64,
    /// Whether the last prepare's skin extent differs from the one before it.
    extent_changed: bool,
}

impl SkinFrame {
    /// Prepares the skin for `method` from every node's `model_from_node` matrix.
    pub fn prepare(&mut self, skin: &Skin, model_from_node: &[DMat4], method: SkinningMethod) {
        self.prepare_sharing(skin, model_from_node, method, None);
    }

    /// [`SkinFrame::prepare`], copying the joint parts from `shared` where it has them: a frame of
    /// a skin with the same joints and inverse bind matrices, prepared for the same pose and
    /// method (several skins of one character usually share one skeleton).
    pub(crate) fn prepare_sharing(
        &mut self,
        skin: &Skin,
        model_from_node: &[DMat4],
        method: SkinningMethod,
        shared: Option<&SkinFrame>,
    ) {
        let started = Instant::now();
        let table = &skin.sets;
        let n_joints = skin.joints.len();
        let keep = !self.kept.disabled
            && self.method == Some(method)
            && self.slots == table.slots()
            && self.joints.len() == n_joints;
        let kept = &mut self.kept;
        kept.current.resize(n_joints, false);
        kept.dirty.resize(n_joints, true);
        kept.binds.resize(n_joints, BindSplit::default());
        kept.nodes.resize(n_joints, DMat4::ZERO);
        kept.inverse_binds.resize(n_joints, DMat4::ZERO);
        kept.bind_known.resize(n_joints, false);
        self.model_from_bind.resize(n_joints, DMat4::IDENTITY);
        for (j, (&node, ibm)) in skin.joints.iter().zip(&skin.joint_from_bind).enumerate() {
            let g = &model_from_node[node];
            let same_node = same_bits(&kept.nodes[j], g);
            if keep && kept.current[j] && same_node && kept.bind_known[j] && same_bits(&kept.inverse_binds[j], ibm) {
                // Neither the joint's node nor its inverse bind matrix moved: C_j = G_j · B_j and
                // the part are what they were (the editor's usual frame moves a few joints).
                kept.dirty[j] = false;
                continue;
            }
            // Either moved: the part is computed again. (A DQS or SBS part depends on the node's
            // 3x3 part beside C_j: whether and how it goes through the bind pose.) A moving node
            // is recorded without its inverse bind matrix, which is recorded once the node
            // stands still: copying both every pose of an animation cost more than it saved.
            if same_node {
                kept.inverse_binds[j] = *ibm;
                kept.bind_known[j] = true;
            } else {
                kept.nodes[j] = *g;
                kept.bind_known[j] = false;
            }
            self.model_from_bind[j] = *g * *ibm;
            kept.dirty[j] = true;
        }
        let k = table.slots();
        let valid = if keep { self.kept_sets(table.all_padded(), k) } else { 0 };
        // The same table as in the last prepare: the joints in use and the sets of each joint
        // are as they were.
        let same_table = keep
            && valid * k == table.all_padded().len()
            && self.kept.members.len() == table.all_padded().len()
            && self.used.len() == n_joints;
        if !same_table {
            self.used.clear();
            self.used.resize(n_joints, false);
            for &j in table.all_padded() {
                if let Some(u) = self.used.get_mut(usize::from(j)) {
                    *u = true;
                }
            }
            self.kept.sets_of_joints = None;
        }
        self.joints.resize(n_joints, REST_PART);
        self.method = Some(method);
        self.parts_computed = 0;
        let shared = shared.filter(|s| s.method == Some(method) && s.used.len() == self.used.len());
        for j in 0..n_joints {
            if !self.used[j] {
                self.kept.current[j] = false;
                continue;
            }
            if !self.kept.dirty[j] {
                continue;
            }
            match shared {
                Some(other) if other.used[j] => self.joints[j] = other.joints[j],
                _ => {
                    self.joints[j] = self.compute_part(skin, j, method);
                    self.parts_computed += 1;
                }
            }
            self.kept.current[j] = true;
        }
        let parts_done = Instant::now();
        self.parts_secs = (parts_done - started).as_secs_f64();
        self.slots = k;
        self.resize_tables(table.len(), method);
        let extent_before = self.extent;
        if matches!(method, SkinningMethod::Sbs | SkinningMethod::SbsC) {
            self.extent = self.extent(skin, model_from_node);
        }
        self.kept.extent_changed = self.extent.to_bits() != extent_before.to_bits();
        self.fill_sets(skin, 0..table.len(), valid);
        self.kept.members.truncate(valid * k);
        self.kept.members.extend_from_slice(&table.all_padded()[valid * k..]);
    }

    /// Joint `j`'s part in the prepared pose (for DQS and SBS through its inverse bind matrix's
    /// split, computed here when that matrix changed).
    fn compute_part(&mut self, skin: &Skin, j: usize, method: SkinningMethod) -> JointPart {
        let kept = &mut self.kept;
        if method != SkinningMethod::Lbs {
            kept.binds[j].update(&skin.joint_from_bind[j]);
        }
        joint_part(&self.model_from_bind[j], &DMat3::from_mat4(kept.nodes[j]), &kept.binds[j], method)
    }

    /// How many leading sets of `members` (the table's padded members, `k` per set) the frame's
    /// tables were computed for.
    fn kept_sets(&self, members: &[u16], k: usize) -> usize {
        let kept = &self.kept.members;
        let len = kept.len().min(members.len()).min(self.flags.len() * k);
        if k == 0 || kept[..len] != members[..len] {
            return 0;
        }
        len / k
    }

    /// The least number of vertices worth a parallel task in the per-vertex pass over this skin's
    /// primitives (set by [`crate::skinning::Deformer`] from the measured cost per vertex;
    /// `usize::MAX` keeps every primitive on the calling thread; 0, the default, lets the pass
    /// split primitives of 16k vertices and more).
    #[must_use]
    pub fn task_vertices(&self) -> usize {
        self.task_vertices
    }

    /// Sets [`SkinFrame::task_vertices`].
    pub fn set_task_vertices(&mut self, vertices: usize) {
        self.task_vertices = vertices;
    }

    /// The skinned vertices the whole frame deforms, every instance of every skin (set by
    /// [`crate::skinning::Deformer`]; 0, the default: each primitive's own count). What streams
    /// from memory rather than staying in cache is the whole frame, so the pass chooses its
    /// eight-lane layout by this count or the primitive's, whichever is larger.
    #[must_use]
    pub fn frame_vertices(&self) -> usize {
        self.frame_vertices
    }

    /// Sets [`SkinFrame::frame_vertices`].
    pub fn set_frame_vertices(&mut self, vertices: usize) {
        self.frame_vertices = vertices;
    }

    /// Recomputes every pose from scratch when `disabled` (for measurements and tests; the
    /// results are the same either way).
    pub fn disable_reuse(&mut self, disabled: bool) {
        self.kept.disabled = disabled;
    }

    /// The set pass over `sets` (sets below `valid` are kept unless a member joint changed),
    /// on rayon's threads when the sets to compute are expected to take long enough; records
    /// its statistics.
    fn fill_sets(&mut self, skin: &Skin, sets: std::ops::Range<usize>, valid: usize) {
        let method = self.method.unwrap_or(SkinningMethod::Lbs);
        let joints = std::mem::take(&mut self.joints);
        let mut set_dirty = std::mem::take(&mut self.kept.set_dirty);
        let every_set_valid = valid == skin.sets.len();
        if !every_set_valid {
            // New or changed sets: the index no longer describes the table.
            self.kept.sets_of_joints = None;
        }
        let to_compute = match &self.kept.sets_of_joints {
            Some(index) if index.covers(&self.kept.dirty) => {
                index.set_dirty(skin.sets.len(), &self.kept.dirty, &mut set_dirty)
            }
            _ => {
                if every_set_valid {
                    // Kept for the next pose of this table (built once the table has stayed for
                    // a pose, so that a table which changes every pose does not build it).
                    self.kept.sets_of_joints = Some(set_tables::SetsOfJoints::of(&skin.sets, skin.joints.len()));
                }
                set_tables::set_dirty(&skin.sets, &self.kept.dirty, valid, &mut set_dirty)
            }
        };
        let pass = SetPass {
            joints: &joints,
            table: &skin.sets,
            set_dirty: &set_dirty,
            k: self.slots,
            method,
            extent: self.extent,
            extent_changed: self.kept.extent_changed,
            sparse: to_compute * set_tables::SPARSE_SETS <= sets.len(),
        };
        let threads = rayon::current_num_threads();
        let set_secs = if self.kept.set_secs > 0.0 { self.kept.set_secs } else { DEFAULT_SET_SECS };
        let parallel = threads > 1 && to_compute as f64 * set_secs >= PARALLEL_SETS_SECS;
        let grain = if parallel { (sets.len() / (4 * threads)).max(32) } else { usize::MAX };
        let stats = pass.run(Tables::of(self, sets), grain);
        self.joints = joints;
        self.kept.set_dirty = set_dirty;
        if stats.sets > 0 {
            self.kept.set_secs = (stats.tables_secs + stats.centre_secs) / stats.sets as f64;
        }
        self.sets_parallel = parallel;
        self.sets_computed = stats.sets;
        self.tables_secs = stats.tables_secs;
        self.centre_secs = stats.centre_secs;
        self.centre_solves = stats.solves;
    }

    /// Computes the parts of joints that sets appended since the last prepare read for the first
    /// time (same pose and method).
    fn prepare_new_joints(&mut self, skin: &Skin, first_set: usize) {
        let Some(method) = self.method else { return };
        let table = &skin.sets;
        let k = self.slots;
        for &j in table.all_padded().get(first_set * k..).unwrap_or(&[]) {
            let j = usize::from(j);
            if j < self.used.len() && !self.used[j] {
                self.used[j] = true;
                self.joints[j] = self.compute_part(skin, j, method);
                if let Some(c) = self.kept.current.get_mut(j) {
                    *c = true;
                }
            }
        }
    }

    /// What the parts of the joints in use needed in the last prepare.
    #[must_use]
    pub fn joint_kinds(&self) -> JointKinds {
        let mut kinds = JointKinds::default();
        for (part, _) in self.joints.iter().zip(&self.used).filter(|(_, &u)| u) {
            kinds.used += 1;
            kinds.polar_solved += usize::from(part.split == Split::Solved);
            kinds.through_bind += usize::from(part.split == Split::Bind);
            kinds.stretched += usize::from(part.has_stretch);
            kinds.uniform += usize::from(part.has_stretch && part.uniform_scale > 0.0);
            kinds.degenerate += usize::from(part.degenerate);
        }
        kinds
    }

    /// Sizes every table for `n_sets` sets of `self.slots` members (only the tables `method` reads
    /// are filled; the others are emptied).
    fn resize_tables(&mut self, n_sets: usize, method: SkinningMethod) {
        let k = self.slots;
        let rigid = method != SkinningMethod::Lbs;
        let sbs = method == SkinningMethod::Sbs;
        let members = n_sets * k;
        self.flags.resize(n_sets, 0);
        self.centres.resize(n_sets, Vec3A::ZERO);
        self.cols.resize(members, [Vec3A::ZERO; 4]);
        self.quats.resize(if rigid { members * k } else { 0 }, Vec4::W);
        self.duals.resize(if method == SkinningMethod::Dqs { members * k } else { 0 }, Vec4::ZERO);
        self.points.resize(members, Vec3A::ZERO);
        self.stretches.resize(if rigid { members } else { 0 }, Mat3::IDENTITY);
        self.scales.resize(if rigid { members } else { 0 }, 1.0);
        self.far_centres.resize(if sbs { n_sets } else { 0 }, DVec3::ZERO);
        self.far_quats.resize(if sbs { members } else { 0 }, DVec4::W);
        self.far_points.resize(if sbs { members } else { 0 }, DVec3::ZERO);
        let continuous = method == SkinningMethod::SbsC;
        self.pairs.resize(if continuous { n_sets * k * k.saturating_sub(1) / 2 } else { 0 }, [0.0; 9]);
        self.rigid.resize(if continuous { members } else { 0 }, (DMat3::IDENTITY, DVec3::ZERO));
        self.rigid_cols.resize(if continuous { members } else { 0 }, [Vec3A::ZERO; 4]);
        self.set_lens.resize(if continuous { n_sets } else { 0 }, 0);
    }

    /// The skin's extent in the prepared pose (SBS and continuous SBS; 0 otherwise): the length
    /// the far-centre test compares |r_c| with ([`FAR_CENTRE_EXTENTS`] of them).
    #[must_use]
    pub fn skin_extent(&self) -> f64 {
        self.extent
    }

    /// Size of the skin's neighbourhood of the origin: the largest joint translation and
    /// stretched bind-space joint position (vertices lie among the joints). With `b_j` the joint's
    /// bind position, `|S_j b_j| = |A_j b_j|` (a rotation keeps lengths) and `A_j b_j + t_j` is the
    /// joint node's posed origin, so no inverse or polar split is needed.
    fn extent(&self, skin: &Skin, model_from_node: &[DMat4]) -> f64 {
        let mut extent: f64 = 0.0;
        for (c, &node) in self.model_from_bind.iter().zip(&skin.joints) {
            let t = c.w_axis.truncate();
            let origin = model_from_node.get(node).map_or(t, |g| g.w_axis.truncate());
            extent = extent.max(t.length()).max((origin - t).length());
        }
        extent
    }
}

/// The `SET_*` flags of a set from its joints' parts (`set` is its id: the empty set is flagged).
fn set_flags(joints: &[JointPart], members: &[u16], set: usize) -> u8 {
    let mut flag = if set as u32 == EMPTY_SET { SET_EMPTY } else { 0 };
    let mut uniform = true;
    for &j in members {
        let part = part(joints, j);
        if part.degenerate {
            flag |= SET_LBS_FALLBACK;
        }
        if part.has_stretch {
            flag |= SET_STRETCH;
        }
        uniform &= part.uniform_scale > 0.0;
    }
    if flag & SET_STRETCH != 0 && uniform {
        flag |= SET_UNIFORM_STRETCH;
    }
    if members.len() == 1 && (flag & SET_STRETCH == 0 || uniform) {
        flag |= SET_ONE_JOINT;
    }
    flag
}
