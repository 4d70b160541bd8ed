//! Automatic weights (bone heat) through the library: the heat solution's shape on a two-bone
//! cylinder, robustness on meshes where Blender's bone heat fails (disconnected parts, seam
//! duplicates, open boundaries, bones outside the mesh, non-manifold and degenerate triangles),
//! Assign Automatic for chosen joints with locks, undo, and every shared model.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::needless_range_loop, missing_docs)]

#[path = "common/gltf_edit.rs"]
mod gltf_edit;

#[path = "common/cli_run.rs"]
mod cli_run;
use cli_run::{assert_one_error_line, skinlab};

use std::f64::consts::TAU;
use std::ffi::OsStr;

use glam::{DMat4, DVec3, Vec3};
use skinlab::bind::{bind_skin, restore, BindOptions, BindResult};
use skinlab::model::{
    JointSetTable, Mesh, Model, Node, NodeTransform, NodeTree, Primitive, Skin, SkinnedInstance, Topology, Trs,
};

/// A rig of joints in a chain (joint `j` is node `j`, child of `j − 1`) at the given bind-space
/// heads, with one mesh node (node `J`) whose primitives are given, without weights yet.
fn rig(heads: &[DVec3], primitives: Vec<Primitive>) -> Model {
    let n = heads.len();
    let mut nodes: Vec<Node> = (0..n)
        .map(|j| Node {
            name: Some(format!("joint{j}")),
            parent: j.checked_sub(1),
            children: if j + 1 < n { vec![j + 1] } else { Vec::new() },
            rest: NodeTransform::Trs(Trs {
                translation: if j == 0 { heads[0] } else { heads[j] - heads[j - 1] },
                ..Trs::default()
            }),
            ..Node::default()
        })
        .collect();
    nodes.push(Node {
        name: Some("mesh".into()),
        parent: None,
        children: Vec::new(),
        rest: NodeTransform::Trs(Trs::default()),
        mesh: Some(0),
        skin: Some(0),
        ..Node::default()
    });
    Model {
        nodes: NodeTree::new(nodes, vec![0, n]),
        meshes: vec![Mesh { name: Some("mesh".into()), primitives, ..Mesh::default() }],
        skins: vec![Skin {
            name: None,
            joints: (0..n).collect(),
            joint_from_bind: heads.iter().map(|&h| DMat4::from_translation(-h)).collect(),
            sets: JointSetTable::new(4),
        }],
        clips: Vec::new(),
        instances: vec![SkinnedInstance { node: n, mesh: 0, skin: 0 }],
        rigid_instances: Vec::new(),
    }
}

