//! The importer orders each skinned primitive's vertices by joint set (`model::vertex_order`);
//! every file skinlab writes by vertex keeps the file's order. Checked against the files as the
//! `gltf` crate reads them (not through skinlab's reader), on every shared model.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use skinlab::io::{export_model, load_document, write_weights_file, ExportOptions, WeightsFormat};
use skinlab::model::{Influences, Model};

/// Per skinned primitive of `model` (first instance of each mesh): the node and primitive index
/// in the file, with the model's primitive.
fn skinned_primitives(model: &Model) -> Vec<(usize, usize, &skinlab::model::Primitive)> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for inst in &model.instances {
        if seen.contains(&inst.mesh) {
            continue;
        }
        seen.push(inst.mesh);
        for (p, prim) in model.meshes[inst.mesh].primitives.iter().enumerate() {
            out.push((inst.node, p, prim));
        }
    }
    out
}

/// A .glb's document and its binary chunk as buffer 0 (`None` for a .gltf).
fn open_glb(path: &Path) -> Option<(gltf::Document, Vec<Vec<u8>>)> {
    if path.extension().is_none_or(|e| e != "glb") {
        return None;
    }
    let gltf = gltf::Gltf::from_slice(&std::fs::read(path).unwrap()).unwrap();
    Some((gltf.document, vec![gltf.blob.unwrap()]))
}

/// The file's primitive `p` of node `node`'s mesh.
fn file_primitive<'a>(doc: &'a gltf::Document, node: usize, p: usize) -> gltf::Primitive<'a> {
    doc.nodes().nth(node).unwrap().mesh().unwrap().primitives().nth(p).unwrap()
}

/// Per file vertex: the normalised non-zero (joint, weight) pairs of JOINTS_0/WEIGHTS_0, joints
/// ascending (what the contract reads for a vertex with at most four influences).
fn file_weights(prim: &gltf::Primitive<'_>, buffers: &[Vec<u8>]) -> Vec<Vec<(u16, f32)>> {
    let reader = prim.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
    let joints: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
    let weights: Vec<[f32; 4]> = reader.read_weights(0).unwrap().into_f32().collect();
    joints
        .iter()
        .zip(&weights)
        .map(|(j, w)| {
            let mut pairs: BTreeMap<u16, f32> = BTreeMap::new();
            for k in 0..4 {
                if w[k] != 0.0 {
                    *pairs.entry(j[k]).or_default() += w[k];
                }
            }
            let sum: f32 = pairs.values().sum();
            pairs.into_iter().map(|(j, w)| (j, w / sum)).collect()
        })
        .collect()
}

fn close(a: &[(u16, f32)], b: &[(u16, f32)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0 && (x.1 - y.1).abs() < 1e-5)
}

#[test]
fn skinned_vertices_are_grouped_by_joint_set_and_map_back_to_the_file() {
    for path in common::shared_model_files() {
        let (model, _) = load_document(&path).unwrap();
        let Some((doc, buffers)) = open_glb(&path) else { continue };
        let name = path.file_name().unwrap().to_string_lossy();
        let mut moved = false;
        for (node, p, prim) in skinned_primitives(&model) {
            let fp = file_primitive(&doc, node, p);
            let reader = fp.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            let ours: Vec<[f32; 3]> = prim.order.to_file(&prim.positions).iter().map(|v| v.to_array()).collect();
            assert_eq!(ours, positions, "{name} node {node} primitive {p}: positions in the file's order");
            if let Some(indices) = reader.read_indices() {
                let indices: Vec<u32> = indices.into_u32().collect();
                let ours: Vec<u32> = prim.file_triangles().into_iter().flatten().collect();
                if fp.mode() == gltf::mesh::Mode::Triangles {
                    assert_eq!(ours, indices, "{name} node {node} primitive {p}: triangles in the file's order");
                }
            }
            let Some(inf) = &prim.influences else { continue };
            let words = inf.packed_sets();
            assert!(
                words.windows(2).all(|w| Influences::unpack(w[0]) <= Influences::unpack(w[1])),
                "{name} node {node} primitive {p}: vertices in joint-set order"
            );
            let theirs = file_weights(&fp, &buffers);
            let table = &model.skins[model.instances.iter().find(|i| i.node == node).unwrap().skin].sets;
            for (f, expect) in theirs.iter().enumerate() {
                if expect.len() > 4 {
                    continue;
                }
                let got: Vec<(u16, f32)> = inf.vertex(prim.order.model_index(f), table).filter(|p| p.1 > 0.0).collect();
                assert!(close(&got, expect), "{name} node {node} primitive {p} vertex {f}: {got:?} vs {expect:?}");
            }
            moved |= !prim.order.is_file_order();
        }
        assert!(moved, "{name}: some vertices moved (else this test checks nothing)");
    }
}

