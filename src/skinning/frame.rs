//! Per-pose preparation of one skin: joint parts (spec "Methods": C_i = [A_i | t_i],
//! A_i = R_i S_i) and, per distinct joint set, padded member tables and the SBS centre r_c.
//! Nothing here allocates once the buffers have grown to the skin's size.

mod new_sets;

use std::time::Instant;

use glam::{DMat3, DMat4, DQuat, DVec3, DVec4, Mat3, Vec3A, Vec4};
use rayon::prelude::*;

use super::SkinningMethod;
use crate::maths;
use crate::model::influences::MAX_SLOTS;
use crate::model::{Skin, EMPTY_SET};

/// Set flag: the set is empty (its vertices are not moved).
pub const SET_EMPTY: u8 = 1;
/// Set flag: a member joint has a non-positive determinant, so DQS and SBS fall back to LBS.
pub const SET_LBS_FALLBACK: u8 = 2;
/// Set flag: a member joint has a stretch S ≠ I, so stretches are blended first.
pub const SET_STRETCH: u8 = 4;

/// Set flag: the centre is far from the skin (rotations nearly about one axis), so its vertices
/// are evaluated in f64 from [`SkinFrame::far_quats`] and [`SkinFrame::far_points`].
pub const SET_FAR_CENTRE: u8 = 8;

/// A centre farther than this many skin extents from the origin is "far": in f32 the terms of
/// `Q (v_s − r_c) + Σ w_i D_i r_c` would cancel digits of size |r_c|.
pub const FAR_CENTRE_EXTENTS: f64 = 32.0;

/// A stretch closer to the identity than this (max abs entry) is treated as exactly I.
const RIGID_TOLERANCE: f64 = 1e-6;
/// A 3x3 part whose AᵀA is this close to I (max abs entry) is taken as its own rotation.
const ROTATION_TOLERANCE: f64 = 1e-12;

/// Parts of one joint in the current pose.
#[derive(Clone, Copy, Debug)]
struct JointPart {
    /// Columns of C_j (f32) for LBS: the 3x3 part's three columns, then t_j.
    cols: [Vec3A; 4],
    /// Unit quaternion of R_j in f64 (the centre solve and the tables).
    rotation: DQuat,
    /// t_j in f64.
    translation: DVec3,
    /// Dual part of the unit dual quaternion of D_j = [R_j | t_j].
    dual: Vec4,
    /// S_j.
    stretch: Mat3,
    /// S_j differs from I.
    has_stretch: bool,
    /// det(A_j) <= 0 (no rigid part).
    degenerate: bool,
}

/// The identity joint: what a padding slot of a set reads when the skin has no joint at all (its
/// weight is zero, so it never moves a vertex; a table is never indexed beyond its end).
const REST_PART: JointPart = JointPart {
    cols: [Vec3A::X, Vec3A::Y, Vec3A::Z, Vec3A::ZERO],
    rotation: DQuat::IDENTITY,
    translation: DVec3::ZERO,
    dual: Vec4::ZERO,
    stretch: Mat3::IDENTITY,
    has_stretch: false,
    degenerate: false,
};

impl Default for JointPart {
    fn default() -> Self {
        REST_PART
    }
}

/// Joint `j`'s part, or [`REST_PART`] beyond the table (padding of a skin without joints).
fn part(joints: &[JointPart], j: u16) -> &JointPart {
    joints.get(usize::from(j)).unwrap_or(&REST_PART)
}

fn joint_part(c: &DMat4, rigid: bool) -> JointPart {
    let t = c.w_axis.truncate();
    let cols = [
        c.x_axis.truncate().as_vec3().into(),
        c.y_axis.truncate().as_vec3().into(),
        c.z_axis.truncate().as_vec3().into(),
        t.as_vec3().into(),
    ];
    if !rigid {
        return JointPart { cols, translation: t, ..JointPart::default() };
    }
    let a = DMat3::from_mat4(*c);
    let polar = if (a.transpose() * a - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, ROTATION_TOLERANCE)
        && a.determinant() > 0.0
    {
        // Already a rotation (the common case): its own polar decomposition, without an SVD.
        Some(maths::Polar { rotation: a, stretch: DMat3::IDENTITY })
    } else {
        maths::polar(a)
    };
    let Some(polar) = polar else {
        return JointPart { cols, translation: t, degenerate: true, ..JointPart::default() };
    };
    let q = DQuat::from_mat3(&polar.rotation).normalize();
    // Dual part of the unit dual quaternion: 0.5 · (t, 0) · q.
    let d = DQuat::from_xyzw(t.x, t.y, t.z, 0.0) * q * 0.5;
    let has_stretch = !(polar.stretch - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, RIGID_TOLERANCE);
    JointPart {
        cols,
        rotation: q,
        translation: t,
        dual: Vec4::new(d.x as f32, d.y as f32, d.z as f32, d.w as f32),
        stretch: polar.stretch.as_mat3(),
        has_stretch,
        degenerate: false,
    }
}