fn primitive(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Primitive {
    Primitive {
        positions,
        normals: None,
        triangles,
        topology: Topology::Triangles,
        influences: None,
        order: Default::default(),
    }
}

/// A tube along +X from `x0` to `x1` around the axis point `centre`: `rings` rings of `seg`
/// vertices (ring 0 at x0, the last at x1), optionally closed by two cap fans.
fn tube(
    x0: f64,
    x1: f64,
    centre: DVec3,
    radius: f64,
    rings: usize,
    seg: usize,
    caps: bool,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut pos = Vec::new();
    let mut tri = Vec::new();
    for r in 0..rings {
        let x = x0 + (x1 - x0) * r as f64 / (rings - 1) as f64;
        for a in 0..seg {
            let ang = TAU * a as f64 / seg as f64;
            pos.push((centre + DVec3::new(x, radius * ang.cos(), radius * ang.sin())).as_vec3());
        }
    }
    let idx = |r: usize, a: usize| (r * seg + a % seg) as u32;
    for r in 0..rings - 1 {
        for a in 0..seg {
            tri.push([idx(r, a), idx(r, a + 1), idx(r + 1, a + 1)]);
            tri.push([idx(r, a), idx(r + 1, a + 1), idx(r + 1, a)]);
        }
    }
    if caps {
        for (r, x) in [(0, x0), (rings - 1, x1)] {
            let c = pos.len() as u32;
            pos.push((centre + DVec3::new(x, 0.0, 0.0)).as_vec3());
            for a in 0..seg {
                if r == 0 {
                    tri.push([c, idx(r, a + 1), idx(r, a)]);
                } else {
                    tri.push([c, idx(r, a), idx(r, a + 1)]);
                }
            }
        }
    }
    (pos, tri)
}

fn bind(model: &mut Model, options: &BindOptions) -> BindResult {
    let result = bind_skin(model, 0, options, &mut |_| {}).unwrap();
    result.apply(model).unwrap();
    result
}

/// Every vertex of every primitive drawn with skin 0: 1..=limit influences, finite, ≥ 0, sum 1.
fn assert_valid(model: &Model, limit: usize, what: &str) {
    let table = &model.skins[0].sets;
    for (m, mesh) in model.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let inf = prim.influences.as_ref().unwrap_or_else(|| panic!("{what}: mesh {m} prim {p} has weights"));
            for v in 0..prim.positions.len() {
                let pairs: Vec<(u16, f32)> = inf.vertex(v, table).collect();
                assert!(!pairs.is_empty() && pairs.len() <= limit, "{what}: vertex {v}: {pairs:?}");
                assert!(pairs.iter().all(|p| p.1.is_finite() && p.1 > 0.0), "{what}: vertex {v}: {pairs:?}");
                let sum: f32 = pairs.iter().map(|p| p.1).sum();
                assert!((sum - 1.0).abs() < 1e-5, "{what}: vertex {v} sums to {sum}");
            }
        }
    }
}

fn weight(model: &Model, prim: usize, v: usize, joint: u16) -> f32 {
    let inf = model.meshes[0].primitives[prim].influences.as_ref().unwrap();
    inf.vertex(v, &model.skins[0].sets).find(|p| p.0 == joint).map_or(0.0, |p| p.1)
}

const SEG: usize = 16;
const RINGS: usize = 21;

fn two_bone_cylinder(caps: bool) -> Model {
    let (pos, tri) = tube(0.0, 2.0, DVec3::ZERO, 0.2, RINGS, SEG, caps);
    rig(&[DVec3::ZERO, DVec3::X], vec![primitive(pos, tri)])
}

#[test]
fn two_bone_cylinder_is_monotone_crosses_half_at_the_joint_and_symmetric() {
    let mut model = two_bone_cylinder(true);
    bind(&mut model, &BindOptions::default());
    assert_valid(&model, 4, "cylinder");
    // Mean weight of joint 0 per ring (rings at x = 0, 0.1, ..., 2).
    let ring_w: Vec<f64> = (0..RINGS)
        .map(|r| (0..SEG).map(|a| f64::from(weight(&model, 0, r * SEG + a, 0))).sum::<f64>() / SEG as f64)
        .collect();
    for r in 1..RINGS {
        assert!(ring_w[r] <= ring_w[r - 1] + 1e-6, "monotone along the axis: {ring_w:?}");
    }
    assert!(ring_w[0] > 0.95 && ring_w[RINGS - 1] < 0.05, "{ring_w:?}");
    let mid = RINGS / 2;
    assert!((ring_w[mid] - 0.5).abs() < 0.02, "crosses 0.5 at the joint: {}", ring_w[mid]);
    assert!(ring_w[mid - 1] > 0.5 && ring_w[mid + 1] < 0.5, "{ring_w:?}");
    for k in 1..=mid {
        let (a, b) = (ring_w[mid - k], 1.0 - ring_w[mid + k]);
        assert!((a - b).abs() < 0.02, "symmetric about the joint at ±{k}: {a} vs {b}");
    }
    // Around each ring the weights barely vary (the tube is round).
    for r in 0..RINGS {
        for a in 0..SEG {
            let w = f64::from(weight(&model, 0, r * SEG + a, 0));
            assert!((w - ring_w[r]).abs() < 0.02, "ring {r} vertex {a}: {w} vs {}", ring_w[r]);
        }
    }
}

