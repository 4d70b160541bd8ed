//! glTF 2.0 import (`.gltf` with embedded or external buffers, `.glb`; an `.fbx` through the GLB
//! `io::fbx_import` makes of it) into [`crate::model`] types. Every skinned primitive of the default scene; node TRS or `matrix`; inverse bind
//! matrices; JOINTS_n/WEIGHTS_n; animations. Container, buffers and accessors are checked here so
//! that a broken or hostile file ends in one [`LoadError`] line, never a panic.

mod buffers;
mod checks;
mod influences;
mod morphs;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::{DMat4, DQuat, DVec3, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;
use gltf::Semantic;

use super::accessor::{read_expect, read_expect_as, Buffers};
use super::{LoadError, SourceDocument};
use crate::model::{
    Channel, ChannelPath, Clip, Interpolation, JointSetTable, Mesh, Model, Node, NodeTransform, NodeTree, Primitive,
    Skin, SkinnedInstance, SlotInfluences, Topology, Trs, VertexOrder,
};
use buffers::load_buffers;
use checks::{check_container, check_integer_ranges, check_unvalidated_indices, raw_json, validation_message};
use influences::import_influences;

/// Seconds each stage of loading a glTF file took (`skinlab bench MODEL --load`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadTimes {
    /// Reading the file into memory.
    pub read: f64,
    /// Container and JSON checks, parsing and validating the glTF, resolving its buffers.
    pub parse: f64,
    /// Nodes, skins, geometry (positions, normals, triangles) and raw influences.
    pub import: f64,
    /// Interning every vertex's joint set into the skins' tables (packed influences), and
    /// ordering each skinned primitive's vertices by joint set (`model::vertex_order`).
    pub joint_sets: f64,
    /// Animation clips.
    pub clips: f64,
    /// Keeping the source document (JSON, buffers, the model as loaded) for export.
    pub document: f64,
}

/// Like [`load_document`] for a glTF file, timing each stage into `times`.
pub fn load_document_timed(path: &Path, times: &mut LoadTimes) -> Result<(Model, SourceDocument), LoadError> {
    let t = Instant::now();
    if super::obj_import::is_obj(path) {
        // An OBJ is read and imported in one step.
        let loaded = load_document(path);
        times.import = t.elapsed().as_secs_f64();
        return loaded;
    }
    let (bytes, warnings) = read_model_bytes(path)?;
    times.read = t.elapsed().as_secs_f64();
    let imported = import(&bytes, path, times).map_err(|problem| LoadError::new(path, problem))?;
    let t = Instant::now();
    let source =
        SourceDocument::new(path, imported.json, imported.buffers, imported.model.clone()).with_warnings(warnings);
    times.document = t.elapsed().as_secs_f64();
    Ok((imported.model, source))
}

/// Loads a model from a `.gltf` or `.glb` file (or a Wavefront `.obj`, see `io::obj_import`).
pub fn load_model(path: &Path) -> Result<Model, LoadError> {
    if super::obj_import::is_obj(path) {
        return super::obj_import::load_obj(path);
    }
    let (bytes, _) = read_model_bytes(path)?;
    load_model_from_bytes(&bytes, path)
}

/// A model as read, with the files it came from and what its import dropped or approximated.
#[derive(Debug)]
pub struct LoadedModel {
    /// The model.
    pub model: Model,
    /// The model file, then the external buffers and images it names (so that a command can
    /// refuse to write over them).
    pub files: Vec<PathBuf>,
    /// What the import dropped or approximated, one line each.
    pub warnings: Vec<String>,
}

/// Loads a model (as [`load_model`]) with the files it was read from and the import's warnings.
pub fn load_model_reported(path: &Path) -> Result<LoadedModel, LoadError> {
    if super::obj_import::is_obj(path) {
        let model = super::obj_import::load_obj(path)?;
        return Ok(LoadedModel { model, files: vec![path.to_path_buf()], warnings: Vec::new() });
    }
    let (bytes, warnings) = read_model_bytes(path)?;
    let imported = import(&bytes, path, &mut LoadTimes::default()).map_err(|problem| LoadError::new(path, problem))?;
    let files = super::source_document::referenced_files(path, &imported.json);
    Ok(LoadedModel { model: imported.model, files, warnings })
}

