//! Every real model in `../shared/models` (MODELS.md): it loads with the facts MODELS.md lists; where
//! its rest pose is its bind pose, skinning the rest pose reproduces the stored (bind-space) mesh up
//! to one similarity transform with every method (and where it is not, it does not); seeded random
//! poses and every animation clip give finite positions and unit normals with every method; and
//! `skinlab deform` writes the contract's OBJ layout with the library's numbers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/gltf_edit.rs"]
mod gltf_edit;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{DQuat, DVec3, Vec3};
use skinlab::io::pose_file;
use skinlab::model::Model;
use skinlab::rig::{sample, Pose};
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

/// What MODELS.md says about each file: skins with their joint counts, clips, and whether the rest
/// pose is the bind pose (with the residual share it reports when it is not).
struct Facts {
    file: &'static str,
    joints_per_skin: &'static [usize],
    clips: usize,
    skinned_nodes: usize,
    rest_residual: Option<f64>,
    /// The skinned rest pose is the stored mesh itself (C_j = I), not only up to a similarity.
    rest_is_stored: bool,
}

const MODELS: [Facts; 9] = [
    Facts {
        file: "SimpleSkin.gltf",
        joints_per_skin: &[2],
        clips: 1,
        skinned_nodes: 1,
        rest_residual: None,
        rest_is_stored: true,
    },
    Facts {
        file: "RiggedSimple.glb",
        joints_per_skin: &[2],
        clips: 1,
        skinned_nodes: 1,
        rest_residual: None,
        rest_is_stored: false,
    },
    Facts {
        file: "RiggedFigure.glb",
        joints_per_skin: &[19],
        clips: 1,
        skinned_nodes: 1,
        rest_residual: None,
        rest_is_stored: false,
    },
    Facts {
        file: "CesiumMan.glb",
        joints_per_skin: &[19],
        clips: 1,
        skinned_nodes: 1,
        rest_residual: None,
        rest_is_stored: false,
    },
    Facts {
        file: "Fox.glb",
        joints_per_skin: &[24],
        clips: 3,
        skinned_nodes: 1,
        rest_residual: None,
        rest_is_stored: true,
    },
    Facts {
        file: "Knight.glb",
        joints_per_skin: &[41],
        clips: 76,
        skinned_nodes: 6,
        rest_residual: None,
        rest_is_stored: true,
    },
    Facts {
        file: "Character_HumanoidRig.glb",
        joints_per_skin: &[27, 27, 27, 27],
        clips: 0,
        skinned_nodes: 4,
        rest_residual: None,
        rest_is_stored: false,
    },
    Facts {
        file: "Enemy_Flying_Gun.glb",
        joints_per_skin: &[12, 12],
        clips: 6,
        skinned_nodes: 2,
        rest_residual: Some(0.316),
        rest_is_stored: false,
    },
    Facts {
        file: "Stegosaurus.glb",
        joints_per_skin: &[29],
        clips: 6,
        skinned_nodes: 1,
        rest_residual: Some(0.066),
        rest_is_stored: false,
    },
];

fn load(file: &str) -> Model {
    skinlab::io::load_model(&gltf_edit::model(file)).unwrap_or_else(|e| panic!("{e}"))
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn axis(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(self.unit(), self.unit(), self.unit()) * 2.0 - 1.0;
            let len = v.length();
            if (0.1..=1.0).contains(&len) {
                return v / len;
            }
        }
    }
}

/// Every joint of every skin rotated from its rest rotation by a random angle up to `max_rad`.
fn random_pose(model: &Model, rng: &mut Rng, max_rad: f64) -> Pose {
    let mut pose = Pose::rest();
    let mut joints: Vec<usize> = model.skins.iter().flat_map(|s| s.joints.iter().copied()).collect();
    joints.sort_unstable();
    joints.dedup();
    for j in joints {
        let rest = model.nodes.nodes[j].rest.to_trs().rotation.normalize();
        let delta = DQuat::from_axis_angle(rng.axis(), rng.unit() * max_rad);
        pose.set_rotation(j, rest * delta);
    }
    pose
}