#[test]
fn disconnected_parts_seams_open_boundaries_and_outside_bones_are_all_weighted() {
    // Two parts: the open arm tube, and a closed box-like tube far away that no bone is inside.
    let (pos, tri) = tube(0.0, 2.0, DVec3::ZERO, 0.2, 11, 8, false);
    let (far_pos, far_tri) = tube(0.0, 0.5, DVec3::new(0.0, 3.0, 0.0), 0.3, 3, 8, true);
    let mut model = rig(&[DVec3::ZERO, DVec3::X], vec![primitive(pos, tri), primitive(far_pos, far_tri)]);
    let result = bind(&mut model, &BindOptions::default());
    assert_valid(&model, 4, "two parts");
    assert_eq!(result.stats.parts, 2);

    // A seam: the cylinder split into two primitives that duplicate the middle ring.
    let (pos, tri) = tube(0.0, 2.0, DVec3::ZERO, 0.2, RINGS, SEG, true);
    let cut = (RINGS / 2 + 1) * SEG;
    let (mut a_pos, mut a_tri, mut b_pos, mut b_tri) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut b_map = std::collections::HashMap::new();
    for t in &tri {
        let xs: Vec<f32> = t.iter().map(|&i| pos[i as usize].x).collect();
        if xs.iter().all(|&x| x <= 1.0 + 1e-6) {
            a_tri.push(*t);
        } else {
            b_tri.push(t.map(|i| {
                *b_map.entry(i).or_insert_with(|| {
                    b_pos.push(pos[i as usize]);
                    (b_pos.len() - 1) as u32
                })
            }));
        }
    }
    a_pos.extend_from_slice(&pos);
    let mut model = rig(&[DVec3::ZERO, DVec3::X], vec![primitive(a_pos, a_tri), primitive(b_pos, b_tri)]);
    let result = bind(&mut model, &BindOptions::default());
    assert_valid(&model, 4, "seam");
    assert_eq!(result.stats.parts, 1, "the seam is welded into one part");
    let mut seam_checked = 0;
    for (&orig, &b) in &b_map {
        if (orig as usize) < cut && (orig as usize) >= cut - SEG {
            let (wa, wb) = (weight(&model, 0, orig as usize, 0), weight(&model, 1, b as usize, 0));
            assert_eq!(wa, wb, "duplicates on the seam get the same weight");
            seam_checked += 1;
        }
    }
    assert_eq!(seam_checked, SEG);

    // Bones outside the mesh: the chain runs beside the tube, not through it.
    let (pos, tri) = tube(0.0, 2.0, DVec3::ZERO, 0.2, 11, 8, true);
    let mut model = rig(&[DVec3::new(0.0, 1.0, 0.0), DVec3::new(1.0, 1.0, 0.0)], vec![primitive(pos, tri)]);
    bind(&mut model, &BindOptions::default());
    assert_valid(&model, 4, "bones outside");
    let (start, end) = (weight(&model, 0, 0, 0), weight(&model, 0, 10 * 8, 1));
    assert!(start > 0.6 && end > 0.6, "each end follows mostly its bone: {start} {end}");

    // Non-manifold fins sharing one edge, a zero-area triangle and a loose vertex.
    let mut pos = vec![Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)];
    let mut tri = Vec::new();
    for k in 0..3 {
        let ang = TAU * k as f64 / 3.0;
        pos.push(Vec3::new(1.0, 0.3 * ang.cos() as f32, 0.3 * ang.sin() as f32));
        tri.push([0, 1, 2 + k as u32]);
    }
    pos.push(Vec3::new(4.0, 0.0, 0.0));
    tri.push([0, 1, 5]);
    pos.push(Vec3::new(9.0, 9.0, 9.0));
    let mut model = rig(&[DVec3::ZERO, DVec3::X], vec![primitive(pos, tri)]);
    bind(&mut model, &BindOptions::default());
    assert_valid(&model, 4, "non-manifold and degenerate");
}

