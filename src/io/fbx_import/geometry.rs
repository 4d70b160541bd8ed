//! One FBX mesh instance as a glTF mesh: polygons triangulated by ufbx, corners that share
//! position, normal and UV welded into one vertex, one primitive per material part; its skin
//! deformers merged into one glTF skin (bind pose from each cluster's geometry-to-bone matrix);
//! its blend channels as morph targets.

use std::collections::HashMap;

use glam::{DMat3, DMat4, DVec3, Vec2, Vec3, Vec4};
use serde_json::{json, Value};

use super::builder::Builder;
use super::materials::Materials;
use super::{dmat4, dvec3};

/// Most influences a vertex keeps (JOINTS_0 and JOINTS_1).
const MAX_INFLUENCES: usize = 8;

/// What the conversion of one mesh instance gives.
pub(super) struct MeshOut {
    /// The glTF mesh.
    pub mesh: Value,
    /// The glTF skin, if the mesh has skin deformers.
    pub skin: Option<Value>,
}

/// Per-instance counts for the import's warnings.
#[derive(Default)]
pub(super) struct Cleaning {
    /// Weights dropped for being zero, negative or not finite.
    pub dropped_weights: usize,
    /// Vertices whose influences were held to [`MAX_INFLUENCES`].
    pub held_vertices: usize,
    /// Vertices with no weight, drawn rigidly with their mesh node.
    pub unskinned_vertices: usize,
    /// Blend channels with in-between shapes (approximated by their full shape).
    pub inbetween_channels: usize,
    /// Skin deformers that blend dual quaternions (deformed here by the method chosen instead).
    pub dq_skins: usize,
}

/// One welded vertex: its position index and the corner its other attributes come from.
#[derive(Clone, Copy)]
struct Corner {
    vertex: u32,
    index: u32,
}

/// The joints of the merged skin: bone node typed ids and inverse bind matrices.
struct SkinJoints {
    nodes: Vec<u32>,
    ibms: Vec<DMat4>,
    /// Per skin deformer, per cluster: its joint.
    cluster_joint: Vec<Vec<Option<u16>>>,
    /// The joint standing for the mesh node (vertices without weights), once one needs it.
    rigid: Option<u16>,
    /// The glTF index of the mesh node.
    owner: u32,
}

