//! Per-pose preparation of one skin: joint parts (spec "Methods": C_i = [A_i | t_i],
//! A_i = R_i S_i) and, per distinct joint set, padded member tables and the SBS centre r_c.
//! Nothing here allocates once the buffers have grown to the skin's size.

mod new_sets;

use std::time::Instant;

use glam::{DMat3, DMat4, DQuat, DVec3, DVec4, Mat3, Vec3A, Vec4};

use super::SkinningMethod;
use crate::maths;
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
const FAR_CENTRE_EXTENTS: f64 = 32.0;

/// A stretch closer to the identity than this (max abs entry) is treated as exactly I.
const RIGID_TOLERANCE: f64 = 1e-6;

/// Parts of one joint in the current pose.
#[derive(Clone, Copy, Debug)]
struct JointPart {
    /// Rows of C_j (f32) for LBS.
    rows: [Vec4; 3],
    /// R_j in f64 for the centre solve.
    rotation: DMat3,
    /// t_j in f64.
    translation: DVec3,
    /// Unit quaternion of R_j as `[x, y, z, w]`.
    quat: Vec4,
    /// Dual part of the unit dual quaternion of D_j = [R_j | t_j].
    dual: Vec4,
    /// S_j.
    stretch: Mat3,
    /// S_j differs from I.
    has_stretch: bool,
    /// det(A_j) <= 0 (no rigid part).
    degenerate: bool,
}

impl Default for JointPart {
    fn default() -> Self {
        Self {
            rows: [Vec4::X, Vec4::Y, Vec4::Z],
            rotation: DMat3::IDENTITY,
            translation: DVec3::ZERO,
            quat: Vec4::W,
            dual: Vec4::ZERO,
            stretch: Mat3::IDENTITY,
            has_stretch: false,
            degenerate: false,
        }
    }
}

fn joint_part(c: &DMat4) -> JointPart {
    let a = DMat3::from_mat4(*c);
    let t = c.w_axis.truncate();
    let rows = [c.row(0).as_vec4(), c.row(1).as_vec4(), c.row(2).as_vec4()];
    let Some(polar) = maths::polar(a) else {
        return JointPart { rows, translation: t, degenerate: true, ..JointPart::default() };
    };
    let q = DQuat::from_mat3(&polar.rotation).normalize();
    // Dual part of the unit dual quaternion: 0.5 · (t, 0) · q.
    let d = DQuat::from_xyzw(t.x, t.y, t.z, 0.0) * q * 0.5;
    let has_stretch = !(polar.stretch - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, RIGID_TOLERANCE);
    JointPart {
        rows,
        rotation: polar.rotation,
        translation: t,
        quat: Vec4::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32),
        dual: Vec4::new(d.x as f32, d.y as f32, d.z as f32, d.w as f32),
        stretch: polar.stretch.as_mat3(),
        has_stretch,
        degenerate: false,
    }
}

/// Everything the per-vertex pass reads for one skin in the current pose. Member tables hold
/// `slots` entries per set, aligned with each vertex's weight slots.
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
    /// Per member: rows of C_j for LBS and the LBS fallback.
    pub rows: Vec<[Vec4; 3]>,
    /// Per member: unit quaternion `[x, y, z, w]` of R_j.
    pub quats: Vec<Vec4>,
    /// Per member: dual part of D_j's unit dual quaternion (DQS).
    pub duals: Vec<Vec4>,
    /// Per member: D_j r_c, the member's image of its set's centre (SBS).
    pub points: Vec<Vec3A>,
    /// Per member: S_j (read only for sets flagged `SET_STRETCH`).
    pub stretches: Vec<Mat3>,
    /// Per set flagged `SET_FAR_CENTRE`: r_c in f64 (the f32 form would cancel |r_c|-sized terms).
    pub far_centres: Vec<DVec3>,
    /// Per member of a far set: q_i in f64, `[x, y, z, w]`.
    pub far_quats: Vec<DVec4>,
    /// Per member of a far set: D_i r_c in f64.
    pub far_points: Vec<DVec3>,
    /// Centre solves done by the last [`SkinFrame::prepare`].
    pub centre_solves: usize,
    /// Seconds spent solving centres in the last [`SkinFrame::prepare`].
    pub centre_secs: f64,
}