#[test]
fn limit_is_held_and_undo_restores_exactly() {
    let heads: Vec<DVec3> = (0..6).map(|j| DVec3::new(0.4 * j as f64, 0.0, 0.0)).collect();
    let (pos, tri) = tube(0.0, 2.2, DVec3::ZERO, 0.3, 23, 12, true);
    let mut model = rig(&heads, vec![primitive(pos, tri)]);
    bind(&mut model, &BindOptions::default());
    let before = model.meshes[0].primitives[0].influences.clone();
    let result = bind_skin(&model, 0, &BindOptions { limit: 1, ..BindOptions::default() }, &mut |_| {}).unwrap();
    let undo = result.apply(&mut model).unwrap();
    assert_valid(&model, 1, "limit 1");
    restore(&mut model, &undo);
    assert_eq!(model.meshes[0].primitives[0].influences, before, "bit for bit");
}

#[test]
fn assign_automatic_changes_only_its_region_and_never_a_locked_joint() {
    let mut model = skinlab::synthetic::SyntheticRig { vertices: 8000, joints: 40, influences: 4 }.build().unwrap();
    let before = model.clone();
    let (joint, locked) = (21u16, 20u16);
    let options = BindOptions { limit: 4, joints: Some(vec![joint]), locked: vec![locked], rigid_parts: false };
    let mut fractions = Vec::new();
    let result = bind_skin(&model, 0, &options, &mut |f| fractions.push(f)).unwrap();
    assert!(fractions.windows(2).all(|w| w[0] <= w[1]) && fractions.last() == Some(&1.0), "{fractions:?}");
    result.apply(&mut model).unwrap();
    let (old, new) = (
        before.meshes[0].primitives[0].influences.as_ref().unwrap(),
        model.meshes[0].primitives[0].influences.as_ref().unwrap(),
    );
    let (old_t, new_t) = (&before.skins[0].sets, &model.skins[0].sets);
    let mut changed = 0;
    for v in 0..old.len() {
        let a: Vec<(u16, f32)> = old.vertex(v, old_t).collect();
        let b: Vec<(u16, f32)> = new.vertex(v, new_t).collect();
        let w = |pairs: &[(u16, f32)], j: u16| pairs.iter().find(|p| p.0 == j).map_or(0.0, |p| p.1);
        assert_eq!(w(&a, locked), w(&b, locked), "vertex {v}: the locked joint keeps its weight exactly");
        if a != b {
            changed += 1;
            assert!(
                w(&a, joint) > 0.0 || w(&b, joint) > 0.0,
                "vertex {v} changed outside the joint's region: {a:?} -> {b:?}"
            );
        } else {
            assert_eq!(old.snapshot(v), new.snapshot(v), "vertex {v} outside the region is untouched");
        }
    }
    assert!(changed > 100, "the joint's region was recomputed ({changed} vertices)");
    assert!(changed < old.len() / 2, "and only its region ({changed} of {})", old.len());
    assert_valid(&model, 4, "assign automatic");
}

#[test]
fn every_shared_model_binds_with_every_vertex_influenced() {
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(gltf_edit::models_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 9);
    for path in names {
        let mut model = skinlab::io::load_model(&path).unwrap();
        for skin in 0..model.skins.len() {
            let result = bind_skin(&model, skin, &BindOptions::default(), &mut |_| {})
                .unwrap_or_else(|e| panic!("{}: skin {skin}: {e}", path.display()));
            result.apply(&mut model).unwrap();
            let table = &model.skins[skin].sets;
            for pb in &result.primitives {
                let prim = &model.meshes[pb.mesh].primitives[pb.primitive];
                assert_eq!(pb.vertices.len(), prim.positions.len(), "a full bind sets every vertex");
                let inf = prim.influences.as_ref().unwrap();
                for v in 0..prim.positions.len() {
                    let pairs: Vec<(u16, f32)> = inf.vertex(v, table).collect();
                    let sum: f32 = pairs.iter().map(|p| p.1).sum();
                    assert!(
                        !pairs.is_empty() && pairs.len() <= 4 && (sum - 1.0).abs() < 1e-5,
                        "{}: vertex {v}: {pairs:?}",
                        path.display()
                    );
                }
            }
        }
    }
}

