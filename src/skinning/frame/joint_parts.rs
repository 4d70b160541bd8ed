//! Per-joint parts of one skin in the current pose (spec "Methods": C_j = [A_j | t_j],
//! A_j = R_j S_j), computed only for the joints the skin's set tables read and only as far as the
//! method needs: LBS reads the f32 columns alone; DQS and SBS the rigid split and the quaternion;
//! DQS the dual part; SBS the rotation matrix its centre solves use.
//!
//! The rigid split of `A_j = G_j · B_j` (G_j the joint node's global 3x3 part, B_j its inverse
//! bind matrix's) is taken through the bind pose where the pose allows: when `G_j` is a rotation
//! times a uniform scale `s` to f64 rounding (every node above the joint has a uniform scale or
//! none: skeletons built in skinlab, and exports with clean scales),
//! `A_j = (s⁻¹G_j · R_B) (s S_B)` with `B_j = R_B S_B` split once per inverse bind matrix
//! ([`BindSplit`]), so a pose costs one 3x3 product per joint instead of a Newton polar
//! decomposition; the rotation agrees with Newton's to f64 rounding. Otherwise (exporters often
//! write scales such as 1.0000001, which make `G_j` a stretch of f32 size) `A_j` is split itself
//! (Newton, where it is not already a rotation).

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
    /// How the rigid split was found.
    pub split: Split,
}

/// How a joint part's rigid split `A_j = R_j S_j` was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Split {
    /// `A_j` is a rotation to f64 rounding (or the method needs no split): `R_j = A_j`.
    Rotation,
    /// Through the bind pose: `G_j` is a scaled rotation, `R_j = s⁻¹G_j · R_B`.
    Bind,
    /// `A_j` was split itself by a polar decomposition.
    Solved,
}

/// The polar split of one joint's inverse bind matrix, kept across poses: computed again only when
/// the matrix changes (a skeleton edit).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BindSplit {
    /// The 3x3 part of the inverse bind matrix it was computed for (compared bit for bit).
    ibm: DMat3,
    /// `B = R_B S_B` and the facts of `S_B`; `None` where `det(B) <= 0` or `B` is not finite.
    polar: Option<(maths::Polar, Stretch)>,
    /// Whether `ibm` and `polar` hold a computed split.
    ready: bool,
}

impl Default for BindSplit {
    fn default() -> Self {
        Self { ibm: DMat3::IDENTITY, polar: None, ready: false }
    }
}

impl BindSplit {
    /// Whether the split is current for an inverse bind matrix with the 3x3 part `ibm`.
    pub(crate) fn is_for(&self, ibm: &DMat3) -> bool {
        self.ready && same_bits3(&self.ibm, ibm)
    }

    /// Computes the split of `ibm`'s 3x3 part unless it is current.
    pub(crate) fn update(&mut self, ibm: &DMat4) {
        let ibm = DMat3::from_mat4(*ibm);
        if !self.is_for(&ibm) {
            let polar = rigid_split(ibm).0.map(|p| (p, Stretch::of(&p.stretch)));
            *self = Self { ibm, polar, ready: true };
        }
    }
}

/// Whether two matrices are equal bit for bit.
pub(crate) fn same_bits(a: &DMat4, b: &DMat4) -> bool {
    same_entries::<16>(a.as_ref(), b.as_ref())
}

/// [`same_bits`] for 3x3 matrices.
pub(crate) fn same_bits3(a: &DMat3, b: &DMat3) -> bool {
    same_entries::<9>(a.as_ref(), b.as_ref())
}

/// Every entry compared, without an early exit, so that the comparison runs in vector registers.
#[inline(always)]
fn same_entries<const N: usize>(a: &[f64; N], b: &[f64; N]) -> bool {
    a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x.to_bits() ^ y.to_bits())) == 0
}

/// The polar split of a 3x3 matrix: itself where it is a rotation to [`ROTATION_TOLERANCE`],
/// else by Newton; `None` where `det <= 0` or it is not finite. With whether a decomposition was
/// solved.
#[inline(always)]
fn rigid_split(a: DMat3) -> (Option<maths::Polar>, bool) {
    if (a.transpose() * a - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, ROTATION_TOLERANCE) && a.determinant() > 0.0 {
        return (Some(maths::Polar { rotation: a, stretch: DMat3::IDENTITY }), false);
    }
    (maths::polar_newton(a), true)
}

/// What the per-vertex pass reads of a stretch `S`.
#[derive(Clone, Copy, Debug)]
struct Stretch {
    /// `S` in f32.
    matrix: Mat3,
    /// `S` differs from `I` (beyond [`RIGID_TOLERANCE`]).
    differs: bool,
    /// `s` where `S` is `s·I` (to [`RIGID_TOLERANCE`] relative), else 0.
    uniform_scale: f32,
}