/// Converts `node`'s mesh. `node_index`: the glTF index of the node that draws it.
pub(super) fn convert_mesh(
    b: &mut Builder,
    node: &ufbx::Node,
    node_index: u32,
    mesh: &ufbx::Mesh,
    materials: &mut Materials,
    clean: &mut Cleaning,
) -> Result<MeshOut, String> {
    let what = format!("mesh {:?}", mesh.element.name.as_ref());
    let g = dmat4(&node.geometry_to_node);
    if !g.is_finite() || g.determinant().abs() < 1e-300 {
        return Err(format!("{what} has a degenerate geometry transform"));
    }
    let gn = DMat3::from_mat4(g).inverse().transpose();
    let mut joints = skin_joints(mesh, g, node_index)?;
    let channels: Vec<&ufbx::BlendChannel> =
        mesh.blend_deformers.iter().flat_map(|d| d.channels.iter()).map(|c| &**c).collect();
    clean.dq_skins += mesh
        .skin_deformers
        .iter()
        .filter(|s| !matches!(s.skinning_method, ufbx::SkinningMethod::Linear | ufbx::SkinningMethod::Rigid))
        .count();
    clean.inbetween_channels += channels.iter().filter(|c| c.keyframes.len() > 1).count();
    let mut tri = vec![0u32; 3 * mesh.max_face_triangles.max(1)];
    let parts: Vec<(Option<u32>, Vec<u32>)> = if mesh.material_parts.is_empty() {
        vec![(None, (0..mesh.faces.len() as u32).collect())]
    } else {
        mesh.material_parts.iter().map(|p| (Some(p.index), p.face_indices.to_vec())).collect()
    };
    let mut primitives = Vec::new();
    for (material, faces) in parts {
        let mut corners: Vec<Corner> = Vec::new();
        let mut welded: HashMap<(u32, u32, u32), u32> = HashMap::new();
        let mut triangles: Vec<[u32; 3]> = Vec::new();
        for &f in &faces {
            let Some(&face) = mesh.faces.get(f as usize) else { continue };
            if face.num_indices < 3 {
                continue;
            }
            let n = ufbx::triangulate_face(&mut tri, mesh, face) as usize;
            for t in tri.chunks_exact(3).take(n) {
                let mut out = [0u32; 3];
                for (o, &c) in out.iter_mut().zip(t) {
                    let vertex = *mesh.vertex_indices.get(c as usize).ok_or_else(|| format!("{what}: bad index"))?;
                    let key = (
                        vertex,
                        attr_index(mesh.vertex_normal.exists, &mesh.vertex_normal.indices, c),
                        attr_index(mesh.vertex_uv.exists, &mesh.vertex_uv.indices, c),
                    );
                    *o = *welded.entry(key).or_insert_with(|| {
                        corners.push(Corner { vertex, index: c });
                        corners.len() as u32 - 1
                    });
                }
                triangles.push(out);
            }
        }
        if corners.is_empty() {
            continue;
        }
        primitives.push(primitive(
            b,
            mesh,
            &what,
            &corners,
            &triangles,
            g,
            gn,
            &mut joints,
            clean,
            &channels,
            material,
            materials,
        )?);
    }
    if primitives.is_empty() {
        return Err(format!("{what} has no triangles"));
    }
    let mut out = json!({"primitives": primitives});
    super::named(&mut out, &mesh.element);
    if !channels.is_empty() {
        out["weights"] = json!(channels.iter().map(|c| finite_or_zero(c.weight)).collect::<Vec<_>>());
        out["extras"] = json!({"targetNames": channels.iter().map(|c| c.element.name.as_ref()).collect::<Vec<_>>()});
    }
    let skin = (!mesh.skin_deformers.is_empty()).then(|| {
        let ibms: Vec<f32> = joints.ibms.iter().flat_map(|m| m.to_cols_array()).map(|x| x as f32).collect();
        let acc = b.floats(&ibms, "MAT4", 16, false);
        json!({"joints": joints.nodes, "inverseBindMatrices": acc})
    });
    Ok(MeshOut { mesh: out, skin })
}

fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

fn attr_index(exists: bool, indices: &[u32], corner: u32) -> u32 {
    if exists {
        indices.get(corner as usize).copied().unwrap_or(u32::MAX)
    } else {
        u32::MAX
    }
}

/// The merged skin's joints: every cluster's bone once, its inverse bind matrix
/// `geometry_to_bone · G⁻¹` (the vertices are written as `G · v`).
fn skin_joints(mesh: &ufbx::Mesh, g: DMat4, node_index: u32) -> Result<SkinJoints, String> {
    let g_inv = g.inverse();
    let mut out =
        SkinJoints { nodes: Vec::new(), ibms: Vec::new(), cluster_joint: Vec::new(), rigid: None, owner: node_index };
    let mut by_node: HashMap<u32, u16> = HashMap::new();
    for skin in mesh.skin_deformers.iter() {
        let mut map = Vec::with_capacity(skin.clusters.len());
        for cluster in skin.clusters.iter() {
            let Some(bone) = &cluster.bone_node else {
                map.push(None);
                continue;
            };
            let id = bone.element.typed_id;
            let joint = match by_node.get(&id) {
                Some(&j) => j,
                None => {
                    let j = u16::try_from(out.nodes.len()).map_err(|_| "a skin has more than 65535 bones")?;
                    let ibm = dmat4(&cluster.geometry_to_bone) * g_inv;
                    if !ibm.is_finite() {
                        return Err(format!(
                            "cluster {:?} has a non-finite bind matrix",
                            cluster.element.name.as_ref()
                        ));
                    }
                    out.nodes.push(id);
                    out.ibms.push(ibm);
                    by_node.insert(id, j);
                    j
                }
            };
            map.push(Some(joint));
        }
        out.cluster_joint.push(map);
    }
    // A mesh node that is one of the bones already stands for itself.
    out.rigid = by_node.get(&node_index).copied();
    Ok(out)
}