#[test]
fn exported_weights_weights_files_and_the_obj_are_in_the_files_order() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["CesiumMan.glb", "Fox.glb", "Character_HumanoidRig.glb"] {
        let path = common::shared_models().join(name);
        if !path.exists() {
            continue;
        }
        let (model, source) = load_document(&path).unwrap();
        let (doc, buffers) = open_glb(&path).unwrap();

        // Every skinned primitive re-encoded: the written weights of file vertex f are the
        // file's weights of vertex f.
        let out = dir.path().join(format!("re-{name}"));
        let options = ExportOptions { weights_format: Some(WeightsFormat::Float), ..ExportOptions::default() };
        export_model(&model, &source, &options, &out).unwrap();
        let (odoc, obuffers) = open_glb(&out).unwrap();
        for (node, p, _) in skinned_primitives(&model) {
            let expect = file_weights(&file_primitive(&doc, node, p), &buffers);
            let got = file_weights(&file_primitive(&odoc, node, p), &obuffers);
            assert_eq!(got.len(), expect.len());
            for (f, (g, e)) in got.iter().zip(&expect).enumerate() {
                assert!(close(g, e), "{name} node {node} primitive {p} vertex {f}: written {g:?}, file {e:?}");
            }
        }

        // A weights file lists vertices by file index.
        let weights = dir.path().join(format!("{name}.weights.json"));
        write_weights_file(&weights, &model, None).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&weights).unwrap()).unwrap();
        let entry = &json["primitives"][0];
        let node = model.nodes.find(entry["node"].as_str().unwrap()).unwrap();
        let p = entry["primitive"].as_u64().unwrap() as usize;
        let fp = file_primitive(&doc, node, p);
        let expect = file_weights(&fp, &buffers);
        let skin = doc.nodes().nth(node).unwrap().skin().unwrap();
        let joint_key = |j: u16| {
            let n = skin.joints().nth(usize::from(j)).unwrap();
            n.name().map_or_else(|| format!("#{}", n.index()), str::to_owned)
        };
        let vertices = entry["vertices"].as_array().unwrap();
        assert_eq!(vertices.len(), expect.len(), "{name}: every vertex listed");
        for (k, item) in vertices.iter().enumerate() {
            let f = item[0].as_u64().unwrap() as usize;
            assert_eq!(f, k, "{name}: listed in file order");
            let mut listed: Vec<(String, f32)> = item[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().to_owned(), p[1].as_f64().unwrap() as f32))
                .collect();
            listed.sort_by(|a, b| a.0.cmp(&b.0));
            let mut file: Vec<(String, f32)> = expect[f].iter().map(|&(j, w)| (joint_key(j), w)).collect();
            file.sort_by(|a, b| a.0.cmp(&b.0));
            assert!(
                listed.len() == file.len()
                    && listed.iter().zip(&file).all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() < 1e-5),
                "{name} vertex {f}: listed {listed:?}, file {file:?}"
            );
        }

        // The OBJ's faces are the file's indices.
        let obj = dir.path().join(format!("{name}.obj"));
        let run = Command::new(env!("CARGO_BIN_EXE_skinlab"))
            .args(["deform".as_ref(), path.as_os_str(), "--method".as_ref(), "lbs".as_ref(), "--out".as_ref()])
            .arg(&obj)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        check_obj_faces(&obj, &model, &doc, &buffers, name);
    }
}

