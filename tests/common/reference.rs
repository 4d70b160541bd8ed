//! An independent, deliberately plain f64 implementation of `shared/spec/deformation.md`:
//! its own FK, polar decomposition by Higham's iteration, centres by nalgebra's pseudo-inverse,
//! per-vertex QLERP / dual quaternions with no joint-set tables. Slow and obviously correct; the
//! library's fast engine is compared against it.

use glam::{DMat3, DMat4, DQuat, DVec3, DVec4};
use skinlab::model::{Influences, Model, NodeTransform, Trs};
use skinlab::rig::Pose;
use skinlab::skinning::SkinningMethod;

/// Output of one primitive: positions and (possibly empty) normals.
pub type RefPrimitive = (Vec<DVec3>, Vec<DVec3>);

/// Polar rotation by Higham's iteration X ← (X + X⁻ᵀ)/2; `None` when det <= 0.
pub fn polar_higham(a: DMat3) -> Option<(DMat3, DMat3)> {
    let det = a.determinant();
    if det.is_nan() || det <= 0.0 {
        return None;
    }
    let mut x = a;
    for _ in 0..100 {
        let next = (x + x.inverse().transpose()) * 0.5;
        let done = (next - x).to_cols_array().iter().all(|d| d.abs() < 1e-15);
        x = next;
        if done {
            break;
        }
    }
    let s = x.transpose() * a;
    Some((x, (s + s.transpose()) * 0.5))
}

fn local(model: &Model, pose: &Pose, node: usize) -> DMat4 {
    let n = &model.nodes.nodes[node];
    let over = pose.overrides.get(&node).filter(|o| !o.is_empty());
    let mut trs = match (n.rest, over) {
        (NodeTransform::Matrix(m), None) => return m,
        (NodeTransform::Matrix(m), Some(_)) => {
            let a = DMat3::from_mat4(m);
            let (r, _) = polar_higham(a).expect("matrix node with a mirror");
            Trs {
                translation: m.w_axis.truncate(),
                rotation: DQuat::from_mat3(&r),
                scale: DVec3::new(a.x_axis.length(), a.y_axis.length(), a.z_axis.length()),
            }
        }
        (NodeTransform::Trs(t), _) => t,
    };
    if let Some(o) = over {
        trs.translation = o.translation.unwrap_or(trs.translation);
        trs.rotation = o.rotation.unwrap_or(trs.rotation);
        trs.scale = o.scale.unwrap_or(trs.scale);
    }
    DMat4::from_translation(trs.translation) * DMat4::from_quat(trs.rotation.normalize()) * DMat4::from_scale(trs.scale)
}

/// A node's global transform in `pose`, by plain recursion.
pub fn global(model: &Model, pose: &Pose, node: usize) -> DMat4 {
    let l = local(model, pose, node);
    match model.nodes.nodes[node].parent {
        Some(p) => global(model, pose, p) * l,
        None => l,
    }
}

fn quat_of(r: DMat3) -> DVec4 {
    let q = DQuat::from_mat3(&r).normalize();
    DVec4::new(q.x, q.y, q.z, q.w)
}

fn mat_of(q: DVec4) -> DMat3 {
    DMat3::from_quat(DQuat::from_xyzw(q.x, q.y, q.z, q.w).normalize())
}

fn qmul(a: DVec4, b: DVec4) -> DVec4 {
    let (qa, qb) = (DQuat::from_vec4(a), DQuat::from_vec4(b));
    DVec4::from(qa * qb)
}

/// Centre of rotation: minimum-norm least squares through the symmetric eigen-decomposition of
/// DᵀD (σ² = λ, so σ < 1e-6 ⇔ λ < 1e-12 is dropped); no SVD, so it is independent of the engine.
pub fn centre(rs: &[DMat3], ts: &[DVec3]) -> DVec3 {
    let n = rs.len();
    let mut dtd = DMat3::ZERO;
    let mut dte = DVec3::ZERO;
    for a in 0..n {
        for b in a + 1..n {
            let d = rs[a] - rs[b];
            dtd += d.transpose() * d;
            dte += d.transpose() * (ts[b] - ts[a]);
        }
    }
    let m = nalgebra::Matrix3::from_column_slice(&dtd.to_cols_array());
    let eig = m.symmetric_eigen();
    let mut x = DVec3::ZERO;
    for i in 0..3 {
        let lambda = eig.eigenvalues[i];
        if lambda < 1e-12 {
            continue;
        }
        let v = DVec3::new(eig.eigenvectors[(0, i)], eig.eigenvectors[(1, i)], eig.eigenvectors[(2, i)]);
        x += v * (v.dot(dte) / lambda);
    }
    x
}