/// The influences of position vertex `v` over every skin deformer: cleaned, the largest
/// [`MAX_INFLUENCES`] kept, normalised (as ufbx and the authoring tools evaluate them).
fn influences(
    mesh: &ufbx::Mesh,
    v: u32,
    joints: &mut SkinJoints,
    clean: &mut Cleaning,
) -> Result<Vec<(u16, f32)>, String> {
    let mut pairs: Vec<(u16, f64)> = Vec::new();
    for (s, skin) in mesh.skin_deformers.iter().enumerate() {
        let Some(sv) = skin.vertices.get(v as usize) else { continue };
        for k in sv.weight_begin..sv.weight_begin.saturating_add(sv.num_weights) {
            let Some(w) = skin.weights.get(k as usize) else { break };
            let joint = joints.cluster_joint.get(s).and_then(|m| m.get(w.cluster_index as usize)).copied().flatten();
            let Some(joint) = joint else { continue };
            if !(w.weight.is_finite() && w.weight > 0.0) {
                clean.dropped_weights += 1;
                continue;
            }
            match pairs.iter_mut().find(|(j, _)| *j == joint) {
                Some(p) => p.1 += w.weight,
                None => pairs.push((joint, w.weight)),
            }
        }
    }
    if pairs.is_empty() {
        clean.unskinned_vertices += 1;
        let rigid = match joints.rigid {
            Some(j) => j,
            None => {
                let j = u16::try_from(joints.nodes.len()).map_err(|_| "a skin has more than 65535 bones")?;
                joints.nodes.push(joints.owner);
                joints.ibms.push(DMat4::IDENTITY);
                joints.rigid = Some(j);
                j
            }
        };
        return Ok(vec![(rigid, 1.0)]);
    }
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if pairs.len() > MAX_INFLUENCES {
        clean.held_vertices += 1;
        pairs.truncate(MAX_INFLUENCES);
    }
    let sum: f64 = pairs.iter().map(|p| p.1).sum();
    Ok(pairs.into_iter().map(|(j, w)| (j, (w / sum) as f32)).collect())
}

