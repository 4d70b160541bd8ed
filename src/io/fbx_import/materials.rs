//! FBX materials as glTF materials: the base colour (ufbx's PBR view of Phong, Lambert, Arnold,
//! 3ds Max physical materials) and a base-colour texture when the file embeds its image (images
//! the file only names are not read: external files stay closed).

use std::collections::HashMap;

use serde_json::{json, Value};

use super::builder::Builder;

/// The glTF materials, textures and images made so far.
#[derive(Default)]
pub(super) struct Materials {
    by_id: HashMap<u32, usize>,
    materials: Vec<Value>,
    textures: Vec<Value>,
    images: Vec<Value>,
    /// Base-colour textures named but not embedded (not read).
    pub external_textures: usize,
}

impl Materials {
    /// The glTF index of `material`, made on first use.
    pub(super) fn index_of(&mut self, b: &mut Builder, material: &ufbx::Material) -> usize {
        if let Some(&i) = self.by_id.get(&material.element.typed_id) {
            return i;
        }
        let map = &material.pbr.base_color;
        let c = map.value_vec4;
        let factor = if material.pbr.base_factor.has_value { material.pbr.base_factor.value_vec4.x } else { 1.0 };
        let mut rgba = [c.x * factor, c.y * factor, c.z * factor, if map.value_components >= 4 { c.w } else { 1.0 }];
        if !map.has_value || rgba.iter().any(|v| !v.is_finite()) {
            rgba = [1.0; 4];
        }
        let rgba = rgba.map(|v| v.clamp(0.0, 1.0));
        let mut pbr = json!({"baseColorFactor": rgba, "metallicFactor": 0.0, "roughnessFactor": 1.0});
        if let Some(texture) = &map.texture {
            match image_mime(&texture.content) {
                Some(mime) => {
                    let view = b.image_view(&texture.content);
                    self.images.push(json!({"bufferView": view, "mimeType": mime}));
                    self.textures.push(json!({"source": self.images.len() - 1}));
                    pbr["baseColorTexture"] = json!({"index": self.textures.len() - 1});
                }
                None => self.external_textures += 1,
            }
        }
        let mut m = json!({"pbrMetallicRoughness": pbr});
        super::named(&mut m, &material.element);
        self.materials.push(m);
        let i = self.materials.len() - 1;
        self.by_id.insert(material.element.typed_id, i);
        i
    }

    /// Puts the materials, textures and images into `doc`.
    pub(super) fn finish(self, doc: &mut Value) {
        for (key, list) in [("materials", self.materials), ("textures", self.textures), ("images", self.images)] {
            if !list.is_empty() {
                doc[key] = Value::Array(list);
            }
        }
    }
}

/// The MIME type of embedded image bytes glTF accepts (PNG or JPEG), by their signature.
fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}