impl SkinFrame {
    /// Prepares the skin for `method` from every node's `model_from_node` matrix.
    pub fn prepare(&mut self, skin: &Skin, model_from_node: &[DMat4], method: SkinningMethod) {
        crate::rig::fk::model_from_bind(skin, model_from_node, &mut self.model_from_bind);
        self.joints.clear();
        self.joints.extend(self.model_from_bind.iter().map(joint_part));
        let table = &skin.sets;
        let k = table.slots();
        let n_sets = table.len();
        self.slots = k;
        let members = n_sets * k;
        self.flags.resize(n_sets, 0);
        self.centres.resize(n_sets, Vec3A::ZERO);
        self.rows.resize(members, [Vec4::ZERO; 3]);
        self.quats.resize(members, Vec4::W);
        self.duals.resize(members, Vec4::ZERO);
        self.points.resize(members, Vec3A::ZERO);
        self.stretches.resize(members, Mat3::IDENTITY);
        self.far_centres.resize(n_sets, DVec3::ZERO);
        self.far_quats.resize(members, DVec4::W);
        self.far_points.resize(members, DVec3::ZERO);
        self.centre_solves = 0;
        self.centre_secs = 0.0;

        let padded = table.all_padded();
        for set in 0..n_sets {
            let joints = table.joints(set as u32);
            let mut flag = if set as u32 == EMPTY_SET { SET_EMPTY } else { 0 };
            for &j in joints {
                let part = &self.joints[j as usize];
                if part.degenerate {
                    flag |= SET_LBS_FALLBACK;
                }
                if part.has_stretch {
                    flag |= SET_STRETCH;
                }
            }
            self.flags[set] = flag;
            for m in set * k..(set + 1) * k {
                let part = &self.joints[padded[m] as usize];
                self.rows[m] = part.rows;
                if method != SkinningMethod::Lbs {
                    self.quats[m] = part.quat;
                    self.stretches[m] = part.stretch;
                }
                if method == SkinningMethod::Dqs {
                    self.duals[m] = part.dual;
                }
            }
        }
        if method == SkinningMethod::Sbs {
            let extent = self.extent(skin);
            self.prepare_centres(skin, extent);
        }
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

    /// SBS step 2: one least-squares centre per distinct set of two or more joints, and each
    /// member's image D_j r_c of it (or, for far centres, the cancellation-free parts).
    fn prepare_centres(&mut self, skin: &Skin, extent: f64) {
        let started = Instant::now();
        let table = &skin.sets;
        let k = self.slots;
        let mut rotations = [DMat3::IDENTITY; crate::model::influences::MAX_SLOTS];
        let mut translations = [DVec3::ZERO; crate::model::influences::MAX_SLOTS];
        for set in 1..table.len() {
            let joints = table.joints(set as u32);
            let centre = if joints.len() < 2 || self.flags[set] & SET_LBS_FALLBACK != 0 {
                DVec3::ZERO
            } else {
                for (i, &j) in joints.iter().enumerate() {
                    rotations[i] = self.joints[j as usize].rotation;
                    translations[i] = self.joints[j as usize].translation;
                }
                self.centre_solves += 1;
                maths::least_squares_centre(&rotations[..joints.len()], &translations[..joints.len()])
            };
            self.centres[set] = centre.as_vec3().into();
            let padded = table.padded(set as u32);
            if centre.length() > FAR_CENTRE_EXTENTS * extent {
                self.flags[set] |= SET_FAR_CENTRE;
                self.far_centres[set] = centre;
                for (slot, &j) in padded.iter().enumerate() {
                    let part = &self.joints[j as usize];
                    let q = DQuat::from_mat3(&part.rotation).normalize();
                    self.far_quats[set * k + slot] = DVec4::new(q.x, q.y, q.z, q.w);
                    self.far_points[set * k + slot] = part.rotation * centre + part.translation;
                }
            } else {
                for (slot, &j) in padded.iter().enumerate() {
                    let part = &self.joints[j as usize];
                    self.points[set * k + slot] = (part.rotation * centre + part.translation).as_vec3().into();
                }
            }
        }
        self.centre_secs = started.elapsed().as_secs_f64();
    }
}