/// The face lines of each object equal the file's index list (1-based, counted over the OBJ).
fn check_obj_faces(obj: &Path, model: &Model, doc: &gltf::Document, buffers: &[Vec<u8>], name: &str) {
    let text = std::fs::read_to_string(obj).unwrap();
    let mut objects: Vec<(Vec<u32>, usize)> = Vec::new();
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        match parts.next() {
            Some("o") => objects.push((Vec::new(), 0)),
            Some("v") => objects.last_mut().unwrap().1 += 1,
            Some("f") => {
                let o = objects.last_mut().unwrap();
                o.0.extend(parts.map(|c| c.split('/').next().unwrap().parse::<u32>().unwrap()));
            }
            _ => {}
        }
    }
    let mut base = 1u32;
    let mut k = 0;
    for inst in &model.instances {
        for p in 0..model.meshes[inst.mesh].primitives.len() {
            let fp = file_primitive(doc, inst.node, p);
            let reader = fp.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let (faces, vertices) = &objects[k];
            if let (Some(indices), gltf::mesh::Mode::Triangles) = (reader.read_indices(), fp.mode()) {
                let indices: Vec<u32> = indices.into_u32().map(|i| i + base).collect();
                assert_eq!(faces, &indices, "{name}: object {k}'s faces are the file's triangles");
            }
            base += *vertices as u32;
            k += 1;
        }
    }
}

/// `model` with every primitive back in the file's order (what the importer read).
fn in_file_order(model: &Model) -> Model {
    let mut out = model.clone();
    for prim in out.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        let file: Vec<u32> = (0..prim.positions.len()).map(|f| prim.order.model_index(f) as u32).collect();
        prim.positions = prim.order.to_file(&prim.positions);
        prim.normals = prim.normals.as_ref().map(|n| prim.order.to_file(n));
        prim.triangles = prim.file_triangles();
        prim.influences = prim.influences.as_ref().map(|inf| inf.gather(&file));
        prim.order = skinlab::model::VertexOrder::default();
    }
    out
}

#[test]
fn densifying_does_not_depend_on_the_models_vertex_order() {
    for name in ["CesiumMan.glb", "Character_HumanoidRig.glb", "Stegosaurus.glb"] {
        let Some(model) = common::shared_model(name) else { continue };
        let plain = in_file_order(&model);
        let target = model.skinned_vertex_count() * 3;
        let (a, b) =
            (skinlab::model::densify(&model, target).unwrap(), skinlab::model::densify(&plain, target).unwrap());
        for (m, (ma, mb)) in a.model.meshes.iter().zip(&b.model.meshes).enumerate() {
            for (p, (pa, pb)) in ma.primitives.iter().zip(&mb.primitives).enumerate() {
                let what = format!("{name} mesh {m} primitive {p}");
                assert!(pa.order.to_file(&pa.positions) == pb.positions, "{what}: positions");
                assert!(pa.file_triangles() == pb.triangles, "{what}: triangles");
                let (ra, rb) = (&a.refinements[m][p], &b.refinements[m][p]);
                let ends = |r: &Option<skinlab::model::PrimitiveRefinement>, prim: &skinlab::model::Primitive| {
                    r.as_ref().map(|r| {
                        r.midpoints.iter().map(|e| e.map(|k| prim.order.file_index(k as usize))).collect::<Vec<_>>()
                    })
                };
                assert!(ends(ra, pa) == ends(rb, pb), "{what}: the same edges split, in the same order");
            }
        }
    }
}

#[test]
fn the_weight_tables_vertex_numbers_are_the_files() {
    let path = common::shared_models().join("CesiumMan.glb");
    let Some((doc, buffers)) = open_glb(&path) else { return };
    let model = skinlab::io::load_model(&path).unwrap();
    let surface = skinlab::paint::ModelSurface::new(&model);
    let part = surface.parts()[0];
    let fp = file_primitive(&doc, model.instances[part.instance].node, part.prim);
    let positions: Vec<[f32; 3]> =
        fp.reader(|b| buffers.get(b.index()).map(Vec::as_slice)).read_positions().unwrap().collect();
    let mut moved = 0;
    for g in part.first_vertex..part.first_vertex + part.vertices {
        let shown = surface.file_number(&model, g);
        assert_eq!(surface.rest_positions()[g as usize].to_array(), positions[(shown - part.first_vertex) as usize]);
        moved += usize::from(shown != g);
    }
    assert!(moved > 0, "CesiumMan's vertices were ordered by joint set");
}
