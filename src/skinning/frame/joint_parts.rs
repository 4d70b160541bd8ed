//! Per-joint parts of one skin in the current pose (spec "Methods": C_j = [A_j | t_j],
//! A_j = R_j S_j), computed only for the joints the skin's set tables read and only as far as the
//! method needs: LBS reads the f32 columns alone; DQS and SBS the rigid split (a Newton polar
//! decomposition where A_j is not already a rotation) and the quaternion; DQS the dual part; SBS
//! the rotation matrix its centre solves use.

use glam::{DMat3, DMat4, DQuat, DVec3, Mat3, Vec3A, Vec4};

use crate::maths;
use crate::skinning::SkinningMethod;

/// A stretch closer to the identity than this (max abs entry) is treated as exactly I.
const RIGID_TOLERANCE: f64 = 1e-6;
/// A 3x3 part whose AᵀA is this close to I (max abs entry) is taken as its own rotation.
const ROTATION_TOLERANCE: f64 = 1e-12;

/// Parts of one joint in the current pose.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointPart {
    /// Columns of C_j (f32) for LBS: the 3x3 part's three columns, then t_j.
    pub cols: [Vec3A; 4],
    /// Unit quaternion of R_j in f64 (the centre solve and the tables).
    pub rotation: DQuat,
    /// R_j as a matrix, `DMat3::from_quat(rotation)` (SBS and continuous SBS only; else I).
    pub rotation_matrix: DMat3,
    /// t_j in f64.
    pub translation: DVec3,
    /// `R_jᵀ t_j` (SBS only; else zero): the joint's term of the centre's normal equations
    /// ([`maths::CentreSums`]).
    pub turned: DVec3,
    /// Dual part of the unit dual quaternion of D_j = [R_j | t_j] (DQS only; else zero).
    pub dual: Vec4,
    /// S_j.
    pub stretch: Mat3,
    /// S_j differs from I.
    pub has_stretch: bool,
    /// s where S_j is a uniform scale s·I (to [`RIGID_TOLERANCE`] relative), else 0.
    pub uniform_scale: f32,
    /// det(A_j) <= 0 (no rigid part).
    pub degenerate: bool,
    /// A_j was not a rotation to f64 rounding, so the polar decomposition was solved.
    pub polar_solved: bool,
}

/// The identity joint: what a padding slot of a set reads when the skin has no joint at all (its
/// weight is zero, so it never moves a vertex; a table is never indexed beyond its end).
pub(crate) const REST_PART: JointPart = JointPart {
    cols: [Vec3A::X, Vec3A::Y, Vec3A::Z, Vec3A::ZERO],
    rotation: DQuat::IDENTITY,
    rotation_matrix: DMat3::IDENTITY,
    translation: DVec3::ZERO,
    turned: DVec3::ZERO,
    dual: Vec4::ZERO,
    stretch: Mat3::IDENTITY,
    has_stretch: false,
    uniform_scale: 1.0,
    degenerate: false,
    polar_solved: false,
};

impl Default for JointPart {
    fn default() -> Self {
        REST_PART
    }
}

/// Joint `j`'s part, or [`REST_PART`] beyond the table (padding of a skin without joints).
pub(crate) fn part(joints: &[JointPart], j: u16) -> &JointPart {
    joints.get(usize::from(j)).unwrap_or(&REST_PART)
}

/// The parts of `C` that `method` reads.
pub(crate) fn joint_part(c: &DMat4, method: SkinningMethod) -> JointPart {
    let t = c.w_axis.truncate();
    let cols = [
        c.x_axis.truncate().as_vec3().into(),
        c.y_axis.truncate().as_vec3().into(),
        c.z_axis.truncate().as_vec3().into(),
        t.as_vec3().into(),
    ];
    if method == SkinningMethod::Lbs {
        return JointPart { cols, translation: t, ..JointPart::default() };
    }
    let a = DMat3::from_mat4(*c);
    let rotation_already =
        (a.transpose() * a - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, ROTATION_TOLERANCE) && a.determinant() > 0.0;
    let polar = if rotation_already {
        // Already a rotation: its own polar decomposition.
        Some(maths::Polar { rotation: a, stretch: DMat3::IDENTITY })
    } else {
        maths::polar_newton(a)
    };
    let Some(polar) = polar else {
        return JointPart { cols, translation: t, degenerate: true, polar_solved: true, ..JointPart::default() };
    };
    let q = DQuat::from_mat3(&polar.rotation).normalize();
    let dual = if method == SkinningMethod::Dqs {
        // Dual part of the unit dual quaternion: 0.5 · (t, 0) · q.
        let d = DQuat::from_xyzw(t.x, t.y, t.z, 0.0) * q * 0.5;
        Vec4::new(d.x as f32, d.y as f32, d.z as f32, d.w as f32)
    } else {
        Vec4::ZERO
    };
    let rotation_matrix = if matches!(method, SkinningMethod::Sbs | SkinningMethod::SbsC) {
        DMat3::from_quat(q)
    } else {
        DMat3::IDENTITY
    };
    let turned = if method == SkinningMethod::Sbs { rotation_matrix.transpose() * t } else { DVec3::ZERO };
    let has_stretch = !(polar.stretch - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, RIGID_TOLERANCE);
    let scale = (polar.stretch.x_axis.x + polar.stretch.y_axis.y + polar.stretch.z_axis.z) / 3.0;
    let uniform =
        (polar.stretch - DMat3::from_diagonal(DVec3::splat(scale))).abs_diff_eq(DMat3::ZERO, RIGID_TOLERANCE * scale);
    JointPart {
        cols,
        rotation: q,
        rotation_matrix,
        translation: t,
        turned,
        dual,
        stretch: polar.stretch.as_mat3(),
        has_stretch,
        uniform_scale: if uniform { scale as f32 } else { 0.0 },
        degenerate: false,
        polar_solved: !rotation_already,
    }
}

/// A unit quaternion in f32, `[x, y, z, w]`.
pub(crate) fn quat_vec4(q: DQuat) -> Vec4 {
    Vec4::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

/// Counts of the joints a skin's tables read, by what their part needed (for `skinlab bench`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JointKinds {
    /// Joints the tables read (whose parts are computed).
    pub used: usize,
    /// Of those, joints whose 3x3 part was not a rotation to f64 rounding (polar solved).
    pub polar_solved: usize,
    /// Joints with a stretch S ≠ I (their sets take the stretch path).
    pub stretched: usize,
    /// Of those, joints whose stretch is a uniform scale s·I (a cheap stretch path).
    pub uniform: usize,
    /// Joints with det(A) ≤ 0 (their sets fall back to LBS).
    pub degenerate: usize,
}