fn deform(model: &Model, pose: &Pose, method: SkinningMethod) -> Vec<Vec<DeformedPrimitive>> {
    let mut out = Vec::new();
    Deformer::new().deform_all(model, pose, method, &mut out);
    out
}

/// Bounding-box diagonal of deformed positions.
fn diagonal(out: &[Vec<DeformedPrimitive>]) -> f64 {
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for p in out.iter().flatten().flat_map(|d| &d.positions) {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    f64::from((hi - lo).length())
}

/// Asserts finite positions and, for every vertex with influences whose stored normal is non-zero,
/// a unit normal; a vertex without influences keeps its stored position and normal.
fn assert_sane(model: &Model, out: &[Vec<DeformedPrimitive>], what: &str) {
    for (inst, prims) in model.instances.iter().zip(out) {
        let skin = &model.skins[inst.skin];
        for (p, (prim, d)) in model.meshes[inst.mesh].primitives.iter().zip(prims).enumerate() {
            assert_eq!(d.positions.len(), prim.positions.len());
            for (v, x) in d.positions.iter().enumerate() {
                assert!(x.is_finite(), "{what}: node {} primitive {p} vertex {v}: position {x}", inst.node);
            }
            let Some(normals) = &prim.normals else {
                assert!(d.normals.is_empty());
                continue;
            };
            assert_eq!(d.normals.len(), normals.len());
            for (v, (n, rest)) in d.normals.iter().zip(normals).enumerate() {
                let influenced = prim.influences.as_ref().is_some_and(|inf| inf.count(v, &skin.sets) > 0);
                if !influenced {
                    assert_eq!(*n, *rest, "{what}: an uninfluenced vertex keeps its normal");
                    assert_eq!(d.positions[v], prim.positions[v], "{what}: an uninfluenced vertex does not move");
                } else if rest.length() > 0.0 {
                    assert!(
                        (n.length() - 1.0).abs() < 1e-4,
                        "{what}: node {} primitive {p} vertex {v}: |n| = {} ({n})",
                        inst.node,
                        n.length()
                    );
                }
            }
        }
    }
}

/// The similarity `y ≈ c R x + t` fitting `dst` to `src` by least squares (Umeyama 1991), and the
/// largest distance left.
fn similarity_residual(src: &[DVec3], dst: &[DVec3]) -> f64 {
    use nalgebra::{Matrix3, Vector3};
    let n = src.len() as f64;
    let mu_x = src.iter().copied().sum::<DVec3>() / n;
    let mu_y = dst.iter().copied().sum::<DVec3>() / n;
    let var_x = src.iter().map(|x| (*x - mu_x).length_squared()).sum::<f64>() / n;
    let mut cov = Matrix3::<f64>::zeros();
    for (x, y) in src.iter().zip(dst) {
        let (dx, dy) = (*x - mu_x, *y - mu_y);
        cov += Vector3::new(dy.x, dy.y, dy.z) * Vector3::new(dx.x, dx.y, dx.z).transpose() / n;
    }
    let svd = cov.svd(true, true);
    let (u, v_t) = (svd.u.unwrap(), svd.v_t.unwrap());
    let mut s = Matrix3::<f64>::identity();
    if u.determinant() * v_t.determinant() < 0.0 {
        s[(2, 2)] = -1.0;
    }
    let r = u * s * v_t;
    let c = (Matrix3::from_diagonal(&svd.singular_values) * s).trace() / var_x;
    let mu_x = Vector3::new(mu_x.x, mu_x.y, mu_x.z);
    let t = Vector3::new(mu_y.x, mu_y.y, mu_y.z) - c * r * mu_x;
    src.iter()
        .zip(dst)
        .map(|(x, y)| {
            let fit = c * r * Vector3::new(x.x, x.y, x.z) + t;
            (fit - Vector3::new(y.x, y.y, y.z)).norm()
        })
        .fold(0.0, f64::max)
}

fn all_model_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(gltf_edit::models_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_model_loads_with_the_listed_facts() {
    let files = all_model_files();
    assert_eq!(files.len(), MODELS.len(), "{files:?}");
    for f in &MODELS {
        assert!(files.iter().any(|p| p.file_name() == Some(OsStr::new(f.file))), "{} is listed", f.file);
        let model = load(f.file);
        let joints: Vec<usize> = model.skins.iter().map(|s| s.joints.len()).collect();
        assert_eq!(joints, f.joints_per_skin, "{}: joints per skin", f.file);
        assert_eq!(model.clips.len(), f.clips, "{}: clips", f.file);
        assert_eq!(model.instances.len(), f.skinned_nodes, "{}: skinned mesh nodes", f.file);
        assert!(model.instances.windows(2).all(|w| w[0].node < w[1].node), "{}: instances in node order", f.file);
        for inst in &model.instances {
            for prim in &model.meshes[inst.mesh].primitives {
                assert!(prim.influences.is_some(), "{}: every skinned primitive has weights", f.file);
            }
        }
    }
}

#[test]
fn rest_pose_is_the_bind_pose_up_to_one_similarity() {
    for f in &MODELS {
        let model = load(f.file);
        let stored: Vec<DVec3> = model
            .instances
            .iter()
            .flat_map(|i| model.meshes[i.mesh].primitives.iter().flat_map(|p| p.positions.iter().map(|v| v.as_dvec3())))
            .collect();
        for method in SkinningMethod::ALL {
            let out = deform(&model, &Pose::rest(), method);
            let skinned: Vec<DVec3> =
                out.iter().flatten().flat_map(|d| d.positions.iter().map(|v| v.as_dvec3())).collect();
            let share = similarity_residual(&stored, &skinned) / diagonal(&out);
            // Where C_j = I at rest for every joint, the skinned rest mesh is the stored mesh itself.
            let moved = stored.iter().zip(&skinned).map(|(a, b)| (*a - *b).length()).fold(0.0, f64::max);
            let moved_share = moved / diagonal(&out);
            if f.rest_is_stored {
                assert!(moved_share < 1e-5, "{} {method}: the rest pose moves the mesh by {moved_share:e}", f.file);
            } else {
                assert!(moved_share > 0.1, "{} {method}: stored mesh and rest pose differ by {moved_share}", f.file);
            }
            match f.rest_residual {
                None => assert!(share < 1e-4, "{} {method}: rest pose is {share:e} of the diagonal from bind", f.file),
                // MODELS.md rounds to a tenth of a percent; it fits one similarity for the whole file.
                Some(listed) => assert!(
                    share > 0.5 * listed && share < 1.5 * listed,
                    "{} {method}: rest differs from bind by {share} of the diagonal (MODELS.md: {listed})",
                    f.file
                ),
            }
        }
    }
}

#[test]
fn random_poses_give_finite_positions_and_unit_normals() {
    let mut rng = Rng(0x5EE_D0F5_C1AB);
    for f in &MODELS {
        let model = load(f.file);
        for round in 0..3 {
            let pose = random_pose(&model, &mut rng, 120f64.to_radians());
            for method in SkinningMethod::ALL {
                let out = deform(&model, &pose, method);
                assert_sane(&model, &out, &format!("{} random pose {round} {method}", f.file));
            }
        }
    }
}

#[test]
fn every_clip_deforms_without_nan() {
    for f in &MODELS {
        let model = load(f.file);
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        for (c, clip) in model.clips.iter().enumerate() {
            let (a, b) = clip.range();
            assert!(a.is_finite() && b.is_finite() && a <= b, "{} clip {c}: range {a}..{b}", f.file);
            for t in [a - 0.5, a, 0.5 * (a + b), b, b + 0.5] {
                let mut pose = Pose::rest();
                sample::sample_clip(clip, t, &mut pose);
                for o in pose.overrides.values() {
                    assert!(o.rotation.is_none_or(|q| q.is_finite() && (q.length() - 1.0).abs() < 1e-9));
                    assert!(o.translation.is_none_or(|v| v.is_finite()) && o.scale.is_none_or(|v| v.is_finite()));
                }
                for method in SkinningMethod::ALL {
                    deformer.deform_all(&model, &pose, method, &mut out);
                    let name = clip.name.clone().unwrap_or_else(|| format!("#{c}"));
                    assert_sane(&model, &out, &format!("{} clip {name} t={t} {method}", f.file));
                }
            }
        }
    }
    // The zero-length clips of Knight (MODELS.md) are among those sampled above.
    let knight = load("Knight.glb");
    for name in ["T-Pose", "Death_A_Pose", "Lie_Pose", "Unarmed_Pose"] {
        let clip = &knight.clips[knight.find_clip(name).unwrap()];
        assert_eq!(clip.range().0, clip.range().1, "{name} has length 0");
    }
}

/// One parsed OBJ object: name, positions, normals and 1-based faces as written.
struct ObjObject {
    name: String,
    positions: Vec<[f64; 3]>,
    normals: Vec<[f64; 3]>,
    faces: Vec<[(usize, Option<usize>); 3]>,
}

/// Significant digits of a number as written (exponent, sign and leading zeros excluded).
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap();
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    digits.trim_start_matches('0').len()
}

fn parse_obj(text: &str) -> Vec<ObjObject> {
    let mut objects: Vec<ObjObject> = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(kind) = words.next() else { continue };
        let rest: Vec<&str> = words.collect();
        if kind == "o" {
            assert_eq!(rest.len(), 1, "{line}");
            objects.push(ObjObject { name: rest[0].to_owned(), positions: vec![], normals: vec![], faces: vec![] });
            continue;
        }
        let obj = objects.last_mut().unwrap_or_else(|| panic!("{line:?} before any o line"));
        match kind {
            "v" | "vn" => {
                assert_eq!(rest.len(), 3, "{line}");
                let mut xyz = [0.0; 3];
                for (slot, word) in xyz.iter_mut().zip(&rest) {
                    *slot = word.parse().unwrap();
                    assert!(*slot == 0.0 || significant_digits(word) >= 9, "9 significant digits: {word} in {line:?}");
                }
                if kind == "v" {
                    obj.positions.push(xyz);
                } else {
                    obj.normals.push(xyz);
                }
            }
            "f" => {
                assert_eq!(rest.len(), 3, "triangles only: {line}");
                let corner = |w: &str| match w.split_once("//") {
                    Some((a, b)) => (a.parse().unwrap(), Some(b.parse().unwrap())),
                    None => (w.parse().unwrap(), None),
                };
                obj.faces.push([corner(rest[0]), corner(rest[1]), corner(rest[2])]);
            }
            other => panic!("unexpected OBJ line kind {other:?}: {line}"),
        }
    }
    objects
}

