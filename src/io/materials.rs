//! How a model's surfaces look in its glTF document, for drawing (the editor's View ▸ Materials):
//! each primitive's base colour factor, its TEXCOORD_0 coordinates and base-colour image, and the
//! images decoded to RGBA (PNG and JPEG, embedded in a buffer view, a data URI or a file beside
//! the model). Only the base colour is read (no metallic-roughness, normal or emissive maps): it is
//! what shows where one primitive or material ends and the next begins.
//!
//! Nothing here is needed to pose, paint or export: a document whose materials or images cannot
//! be read gives an error that the editor reports once, and the surfaces are drawn plain.

use std::path::Path;

use base64::Engine as _;
use gltf::accessor::{DataType, Dimensions};

use super::accessor::{read_expect, Buffers};
use super::source_document::percent_decode;
use super::SourceDocument;
use crate::model::Model;

/// Largest image accepted (pixels), so that a hostile header cannot ask for gigabytes.
const MAX_PIXELS: u64 = 8192 * 8192;

/// One primitive's look.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveLook {
    /// The glTF material (`None`: the primitive has none, and is drawn in the editor's plain
    /// surface colour rather than glTF's default white).
    pub material: Option<usize>,
    /// The base colour factor (linear RGBA), white when the material has none.
    pub base_colour: [f32; 4],
    /// TEXCOORD_0, one per vertex, when the base colour has a texture that uses them.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// The index into [`Looks::images`] of the base-colour image.
    pub image: Option<usize>,
}

impl Default for PrimitiveLook {
    fn default() -> Self {
        Self { material: None, base_colour: [1.0; 4], uvs: None, image: None }
    }
}

/// A decoded image, rows from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height` RGBA pixels (sRGB).
    pub pixels: Vec<[u8; 4]>,
}

/// The looks of every primitive of a model, `meshes[mesh][primitive]` in the model's numbering,
/// and the images they use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Looks {
    /// Per model mesh and primitive.
    pub meshes: Vec<Vec<PrimitiveLook>>,
    /// Decoded images, by glTF image index (`None`: not used by a base colour).
    pub images: Vec<Option<RgbaImage>>,
}

/// The glTF mesh each model mesh was read from (model meshes split for a second skin are copies).
fn source_meshes(model: &Model, json: &serde_json::Value) -> Vec<Option<usize>> {
    let mut out = vec![None; model.meshes.len()];
    let node_mesh =
        |node: usize| json.get("nodes")?.get(node)?.get("mesh")?.as_u64().and_then(|m| usize::try_from(m).ok());
    let pairs = model.instances.iter().map(|i| (i.node, i.mesh)).chain(model.rigid_instances.iter().copied());
    for (node, mesh) in pairs {
        if let (Some(slot), Some(g)) = (out.get_mut(mesh), node_mesh(node)) {
            slot.get_or_insert(g);
        }
    }
    out
}