/// Per joint: C, and its rigid split when it has one.
struct JointRef {
    c: DMat4,
    split: Option<(DMat3, DMat3, DVec3)>, // (R, S, t)
}

/// Deforms every primitive of every skinned instance by the spec, in f64.
pub fn deform(model: &Model, pose: &Pose, method: SkinningMethod) -> Vec<Vec<RefPrimitive>> {
    let mut out = Vec::new();
    for inst in &model.instances {
        let skin = &model.skins[inst.skin];
        let joints: Vec<JointRef> = skin
            .joints
            .iter()
            .zip(&skin.joint_from_bind)
            .map(|(&node, ibm)| {
                let c = global(model, pose, node) * *ibm;
                let split = polar_higham(DMat3::from_mat4(c)).map(|(r, s)| (r, s, c.w_axis.truncate()));
                JointRef { c, split }
            })
            .collect();
        let mut prims = Vec::new();
        for p in &model.meshes[inst.mesh].primitives {
            let mut pos = Vec::new();
            let mut nrm = Vec::new();
            for v in 0..p.positions.len() {
                let rest = p.positions[v].as_dvec3();
                let rest_n = p.normals.as_ref().map_or(DVec3::ZERO, |n| n[v].as_dvec3());
                let (pv, nv) = match &p.influences {
                    None => (rest, rest_n),
                    Some(inf) => {
                        let pairs: Vec<(usize, f64)> =
                            inf.vertex(v, &skin.sets).map(|(j, w)| (j as usize, f64::from(w))).collect();
                        let (_, pivot) = Influences::unpack(inf.packed_sets()[v]);
                        vertex(&joints, &pairs, pivot, rest, rest_n, method)
                    }
                };
                pos.push(pv);
                if p.normals.is_some() {
                    nrm.push(nv);
                }
            }
            prims.push((pos, nrm));
        }
        out.push(prims);
    }
    out
}

fn vertex(
    joints: &[JointRef],
    pairs: &[(usize, f64)],
    pivot: usize,
    v: DVec3,
    n: DVec3,
    method: SkinningMethod,
) -> (DVec3, DVec3) {
    if pairs.is_empty() {
        return (v, n);
    }
    let lbs = || {
        let mut p = DVec3::ZERO;
        let mut a = DMat3::ZERO;
        for &(j, w) in pairs {
            p += w * joints[j].c.transform_point3(v);
            a += DMat3::from_mat4(joints[j].c) * w;
        }
        (p, (a * n).normalize_or_zero())
    };
    if method == SkinningMethod::Lbs || pairs.iter().any(|&(j, _)| joints[j].split.is_none()) {
        return lbs();
    }
    let parts: Vec<(DMat3, DMat3, DVec3, f64)> = pairs
        .iter()
        .map(|&(j, w)| {
            let (r, s, t) = joints[j].split.unwrap();
            (r, s, t, w)
        })
        .collect();
    let s_blend = parts.iter().fold(DMat3::ZERO, |acc, p| acc + p.1 * p.3);
    let vs = s_blend * v;
    let ns = s_blend.inverse() * n;
    let quats: Vec<DVec4> = parts.iter().map(|p| quat_of(p.0)).collect();
    let qp = quats[pivot];
    let sign = |q: DVec4| if qp.dot(q) < 0.0 { -1.0 } else { 1.0 };
    match method {
        SkinningMethod::Dqs => {
            let mut real = DVec4::ZERO;
            let mut dual = DVec4::ZERO;
            for (p, &q) in parts.iter().zip(&quats) {
                let d = qmul(DVec4::new(p.2.x, p.2.y, p.2.z, 0.0), q) * 0.5;
                real += sign(q) * p.3 * q;
                dual += sign(q) * p.3 * d;
            }
            let len = real.length();
            let (c0, ce) = (real / len, dual / len);
            let conj = DVec4::new(-c0.x, -c0.y, -c0.z, c0.w);
            let t = qmul(ce, conj) * 2.0;
            let r = mat_of(c0);
            (r * vs + t.truncate(), (r * ns).normalize_or_zero())
        }
        _ => {
            let rs: Vec<DMat3> = parts.iter().map(|p| p.0).collect();
            let ts: Vec<DVec3> = parts.iter().map(|p| p.2).collect();
            let rc = centre(&rs, &ts);
            let mut s = DVec4::ZERO;
            let mut shift = DVec3::ZERO;
            for (p, &q) in parts.iter().zip(&quats) {
                s += sign(q) * p.3 * q;
                shift += p.3 * (p.0 * rc + p.2);
            }
            let q = mat_of(s);
            (q * (vs - rc) + shift, (q * ns).normalize_or_zero())
        }
    }
}
