//! FBX import (binary and ASCII, FBX 6.1 to 7.7) through ufbx: the scene becomes a glTF document
//! in memory (`builder.rs`), which the glTF importer then reads like any other file, so that an
//! FBX model is deformed, edited and exported exactly as a glTF one.
//!
//! ufbx converts the file to metres and glTF's Y-up axes in the root node's transform (the file's
//! own unit and up axis are recorded in the document's `asset.extras.fbx`), adds helper nodes for
//! geometry transforms and for non-uniform or animated segment scale compensation (inherit modes;
//! uniform ones are compensated in the children), and folds pre/post-rotations and pivots into
//! each node's local TRS. External files are never opened; ufbx's allocations are capped.
//!
//! In detail: `geometry.rs` (each mesh instance: triangulated polygons, welded corners, one
//! primitive per material part, skin deformers merged into one glTF skin with each cluster's
//! geometry-to-bone matrix as the inverse bind matrix, weights cleaned, held to 8, normalised,
//! vertices without weight bound to their mesh node; blend channels as morph targets),
//! `clips.rs` (each animation stack as a clip on its own times), `materials.rs` (base colours and
//! embedded base-colour textures), `builder.rs` (accessors and the GLB).

mod builder;
mod clips;
mod geometry;
mod materials;

use std::path::Path;

use glam::{DMat4, DVec3};
use serde_json::{json, Value};

use builder::Builder;
use geometry::Cleaning;
use materials::Materials;

/// Whether `path` names an FBX file (by its extension).
#[must_use]
pub fn is_fbx(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("fbx"))
}

/// The load options: metres, Y-up (right-handed), helper nodes where a glTF node tree needs them,
/// no external files, allocations capped at 32× the file plus 256 MiB (at most 8 GiB).
fn load_opts(file_bytes: usize) -> ufbx::LoadOpts<'static> {
    let limit = (file_bytes as u64).saturating_mul(32).saturating_add(256 << 20).min(8 << 30);
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut opts = ufbx::LoadOpts {
        load_external_files: false,
        ignore_missing_external_files: true,
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::TransformRoot,
        geometry_transform_handling: ufbx::GeometryTransformHandling::HelperNodes,
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        pivot_handling: ufbx::PivotHandling::Retain,
        clean_skin_weights: true,
        ..Default::default()
    };
    opts.temp_allocator.memory_limit = limit;
    opts.result_allocator.memory_limit = limit;
    opts
}

/// ufbx's matrix as glam's.
pub(super) fn dmat4(m: &ufbx::Matrix) -> DMat4 {
    DMat4::from_cols_array(&[
        m.m00, m.m10, m.m20, 0.0, m.m01, m.m11, m.m21, 0.0, m.m02, m.m12, m.m22, 0.0, m.m03, m.m13, m.m23, 1.0,
    ])
}

/// Sets `object`'s `name` to the element's, unless it has none.
pub(super) fn named(object: &mut Value, element: &ufbx::Element) {
    if !element.name.is_empty() {
        object["name"] = json!(element.name.as_ref());
    }
}

/// ufbx's vector as glam's.
pub(super) fn dvec3(v: &ufbx::Vec3) -> DVec3 {
    DVec3::new(v.x, v.y, v.z)
}

