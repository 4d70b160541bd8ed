//! Files in and out: glTF import, the contract's OBJ output, atomic writes, and the load error.
//! The only module that uses the `gltf` crate.

pub mod accessor;
pub mod atomic_write;
pub mod error;
pub mod glb;
pub mod gltf_import;
pub mod obj;

pub use atomic_write::atomic_write;
pub use error::LoadError;
pub use gltf_import::{load_model, load_model_from_bytes};
