//! The looks the editor draws with View ▸ Materials (`io::materials`), read from every shared
//! model's document: base colours as the files give them, TEXCOORD_0 per vertex, and the
//! base-colour images decoded (CesiumMan's JPEG, Fox's and Knight's PNG).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use serde_json::Value;
use skinlab::io::materials::{looks, PrimitiveLook};

fn model(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models")).join(name)
}

/// The file's JSON chunk.
fn json_of(name: &str) -> Value {
    let bytes = std::fs::read(model(name)).unwrap();
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(bytes[20..20 + len].trim_ascii_end()).unwrap()
}

#[test]
fn textured_models_get_their_images_and_coordinates() {
    for name in ["CesiumMan.glb", "Fox.glb", "Knight.glb"] {
        let (m, source) = skinlab::io::load_document(&model(name)).unwrap();
        let l = looks(&m, &source).unwrap();
        assert_eq!(l.meshes.len(), m.meshes.len(), "{name}");
        let json = json_of(name);
        let images = json["images"].as_array().unwrap();
        assert_eq!(l.images.len(), images.len());
        let image = l.images[0].as_ref().expect("the base-colour image is decoded");
        assert!(image.width > 0 && image.height > 0);
        assert_eq!(image.pixels.len(), (image.width * image.height) as usize, "{name}");
        assert!(image.pixels.iter().any(|p| p[0] != image.pixels[0][0]), "{name}: not a flat image");
        let mut textured = 0;
        for (mesh, prims) in m.meshes.iter().zip(&l.meshes) {
            for (p, look) in mesh.primitives.iter().zip(prims) {
                if let Some(uvs) = &look.uvs {
                    textured += 1;
                    assert_eq!(uvs.len(), p.positions.len(), "{name}: one coordinate per vertex");
                    assert!(uvs.iter().flatten().all(|c| c.is_finite()));
                    assert_eq!(look.image, Some(0));
                }
            }
        }
        assert!(textured > 0, "{name}: no textured primitive");
    }
}

#[test]
fn base_colours_are_the_materials() {
    let name = "Character_HumanoidRig.glb";
    let (m, source) = skinlab::io::load_document(&model(name)).unwrap();
    let l = looks(&m, &source).unwrap();
    let json = json_of(name);
    let mut seen = Vec::new();
    for inst in &m.instances {
        let g = json["nodes"][inst.node]["mesh"].as_u64().unwrap() as usize;
        for (p, look) in l.meshes[inst.mesh].iter().enumerate() {
            let material = json["meshes"][g]["primitives"][p]["material"].as_u64().unwrap() as usize;
            let want: Vec<f32> = json["materials"][material]["pbrMetallicRoughness"]["baseColorFactor"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap() as f32)
                .collect();
            assert_eq!(look.base_colour.to_vec(), want, "mesh {g} primitive {p}");
            assert!(look.uvs.is_none() && look.image.is_none());
            assert_eq!(look.material, Some(material));
            seen.push(look.base_colour.map(f32::to_bits));
        }
    }
    seen.sort_unstable();
    seen.dedup();
    assert!(seen.len() > 2, "several materials: {}", seen.len());
    // A model without materials has no looks (drawn in the plain surface colour).
    let (m, source) = skinlab::io::load_document(&model("SimpleSkin.gltf")).unwrap();
    assert!(looks(&m, &source).unwrap().meshes.iter().flatten().all(|l| *l == PrimitiveLook::default()));
}
