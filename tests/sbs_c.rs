//! Continuous SBS (`sbs-c`, docs/sbs-c.md): its stated properties. Equal to SBS on two-joint sets
//! (within 1e-6 of the diagonal), rigid for one influence, equal to LBS when all rotations agree,
//! continuous as a weight goes to zero (where SBS jumps), and never NaN.
#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use common::rigs::{self, MeshSpec};
use glam::{DQuat, DVec3, Vec3};
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
