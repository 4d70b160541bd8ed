//! `model::densify` and `skinlab densify`: the vertex target is reached; a closed mesh stays closed
//! (seams and partial rounds included) and no model gains a crack (the boundary of every mesh,
//! welded by position, keeps its length); weights stay normalised within the skin's influence
//! limit; original vertices keep their positions, normals and weights bit for bit, so in the rest
//! pose and in posed frames they deform exactly as in the source with every method; the written
//! file passes the Khronos validator, loads in three.js and reads back as the densified model;
//! bad options are one line with exit status 2.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;
#[path = "common/js_check.rs"]
mod js_check;

use std::collections::HashMap;

use common::rigs::{build, joint, MeshSpec};
use glam::{DQuat, DVec3, Vec3};
use skinlab::io::gltf_export::export_densified;
use skinlab::io::{load_document, load_model, ExportOptions};
use skinlab::model::{densify, Model};
use skinlab::rig::{sample, Pose};
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

type Key = [u32; 3];

fn key(p: Vec3) -> Key {
    [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]
}

/// Per welded (by position) undirected edge of every triangle primitive of mesh `m`: how many
/// triangles use it.
fn welded_edges(model: &Model, m: usize) -> HashMap<(Key, Key), (usize, f32)> {
    let mut uses = HashMap::new();
    for p in &model.meshes[m].primitives {
        for t in &p.triangles {
            for k in 0..3 {
                let (a, b) = (p.positions[t[k] as usize], p.positions[t[(k + 1) % 3] as usize]);
                let (ka, kb) = (key(a), key(b));
                if ka == kb {
                    continue;
                }
                let e = uses.entry((ka.min(kb), ka.max(kb))).or_insert((0, (a - b).length()));
                e.0 += 1;
            }
        }
    }
    uses
}

/// The total length of welded edges used by exactly one triangle (open boundaries and cracks).
fn boundary_length(model: &Model, m: usize) -> f64 {
    welded_edges(model, m).values().filter(|(n, _)| *n == 1).map(|(_, l)| f64::from(*l)).sum()
}

/// A unit cube as glTF stores it: four vertices per face (24, hard normals), two joints along x.
fn cube() -> Model {
    let mut mesh = MeshSpec::default();
    let faces: [(Vec3, Vec3, Vec3); 6] = [
        (Vec3::X, Vec3::Y, Vec3::Z),
        (-Vec3::X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::Z, Vec3::X),
        (-Vec3::Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (-Vec3::Z, Vec3::Y, Vec3::X),
    ];
    for (n, u, v) in faces {
        let base = mesh.positions.len() as u32;
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = n + u * su + v * sv;
            mesh.positions.push(p);
            mesh.normals.push(n);
            let t = (p.x + 1.0) / 2.0;
            mesh.weights.push(vec![(0, 1.0 - t), (1, t)]);
        }
        mesh.triangles.push([base, base + 1, base + 2]);
        mesh.triangles.push([base, base + 2, base + 3]);
    }
    build(&[joint("a", None, DVec3::new(-1.0, 0.0, 0.0)), joint("b", Some(0), DVec3::new(2.0, 0.0, 0.0))], &mesh)
}

/// Animation #0 at 0.4 s, or for a model without animations every third joint turned.
fn pose(model: &Model) -> Pose {
    let mut pose = Pose::rest();
    if let Some(clip) = model.clips.first() {
        sample::sample_clip(clip, 0.4, &mut pose);
    } else {
        for &j in model.skins[0].joints.iter().skip(1).step_by(3) {
            let rest = model.nodes.nodes[j].rest.to_trs().rotation;
            pose.set_rotation(j, DQuat::from_rotation_x(0.5) * rest);
        }
    }
    pose
}

fn deform(model: &Model, pose: &Pose, method: SkinningMethod) -> Vec<DeformedPrimitive> {
    let mut out = Vec::new();
    Deformer::new().deform_all(model, pose, method, &mut out);
    out.into_iter().flatten().collect()
}