/// An FBX file's bytes as the bytes of an equivalent GLB, with the import's warnings (also kept in
/// the document's `asset.extras.fbx.warnings`).
pub(crate) fn fbx_to_glb(bytes: &[u8]) -> Result<(Vec<u8>, Vec<String>), String> {
    let scene = ufbx::load_memory(bytes, load_opts(bytes.len())).map_err(|e| {
        let text = e.description.as_ref().trim().to_owned();
        format!("not a readable FBX file: {}", if text.is_empty() { format!("{:?}", e.type_) } else { text })
    })?;
    let mut b = Builder::default();
    let mut materials = Materials::default();
    let mut clean = Cleaning::default();
    // glTF node i is ufbx node i (its typed id).
    let mut nodes = Vec::with_capacity(scene.nodes.len());
    let mut meshes = Vec::new();
    let mut skins = Vec::new();
    let mut morphs = Vec::new();
    for (i, node) in scene.nodes.iter().enumerate() {
        if node.element.typed_id as usize != i {
            return Err("the scene's node list is out of order".into());
        }
        let t = &node.local_transform;
        let (tr, r, s) =
            (dvec3(&t.translation), [t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w], dvec3(&t.scale));
        if !(tr.is_finite() && s.is_finite() && r.iter().all(|v| v.is_finite())) {
            return Err(format!("node {:?} has a non-finite transform", node.element.name.as_ref()));
        }
        let mut n = json!({"translation": tr.to_array(), "rotation": r, "scale": s.to_array()});
        named(&mut n, &node.element);
        let children: Vec<u32> = node.children.iter().map(|c| c.element.typed_id).collect();
        if !children.is_empty() {
            n["children"] = json!(children);
        }
        if let Some(mesh) = &node.mesh {
            let out = geometry::convert_mesh(&mut b, node, i as u32, mesh, &mut materials, &mut clean)?;
            meshes.push(out.mesh);
            n["mesh"] = json!(meshes.len() - 1);
            if let Some(skin) = out.skin {
                skins.push(skin);
                n["skin"] = json!(skins.len() - 1);
            }
            let channels: Vec<&ufbx::BlendChannel> =
                mesh.blend_deformers.iter().flat_map(|d| d.channels.iter()).map(|c| &**c).collect();
            if !channels.is_empty() {
                morphs.push(clips::MorphNode { node: i, channels });
            }
        }
        nodes.push(n);
    }
    let mut coarse = false;
    let animations = clips::animations(&mut b, &scene, &morphs, &mut coarse);
    let warnings = warnings(&clean, &materials, coarse);
    let settings = &scene.settings;
    let root = scene.root_node.element.typed_id;
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": concat!("skinlab ", env!("CARGO_PKG_VERSION"), " (FBX through ufbx)"),
                  "extras": {"fbx": {
                      "unit_meters": settings.original_unit_meters,
                      "up_axis": format!("{:?}", settings.original_axis_up),
                      "frames_per_second": settings.frames_per_second,
                      "creator": scene.metadata.creator.as_ref(),
                      "warnings": warnings}}},
        "scene": 0,
        "scenes": [{"nodes": [root]}],
        "nodes": nodes,
    });
    for (key, list) in [("meshes", meshes), ("skins", skins), ("animations", animations)] {
        if !list.is_empty() {
            doc[key] = Value::Array(list);
        }
    }
    materials.finish(&mut doc);
    let glb = b.finish(doc)?;
    Ok((glb, warnings))
}

/// One line per kind of thing the import changed or could not keep.
fn warnings(clean: &Cleaning, materials: &Materials, coarse: bool) -> Vec<String> {
    let mut out = Vec::new();
    if clean.dropped_weights > 0 {
        out.push(format!("{} zero, negative or non-finite skin weights dropped", clean.dropped_weights));
    }
    if clean.held_vertices > 0 {
        out.push(format!("{} vertices had more than 8 influences: the 8 largest kept", clean.held_vertices));
    }
    if clean.unskinned_vertices > 0 {
        out.push(format!(
            "{} skinned-mesh vertices have no weight: bound to their mesh node",
            clean.unskinned_vertices
        ));
    }
    if clean.inbetween_channels > 0 {
        out.push(format!(
            "{} blend channels have in-between shapes: approximated by their full shape",
            clean.inbetween_channels
        ));
    }
    if clean.dq_skins > 0 {
        out.push(format!("{} skins ask for dual-quaternion skinning: deformed by the method chosen", clean.dq_skins));
    }
    if materials.external_textures > 0 {
        out.push(format!("{} base-colour textures are external files: not read", materials.external_textures));
    }
    if coarse {
        out.push("a long animation stack was sampled more coarsely than its frame rate".into());
    }
    out
}
