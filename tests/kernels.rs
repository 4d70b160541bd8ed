//! The per-vertex kernels against themselves and the contract where they take shortcuts: the
//! eight-lane path gives bit-identical results to the per-vertex path on stretched rigs (uniform
//! and non-uniform armature scales), and vertices whose set has one joint are deformed by LBS's
//! columns in every method, equal across methods and within the contract's tolerance.
#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use common::rigs::{self, MeshSpec};
use glam::{DMat3, DMat4, DVec3, Vec3};
use skinlab::model::{Influences, Model};
use skinlab::rig::{fk, Pose};
use skinlab::skinning::frame::{SET_FAR_CENTRE, SET_ONE_JOINT, SET_STRETCH, SET_UNIFORM_STRETCH};
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

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

/// Joints a–d in a chain along +x; `groups` runs of eight consecutive vertices, run `g` weighted
/// to `sets[g % len]` with its first joint the largest (so the eight share set and pivot).
fn chain_in_runs(sets: &[&[u32]], groups: usize, rng: &mut Lcg) -> Model {
    chain_in_runs_of(sets, &[8], groups * 8, true, rng)
}

/// Joints a–d in a chain along +x, one unit apart, skinning `mesh`.
fn chain(mesh: &MeshSpec) -> Model {
    let joints = [
        rigs::joint("a", None, DVec3::ZERO),
        rigs::joint("b", Some(0), DVec3::new(1.0, 0.0, 0.0)),
        rigs::joint("c", Some(1), DVec3::new(1.0, 0.0, 0.0)),
        rigs::joint("d", Some(2), DVec3::new(1.0, 0.0, 0.0)),
    ];
    rigs::build(&joints, mesh)
}

fn bent_pose(rng: &mut Lcg) -> Pose {
    let mut pose = Pose::rest();
    for j in 0..4 {
        rigs::rotate(&mut pose, j, rng.unit(), 2.0 * rng.next());
    }
    pose
}

fn influences(model: &Model) -> &Influences {
    model.meshes[0].primitives[0].influences.as_ref().unwrap()
}

fn bits(v: Vec3) -> [u32; 3] {
    v.to_array().map(f32::to_bits)
}

/// The whole primitive in one pass (runs of eight go through the lanes where the CPU has AVX2
/// and FMA), and each vertex re-skinned alone (a group of one: the per-vertex path).
fn full_and_one_by_one(model: &Model, pose: &Pose, method: SkinningMethod) -> (DeformedPrimitive, DeformedPrimitive) {
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    deformer.deform_all(model, pose, method, &mut out);
    let full = out[0][0].clone();
    let mut single = full.clone();
    single.positions.fill(Vec3::splat(f32::NAN));
    single.normals.fill(Vec3::splat(f32::NAN));
    for v in 0..full.positions.len() as u32 {
        assert!(deformer.deform_vertices(model, &model.instances[0], 0, &[v], &mut single));
    }
    (full, single)
}

/// Stretched sets (a uniform scale on every joint, as FBX armatures carry, and a non-uniform one)
/// take the eight-lane path in DQS and SBS, which rounds exactly as the per-vertex path: a vertex
/// deformed with seven neighbours of its set equals the same vertex deformed alone, bit for bit,
/// in every method.
#[test]
fn lanes_equal_the_per_vertex_path_bit_for_bit_on_stretched_sets() {
    let mut rng = Lcg(7);
    let sets: [&[u32]; 6] = [&[0, 1], &[1, 2, 3], &[0, 1, 2, 3], &[2, 3], &[0, 2, 3], &[1]];
    let model = chain_in_runs(&sets, 48, &mut rng);
    let words = influences(&model).packed_sets().to_vec();
    assert!(words.chunks(8).all(|c| c.iter().all(|&w| w == c[0])), "the model runs in eights");
    let uniform_scale = |rng: &mut Lcg| {
        let mut pose = bent_pose(rng);
        pose.set_scale(0, DVec3::splat(40.0 + 80.0 * rng.next()));
        pose
    };
    let non_uniform = |rng: &mut Lcg| {
        let mut pose = bent_pose(rng);
        pose.set_scale(0, DVec3::splat(100.0));
        pose.set_scale(1, DVec3::new(1.5, 0.7, 1.0 + rng.next()));
        pose.set_scale(3, DVec3::new(0.8, 1.0 + rng.next(), 1.3));
        pose
    };
    for (what, make, uniform) in
        [("uniform", &uniform_scale as &dyn Fn(&mut Lcg) -> Pose, true), ("non-uniform", &non_uniform, false)]
    {
        for round in 0..4 {
            let pose = make(&mut rng);
            // Every set in use is stretched (uniformly or not) and nothing else: the lanes take it.
            let mut deformer = Deformer::new();
            deformer.prepare(&model, &pose, SkinningMethod::Sbs);
            let flags = &deformer.skin_frame(0).flags;
            for &word in &words {
                let f = flags[Influences::unpack(word).0 as usize];
                assert_ne!(f & SET_STRETCH, 0, "{what}: every set is stretched");
                assert_eq!(f & SET_FAR_CENTRE, 0, "{what}: no far centre");
                if f & SET_ONE_JOINT == 0 {
                    assert_eq!(f & SET_UNIFORM_STRETCH != 0, uniform, "{what}: flags {f}");
                }
            }
            for method in SkinningMethod::MENU {
                let (full, single) = full_and_one_by_one(&model, &pose, method);
                for v in 0..full.positions.len() {
                    let at = format!("{what} round {round}, {method}, vertex {v}");
                    assert_eq!(bits(full.positions[v]), bits(single.positions[v]), "position: {at}");
                    assert_eq!(bits(full.normals[v]), bits(single.normals[v]), "normal: {at}");
                    assert!(full.positions[v].is_finite() && full.normals[v].is_normalized(), "{at}");
                }
            }
        }
    }
}

