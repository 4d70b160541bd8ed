//! Shared test helpers: synthetic rigs built directly as `Model`s (chains, cylinders), an
//! independent f64 reference implementation of the deformation contract, and geometry checks.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]

pub mod reference;
pub mod rigs;

use std::path::PathBuf;

use glam::Vec3;

/// `../shared/models` relative to the crate root.
pub fn shared_models() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models"))
}

/// The nine shared models (`.glb` and `.gltf` files of [`shared_models`]), sorted by path.
pub fn shared_model_files() -> Vec<PathBuf> {
    let dir = shared_models();
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("shared models directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
        .collect();
    out.sort();
    assert_eq!(out.len(), 9, "expected the 9 shared models in {}", dir.display());
    out
}

/// The shared model `name`, loaded, or `None` where the file is missing.
pub fn shared_model(name: &str) -> Option<skinlab::model::Model> {
    let path = shared_models().join(name);
    path.exists().then(|| skinlab::io::load_model(&path).unwrap())
}

/// Diagonal of the bounding box of a point set.
pub fn bbox_diagonal(points: impl IntoIterator<Item = Vec3>) -> f32 {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in points {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    (hi - lo).length()
}

/// Every vertex's packed set word and weight bits (independent of the slot padding, which
/// painting may grow), for the meshes drawn with a skin.
pub fn weight_bits(m: &skinlab::model::Model) -> Vec<(u32, Vec<(u16, u32)>)> {
    let mut out = Vec::new();
    for inst in &m.instances {
        let table = &m.skins[inst.skin].sets;
        for p in &m.meshes[inst.mesh].primitives {
            let Some(inf) = &p.influences else { continue };
            for v in 0..inf.len() {
                out.push((inf.packed_sets()[v], inf.vertex(v, table).map(|(j, w)| (j, w.to_bits())).collect()));
            }
        }
    }
    out
}