/// Checks an OBJ written by `skinlab deform` against the library's deformation of the same pose.
fn check_obj(model: &Model, text: &str, expected: &[Vec<DeformedPrimitive>], what: &str) {
    let objects = parse_obj(text);
    let mut expect_names = Vec::new();
    let mut pairs = Vec::new();
    for (inst, prims) in model.instances.iter().zip(expected) {
        for (p, (prim, d)) in model.meshes[inst.mesh].primitives.iter().zip(prims).enumerate() {
            expect_names.push(format!("{}/{p}", model.nodes.key(inst.node)));
            pairs.push((prim, d));
        }
    }
    let names: Vec<&str> = objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, expect_names, "{what}: o lines in node then primitive order");
    let diag = diagonal(expected);
    let mut base = 1;
    for (obj, (prim, d)) in objects.iter().zip(pairs) {
        assert_eq!(obj.positions.len(), prim.positions.len(), "{what} {}: one v per vertex", obj.name);
        // The OBJ lists vertices in accessor order; the model may hold them in joint-set order.
        let in_file =
            |data: &[Vec3]| -> Vec<Vec3> { (0..data.len()).map(|f| data[prim.order.model_index(f)]).collect() };
        for (written, lib) in obj.positions.iter().zip(&in_file(&d.positions)) {
            let err = (DVec3::from_array(*written) - lib.as_dvec3()).length();
            assert!(err <= 1e-6 * diag.max(1e-3), "{what} {}: {written:?} vs {lib}", obj.name);
        }
        let with_normals = prim.normals.is_some();
        assert_eq!(obj.normals.len(), if with_normals { prim.positions.len() } else { 0 }, "{what}: vn lines");
        for (written, lib) in obj.normals.iter().zip(&in_file(&d.normals)) {
            assert!((DVec3::from_array(*written) - lib.as_dvec3()).length() < 1e-6, "{what}: {written:?} vs {lib}");
        }
        assert_eq!(obj.faces.len(), prim.triangles.len(), "{what} {}: one f per triangle", obj.name);
        for (face, tri) in obj.faces.iter().zip(&prim.file_triangles()) {
            for ((v, n), &i) in face.iter().zip(tri) {
                assert_eq!(*v, i as usize + base, "{what}: faces are 1-based over the file");
                assert_eq!(*n, with_normals.then_some(*v), "{what}: f a//a with normals, f a b c without");
            }
        }
        base += prim.positions.len();
    }
}