#[test]
fn a_closed_cube_with_seams_stays_closed_through_full_and_partial_rounds() {
    let model = cube();
    assert_eq!(boundary_length(&model, 0), 0.0, "the welded cube is closed");
    for target in [30, 24 * 4 + 7, 500, 2000] {
        let dense = densify(&model, target).unwrap();
        let n = dense.model.skinned_vertex_count();
        assert!(n >= target, "{n} < {target}");
        let edges = welded_edges(&dense.model, 0);
        assert!(edges.values().all(|(uses, _)| *uses == 2), "target {target}: every welded edge has two triangles");
        // Same surface: the area is the cube's.
        let p = &dense.model.meshes[0].primitives[0];
        let area: f32 = p
            .triangles
            .iter()
            .map(|t| {
                let (a, b, c) = (p.positions[t[0] as usize], p.positions[t[1] as usize], p.positions[t[2] as usize]);
                let n = (b - a).cross(c - a);
                assert!(n.dot(a) > 0.0, "outward, counter-clockwise");
                0.5 * n.length()
            })
            .sum();
        assert!((area - 24.0).abs() < 1e-3, "target {target}: area {area}");
        // Normals stay the faces' own (hard edges are not smoothed across the seam copies).
        for (q, n) in p.positions.iter().zip(p.normals.as_ref().unwrap()) {
            assert!((n.length() - 1.0).abs() < 1e-6 && n.dot(*q) > 0.99, "{q} {n}");
        }
    }
    // The partial round adds vertices only where it must: no more than the target plus the ties of
    // equal edges (the cube's edges come in equal sets).
    assert!(densify(&model, 30).unwrap().model.skinned_vertex_count() < 24 + 18 + 1);
}