fn quat_vec4(q: DQuat) -> Vec4 {
    Vec4::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

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
    /// `[x, y, z, w]` of R_j, signed against the pivot's (DQS, SBS).
    pub quats: Vec<Vec4>,
    /// Per set, pivot slot and member: the dual part of D_j's unit dual quaternion, with the same
    /// sign as in `quats` (DQS).
    pub duals: Vec<Vec4>,
    /// Per member: D_j r_c, the member's image of its set's centre (SBS).
    pub points: Vec<Vec3A>,
    /// Per member: S_j (read only for sets flagged `SET_STRETCH`).
    pub stretches: Vec<Mat3>,
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
    /// The skin's extent in the prepared pose (far-centre test), for [`SkinFrame::prepare_new_sets`].
    extent: f64,
}

impl SkinFrame {
    /// Prepares the skin for `method` from every node's `model_from_node` matrix.
    pub fn prepare(&mut self, skin: &Skin, model_from_node: &[DMat4], method: SkinningMethod) {
        crate::rig::fk::model_from_bind(skin, model_from_node, &mut self.model_from_bind);
        let rigid = method != SkinningMethod::Lbs;
        self.joints.clear();
        self.joints.extend(self.model_from_bind.iter().map(|c| joint_part(c, rigid)));
        let table = &skin.sets;
        self.slots = table.slots();
        self.resize_tables(table.len(), method);
        self.centre_solves = 0;
        self.centre_secs = 0.0;
        for set in 0..table.len() {
            self.fill_set(skin, set, method);
        }
        if matches!(method, SkinningMethod::Sbs | SkinningMethod::SbsC) {
            self.extent = self.extent(skin);
        }
        if method == SkinningMethod::Sbs {
            self.prepare_centres(skin, 0);
        }
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
        let rigid = method != SkinningMethod::Lbs;
        let joints = table.joints(set as u32);
        let mut flag = if set as u32 == EMPTY_SET { SET_EMPTY } else { 0 };
        for &j in joints {
            let part = part(&self.joints, j);
            if part.degenerate {
                flag |= SET_LBS_FALLBACK;
            }
            if part.has_stretch {
                flag |= SET_STRETCH;
            }
        }
        self.flags[set] = flag;
        let members = table.padded(set as u32);
        for (m, &j) in members.iter().enumerate() {
            let part = part(&self.joints, j);
            self.cols[set * k + m] = part.cols;
            if rigid {
                self.stretches[set * k + m] = part.stretch;
            }
        }
        if !rigid {
            return;
        }
        for pivot in 0..k {
            let qp = part(&self.joints, members[pivot]).rotation;
            let row = (set * k + pivot) * k;
            for (m, &j) in members.iter().enumerate() {
                let part = part(&self.joints, j);
                let negate = qp.dot(part.rotation) < 0.0;
                let q = quat_vec4(part.rotation);
                self.quats[row + m] = if negate { -q } else { q };
                if method == SkinningMethod::Dqs {
                    self.duals[row + m] = if negate { -part.dual } else { part.dual };
                }
            }
        }
        if method == SkinningMethod::SbsC {
            self.set_lens[set] = joints.len().min(k) as u8;
            self.fill_pairs(set, members);
        }
    }

    /// Continuous SBS's per-set tables: each member's rigid part and each slot pair's normal
    /// equations (padding slots carry weight 0, so their pairs never count).
    fn fill_pairs(&mut self, set: usize, members: &[u16]) {
        let k = self.slots;
        for (m, &j) in members.iter().enumerate() {
            let part = part(&self.joints, j);
            let r = DMat3::from_quat(part.rotation);
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
    /// stretched bind-space joint position (vertices lie among the joints).
    fn extent(&self, skin: &Skin) -> f64 {
        let mut extent: f64 = 0.0;
        for (part, ibm) in self.joints.iter().zip(&skin.joint_from_bind) {
            let bind_position = ibm.inverse().w_axis.truncate();
            let stretched = part.stretch.as_dmat3() * bind_position;
            extent = extent.max(part.translation.length()).max(stretched.length());
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
                rotations[i] = DMat3::from_quat(joints[j as usize].rotation);
                translations[i] = joints[j as usize].translation;
            }
            maths::least_squares_centre(&rotations[..n], &translations[..n])
        }
    }
}
