//! The optimised deformation engine against a plain per-vertex f64 evaluation of the contract's
//! formulas (shared/spec/deformation.md), for LBS, DQS and SBS, on synthetic rigs (1, 2, 4 and 8
//! influences) and real models, on one and two threads, with and without the AVX2+FMA variant:
//! every position within 1e-5 of the bounding-box diagonal, every normal within 1e-4.
#![allow(clippy::unwrap_used)]

use glam::{DMat3, DMat4, DQuat, DVec3, Vec3};
use nalgebra::DMatrix;
use skinlab::model::Model;
use skinlab::rig::{fk, sample, Pose};
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
use skinlab::synthetic::{animate, SyntheticRig};

fn models_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models"))
}

/// The spec's centre: minimum-norm least squares of (R_a − R_b) r = t_b − t_a by SVD, singular
/// values below 1e-6 dropped.
fn reference_centre(parts: &[(DMat3, DVec3)]) -> DVec3 {
    let n = parts.len();
    if n < 2 {
        return DVec3::ZERO;
    }
    let rows = 3 * n * (n - 1) / 2;
    let mut d = DMatrix::<f64>::zeros(rows, 3);
    let mut e = DMatrix::<f64>::zeros(rows, 1);
    let mut row = 0;
    for a in 0..n {
        for b in a + 1..n {
            let diff = parts[a].0 - parts[b].0;
            let rhs = parts[b].1 - parts[a].1;
            for r in 0..3 {
                let line = diff.row(r);
                d[(row + r, 0)] = line.x;
                d[(row + r, 1)] = line.y;
                d[(row + r, 2)] = line.z;
                e[(row + r, 0)] = rhs[r];
            }
            row += 3;
        }
    }
    let svd = d.svd(true, true);
    let x = svd.solve(&e, 1e-6).unwrap();
    DVec3::new(x[(0, 0)], x[(1, 0)], x[(2, 0)])
}

/// (position, normal) of one vertex by the contract, in f64.
fn reference_vertex(
    method: SkinningMethod,
    c: &[DMat4],
    pairs: &[(u16, f32)],
    pivot: usize,
    v: DVec3,
    n: DVec3,
) -> (DVec3, DVec3) {
    if pairs.is_empty() {
        return (v, n);
    }
    let lbs = || {
        let mut m = DMat4::ZERO;
        for &(j, w) in pairs {
            m += c[j as usize] * f64::from(w);
        }
        (m.transform_point3(v), DMat3::from_mat4(m).mul_vec3(n).normalize_or_zero())
    };
    if method == SkinningMethod::Lbs {
        return lbs();
    }
    let mut parts = Vec::new();
    for &(j, _) in pairs {
        let cj = c[j as usize];
        let Some(p) = skinlab::maths::polar(DMat3::from_mat4(cj)) else {
            return lbs();
        };
        parts.push((p.rotation, p.stretch, cj.w_axis.truncate()));
    }
    let mut s = DMat3::ZERO;
    for (&(_, w), part) in pairs.iter().zip(&parts) {
        s += part.1 * f64::from(w);
    }
    let vs = s * v;
    let ns = if s.determinant() > 0.0 { s.inverse() * n } else { n };
    let quats: Vec<DQuat> = parts.iter().map(|p| DQuat::from_mat3(&p.0).normalize()).collect();
    let qp = quats[pivot];
    match method {
        SkinningMethod::Dqs => {
            let mut real = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
            let mut dual = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
            for (i, &(_, w)) in pairs.iter().enumerate() {
                let t = parts[i].2;
                let d = DQuat::from_xyzw(t.x, t.y, t.z, 0.0) * quats[i] * 0.5;
                let sign = if qp.dot(quats[i]) < 0.0 { -1.0 } else { 1.0 };
                real += quats[i] * (sign * f64::from(w));
                dual += d * (sign * f64::from(w));
            }
            let len = real.length();
            let (r, d) = (real * (1.0 / len), dual * (1.0 / len));
            let t = d * r.conjugate() * 2.0;
            (r * vs + DVec3::new(t.x, t.y, t.z), (r * ns).normalize_or_zero())
        }
        _ => {
            let rt: Vec<(DMat3, DVec3)> = parts.iter().map(|p| (p.0, p.2)).collect();
            let rc = reference_centre(&rt);
            let mut q = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
            let mut t = DVec3::ZERO;
            for (i, &(_, w)) in pairs.iter().enumerate() {
                let sign = if qp.dot(quats[i]) < 0.0 { -1.0 } else { 1.0 };
                q += quats[i] * (sign * f64::from(w));
                t += f64::from(w) * (parts[i].0 * rc + parts[i].2);
            }
            // Q = rotation matrix of q / (q · q): for a non-unit q that is the rotation of q̂.
            let rot = DMat3::from_quat(q.normalize());
            (rot * (vs - rc) + t, (rot * ns).normalize_or_zero())
        }
    }
}