impl Stretch {
    #[inline(always)]
    fn of(s: &DMat3) -> Self {
        let differs = !(*s - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, RIGID_TOLERANCE);
        let scale = (s.x_axis.x + s.y_axis.y + s.z_axis.z) / 3.0;
        let uniform =
            (*s - DMat3::from_diagonal(DVec3::splat(scale))).abs_diff_eq(DMat3::ZERO, RIGID_TOLERANCE * scale);
        Self { matrix: s.as_mat3(), differs, uniform_scale: if uniform { scale as f32 } else { 0.0 } }
    }
}

/// A rigid split `A = R S`: `R`, and what the pass reads of `S`.
struct Rigid {
    rotation: DMat3,
    stretch: Stretch,
}

/// `A = G · B`'s split through the bind pose's `B = R_B S_B` where `G` is a rotation times a
/// uniform scale `s` to [`ROTATION_TOLERANCE`]: `R = s⁻¹G · R_B`, `S = s S_B` (the polar factors
/// are unique, and a scaled rotation commutes with the split). `Some(None)`: `G` qualifies but
/// `det(B) <= 0`, so `A` has no rigid part; `None`: `G` does not qualify.
fn through_bind(g: DMat3, bind: &BindSplit) -> Option<Option<Rigid>> {
    if !bind.ready {
        return None;
    }
    // Columns of unequal lengths (a non-uniform scale, even one of f32 rounding's size in an
    // exported node) fail at once, before the whole GᵀG.
    let lengths = DVec3::new(g.x_axis.length_squared(), g.y_axis.length_squared(), g.z_axis.length_squared());
    let scale2 = (lengths.x + lengths.y + lengths.z) / 3.0;
    if !(scale2.is_finite() && scale2 > 0.0)
        || (lengths - DVec3::splat(scale2)).abs().max_element() > ROTATION_TOLERANCE * scale2
    {
        return None;
    }
    let gtg = g.transpose() * g;
    if (gtg - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, ROTATION_TOLERANCE) {
        return Some(bind.polar.map(|(b, stretch)| Rigid { rotation: g * b.rotation, stretch }));
    }
    if !(gtg * (1.0 / scale2) - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, ROTATION_TOLERANCE) {
        return None;
    }
    let s = scale2.sqrt();
    Some(
        bind.polar
            .map(|(b, _)| Rigid { rotation: (g * (1.0 / s)) * b.rotation, stretch: Stretch::of(&(b.stretch * s)) }),
    )
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
    split: Split::Rotation,
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

/// The parts of `C = G · B` that `method` reads (`global` is G, the 3x3 part of the joint node's
/// `model_from_node`; `bind` the split of B, used where G is a scaled rotation).
pub(crate) fn joint_part(c: &DMat4, global: &DMat3, bind: &BindSplit, method: SkinningMethod) -> JointPart {
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
    let (rigid, split) = match through_bind(*global, bind) {
        Some(rigid) => (rigid, Split::Bind),
        None => {
            let (polar, solved) = rigid_split(DMat3::from_mat4(*c));
            let rigid = polar.map(|p| Rigid { rotation: p.rotation, stretch: Stretch::of(&p.stretch) });
            (rigid, if solved { Split::Solved } else { Split::Rotation })
        }
    };
    let Some(Rigid { rotation, stretch }) = rigid else {
        return JointPart { cols, translation: t, degenerate: true, split, ..JointPart::default() };
    };
    let q = DQuat::from_mat3(&rotation).normalize();
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
    JointPart {
        cols,
        rotation: q,
        rotation_matrix,
        translation: t,
        turned,
        dual,
        stretch: stretch.matrix,
        has_stretch: stretch.differs,
        uniform_scale: stretch.uniform_scale,
        degenerate: false,
        split,
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
    /// Of those, joints whose 3x3 part was split by a polar decomposition in this pose.
    pub polar_solved: usize,
    /// Of those, joints split through their inverse bind matrix's split (no polar decomposition
    /// per pose).
    pub through_bind: usize,
    /// Joints with a stretch S ≠ I (their sets take the stretch path).
    pub stretched: usize,
    /// Of those, joints whose stretch is a uniform scale s·I (a cheap stretch path).
    pub uniform: usize,
    /// Joints with det(A) ≤ 0 (their sets fall back to LBS).
    pub degenerate: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    /// An inverse bind matrix as a file stores it: a rotation (times `scale`) rounded to f32.
    fn rounded_bind(axis: DVec3, angle: f64, scale: f64) -> DMat4 {
        let m = DMat4::from_scale_rotation_translation(
            DVec3::splat(scale),
            DQuat::from_axis_angle(axis.normalize(), angle),
            DVec3::new(0.3, -1.2, 0.7),
        );
        DMat4::from_cols_array(&m.to_cols_array().map(|v| f64::from(v as f32)))
    }

    fn split_of(ibm: &DMat4) -> BindSplit {
        let mut bind = BindSplit::default();
        bind.update(ibm);
        bind
    }

    /// The part through the bind pose equals the part of `C = G · B` split itself (by Newton) to
    /// f64 rounding, for rotations and uniformly scaled rotations `G`.
    #[test]
    fn the_split_through_the_bind_pose_is_the_polar_split_of_the_joint_matrix() {
        let binds = [rounded_bind(DVec3::new(1.0, 2.0, 3.0), 0.7, 1.0), rounded_bind(DVec3::Y, -2.1, 0.01)];
        let globals = [
            DMat4::from_rotation_translation(
                DQuat::from_axis_angle(DVec3::new(-0.4, 1.0, 0.2).normalize(), 1.3),
                DVec3::X,
            ),
            DMat4::from_scale_rotation_translation(DVec3::splat(100.0), DQuat::from_rotation_z(0.4), DVec3::Z),
            DMat4::from_scale_rotation_translation(DVec3::splat(0.5), DQuat::from_rotation_x(-2.9), DVec3::Y),
        ];
        for method in [SkinningMethod::Dqs, SkinningMethod::Sbs] {
            for ibm in &binds {
                for g in &globals {
                    let c = *g * *ibm;
                    let fast = joint_part(&c, &DMat3::from_mat4(*g), &split_of(ibm), method);
                    let own =
                        joint_part(&c, &DMat3::from_diagonal(DVec3::new(1.0, 2.0, 3.0)), &BindSplit::default(), method);
                    assert_eq!(fast.split, Split::Bind, "{method}");
                    assert_eq!(own.split, Split::Solved, "{method}");
                    let (a, b) = (fast.rotation, own.rotation);
                    let dot = a.dot(b);
                    assert!((dot.abs() - 1.0).abs() < 1e-14, "{method}: rotations agree ({a} vs {b})");
                    assert!((fast.stretch - own.stretch).abs_diff_eq(Mat3::ZERO, 1e-6 * own.stretch.x_axis.x.abs()));
                    assert_eq!(fast.has_stretch, own.has_stretch);
                    assert_eq!(fast.uniform_scale > 0.0, own.uniform_scale > 0.0);
                    if own.uniform_scale > 0.0 {
                        assert!((fast.uniform_scale / own.uniform_scale - 1.0).abs() < 1e-6);
                    }
                    assert!((fast.dual * dot.signum() as f32 - own.dual).abs().max_element() < 1e-5, "{method}");
                }
            }
        }
    }

    /// A mirrored inverse bind matrix has no rigid part under a rotation; a non-uniformly scaled
    /// `G` (even by f32 rounding, as exported nodes carry) takes the joint matrix's own split.
    #[test]
    fn mirrors_stay_degenerate_and_non_uniform_scales_split_the_joint_matrix() {
        let mirror = DMat4::from_scale(DVec3::new(-1.0, 1.0, 1.0));
        let g = DMat4::from_rotation_y(0.8);
        let part = joint_part(&(g * mirror), &DMat3::from_mat4(g), &split_of(&mirror), SkinningMethod::Dqs);
        assert!(part.degenerate);
        let ibm = rounded_bind(DVec3::X, 0.3, 1.0);
        for scale in [DVec3::new(1.0, 1.000_000_119_209_29, 1.0), DVec3::new(2.0, 1.0, 1.0)] {
            let g = DMat4::from_scale_rotation_translation(scale, DQuat::from_rotation_z(0.9), DVec3::ZERO);
            let part = joint_part(&(g * ibm), &DMat3::from_mat4(g), &split_of(&ibm), SkinningMethod::Sbs);
            assert_eq!(part.split, Split::Solved, "{scale}");
            assert!(!part.degenerate);
        }
        // Collapsed, non-finite or huge node and bind matrices: no rigid part, and no panic.
        let nan = DMat4::from_scale(DVec3::new(f64::NAN, 1.0, 1.0));
        for (g, b) in [
            (DMat4::from_scale(DVec3::ZERO), ibm),
            (nan, ibm),
            (DMat4::from_scale(DVec3::splat(f64::INFINITY)), ibm),
            (DMat4::from_rotation_y(0.8), nan),
            (DMat4::from_scale(DVec3::splat(1e200)), ibm),
        ] {
            for method in [SkinningMethod::Dqs, SkinningMethod::Sbs] {
                let part = joint_part(&(g * b), &DMat3::from_mat4(g), &split_of(&b), method);
                assert!(part.degenerate, "{method}: {g} · {b}");
            }
        }
        // A split made for another inverse bind matrix is not current for this one.
        assert!(!split_of(&ibm).is_for(&DMat3::from_mat4(mirror)));
        assert!(split_of(&ibm).is_for(&DMat3::from_mat4(ibm)));
    }
}
