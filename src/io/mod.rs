//! Files in and out: glTF import and export, OBJ import, the weights file, the contract's OBJ
//! output, atomic writes, and the load error. The only module that uses the `gltf` crate.

pub mod accessor;
pub mod atomic_write;
pub mod bone_extras;
pub mod clips_json;
pub mod error;
mod fresh_document;
pub mod glb;
pub mod gltf_export;
pub mod gltf_import;
pub mod input_file;
pub mod materials;
pub mod obj;
pub mod obj_import;
pub mod pose_file;
pub mod pose_library;
pub mod recovery;
pub mod source_document;
pub mod source_weights;
pub mod user_dirs;
pub mod weights_file;

pub use atomic_write::atomic_write;
pub use error::LoadError;
pub use gltf_export::{export_model, Bake, Container, ExportError, ExportOptions, ExportReport, WeightsFormat};
pub use gltf_import::{
    load_document, load_document_from_bytes, load_document_timed, load_model, load_model_from_bytes, LoadTimes,
};
pub use input_file::read_input;
pub use source_document::SourceDocument;
pub use user_dirs::UserDirs;
pub use weights_file::{apply_weights_file, write_weights_file, WeightsFileError};
