//! Per-pose preparation of one skin: joint parts (spec "Methods": C_i = [A_i | t_i],
//! A_i = R_i S_i) and, per distinct joint set, padded member tables and the SBS centre r_c.
//! Nothing here allocates once the buffers have grown to the skin's size.

mod joint_parts;
mod new_sets;

use std::time::Instant;

use glam::{DMat3, DMat4, DQuat, DVec3, DVec4, Mat3, Vec3A, Vec4};
use rayon::prelude::*;

use super::SkinningMethod;
use crate::maths;
use crate::model::influences::MAX_SLOTS;
use crate::model::{Skin, EMPTY_SET};
pub use joint_parts::JointKinds;
use joint_parts::{joint_part, part, quat_vec4, JointPart, REST_PART};

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

/// Sets with at least this many centre solves are solved on rayon's threads (waking the pool costs
/// more than a few hundred solves: 0.09 ms on two threads against 0.05 ms on one for 90 sets).
const PARALLEL_CENTRES: usize = 1024;

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
    /// Per member: columns of C_j (3x3 part, then translation) for LBS and the LBS fallback.
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
    /// Per member: S_j (read only for sets flagged `SET_STRETCH`).
    pub stretches: Vec<Mat3>,
    /// Per member: s_j of a uniform stretch s_j·I (read only for sets flagged
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
    /// same joints are not counted).
    pub parts_computed: usize,
    /// The skin's extent in the prepared pose (far-centre test), for [`SkinFrame::prepare_new_sets`].
    extent: f64,
    /// Per joint: whether a set of the table reads it (only those joints get parts).
    used: Vec<bool>,
    /// The method the parts were computed for.
    method: Option<SkinningMethod>,
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
        crate::rig::fk::model_from_bind(skin, model_from_node, &mut self.model_from_bind);
        let table = &skin.sets;
        self.used.clear();
        self.used.resize(skin.joints.len(), false);
        for &j in table.all_padded() {
            if let Some(u) = self.used.get_mut(usize::from(j)) {
                *u = true;
            }
        }
        self.joints.resize(skin.joints.len(), REST_PART);
        self.method = Some(method);
        self.parts_computed = 0;
        let shared = shared.filter(|s| s.method == Some(method) && s.used.len() == self.used.len());
        for j in 0..self.used.len() {
            if !self.used[j] {
                continue;
            }
            match shared {
                Some(other) if other.used[j] => self.joints[j] = other.joints[j],
                _ => {
                    self.joints[j] = joint_part(&self.model_from_bind[j], method);
                    self.parts_computed += 1;
                }
            }
        }
        let parts_done = Instant::now();
        self.slots = table.slots();
        self.resize_tables(table.len(), method);
        self.centre_solves = 0;
        self.centre_secs = 0.0;
        for set in 0..table.len() {
            self.fill_set(skin, set, method);
        }
        let tables_done = Instant::now();
        self.parts_secs = (parts_done - started).as_secs_f64();
        self.tables_secs = (tables_done - parts_done).as_secs_f64();
        if matches!(method, SkinningMethod::Sbs | SkinningMethod::SbsC) {
            self.extent = self.extent(skin, model_from_node);
        }
        if method == SkinningMethod::Sbs {
            self.prepare_centres(skin, 0);
        }
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
                self.joints[j] = joint_part(&self.model_from_bind[j], method);
            }
        }
    }

    /// What the parts of the joints in use needed in the last prepare.
    #[must_use]
    pub fn joint_kinds(&self) -> JointKinds {
        let mut kinds = JointKinds::default();
        for (part, _) in self.joints.iter().zip(&self.used).filter(|(_, &u)| u) {
            kinds.used += 1;
            kinds.polar_solved += usize::from(part.polar_solved);
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

    /// Flags and member tables of one set (everything but its SBS centre).
    fn fill_set(&mut self, skin: &Skin, set: usize, method: SkinningMethod) {
        let table = &skin.sets;
        let k = self.slots;
        let mut flag = if set as u32 == EMPTY_SET { SET_EMPTY } else { 0 };
        let mut uniform = true;
        for &j in table.joints(set as u32) {
            let part = part(&self.joints, j);
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
        if table.joints(set as u32).len() == 1 && (flag & SET_STRETCH == 0 || uniform) {
            flag |= SET_ONE_JOINT;
        }
        self.flags[set] = flag;
        let members = table.padded(set as u32);
        let base = set * k;
        for (m, &j) in members.iter().enumerate() {
            self.cols[base + m] = part(&self.joints, j).cols;
        }
        if method == SkinningMethod::Lbs {
            return;
        }
        if flag & SET_STRETCH != 0 {
            // Stretches are read only for sets flagged `SET_STRETCH`.
            for (m, &j) in members.iter().enumerate() {
                let part = part(&self.joints, j);
                self.stretches[base + m] = part.stretch;
                self.scales[base + m] = part.uniform_scale;
            }
        }
        // A vertex's pivot is its largest weight, never a zero-weight padding slot: only the
        // rows of real members are read.
        let pivots = table.joints(set as u32).len().clamp(1, k);
        let dqs = method == SkinningMethod::Dqs;
        match k {
            0..=4 => self.signed_rows::<4>(base, members, pivots, dqs),
            5..=8 => self.signed_rows::<8>(base, members, pivots, dqs),
            _ => self.signed_rows::<MAX_SLOTS>(base, members, pivots, dqs),
        }
        if method == SkinningMethod::SbsC {
            self.set_lens[set] = table.joints(set as u32).len().min(k) as u8;
            self.fill_pairs(set, members);
        }
    }

    /// The signed quaternion (and, for DQS, dual) rows of one set's first `pivots` pivot slots:
    /// each member's quaternion gathered once in f64 (sign tests) and f32, at most `N` members.
    fn signed_rows<const N: usize>(&mut self, base: usize, members: &[u16], pivots: usize, dqs: bool) {
        let k = members.len().min(N);
        let mut q64 = [DQuat::IDENTITY; N];
        let mut q32 = [Vec4::W; N];
        let mut d32 = [Vec4::ZERO; N];
        for (m, &j) in members.iter().take(k).enumerate() {
            let part = part(&self.joints, j);
            q64[m] = part.rotation;
            q32[m] = quat_vec4(part.rotation);
            d32[m] = part.dual;
        }
        for pivot in 0..pivots.min(k) {
            let qp = q64[pivot];
            let row = (base + pivot) * self.slots;
            for m in 0..k {
                let negate = qp.dot(q64[m]) < 0.0;
                self.quats[row + m] = if negate { -q32[m] } else { q32[m] };
                if dqs {
                    self.duals[row + m] = if negate { -d32[m] } else { d32[m] };
                }
            }
        }
    }

    /// Continuous SBS's per-set tables: each member's rigid part and each slot pair's normal
    /// equations (padding slots carry weight 0, so their pairs never count).
    fn fill_pairs(&mut self, set: usize, members: &[u16]) {
        let k = self.slots;
        for (m, &j) in members.iter().enumerate() {
            let part = part(&self.joints, j);
            let r = part.rotation_matrix;
            self.rigid[set * k + m] = (r, part.translation);
            self.rigid_cols[set * k + m] = [
                r.x_axis.as_vec3().into(),
                r.y_axis.as_vec3().into(),
                r.z_axis.as_vec3().into(),
                part.translation.as_vec3().into(),
            ];
        }
        let mut pair = set * k * k.saturating_sub(1) / 2;
        for a in 0..k {
            for b in a + 1..k {
                let (ra, ta) = self.rigid[set * k + a];
                let (rb, tb) = self.rigid[set * k + b];
                let d = ra - rb;
                let m = d.transpose() * d;
                let e = d.transpose() * (tb - ta);
                self.pairs[pair] =
                    [m.x_axis.x, m.y_axis.x, m.z_axis.x, m.y_axis.y, m.z_axis.y, m.z_axis.z, e.x, e.y, e.z];
                pair += 1;
            }
        }
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

    /// SBS step 2 for the sets from `first` on: one least-squares centre per distinct set of two
    /// or more joints (closed form for two; on rayon's threads when there are many), then each
    /// member's image D_j r_c of it (or, for far centres, the cancellation-free f64 parts). Adds to
    /// `centre_solves` and `centre_secs`.
    fn prepare_centres(&mut self, skin: &Skin, first: usize) {
        let started = Instant::now();
        let table = &skin.sets;
        let k = self.slots;
        let joints = &self.joints;
        let flags = &self.flags;
        let solves = (first.max(1)..table.len())
            .filter(|&set| table.joints(set as u32).len() >= 2 && flags[set] & SET_LBS_FALLBACK == 0)
            .count();
        let solve = |set: usize, centre: &mut DVec3| {
            *centre = if set as u32 == EMPTY_SET || flags[set] & SET_LBS_FALLBACK != 0 {
                DVec3::ZERO
            } else {
                set_centre(joints, table.joints(set as u32))
            };
        };
        let centres = &mut self.far_centres[first..];
        if solves >= PARALLEL_CENTRES && rayon::current_num_threads() > 1 {
            centres.par_iter_mut().enumerate().with_min_len(8).for_each(|(i, c)| solve(first + i, c));
        } else {
            for (i, c) in centres.iter_mut().enumerate() {
                solve(first + i, c);
            }
        }
        for set in first..table.len() {
            let centre = self.far_centres[set];
            self.centres[set] = centre.as_vec3().into();
            let padded = table.padded(set as u32);
            if centre.length() > FAR_CENTRE_EXTENTS * self.extent {
                self.flags[set] |= SET_FAR_CENTRE;
                for (slot, &j) in padded.iter().enumerate() {
                    let part = part(&self.joints, j);
                    let q = part.rotation;
                    self.far_quats[set * k + slot] = DVec4::new(q.x, q.y, q.z, q.w);
                    self.far_points[set * k + slot] = part.rotation * centre + part.translation;
                }
            } else {
                for (slot, &j) in padded.iter().enumerate() {
                    let part = part(&self.joints, j);
                    self.points[set * k + slot] = (part.rotation * centre + part.translation).as_vec3().into();
                }
            }
        }
        self.centre_solves += solves;
        self.centre_secs += started.elapsed().as_secs_f64();
    }
}

/// The centre of one set's joints: none for one joint, the closed form for two, the
/// least-squares solve otherwise (spec "sbs" step 2). Allocation-free.
fn set_centre(joints: &[JointPart], members: &[u16]) -> DVec3 {
    match members {
        [] | [_] => DVec3::ZERO,
        [a, b] => {
            let (a, b) = (&joints[*a as usize], &joints[*b as usize]);
            maths::two_joint_centre(a.rotation, a.translation, b.rotation, b.translation)
        }
        _ => {
            let mut rotations = [DMat3::IDENTITY; MAX_SLOTS];
            let mut translations = [DVec3::ZERO; MAX_SLOTS];
            let n = members.len().min(MAX_SLOTS);
            for (i, &j) in members.iter().take(n).enumerate() {
                rotations[i] = joints[j as usize].rotation_matrix;
                translations[i] = joints[j as usize].translation;
            }
            maths::least_squares_centre(&rotations[..n], &translations[..n])
        }
    }
}