/// Loads a model together with its source document (the glTF JSON and every loaded buffer), which
/// the exporter needs to write everything the editor does not change back unchanged. An `.obj`
/// gets a fresh glTF document of its geometry (`io::fresh_document`).
pub fn load_document(path: &Path) -> Result<(Model, SourceDocument), LoadError> {
    if super::obj_import::is_obj(path) {
        let model = super::obj_import::load_obj(path)?;
        let source = super::fresh_document::fresh_document(path, &model);
        return Ok((model, source));
    }
    let (bytes, warnings) = read_model_bytes(path)?;
    let (model, source) = load_document_from_bytes(&bytes, path)?;
    Ok((model, source.with_warnings(warnings)))
}

/// Like [`load_document`] for bytes already in memory (e.g. the built-in demo); `path` names the
/// document in messages and resolves relative URIs.
pub fn load_document_from_bytes(bytes: &[u8], path: &Path) -> Result<(Model, SourceDocument), LoadError> {
    let imported = import(bytes, path, &mut LoadTimes::default()).map_err(|problem| LoadError::new(path, problem))?;
    let source = SourceDocument::new(path, imported.json, imported.buffers, imported.model.clone());
    Ok((imported.model, source))
}

fn read_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    super::read_input(path, super::input_file::MODEL_CAP).map_err(|problem| LoadError::new(path, problem))
}

/// The bytes of a glTF file, or of the GLB an FBX file converts to (`io::fbx_import`) with the
/// conversion's warnings.
fn read_model_bytes(path: &Path) -> Result<(Vec<u8>, Vec<String>), LoadError> {
    let bytes = read_file(path)?;
    if !super::fbx_import::is_fbx(path) {
        return Ok((bytes, Vec::new()));
    }
    super::fbx_import::fbx_to_glb(&bytes).map_err(|problem| LoadError::new(path, problem))
}

/// Loads a model from the bytes of a file at `path` (external buffers are resolved beside it).
pub fn load_model_from_bytes(bytes: &[u8], path: &Path) -> Result<Model, LoadError> {
    import(bytes, path, &mut LoadTimes::default())
        .map(|imported| imported.model)
        .map_err(|problem| LoadError::new(path, problem))
}

/// What [`import`] makes of a glTF file.
struct Imported {
    model: Model,
    buffers: Vec<Vec<u8>>,
    json: serde_json::Value,
}