#[test]
fn every_shared_model_densifies_without_cracks_within_its_limit_and_keeps_its_vertices() {
    for path in common::shared_model_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = load_model(&path).unwrap();
        let before = model.skinned_vertex_count();
        let target = before * 5 / 2 + 1;
        let dense = densify(&model, target).unwrap();
        let d = &dense.model;
        assert!(d.skinned_vertex_count() >= target, "{name}");
        assert!(d.skinned_vertex_count() < target + before, "{name}: the last round stops near the target");
        for m in 0..model.meshes.len() {
            let (b0, b1) = (boundary_length(&model, m), boundary_length(d, m));
            assert!((b1 - b0).abs() <= 1e-4 * b0.max(1e-3), "{name} mesh {m}: boundary {b0} → {b1} (a crack)");
        }
        for inst in &model.instances {
            let limit = model.meshes[inst.mesh]
                .primitives
                .iter()
                .filter_map(|p| p.influences.as_ref())
                .flat_map(|inf| (0..inf.len()).map(|v| inf.count(v, &model.skins[inst.skin].sets)))
                .max()
                .unwrap_or(1);
            let (table, dtable) = (&model.skins[inst.skin].sets, &d.skins[inst.skin].sets);
            for (p, q) in model.meshes[inst.mesh].primitives.iter().zip(&d.meshes[inst.mesh].primitives) {
                let n = p.positions.len();
                assert!(q.triangles.iter().flatten().all(|&i| (i as usize) < q.positions.len()), "{name}");
                assert_eq!(&q.positions[..n], &p.positions[..], "{name}: original positions kept");
                assert_eq!(q.normals.as_ref().map(|v| &v[..n]), p.normals.as_deref(), "{name}: normals kept");
                for nrm in q.normals.iter().flatten() {
                    assert!((nrm.length() - 1.0).abs() < 1e-4, "{name}: unit normals");
                }
                let (Some(a), Some(b)) = (&p.influences, &q.influences) else { continue };
                assert_eq!(b.len(), q.positions.len());
                for v in 0..b.len() {
                    let pairs: Vec<(u16, f32)> = b.vertex(v, dtable).collect();
                    if v < n {
                        let orig: Vec<(u16, u32)> = a.vertex(v, table).map(|(j, w)| (j, w.to_bits())).collect();
                        let now: Vec<(u16, u32)> = pairs.iter().map(|&(j, w)| (j, w.to_bits())).collect();
                        assert_eq!(now, orig, "{name} vertex {v}: weights kept bit for bit");
                        continue;
                    }
                    assert!(!pairs.is_empty() && pairs.len() <= limit, "{name} vertex {v}: {pairs:?} (limit {limit})");
                    let sum: f32 = pairs.iter().map(|p| p.1).sum();
                    assert!(
                        (sum - 1.0).abs() < 1e-5 && pairs.iter().all(|p| p.1 > 0.0),
                        "{name} vertex {v}: {pairs:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn original_vertices_deform_as_in_the_source_at_rest_and_posed_with_every_method() {
    for path in common::shared_model_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = load_model(&path).unwrap();
        let dense = densify(&model, model.skinned_vertex_count() * 2).unwrap();
        for pose in [Pose::rest(), pose(&model)] {
            for method in SkinningMethod::ALL {
                let (a, b) = (deform(&model, &pose, method), deform(&dense.model, &pose, method));
                let diag = common::bbox_diagonal(a.iter().flat_map(|p| p.positions.iter().copied()));
                for (pa, pb) in a.iter().zip(&b) {
                    for (v, (x, y)) in pa.positions.iter().zip(&pb.positions).enumerate() {
                        let d = (*x - *y).length();
                        assert!(d <= 1e-4 * diag, "{name} {method:?} vertex {v}: {x} vs {y} ({d}, diagonal {diag})");
                    }
                }
            }
        }
    }
}

#[test]
fn in_the_rest_pose_every_new_vertex_sits_where_it_was_made() {
    // Rest = bind with identity rest offsets: every vertex deforms onto its stored position.
    let model = cube();
    let dense = densify(&model, 3000).unwrap();
    for method in SkinningMethod::ALL {
        let out = deform(&dense.model, &Pose::rest(), method);
        for (x, y) in out[0].positions.iter().zip(&dense.model.meshes[0].primitives[0].positions) {
            assert!((*x - *y).length() < 1e-5, "{method:?}: {x} vs {y}");
        }
    }
}

#[test]
fn the_written_file_validates_loads_in_three_js_and_reads_back_as_the_dense_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut expected = Vec::new();
    for path in common::shared_model_files() {
        let (model, source) = load_document(&path).unwrap();
        let dense = densify(&model, model.skinned_vertex_count() * 3).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("{stem}-dense.glb"));
        export_densified(&dense, &source, &ExportOptions::default(), &out).unwrap();
        let back = load_model(&out).unwrap();
        assert_eq!(back.skinned_vertex_count(), dense.model.skinned_vertex_count(), "{stem}");
        for (m, mesh) in dense.model.meshes.iter().enumerate() {
            // Each model orders its vertices by its joint sets: compared in the file's order.
            for (p, q) in mesh.primitives.iter().zip(&back.meshes[m].primitives) {
                assert_eq!(p.order.to_file(&p.positions), q.order.to_file(&q.positions), "{stem}: positions read back");
                assert_eq!(p.file_triangles(), q.file_triangles(), "{stem}: triangles read back");
            }
        }
        // Weights come back as written (floats renormalised on reading: a few ulps), with the same
        // pivots; SBS can magnify an ulp of weight on ill-conditioned sets, so positions are
        // compared under LBS and DQS.
        for inst in &dense.model.instances {
            let (ta, tb) = (&dense.model.skins[inst.skin].sets, &back.skins[inst.skin].sets);
            for (p, q) in dense.model.meshes[inst.mesh].primitives.iter().zip(&back.meshes[inst.mesh].primitives) {
                let (Some(a), Some(b)) = (&p.influences, &q.influences) else { continue };
                for f in 0..a.len() {
                    let (v, u) = (p.order.model_index(f), q.order.model_index(f));
                    let (x, y): (Vec<_>, Vec<_>) = (a.vertex(v, ta).collect(), b.vertex(u, tb).collect());
                    assert!(
                        x.len() == y.len() && x.iter().zip(&y).all(|(s, t)| s.0 == t.0 && (s.1 - t.1).abs() < 1e-6),
                        "{stem} vertex {f}: {x:?} vs {y:?}"
                    );
                    let pivot = |inf: &skinlab::model::Influences, v: usize| {
                        skinlab::model::Influences::unpack(inf.packed_sets()[v]).1
                    };
                    assert_eq!(pivot(a, v), pivot(b, u), "{stem} vertex {f}: pivot");
                }
            }
        }
        for method in [SkinningMethod::Lbs, SkinningMethod::Dqs] {
            let (da, db) = (deform(&dense.model, &pose(&model), method), deform(&back, &pose(&model), method));
            let diag = common::bbox_diagonal(da.iter().flat_map(|p| p.positions.iter().copied()));
            let of = |m: &Model| -> Vec<skinlab::model::Primitive> {
                m.instances.iter().flat_map(|i| m.meshes[i.mesh].primitives.iter().cloned()).collect()
            };
            let prims = of(&dense.model).into_iter().zip(of(&back));
            for ((pa, pb), (p, q)) in da.iter().zip(&db).zip(prims) {
                for (x, y) in p.order.to_file(&pa.positions).iter().zip(&q.order.to_file(&pb.positions)) {
                    assert!((*x - *y).length() <= 1e-4 * diag, "{stem} {method:?}: {x} vs {y}");
                }
            }
        }
        files.push(out.clone());
        files.push(path.clone());
        expected.push((out, path));
    }
    let loads = js_check::three_load(&files);
    let reports = js_check::validate(&files);
    for (out, src) in &expected {
        let (e, s) = (&loads[out], &loads[src]);
        assert_eq!(e["ok"], true, "{}: three.js: {}", out.display(), e["error"]);
        for key in ["meshes", "skinnedMeshes", "bones", "clips", "tracks", "textures"] {
            assert_eq!(e[key], s[key], "{}: {key}", out.display());
        }
        assert!(e["vertices"].as_u64().unwrap() > s["vertices"].as_u64().unwrap(), "{}", out.display());
        assert_eq!(reports[out]["errors"], 0, "{}: validator: {}", out.display(), reports[out]["messages"]);
    }
}

#[test]
fn the_cli_writes_a_dense_file_and_bad_options_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::shared_models().join("RiggedSimple.glb");
    let out = dir.path().join("dense.glb");
    let run = cli_run::skinlab([
        "densify".as_ref(),
        src.as_os_str(),
        "--vertices".as_ref(),
        "1000".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("densified: ") && text.contains("wrote "), "{text}");
    assert!(load_model(&out).unwrap().skinned_vertex_count() >= 1000);

    let s = src.to_str().unwrap();
    let o = out.to_str().unwrap();
    let bad: [(&[&str], &[&str]); 6] = [
        (&["densify", s, "--vertices", "0", "--out", o], &["--vertices", "0 is not in 1..=5000000"]),
        (&["densify", s, "--vertices", "many", "--out", o], &["many"]),
        (&["densify", s, "--vertices", "60000000", "--out", o], &["60000000", "is not in 1..=5000000"]),
        (&["densify", s, "--vertices", "100", "--out", "x.obj"], &[".glb or .gltf"]),
        (&["densify", "/nonexistent/m.glb", "--vertices", "100", "--out", o], &["m.glb"]),
        (&["bench", s, "--densify", "0"], &["--densify", "0 is not in 1..=5000000"]),
    ];
    for (args, needles) in bad {
        cli_run::assert_one_error_line(&cli_run::skinlab(args), needles);
    }
    // Refuses to overwrite its source.
    cli_run::assert_one_error_line(
        &cli_run::skinlab(["densify", s, "--vertices", "500", "--out", s]),
        &["names the model", "refusing to overwrite it"],
    );
}