#[allow(clippy::too_many_arguments)]
fn primitive(
    b: &mut Builder,
    mesh: &ufbx::Mesh,
    what: &str,
    corners: &[Corner],
    triangles: &[[u32; 3]],
    g: DMat4,
    gn: DMat3,
    joints: &mut SkinJoints,
    clean: &mut Cleaning,
    channels: &[&ufbx::BlendChannel],
    material: Option<u32>,
    materials: &mut Materials,
) -> Result<Value, String> {
    let mut positions = Vec::with_capacity(corners.len());
    for c in corners {
        let p = mesh.vertices.get(c.vertex as usize).ok_or_else(|| format!("{what}: vertex out of range"))?;
        let p = g.transform_point3(dvec3(p)).as_vec3();
        if !p.is_finite() {
            return Err(format!("{what}: vertex {} is not finite", c.vertex));
        }
        positions.push(p);
    }
    let mut attributes = json!({"POSITION": b.vec3s(&positions, true)});
    if mesh.vertex_normal.exists {
        let normals: Vec<Vec3> = corners
            .iter()
            .map(|c| {
                let n = mesh
                    .vertex_normal
                    .indices
                    .get(c.index as usize)
                    .and_then(|&i| mesh.vertex_normal.values.get(i as usize));
                n.map_or(Vec3::Y, |n| (gn * dvec3(n)).normalize_or(DVec3::Y).as_vec3())
            })
            .collect();
        if normals.iter().all(|n| n.is_finite()) {
            attributes["NORMAL"] = json!(b.vec3s(&normals, false));
        }
    }
    if mesh.vertex_uv.exists {
        let uvs: Vec<Vec2> = corners
            .iter()
            .map(|c| {
                let uv =
                    mesh.vertex_uv.indices.get(c.index as usize).and_then(|&i| mesh.vertex_uv.values.get(i as usize));
                uv.map_or(Vec2::ZERO, |uv| Vec2::new(uv.x as f32, 1.0 - uv.y as f32))
            })
            .collect();
        if uvs.iter().all(|v| v.is_finite()) {
            attributes["TEXCOORD_0"] = json!(b.vec2s(&uvs));
        }
    }
    if !mesh.skin_deformers.is_empty() {
        let mut all = Vec::with_capacity(corners.len());
        let mut most = 0;
        for c in corners {
            let pairs = influences(mesh, c.vertex, joints, clean)?;
            let mut slots = [(0u16, 0f32); MAX_INFLUENCES];
            slots[..pairs.len()].copy_from_slice(&pairs);
            most = most.max(pairs.len());
            all.push(slots);
        }
        for half in 0..most.div_ceil(4) {
            let sets: Vec<[u16; 4]> = all.iter().map(|s| std::array::from_fn(|k| s[4 * half + k].0)).collect();
            let weights: Vec<Vec4> =
                all.iter().map(|s| Vec4::from_array(std::array::from_fn(|k| s[4 * half + k].1))).collect();
            attributes[format!("JOINTS_{half}")] = json!(b.joints(&sets));
            attributes[format!("WEIGHTS_{half}")] = json!(b.vec4s(&weights));
        }
    }
    let mut prim = json!({"attributes": attributes, "indices": b.indices(triangles), "mode": 4});
    if !channels.is_empty() {
        let targets: Vec<Value> = channels.iter().map(|c| target(b, mesh, corners, g, gn, c)).collect();
        prim["targets"] = json!(targets);
    }
    if let Some(m) = material.and_then(|i| mesh.materials.get(i as usize)) {
        prim["material"] = json!(materials.index_of(b, m));
    }
    Ok(prim)
}

/// One blend channel as a morph target: its full shape's offsets (in-betweens are not kept).
fn target(
    b: &mut Builder,
    mesh: &ufbx::Mesh,
    corners: &[Corner],
    g: DMat4,
    gn: DMat3,
    channel: &ufbx::BlendChannel,
) -> Value {
    let linear = DMat3::from_mat4(g);
    let mut positions = vec![Vec3::ZERO; corners.len()];
    let mut normals = Vec::new();
    if let Some(shape) = &channel.target_shape {
        // The channel's weight reaches the full shape at its keyframe's target weight (1 as a rule).
        let full = channel
            .keyframes
            .iter()
            .find(|k| k.shape.element.typed_id == shape.element.typed_id)
            .map_or(1.0, |k| k.target_weight);
        let scale = if full.is_finite() && full > 0.0 { 1.0 / full } else { 1.0 };
        let has_normals = mesh.vertex_normal.exists && shape.normal_offsets.len() == shape.position_offsets.len();
        if has_normals {
            normals = vec![Vec3::ZERO; corners.len()];
        }
        for (k, c) in corners.iter().enumerate() {
            let i = ufbx::get_blend_shape_offset_index(shape, c.vertex as usize);
            let Some(d) = shape.position_offsets.get(i as usize) else { continue };
            // A shape may weight its offsets per vertex (Blender's shape-key vertex groups).
            let weight = scale * shape.offset_weights.get(i as usize).copied().unwrap_or(1.0);
            let d = (linear * dvec3(d) * weight).as_vec3();
            positions[k] = if d.is_finite() { d } else { Vec3::ZERO };
            if has_normals {
                if let Some(n) = shape.normal_offsets.get(i as usize) {
                    let n = (gn * dvec3(n) * weight).as_vec3();
                    normals[k] = if n.is_finite() { n } else { Vec3::ZERO };
                }
            }
        }
    }
    let mut t = json!({"POSITION": b.vec3s(&positions, true)});
    if !normals.is_empty() {
        t["NORMAL"] = json!(b.vec3s(&normals, false));
    }
    t
}