fn import(bytes: &[u8], path: &Path, times: &mut LoadTimes) -> Result<Imported, String> {
    let started = Instant::now();
    check_container(bytes, path)?;
    let json = raw_json(bytes)?;
    check_integer_ranges(&json, &mut Vec::new())?;
    let gltf = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| format!("invalid glTF: {e}"))?;
    let root = gltf.document.into_json();
    check_unvalidated_indices(&root)?;
    let doc = gltf::Document::from_json(root).map_err(|e| validation_message(&e))?;
    let buffers = load_buffers(&doc, gltf.blob, path)?;
    let reader = Buffers::new(&buffers, bytes.len() as u64);
    let parsed = Instant::now();
    times.parse = (parsed - started).as_secs_f64();

    let nodes = import_nodes(&doc)?;
    let scene_roots: Vec<usize> = match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(scene) => scene.nodes().map(|n| n.index()).collect(),
        None => (0..nodes.len()).filter(|&i| nodes[i].parent.is_none()).collect(),
    };
    let tree = NodeTree::new(nodes, scene_roots);
    if tree.order.len() != tree.len() {
        return Err("the node hierarchy has a cycle".into());
    }

    let mut skins = Vec::new();
    for skin in doc.skins() {
        skins.push(import_skin(&skin, &reader)?);
    }

    // Geometry once per mesh, then one copy per skin that uses it in the default scene.
    let mut meshes = Vec::new();
    for mesh in doc.meshes() {
        let mut prims = Vec::new();
        for prim in mesh.primitives() {
            prims.push(import_geometry(&mesh, &prim, &reader)?);
        }
        let morphs = morphs::import_morphs(&mesh, &prims, &reader)?;
        meshes.push(Mesh { name: mesh.name().map(str::to_owned), primitives: prims, morphs });
    }
    let scene_nodes = tree.scene_nodes();
    let mut bound: HashMap<(usize, usize), usize> = HashMap::new();
    let mut mesh_used = vec![false; meshes.len()];
    let mut instances = Vec::new();
    let mut rigid_instances = Vec::new();
    let mut raw_influences: HashMap<usize, Vec<Option<SlotInfluences>>> = HashMap::new();
    for &n in &scene_nodes {
        let node = &tree.nodes[n];
        let (Some(mesh), Some(skin)) = (node.mesh, node.skin) else {
            if let Some(mesh) = node.mesh {
                rigid_instances.push((n, mesh));
            }
            continue;
        };
        let target = match bound.get(&(mesh, skin)) {
            Some(&m) => m,
            None => {
                let m = if mesh_used[mesh] {
                    reader.charge(&format!("node {n}'s copy of mesh {mesh}"), mesh_bytes(&meshes[mesh]))?;
                    meshes.push(meshes[mesh].clone());
                    meshes.len() - 1
                } else {
                    mesh_used[mesh] = true;
                    mesh
                };
                let gmesh = doc.meshes().nth(mesh).ok_or("mesh index out of range")?;
                let mut per_prim = Vec::new();
                for prim in gmesh.primitives() {
                    per_prim.push(import_influences(&gmesh, &prim, &reader, skins[skin].joints.len())?);
                }
                raw_influences.insert(m, per_prim);
                bound.insert((mesh, skin), m);
                m
            }
        };
        // Each instance is deformed into buffers of its own.
        reader.charge(&format!("node {n}'s deformed copy of mesh {mesh}"), mesh_bytes(&meshes[target]))?;
        instances.push(SkinnedInstance { node: n, mesh: target, skin });
    }
    let imported = Instant::now();
    times.import = (imported - parsed).as_secs_f64();
    // One joint-set table per skin, sized for the most influences any of its vertices has.
    for (s, skin) in skins.iter_mut().enumerate() {
        let meshes_of_skin: Vec<usize> = bound.iter().filter(|((_, sk), _)| *sk == s).map(|(_, &m)| m).collect();
        let k = meshes_of_skin
            .iter()
            .flat_map(|m| raw_influences[m].iter().flatten())
            .map(SlotInfluences::max_count)
            .max()
            .unwrap_or(1);
        skin.sets = JointSetTable::new(k);
        let mut ordered = meshes_of_skin;
        ordered.sort_unstable();
        for m in ordered {
            for (p, raw) in raw_influences[&m].iter().enumerate() {
                if let Some(raw) = raw {
                    let inf = raw.lay_out(&mut skin.sets).map_err(|e| format!("mesh {m} primitive {p}: {e}"))?;
                    meshes[m].primitives[p].influences = Some(inf);
                }
            }
        }
    }

    // Every skinned primitive in joint-set order, so that the deformer's runs of eight take
    // nearly every vertex (a rigid instance of the same mesh draws the same reordered triangles).
    let mut model = Model { nodes: tree, meshes, skins, clips: Vec::new(), instances, rigid_instances };
    model.order_by_joint_set();
    let interned = Instant::now();
    times.joint_sets = (interned - imported).as_secs_f64();
    // Per node, the number of morph targets of its mesh (what a weights channel must animate).
    let targets: Vec<usize> = model
        .nodes
        .nodes
        .iter()
        .map(|n| n.mesh.and_then(|m| doc.meshes().nth(m)).map_or(0, |m| morphs::target_count(&m)))
        .collect();
    for anim in doc.animations() {
        model.clips.push(import_clip(&anim, &reader, &targets)?);
    }
    times.clips = interned.elapsed().as_secs_f64();
    Ok(Imported { model, buffers, json })
}

/// Bytes a copy of `mesh` (positions, normals, triangles) and its deformed buffers take.
fn mesh_bytes(mesh: &Mesh) -> u64 {
    mesh.primitives.iter().map(|p| 48 * p.positions.len() as u64 + 12 * p.triangles.len() as u64).sum()
}

