//! Continuous SBS (`sbs-c`, docs/sbs-c.md): its stated properties. Equal to SBS on two-joint sets
//! (within 1e-6 of the diagonal), rigid for one influence, equal to LBS when all rotations agree,
//! continuous as a weight goes to zero (where SBS jumps), and never NaN.
#![allow(clippy::unwrap_used, clippy::needless_range_loop, missing_docs)]

mod common;

use common::rigs::{self, MeshSpec};
use glam::{DMat3, DMat4, DQuat, DVec3, Vec3};
use skinlab::model::Model;
use skinlab::rig::Pose;
use skinlab::skinning::{Deformer, SkinningMethod};

fn positions(model: &Model, pose: &Pose, method: SkinningMethod) -> Vec<Vec3> {
    let mut out = Vec::new();
    Deformer::new().deform_all(model, pose, method, &mut out);
    out[0][0].positions.clone()
}

fn largest_distance(a: &[Vec3], b: &[Vec3]) -> f64 {
    a.iter().zip(b).map(|(p, q)| f64::from(p.distance(*q))).fold(0.0, f64::max)
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn unit(&mut self) -> DVec3 {
        DVec3::new(self.next() - 0.5, self.next() - 0.5, self.next() - 0.5).normalize()
    }
}

#[test]
fn equals_sbs_on_two_joint_sets() {
    let model = rigs::two_bone_cylinder(41, 24);
    let diagonal = common::bbox_diagonal(model.meshes[0].primitives[0].positions.iter().copied()) as f64;
    let mut rng = Lcg(12);
    let mut worst: f64 = 0.0;
    for _ in 0..40 {
        let mut pose = Pose::rest();
        rigs::rotate(&mut pose, 1, rng.unit(), 3.0 * rng.next());
        rigs::rotate(&mut pose, 0, rng.unit(), rng.next());
        let d = largest_distance(
            &positions(&model, &pose, SkinningMethod::SbsC),
            &positions(&model, &pose, SkinningMethod::Sbs),
        );
        worst = worst.max(d / diagonal);
    }
    println!("sbs-c vs sbs on two-joint sets: largest distance {worst:.2e} of the diagonal");
    assert!(worst < 1e-6, "{worst}");
}

/// Joints a, b, c, d in a chain along +x; `weights` per vertex at `points`.
fn chain(weights: &[Vec<(u32, f32)>], points: &[Vec3]) -> Model {
    let mesh = MeshSpec { positions: points.to_vec(), weights: weights.to_vec(), ..MeshSpec::default() };
    let joints = [
        rigs::joint("a", None, DVec3::ZERO),
        rigs::joint("b", Some(0), DVec3::new(1.0, 0.0, 0.0)),
        rigs::joint("c", Some(1), DVec3::new(1.0, 0.0, 0.0)),
        rigs::joint("d", Some(2), DVec3::new(1.0, 0.0, 0.0)),
    ];
    rigs::build(&joints, &mesh)
}

fn bent_pose(rng: &mut Lcg) -> Pose {
    let mut pose = Pose::rest();
    for j in 0..4 {
        rigs::rotate(&mut pose, j, rng.unit(), 2.0 * rng.next());
    }
    pose
}

#[test]
fn one_influence_is_rigid_and_agreeing_rotations_give_lbs() {
    let points: Vec<Vec3> = (0..40).map(|i| Vec3::new(0.1 * i as f32, 0.3 * (i % 3) as f32, -0.2)).collect();
    let single: Vec<Vec<(u32, f32)>> = (0..40).map(|i| vec![((i % 4) as u32, 1.0)]).collect();
    let model = chain(&single, &points);
    let mut rng = Lcg(3);
    for _ in 0..10 {
        let pose = bent_pose(&mut rng);
        let d = largest_distance(
            &positions(&model, &pose, SkinningMethod::SbsC),
            &positions(&model, &pose, SkinningMethod::Lbs),
        );
        assert!(d < 1e-5, "one influence moves rigidly: {d}");
    }
    // Every joint with the same global rotation (only the root turns; the others slide).
    let mixed: Vec<Vec<(u32, f32)>> =
        (0..40).map(|i| vec![(0, 0.1 + 0.02 * i as f32), (1, 0.3), (2, 0.2), (3, 0.05 * (i % 5) as f32)]).collect();
    let model = chain(&mixed, &points);
    for _ in 0..10 {
        let mut pose = Pose::rest();
        pose.set_rotation(0, DQuat::from_axis_angle(rng.unit(), 3.0 * rng.next()));
        for j in 1..4 {
            pose.set_translation(j, DVec3::new(1.0, 0.0, 0.0) + 0.3 * rng.unit());
        }
        let d = largest_distance(
            &positions(&model, &pose, SkinningMethod::SbsC),
            &positions(&model, &pose, SkinningMethod::Lbs),
        );
        assert!(d < 1e-5, "agreeing rotations give LBS: {d}");
    }
}