/// Reads the looks of `model` from its document `source`.
pub fn looks(model: &Model, source: &SourceDocument) -> Result<Looks, String> {
    let bytes = serde_json::to_vec(&source.json).map_err(|e| format!("materials: {e}"))?;
    let gltf = gltf::Gltf::from_slice_without_validation(&bytes).map_err(|e| format!("materials: {e}"))?;
    let doc = &gltf.document;
    let file_bytes: u64 = source.buffers.iter().map(|b| b.len() as u64).sum();
    let buffers = Buffers::new(&source.buffers, file_bytes);
    let mut images: Vec<Option<RgbaImage>> = vec![None; doc.images().count()];
    let mut meshes = Vec::with_capacity(model.meshes.len());
    for (m, g) in source_meshes(model, &source.json).into_iter().enumerate() {
        let count = model.meshes[m].primitives.len();
        let Some(gmesh) = g.and_then(|g| doc.meshes().nth(g)).filter(|gm| gm.primitives().len() == count) else {
            meshes.push(vec![PrimitiveLook::default(); count]);
            continue;
        };
        let mut prims = Vec::with_capacity(count);
        for (p, prim) in gmesh.primitives().enumerate() {
            let material = prim.material();
            let pbr = material.pbr_metallic_roughness();
            let mut look = PrimitiveLook {
                material: material.index(),
                base_colour: pbr.base_color_factor(),
                ..PrimitiveLook::default()
            };
            let vertices = model.meshes[m].primitives[p].positions.len();
            if let Some(info) = pbr.base_color_texture().filter(|t| t.tex_coord() == 0) {
                let uvs = prim.get(&gltf::Semantic::TexCoords(0)).map(|acc| {
                    let what = format!("mesh {m} primitive {p} TEXCOORD_0");
                    read_expect(
                        &what,
                        &buffers,
                        &acc,
                        &[Dimensions::Vec2],
                        &[DataType::F32, DataType::U8, DataType::U16],
                    )
                });
                if let Some(uvs) = uvs.transpose()?.filter(|v| v.len() == vertices * 2) {
                    let image = info.texture().source().index();
                    if images.get(image).is_some_and(Option::is_none) {
                        images[image] = Some(decode_image(source, doc, image)?);
                    }
                    let uvs: Vec<[f32; 2]> = uvs.chunks_exact(2).map(|c| [c[0] as f32, c[1] as f32]).collect();
                    // Into the model's vertex order (`model::vertex_order`).
                    look.uvs = Some(model.meshes[m].primitives[p].order.from_file(&uvs));
                    look.image = Some(image);
                }
            }
            prims.push(look);
        }
        meshes.push(prims);
    }
    Ok(Looks { meshes, images })
}

/// The bytes of image `index`: its buffer view, data URI or file beside the model.
fn image_bytes(source: &SourceDocument, doc: &gltf::Document, index: usize) -> Result<Vec<u8>, String> {
    let image = doc.images().nth(index).ok_or_else(|| format!("image {index} is missing"))?;
    match image.source() {
        gltf::image::Source::View { view, .. } => {
            let buffer =
                source.buffers.get(view.buffer().index()).ok_or_else(|| format!("image {index}: no buffer"))?;
            buffer
                .get(view.offset()..view.offset().saturating_add(view.length()))
                .map(<[u8]>::to_vec)
                .ok_or_else(|| format!("image {index}: its buffer view is out of range"))
        }
        gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
            let (_, payload) = uri.split_once(',').ok_or_else(|| format!("image {index}: malformed data URI"))?;
            base64::engine::general_purpose::STANDARD
                .decode(payload)
                .map_err(|e| format!("image {index}: data URI is not valid base64 ({e})"))
        }
        gltf::image::Source::Uri { uri, .. } => {
            let dir = source.path.parent().unwrap_or(Path::new("."));
            super::read_input(&dir.join(percent_decode(uri)), 256 << 20).map_err(|e| format!("image {index}: {e}"))
        }
    }
}

fn decode_image(source: &SourceDocument, doc: &gltf::Document, index: usize) -> Result<RgbaImage, String> {
    let bytes = image_bytes(source, doc, index)?;
    let reader = image::ImageReader::new(std::io::Cursor::new(&bytes))
        .with_guessed_format()
        .map_err(|e| format!("image {index}: {e}"))?;
    let (width, height) = reader.into_dimensions().map_err(|e| format!("image {index}: {e}"))?;
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(format!("image {index}: {width}×{height} pixels is too large to show"));
    }
    let decoded = image::load_from_memory(&bytes).map_err(|e| format!("image {index}: {e}"))?.to_rgba8();
    let pixels = decoded.pixels().map(|p| p.0).collect();
    Ok(RgbaImage { width, height, pixels })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_without_materials_looks_white() {
        let (model, source) =
            crate::io::load_document_from_bytes(&crate::demo::demo_glb(), Path::new("demo.glb")).unwrap();
        let looks = looks(&model, &source).unwrap();
        assert_eq!(looks.meshes.len(), model.meshes.len());
        assert!(looks.meshes.iter().flatten().all(|l| *l == PrimitiveLook::default()));
        assert!(looks.images.is_empty());
    }
}