/// Checks every method on `model` in `pose` against the reference, on 1 and 2 threads.
fn check(model: &Model, pose: &Pose, what: &str) {
    let mut globals = Vec::new();
    fk::model_from_node(&model.nodes, pose, &mut globals);
    let skin_c: Vec<Vec<DMat4>> = model
        .skins
        .iter()
        .map(|skin| {
            let mut c = Vec::new();
            fk::model_from_bind(skin, &globals, &mut c);
            c
        })
        .collect();
    for (threads, wide) in [(1, true), (2, true), (2, false)] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        skinlab::skinning::set_wide_simd(wide);
        for method in SkinningMethod::ALL {
            let mut deformer = Deformer::new();
            let mut out: Vec<Vec<DeformedPrimitive>> = Vec::new();
            pool.install(|| deformer.deform_all(model, pose, method, &mut out));
            let mut worst_p = 0.0f64;
            let mut worst_n = 0.0f64;
            let mut lo = DVec3::splat(f64::INFINITY);
            let mut hi = DVec3::splat(f64::NEG_INFINITY);
            for (ii, inst) in model.instances.iter().enumerate() {
                let skin = &model.skins[inst.skin];
                for (pi, prim) in model.meshes[inst.mesh].primitives.iter().enumerate() {
                    let got = &out[ii][pi];
                    assert_eq!(got.positions.len(), prim.positions.len());
                    for v in 0..prim.positions.len() {
                        let (pairs, pivot) = match &prim.influences {
                            Some(inf) => (
                                inf.vertex(v, &skin.sets).collect::<Vec<_>>(),
                                skinlab::model::Influences::unpack(inf.packed_sets()[v]).1,
                            ),
                            None => (Vec::new(), 0),
                        };
                        let rest_n = prim.normals.as_ref().map_or(Vec3::ZERO, |n| n[v]);
                        let (p, n) = reference_vertex(
                            method,
                            &skin_c[inst.skin],
                            &pairs,
                            pivot,
                            prim.positions[v].as_dvec3(),
                            rest_n.as_dvec3(),
                        );
                        lo = lo.min(p);
                        hi = hi.max(p);
                        worst_p = worst_p.max((got.positions[v].as_dvec3() - p).length());
                        if prim.normals.is_some() && n.length() > 0.5 {
                            worst_n = worst_n.max((got.normals[v].as_dvec3() - n).length());
                        }
                    }
                }
            }
            let diag = (hi - lo).length().max(1e-12);
            assert!(
                worst_p <= 1e-5 * diag,
                "{what}, {method}, {threads} threads, wide simd {wide}: position off by {worst_p:e} (diagonal {diag})"
            );
            assert!(
                worst_n <= 1e-4,
                "{what}, {method}, {threads} threads, wide simd {wide}: normal off by {worst_n:e}"
            );
        }
    }
}

#[test]
fn synthetic_rigs_match_the_contract() {
    for (vertices, joints, influences) in [(40_000, 64, 4), (20_000, 40, 8), (20_000, 16, 2), (3_000, 8, 1)] {
        let model = SyntheticRig { vertices, joints, influences }.build().unwrap();
        let mut pose = Pose::rest();
        for frame in [0, 7, 40] {
            animate(&model, frame, &mut pose);
            check(&model, &pose, &format!("synthetic {vertices}/{joints}/{influences} frame {frame}"));
        }
    }
}

#[test]
fn synthetic_rig_with_stretch_and_mirror_matches_the_contract() {
    let model = SyntheticRig { vertices: 20_000, joints: 24, influences: 4 }.build().unwrap();
    let mut pose = Pose::rest();
    animate(&model, 11, &mut pose);
    pose.set_scale(3, DVec3::new(1.5, 0.7, 1.0));
    pose.set_scale(9, DVec3::new(-1.0, 1.0, 1.0));
    check(&model, &pose, "synthetic with stretch and mirror");
}

#[test]
fn real_models_match_the_contract() {
    for (file, clip_time) in [
        ("Fox.glb", Some((1, 0.4))),
        ("CesiumMan.glb", Some((0, 1.1))),
        ("Stegosaurus.glb", Some((0, 0.7))),
        ("Enemy_Flying_Gun.glb", Some((0, 0.3))),
        ("Character_HumanoidRig.glb", None),
        ("Knight.glb", Some((3, 0.5))),
    ] {
        let model = skinlab::io::load_model(&models_dir().join(file)).unwrap();
        let mut pose = Pose::rest();
        match clip_time {
            Some((clip, t)) if clip < model.clips.len() => sample::sample_clip(&model.clips[clip], t, &mut pose),
            _ => animate(&model, 9, &mut pose),
        }
        check(&model, &pose, file);
        let mut pose = Pose::rest();
        animate(&model, 23, &mut pose);
        check(&model, &pose, &format!("{file} (synthetic pose)"));
    }
}