/// The largest jump over `poses` of a vertex weighted (ε, 0.6, 0.4 − ε)-ish to a, b, c when its
/// weight on a goes from ε to 0.
fn jump(method: SkinningMethod, epsilon: f32, poses: &[Pose]) -> f64 {
    let p = vec![Vec3::new(1.2, 0.25, 0.1)];
    let with = chain(&[vec![(0, epsilon), (1, 0.6), (2, 0.4 - epsilon)]], &p);
    let without = chain(&[vec![(1, 0.6), (2, 0.4 - epsilon)]], &p);
    poses
        .iter()
        .map(|pose| largest_distance(&positions(&with, pose, method), &positions(&without, pose, method)))
        .fold(0.0, f64::max)
}

#[test]
fn a_weight_going_to_zero_moves_the_vertex_continuously() {
    let mut rng = Lcg(99);
    let poses: Vec<Pose> = (0..20).map(|_| bent_pose(&mut rng)).collect();
    let eps = [1e-1f32, 1e-2, 1e-3, 1e-4];
    let sbs_c: Vec<f64> = eps.iter().map(|&e| jump(SkinningMethod::SbsC, e, &poses)).collect();
    let sbs: Vec<f64> = eps.iter().map(|&e| jump(SkinningMethod::Sbs, e, &poses)).collect();
    println!("jump as the weight goes from eps to 0, eps = {eps:?}\n  sbs-c {sbs_c:?}\n  sbs   {sbs:?}");
    for k in 1..eps.len() {
        assert!(sbs_c[k] < 0.2 * sbs_c[k - 1] + 1e-6, "sbs-c's jump shrinks with eps: {sbs_c:?}");
    }
    // What is left is of the order of ε itself (the other weights are renormalised), as for LBS.
    let lbs = jump(SkinningMethod::Lbs, 1e-4, &poses);
    assert!(sbs_c[3] < 1e-3 && sbs_c[3] < 10.0 * lbs.max(1e-7), "sbs-c {sbs_c:?}, lbs {lbs}");
    assert!(sbs[3] > 0.3 * sbs[1] && sbs[3] > 1e-3, "SBS's jump does not shrink: {sbs:?}");
}

#[test]
fn never_nan() {
    let mut rng = Lcg(5);
    for case in 0..30 {
        let points: Vec<Vec3> = (0..12).map(|_| (rng.unit() * 2.0).as_vec3()).collect();
        let mut weights: Vec<Vec<(u32, f32)>> = Vec::new();
        for _ in 0..12 {
            let mut slots = Vec::new();
            for j in 0..4 {
                let (keep, w) = (rng.next() < 0.7, rng.next() as f32);
                if keep && w > 0.0 {
                    slots.push((j, w));
                }
            }
            weights.push(slots);
        }
        let model = chain(&weights, &points);
        let mut pose = bent_pose(&mut rng);
        if case % 3 == 0 {
            // Exactly opposite rotations (180° apart) and coinciding ones.
            rigs::rotate(&mut pose, 1, DVec3::Y, std::f64::consts::PI);
            rigs::rotate(&mut pose, 2, DVec3::Y, 0.0);
        }
        let p = positions(&model, &pose, SkinningMethod::SbsC);
        assert!(p.iter().all(|v| v.is_finite()), "case {case}: {p:?}");
    }
}