fn run_deform(model_path: &Path, extra: &[&OsStr], method: SkinningMethod, out: &Path) {
    let mut args: Vec<&OsStr> = vec![OsStr::new("deform"), model_path.as_os_str()];
    args.extend_from_slice(extra);
    args.extend([OsStr::new("--method"), OsStr::new(method.name()), OsStr::new("--out"), out.as_os_str()]);
    let status = Command::new(env!("CARGO_BIN_EXE_skinlab")).args(&args).output().unwrap();
    assert_eq!(status.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&status.stderr));
    assert!(status.stderr.is_empty());
}

#[test]
fn deform_writes_the_contract_obj() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(42);
    for f in &MODELS {
        let path = gltf_edit::model(f.file);
        let model = load(f.file);
        // A pose file with random rotations on every joint, written as the contract's JSON.
        let pose = random_pose(&model, &mut rng, 90f64.to_radians());
        let pose_path = dir.path().join(format!("{}.pose.json", f.file));
        std::fs::write(&pose_path, pose_file::pose_to_json(&pose, &model.nodes)).unwrap();
        let reread = pose_file::read_pose_file(&pose_path, &model.nodes).unwrap();
        for method in SkinningMethod::ALL {
            let out = dir.path().join(format!("{}.{method}.obj", f.file));
            run_deform(&path, &[OsStr::new("--pose"), pose_path.as_os_str()], method, &out);
            let text = std::fs::read_to_string(&out).unwrap();
            check_obj(&model, &text, &deform(&model, &reread, method), &format!("{} pose file {method}", f.file));
        }
        // The middle of the first clip, and the rest pose.
        if let Some(clip) = model.clips.first() {
            let (a, b) = clip.range();
            let t = 0.5 * (a + b);
            let mut pose = Pose::rest();
            sample::sample_clip(clip, t, &mut pose);
            let out = dir.path().join(format!("{}.clip.obj", f.file));
            let time = t.to_string();
            run_deform(
                &path,
                &[OsStr::new("--animation"), OsStr::new("#0"), OsStr::new("--time"), OsStr::new(&time)],
                SkinningMethod::Sbs,
                &out,
            );
            check_obj(
                &model,
                &std::fs::read_to_string(&out).unwrap(),
                &deform(&model, &pose, SkinningMethod::Sbs),
                &format!("{} clip #0", f.file),
            );
        }
        let out = dir.path().join(format!("{}.rest.obj", f.file));
        run_deform(&path, &[], SkinningMethod::Lbs, &out);
        check_obj(
            &model,
            &std::fs::read_to_string(&out).unwrap(),
            &deform(&model, &Pose::rest(), SkinningMethod::Lbs),
            &format!("{} rest", f.file),
        );
    }
}