#[test]
fn bind_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let fox = gltf_edit::model("Fox.glb");
    let out = dir.path().join("fox_bound.glb");
    let run = skinlab([OsStr::new("bind"), fox.as_os_str(), OsStr::new("--out"), out.as_os_str()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("bound skin 0") && text.contains("wrote"), "{text}");
    let bound = skinlab::io::load_model(&out).unwrap();
    let original = skinlab::io::load_model(&fox).unwrap();
    let (a, b) = (&bound.meshes[0].primitives[0], &original.meshes[0].primitives[0]);
    // Each load orders its vertices by its own joint sets: compare in the file's order.
    assert_eq!(a.order.to_file(&a.positions), b.order.to_file(&b.positions));
    assert_ne!(a.influences, b.influences, "new weights were written");
    // Only the named joints: a second run on the bound file for one joint.
    let again = dir.path().join("again.glb");
    let joint = bound.nodes.key(bound.skins[0].joints[5]);
    let run = skinlab([
        OsStr::new("bind"),
        out.as_os_str(),
        OsStr::new("--out"),
        again.as_os_str(),
        OsStr::new("--joints"),
        OsStr::new(&joint),
        OsStr::new("--limit"),
        OsStr::new("3"),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
}

#[test]
fn bind_with_bad_input_gives_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let fox = gltf_edit::model("Fox.glb");
    let out = dir.path().join("out.glb");
    let o = out.as_os_str();
    let bind = OsStr::new("bind");
    let flag = |s: &'static str| OsStr::new(s);
    let cases: Vec<(Vec<&OsStr>, Vec<&str>)> = vec![
        (
            vec![bind, fox.as_os_str(), flag("--out"), o, flag("--joints"), flag("NoSuchBone")],
            vec!["Fox.glb", "NoSuchBone"],
        ),
        (vec![bind, fox.as_os_str(), flag("--out"), o, flag("--skin"), flag("3")], vec!["--skin 3"]),
        (vec![bind, fox.as_os_str(), flag("--out"), o, flag("--limit"), flag("0")], vec!["--limit 0"]),
        (vec![bind, fox.as_os_str(), flag("--out"), o, flag("--limit"), flag("17")], vec!["--limit 17"]),
        (vec![bind, flag("/no/such/model.glb"), flag("--out"), o], vec!["model.glb"]),
        (vec![bind, fox.as_os_str(), flag("--out"), fox.as_os_str()], vec!["--force"]),
        (vec![bind, fox.as_os_str(), flag("--out"), o, flag("--limit"), flag("x")], vec!["--limit"]),
    ];
    for (args, needles) in &cases {
        assert_one_error_line(&skinlab(args), needles);
        assert!(!out.exists(), "{args:?}: no output on failure");
    }
    // A hostile file and a model without a skin.
    let garbage = dir.path().join("garbage.glb");
    std::fs::write(&garbage, b"glTF\x02\x00\x00\x00\xff\xff\xff\xffnonsense").unwrap();
    assert_one_error_line(&skinlab([bind, garbage.as_os_str(), flag("--out"), o]), &["garbage.glb"]);
    let mut doc = gltf_edit::GltfDoc::simple_skin();
    doc.json.as_object_mut().unwrap().remove("skins");
    for node in doc.json["nodes"].as_array_mut().unwrap() {
        node.as_object_mut().unwrap().remove("skin");
    }
    let unskinned = doc.write(&dir.path().join("unskinned.gltf"));
    assert_one_error_line(&skinlab([bind, unskinned.as_os_str(), flag("--out"), o]), &["unskinned.gltf", "no skin"]);
    // A node that is not a joint of the skin.
    let model = skinlab::io::load_model(&fox).unwrap();
    let mesh_node = model.instances[0].node;
    let key = model.nodes.key(mesh_node);
    assert_one_error_line(
        &skinlab([bind, fox.as_os_str(), flag("--out"), o, flag("--joints"), OsStr::new(&key)]),
        &["not a joint"],
    );
    assert!(!out.exists());
}