/// Joints a, b, c, d in a chain along +x, with rest normals.
fn chain_with_normals(weights: &[Vec<(u32, f32)>], points: &[Vec3], normals: &[Vec3]) -> Model {
    let mesh = MeshSpec {
        positions: points.to_vec(),
        normals: normals.to_vec(),
        weights: weights.to_vec(),
        ..MeshSpec::default()
    };
    let joints = [
        rigs::joint("a", None, DVec3::ZERO),
        rigs::joint("b", Some(0), DVec3::new(1.0, 0.0, 0.0)),
        rigs::joint("c", Some(1), DVec3::new(1.0, 0.0, 0.0)),
        rigs::joint("d", Some(2), DVec3::new(1.0, 0.0, 0.0)),
    ];
    rigs::build(&joints, &mesh)
}

fn deformed(model: &Model, pose: &Pose) -> (Vec<Vec3>, Vec<Vec3>) {
    let mut out = Vec::new();
    Deformer::new().deform_all(model, pose, SkinningMethod::SbsC, &mut out);
    (out[0][0].positions.clone(), out[0][0].normals.clone())
}

/// The eight-lane path (runs of eight vertices sharing a set word) and the per-vertex path give
/// bit-identical results: a vertex does not move when painting changes its neighbours' sets.
#[test]
fn a_vertex_does_not_depend_on_its_neighbours() {
    let mut rng = Lcg(21);
    let sets: [&[u32]; 5] = [&[0, 1], &[1, 2, 3], &[0, 1, 2, 3], &[2, 3], &[0, 2, 3]];
    let (mut points, mut normals, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    for group in 0..40 {
        let joints = sets[group % sets.len()];
        for _ in 0..8 {
            points.push((rng.unit() * 1.5 + DVec3::new(1.5, 0.0, 0.0)).as_vec3());
            normals.push(rng.unit().as_vec3());
            // The first joint keeps the largest weight, so the eight share their pivot too.
            let mut w: Vec<(u32, f32)> = joints.iter().map(|&j| (j, 0.05 + 0.2 * rng.next() as f32)).collect();
            w[0].1 = 1.0;
            weights.push(w);
        }
    }
    let grouped = chain_with_normals(&weights, &points, &normals);
    // The same vertices with the two halves interleaved: no run of eight shares a set.
    let half = points.len() / 2;
    let order: Vec<usize> = (0..half).flat_map(|i| [i, half + i]).collect();
    let pick = |v: &Vec<Vec3>| order.iter().map(|&i| v[i]).collect::<Vec<_>>();
    let weights_mixed: Vec<Vec<(u32, f32)>> = order.iter().map(|&i| weights[i].clone()).collect();
    let mixed = chain_with_normals(&weights_mixed, &pick(&points), &pick(&normals));
    let words = grouped.meshes[0].primitives[0].influences.as_ref().unwrap().packed_sets().to_vec();
    assert!(words.chunks(8).all(|c| c.iter().all(|&w| w == c[0])), "the grouped model runs in eights");
    for _ in 0..10 {
        let pose = bent_pose(&mut rng);
        let (gp, gn) = deformed(&grouped, &pose);
        let (mp, mn) = deformed(&mixed, &pose);
        for (k, &i) in order.iter().enumerate() {
            assert_eq!(gp[i].to_array().map(f32::to_bits), mp[k].to_array().map(f32::to_bits), "position of {i}");
            assert_eq!(gn[i].to_array().map(f32::to_bits), mn[k].to_array().map(f32::to_bits), "normal of {i}");
        }
    }
}

/// Continuous SBS of one vertex by its definition (docs/sbs-c.md), in f64 with nalgebra's LU:
/// `pairs` its (joint, weight) slots, `pivot` the slot the quaternions are signed against; `None`
/// where a joint has no rigid part (the LBS fallback).
fn reference_sbs_c(c: &[DMat4], pairs: &[(u16, f32)], pivot: usize, v: DVec3, n: DVec3) -> Option<(DVec3, DVec3)> {
    let mut parts = Vec::new();
    let mut stretch = DMat3::ZERO;
    for &(j, w) in pairs {
        let cj = c[j as usize];
        let p = skinlab::maths::polar(DMat3::from_mat4(cj))?;
        stretch += p.stretch * f64::from(w);
        parts.push((p.rotation, cj.w_axis.truncate()));
    }
    // Stretches are blended first (spec "Methods"), then the rigid parts act on v_s.
    let v = stretch * v;
    let n = if stretch.determinant() > 0.0 { stretch.inverse() * n } else { n };
    let mut m = nalgebra::Matrix3::<f64>::identity() * skinlab::skinning::sbs_c::TIKHONOV;
    let mut b = nalgebra::Vector3::new(v.x, v.y, v.z) * skinlab::skinning::sbs_c::TIKHONOV;
    let na = |a: DMat3| nalgebra::Matrix3::from_column_slice(&a.to_cols_array());
    for a in 0..pairs.len() {
        for k in a + 1..pairs.len() {
            let ww = f64::from(pairs[a].1) * f64::from(pairs[k].1);
            let d = na(parts[a].0 - parts[k].0);
            let e = parts[k].1 - parts[a].1;
            m += d.transpose() * d * ww;
            b += d.transpose() * nalgebra::Vector3::new(e.x, e.y, e.z) * ww;
        }
    }
    let r = m.lu().solve(&b)?;
    let centre = DVec3::new(r.x, r.y, r.z);
    let quats: Vec<DQuat> = parts.iter().map(|p| DQuat::from_mat3(&p.0).normalize()).collect();
    let mut q = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let mut shift = DVec3::ZERO;
    for (i, &(_, w)) in pairs.iter().enumerate() {
        let sign = if quats[pivot].dot(quats[i]) < 0.0 { -1.0 } else { 1.0 };
        q += quats[i] * (sign * f64::from(w));
        shift += f64::from(w) * (parts[i].0 * centre + parts[i].1);
    }
    let q = q.normalize();
    Some((q * (v - centre) + shift, (q * n).normalize_or_zero()))
}

/// The fast path (f64 centre, f32 rest, eight lanes) matches the definition on every shared model.
#[test]
fn matches_its_definition_on_every_shared_model() {
    let mut rng = Lcg(77);
    let mut report = Vec::new();
    for path in common::shared_model_files() {
        let model = skinlab::io::load_model(&path).unwrap();
        let mut pose = Pose::rest();
        for skin in &model.skins {
            for &j in &skin.joints {
                let rest = model.nodes.nodes[j].rest.to_trs().rotation;
                pose.set_rotation(j, rest * DQuat::from_axis_angle(rng.unit(), 1.5 * rng.next()));
            }
        }
        let mut globals = Vec::new();
        skinlab::rig::fk::model_from_node(&model.nodes, &pose, &mut globals);
        let mut out = Vec::new();
        Deformer::new().deform_all(&model, &pose, SkinningMethod::SbsC, &mut out);
        let (mut worst, mut checked, mut total) = (0.0f64, 0usize, 0usize);
        for (ii, inst) in model.instances.iter().enumerate() {
            let skin = &model.skins[inst.skin];
            let mut c = Vec::new();
            skinlab::rig::fk::model_from_bind(skin, &globals, &mut c);
            for (pi, prim) in model.meshes[inst.mesh].primitives.iter().enumerate() {
                let Some(inf) = &prim.influences else { continue };
                for v in 0..prim.positions.len() {
                    total += 1;
                    let pairs: Vec<(u16, f32)> = inf.vertex(v, &skin.sets).collect();
                    let pivot = skinlab::model::Influences::unpack(inf.packed_sets()[v]).1;
                    let n = prim.normals.as_ref().map_or(Vec3::ZERO, |n| n[v]).as_dvec3();
                    if pairs.is_empty() {
                        continue;
                    }
                    let Some((p, _)) = reference_sbs_c(&c, &pairs, pivot, prim.positions[v].as_dvec3(), n) else {
                        continue;
                    };
                    checked += 1;
                    worst = worst.max((out[ii][pi].positions[v].as_dvec3() - p).length());
                }
            }
        }
        // Relative to the deformed mesh (a model may be stored small under a scaled skeleton).
        let diagonal = common::bbox_diagonal(out.iter().flatten().flat_map(|p| p.positions.iter().copied()));
        let worst = worst / f64::from(diagonal).max(1e-9);
        report.push(format!("{}: {checked}/{total} vertices, worst {worst:.2e} of the diagonal", path.display()));
        assert!(worst < 1e-6 && checked * 10 >= total * 9, "{}", report.last().unwrap());
    }
    println!("{}", report.join("\n"));
    assert!(report.len() >= 9);
}