/// Joints a–d in a chain along +x; each vertex weighted to a set drawn from `sets` on its own, its
/// largest joint drawn too (so neighbouring vertices rarely share set and pivot); with or without
/// normals.
fn chain_interleaved(sets: &[&[u32]], vertices: usize, normals: bool, rng: &mut Lcg) -> Model {
    let (mut positions, mut normal_list, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..vertices {
        let joints = sets[(rng.next() * sets.len() as f64) as usize % sets.len()];
        positions.push((rng.unit() * 1.5 + DVec3::new(1.5, 0.0, 0.0)).as_vec3());
        normal_list.push(rng.unit().as_vec3());
        let mut w: Vec<(u32, f32)> = joints.iter().map(|&j| (j, 0.05 + 0.3 * rng.next() as f32)).collect();
        let big = (rng.next() * w.len() as f64) as usize % w.len();
        w[big].1 = 1.0;
        weights.push(w);
    }
    let normals = if normals { normal_list } else { Vec::new() };
    let mesh = MeshSpec { positions, normals, weights, ..MeshSpec::default() };
    chain(&mesh)
}

/// Every method deforms runs of eight consecutive vertices together whatever their sets (each
/// vertex's blend on its own, the rest of the formula in eight lanes; one-joint sets and far
/// centres by the per-vertex formula in between): DQS and SBS always, LBS for primitives of 256k
/// vertices and more. A vertex deformed among seven neighbours of other sets equals the same
/// vertex deformed alone, bit for bit, with and without normals, unstretched, uniformly and
/// non-uniformly stretched, with a vertex count that leaves a tail; with eight sets (groups of
/// many sets) and with two (groups of one or two sets, as where one run of a set meets the next).
#[test]
fn mixed_groups_equal_the_per_vertex_path_bit_for_bit() {
    let mut rng = Lcg(23);
    let eight: [&[u32]; 8] = [&[0, 1], &[1, 2, 3], &[0, 1, 2, 3], &[2, 3], &[0, 2, 3], &[1], &[3], &[0, 3]];
    let two: [&[u32]; 2] = [&[0, 1, 2, 3], &[1, 2]];
    let vertices = 256 * 1024 + 13;
    // The vertices compared one by one: the first and last few thousand, and every 61st.
    let sample: Vec<u32> =
        (0..vertices as u32).filter(|&v| v < 3000 || v as usize >= vertices - 1000 || v % 61 == 0).collect();
    for (sets, normals) in [(&eight[..], true), (&eight[..], false), (&two[..], true), (&two[..], false)] {
        let model = chain_interleaved(sets, vertices, normals, &mut rng);
        let words = influences(&model).packed_sets().to_vec();
        let mixed = words.chunks_exact(8).filter(|c| c.iter().any(|&w| w != c[0])).count();
        assert!(mixed * 10 > vertices / 8 * 9, "the groups of eight mix sets and pivots ({mixed})");
        for case in 0..4 {
            let mut pose = bent_pose(&mut rng);
            match case {
                0 => {}
                1 => pose.set_scale(0, DVec3::splat(40.0 + 80.0 * rng.next())),
                _ => {
                    pose.set_scale(1, DVec3::new(1.5, 0.7, 1.0 + rng.next()));
                    pose.set_scale(3, DVec3::new(0.8, 1.0 + rng.next(), 1.3));
                }
            }
            for method in [SkinningMethod::Lbs, SkinningMethod::Dqs, SkinningMethod::Sbs] {
                let mut deformer = Deformer::new();
                let mut out = Vec::new();
                deformer.deform_all(&model, &pose, method, &mut out);
                let full = &out[0][0];
                assert_eq!(full.normals.is_empty(), !normals);
                let mut single = full.clone();
                for &v in &sample {
                    assert!(deformer.deform_vertices(&model, &model.instances[0], 0, &[v], &mut single));
                }
                for &v in &sample {
                    let (v, at) = (v as usize, format!("normals {normals}, case {case}, {method}, vertex {v}"));
                    assert_eq!(bits(full.positions[v]), bits(single.positions[v]), "position: {at}");
                    assert!(full.positions[v].is_finite(), "{at}");
                    if normals {
                        assert_eq!(bits(full.normals[v]), bits(single.normals[v]), "normal: {at}");
                        assert!(full.normals[v].is_normalized(), "{at}");
                    }
                }
            }
        }
    }
}

/// `model_from_bind` of skin 0's joints in `pose`.
fn joint_matrices(model: &Model, pose: &Pose) -> Vec<DMat4> {
    let (mut globals, mut c) = (Vec::new(), Vec::new());
    fk::model_from_node(&model.nodes, pose, &mut globals);
    fk::model_from_bind(&model.skins[0], &globals, &mut c);
    c
}

/// A vertex whose set has one joint has weight 1, so every method is `C v`; its normal is
/// `normalise(A n)` in LBS and `normalise(R S⁻¹ n) = normalise(A⁻ᵀ n)` in DQS and SBS, equal when
/// `S` is `I` or `s I`. Such sets are flagged and evaluated with LBS's columns in every method:
/// within the contract's tolerance of those formulas, and equal across methods bit for bit.
/// Under a non-uniform stretch they are not flagged, and the normals of the methods differ.
#[test]
fn one_joint_sets_are_lbs_in_every_method_within_the_contract() {
    let mut rng = Lcg(11);
    let sets: [&[u32]; 7] = [&[0], &[1], &[2], &[3], &[0, 1], &[1, 2, 3], &[2]];
    let model = chain_in_runs(&sets, 56, &mut rng);
    let prim = &model.meshes[0].primitives[0];
    let (rest, rest_n) = (&prim.positions, prim.normals.as_ref().unwrap());
    let inf = influences(&model);
    let one_joint: Vec<(usize, u16)> = (0..rest.len())
        .filter_map(|v| {
            let joints: Vec<(u16, f32)> = inf.vertex(v, &model.skins[0].sets).collect();
            (joints.len() == 1).then(|| (v, joints[0].0))
        })
        .collect();
    assert_eq!(one_joint.len(), 8 * 40);
    for case in 0..6 {
        let mut pose = bent_pose(&mut rng);
        let stretch = match case {
            0 | 1 => DVec3::ONE,
            2 | 3 => DVec3::splat(0.5 + 100.0 * rng.next()),
            _ => DVec3::new(1.6, 0.6, 1.0 + rng.next()),
        };
        pose.set_scale(1, stretch);
        let uniform = stretch.x == stretch.y && stretch.y == stretch.z;
        let c = joint_matrices(&model, &pose);
        let mut results = Vec::new();
        for method in SkinningMethod::MENU {
            let mut deformer = Deformer::new();
            let mut out = Vec::new();
            deformer.deform_all(&model, &pose, method, &mut out);
            let flags = &deformer.skin_frame(0).flags;
            let out = &out[0][0];
            let diag = f64::from(common::bbox_diagonal(out.positions.iter().copied()));
            for &(v, j) in &one_joint {
                let set = inf.set_of(v) as usize;
                // Joints 1–3 carry the non-uniform stretch in cases 4 and 5.
                // (LBS computes no stretches, and reads no flag but "empty".)
                let flagged = uniform || j == 0;
                if method != SkinningMethod::Lbs {
                    assert_eq!(flags[set] & SET_ONE_JOINT != 0, flagged, "case {case}, {method}, joint {j}");
                }
                let cj = c[usize::from(j)];
                let a = DMat3::from_mat4(cj);
                let want_p = cj.transform_point3(rest[v].as_dvec3());
                let normal_map = if method == SkinningMethod::Lbs { a } else { a.inverse().transpose() };
                let want_n = (normal_map * rest_n[v].as_dvec3()).normalize();
                let dp = (out.positions[v].as_dvec3() - want_p).length();
                let dn = (out.normals[v].as_dvec3() - want_n).length();
                assert!(dp <= 1e-5 * diag, "case {case}, {method}, vertex {v}: position off by {dp:e} (diag {diag})");
                assert!(dn <= 1e-4, "case {case}, {method}, vertex {v}: normal off by {dn:e}");
            }
            results.push(out.clone());
        }
        let mut differ = 0;
        for &(v, j) in &one_joint {
            let lbs = (bits(results[0].positions[v]), bits(results[0].normals[v]));
            for (r, method) in results.iter().zip(SkinningMethod::MENU).skip(1) {
                let other = (bits(r.positions[v]), bits(r.normals[v]));
                if uniform || j == 0 {
                    assert_eq!(lbs, other, "case {case}, {method}, vertex {v}: equal to LBS");
                } else if (r.normals[v] - results[0].normals[v]).length() > 1e-3 {
                    differ += 1;
                }
            }
        }
        if !uniform {
            assert!(differ > 0, "case {case}: a non-uniform stretch turns DQS's normals away from LBS's");
        }
    }
}

/// Joints a–d in a chain along +x; runs of consecutive vertices sharing a set and pivot, of the
/// lengths in `runs` in turn (so runs of sixteen start on and off the walk's sixteen-vertex
/// steps), each weighted to the next of `sets`; with or without normals.
fn chain_in_runs_of(sets: &[&[u32]], runs: &[usize], vertices: usize, normals: bool, rng: &mut Lcg) -> Model {
    let (mut positions, mut normal_list, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    let mut run = 0;
    while positions.len() < vertices {
        let joints = sets[run % sets.len()];
        for _ in 0..runs[run % runs.len()].min(vertices - positions.len()) {
            positions.push((rng.unit() * 1.5 + DVec3::new(1.5, 0.0, 0.0)).as_vec3());
            normal_list.push(rng.unit().as_vec3());
            let mut w: Vec<(u32, f32)> = joints.iter().map(|&j| (j, 0.05 + 0.2 * rng.next() as f32)).collect();
            w[0].1 = 1.0;
            weights.push(w);
        }
        run += 1;
    }
    let normals = if normals { normal_list } else { Vec::new() };
    let mesh = MeshSpec { positions, normals, weights, ..MeshSpec::default() };
    chain(&mesh)
}

/// Where the CPU has AVX-512, runs of sixteen vertices sharing a set go through 512-bit lanes;
/// they give the same bits as the eight-lane pass in every method, with and without normals,
/// unstretched and stretched (stretched and one-joint runs fall back to eight lanes), on a
/// primitive large enough for every method's walk of runs. (On other CPUs both passes are the
/// eight-lane one and this holds trivially.)
#[test]
fn sixteen_lanes_equal_eight_lanes_bit_for_bit() {
    let mut rng = Lcg(41);
    let sets: [&[u32]; 6] = [&[0, 1], &[1, 2, 3], &[0, 1, 2, 3], &[2, 3], &[0, 2, 3], &[1]];
    let runs = [16, 32, 8, 48, 5, 16, 27, 64, 3];
    let vertices = 256 * 1024 + 21;
    for normals in [true, false] {
        let model = chain_in_runs_of(&sets, &runs, vertices, normals, &mut rng);
        for case in 0..3 {
            let mut pose = bent_pose(&mut rng);
            match case {
                0 => {}
                1 => pose.set_scale(0, DVec3::splat(40.0 + 80.0 * rng.next())),
                _ => pose.set_scale(1, DVec3::new(1.5, 0.7, 1.0 + rng.next())),
            }
            for method in [SkinningMethod::Lbs, SkinningMethod::Dqs, SkinningMethod::Sbs] {
                let mut results = Vec::new();
                for sixteen in [true, false] {
                    skinlab::skinning::set_sixteen_lanes(sixteen);
                    let mut out = Vec::new();
                    Deformer::new().deform_all(&model, &pose, method, &mut out);
                    results.push(out.swap_remove(0).swap_remove(0));
                }
                skinlab::skinning::set_sixteen_lanes(true);
                let at = format!("normals {normals}, case {case}, {method}");
                for (v, (a, b)) in results[0].positions.iter().zip(&results[1].positions).enumerate() {
                    assert_eq!(bits(*a), bits(*b), "position of vertex {v}: {at}");
                    assert!(a.is_finite(), "vertex {v}: {at}");
                }
                assert_eq!(results[0].normals.len(), if normals { vertices } else { 0 }, "{at}");
                for (v, (a, b)) in results[0].normals.iter().zip(&results[1].normals).enumerate() {
                    assert_eq!(bits(*a), bits(*b), "normal of vertex {v}: {at}");
                }
            }
        }
    }
}