fn import_nodes(doc: &gltf::Document) -> Result<Vec<Node>, String> {
    let mut nodes: Vec<Node> = doc
        .nodes()
        .map(|n| {
            let rest = match n.transform() {
                gltf::scene::Transform::Matrix { matrix } => {
                    NodeTransform::Matrix(DMat4::from_cols_array_2d(&matrix.map(|c| c.map(f64::from))))
                }
                gltf::scene::Transform::Decomposed { translation, rotation, scale } => NodeTransform::Trs(Trs {
                    translation: DVec3::from_array(translation.map(f64::from)),
                    rotation: DQuat::from_array(rotation.map(f64::from)),
                    scale: DVec3::from_array(scale.map(f64::from)),
                }),
            };
            Node {
                name: n.name().map(str::to_owned),
                parent: None,
                children: n.children().map(|c| c.index()).collect(),
                rest,
                mesh: n.mesh().map(|m| m.index()),
                skin: n.skin().map(|s| s.index()),
                bone_tail: None,
                bone_roll: None,
                source: Some(n.index()),
                driver: None,
            }
        })
        .collect();
    for (n, node) in doc.nodes().zip(nodes.iter_mut()) {
        let (tail, roll) = super::bone_extras::read_bone(n.extras().as_deref().map(|r| r.get()))
            .map_err(|e| format!("node {}: {e}", n.index()))?;
        node.bone_tail = tail;
        node.bone_roll = roll;
        node.driver = super::driver_extras::read_driver(n.extras().as_deref().map(|r| r.get()))
            .map_err(|e| format!("node {}: {e}", n.index()))?;
    }
    for p in 0..nodes.len() {
        for c in nodes[p].children.clone() {
            if c == p {
                return Err(format!("node {p} is its own child"));
            }
            if let Some(other) = nodes[c].parent {
                return Err(format!("node {c} has two parents (nodes {other} and {p})"));
            }
            nodes[c].parent = Some(p);
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        let finite = match n.rest {
            NodeTransform::Matrix(m) => m.is_finite(),
            NodeTransform::Trs(t) => t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite(),
        };
        if !finite {
            return Err(format!("node {i} has a non-finite transform"));
        }
        if matches!(n.rest, NodeTransform::Trs(t) if t.rotation.length_squared() == 0.0) {
            return Err(format!("node {i} has a zero rotation quaternion"));
        }
    }
    Ok(nodes)
}

fn import_skin(skin: &gltf::Skin<'_>, buffers: &Buffers<'_>) -> Result<Skin, String> {
    let i = skin.index();
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    if joints.is_empty() {
        return Err(format!("skin {i} has no joints (glTF requires at least one)"));
    }
    if joints.len() > usize::from(u16::MAX) {
        return Err(format!("skin {i} has {} joints (at most 65535 are supported)", joints.len()));
    }
    let joint_from_bind = match skin.inverse_bind_matrices() {
        None => vec![DMat4::IDENTITY; joints.len()],
        Some(acc) => {
            let what = format!("skin {i} inverseBindMatrices");
            let v = read_expect(&what, buffers, &acc, &[Dimensions::Mat4], &[DataType::F32])?;
            if acc.count() < joints.len() {
                return Err(format!("{what} has {} matrices for {} joints", acc.count(), joints.len()));
            }
            let mats: Vec<DMat4> = v.chunks_exact(16).take(joints.len()).map(DMat4::from_cols_slice).collect();
            if mats.iter().any(|m| !m.is_finite()) {
                return Err(format!("{what} holds a non-finite number"));
            }
            mats
        }
    };
    Ok(Skin { name: skin.name().map(str::to_owned), joints, joint_from_bind, sets: JointSetTable::default() })
}

/// The `n` finite three-vectors of accessor `acc` (float or normalised i8/i16, as normals and
/// morph displacements may be stored); `what` names it in errors.
pub(super) fn read_directions(
    what: &str,
    buffers: &Buffers,
    acc: &gltf::Accessor<'_>,
    n: usize,
) -> Result<Vec<Vec3>, String> {
    let v =
        vec3s(&read_expect_as(what, buffers, acc, &[Dimensions::Vec3], &[DataType::F32, DataType::I8, DataType::I16])?);
    if v.len() != n {
        return Err(format!("{what} has {} elements for {n} vertices", v.len()));
    }
    if v.iter().any(|d| !d.is_finite()) {
        return Err(format!("{what} holds a non-finite number"));
    }
    Ok(v)
}

pub(super) fn vec3s(v: &[f32]) -> Vec<Vec3> {
    v.chunks_exact(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect()
}

fn import_geometry(
    mesh: &gltf::Mesh<'_>,
    prim: &gltf::Primitive<'_>,
    buffers: &Buffers<'_>,
) -> Result<Primitive, String> {
    let what = format!("mesh {} primitive {}", mesh.index(), prim.index());
    let pos_acc = prim.get(&Semantic::Positions).ok_or_else(|| format!("{what} has no POSITION"))?;
    let positions =
        vec3s(&read_expect_as(&format!("{what} POSITION"), buffers, &pos_acc, &[Dimensions::Vec3], &[DataType::F32])?);
    if positions.iter().any(|p| !p.is_finite()) {
        return Err(format!("{what} POSITION holds a non-finite number"));
    }
    let n = positions.len();
    let normals = match prim.get(&Semantic::Normals) {
        None => None,
        Some(acc) => Some(read_directions(&format!("{what} NORMAL"), buffers, &acc, n)?),
    };
    let indices: Vec<u32> = match prim.indices() {
        Some(acc) => {
            let indices: Vec<u32> = read_expect_as(
                &format!("{what} indices"),
                buffers,
                &acc,
                &[Dimensions::Scalar],
                &[DataType::U8, DataType::U16, DataType::U32],
            )?;
            if let Some(v) = indices.iter().find(|&&v| v as usize >= n) {
                return Err(format!("{what} indices (accessor {}): index {v} is beyond the {n} vertices", acc.index()));
            }
            indices
        }
        None => (0..n as u32).collect(),
    };
    let (topology, triangles) = match prim.mode() {
        Mode::Triangles => (Topology::Triangles, indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect()),
        Mode::TriangleStrip => (
            Topology::Triangles,
            (0..indices.len().saturating_sub(2))
                .map(|i| {
                    if i % 2 == 0 {
                        [indices[i], indices[i + 1], indices[i + 2]]
                    } else {
                        [indices[i], indices[i + 2], indices[i + 1]]
                    }
                })
                .collect(),
        ),
        Mode::TriangleFan => (
            Topology::Triangles,
            (0..indices.len().saturating_sub(2)).map(|i| [indices[i + 1], indices[i + 2], indices[0]]).collect(),
        ),
        Mode::Points => (Topology::Points, Vec::new()),
        Mode::Lines | Mode::LineLoop | Mode::LineStrip => (Topology::Lines, Vec::new()),
    };
    Ok(Primitive { positions, normals, triangles, topology, influences: None, order: VertexOrder::default() })
}

fn import_clip(anim: &gltf::Animation<'_>, buffers: &Buffers<'_>, meshes: &[usize]) -> Result<Clip, String> {
    let a = anim.index();
    let mut channels = Vec::new();
    let mut channels_weights = Vec::new();
    for (c, channel) in anim.channels().enumerate() {
        let what = format!("animation {a} channel {c}");
        let path = match channel.target().property() {
            gltf::animation::Property::Translation => ChannelPath::Translation,
            gltf::animation::Property::Rotation => ChannelPath::Rotation,
            gltf::animation::Property::Scale => ChannelPath::Scale,
            gltf::animation::Property::MorphTargetWeights => {
                channels_weights.push(morphs::import_weights_channel(&what, &channel, buffers, meshes)?);
                continue;
            }
        };
        let sampler = channel.sampler();
        let interpolation = match sampler.interpolation() {
            gltf::animation::Interpolation::Step => Interpolation::Step,
            gltf::animation::Interpolation::Linear => Interpolation::Linear,
            gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
        };
        let times =
            read_expect(&format!("{what} input"), buffers, &sampler.input(), &[Dimensions::Scalar], &[DataType::F32])?;
        let dims = if path == ChannelPath::Rotation { Dimensions::Vec4 } else { Dimensions::Vec3 };
        let values = read_expect(
            &format!("{what} output"),
            buffers,
            &sampler.output(),
            &[dims],
            &[DataType::F32, DataType::I8, DataType::U8, DataType::I16, DataType::U16],
        )?;
        let channel = Channel {
            node: channel.target().node().index(),
            path,
            interpolation,
            times,
            values,
            key_interpolation: Vec::new(),
        };
        channel.check().map_err(|e| format!("{what}: {e}"))?;
        channels.push(channel);
    }
    Ok(Clip { name: anim.name().map(str::to_owned), channels, weights: channels_weights })
}

#[cfg(test)]
mod tests {
    use crate::io::source_document::percent_decode;

    #[test]
    fn percent_decoding_never_splits_a_character() {
        assert_eq!(percent_decode("skin%20data.bin"), "skin data.bin");
        assert_eq!(percent_decode("%zz%2"), "%zz%2");
        assert_eq!(percent_decode("%aé%"), "%aé%");
        assert_eq!(percent_decode("%C3%A9.bin"), "é.bin");
    }
}
