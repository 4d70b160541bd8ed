//! Files in and out: glTF import and export, OBJ import, the weights file, the contract's OBJ
//! output, atomic writes, and the load error. The only module that uses the `gltf` and `ufbx` crates.
//!
//! In detail: FBX import through ufbx into an in-memory glTF document (`fbx_import.rs` and
//! `fbx_import/`); glTF import (`gltf_import.rs`: nodes, skins, geometry, influences, clips;
//! `gltf_import/checks.rs`: the GLB container and raw-JSON checks before parsing;
//! `gltf_import/buffers.rs`: BIN chunk, data URIs, external files); its own bounds-checked accessor
//! reader with an allocation budget (`accessor.rs`, decoding straight into the wanted type,
//! `read_as::<f32 | u32 | f64>`, one type dispatch per accessor; `gltf_import/influences.rs` reads
//! the skin slots flat); OBJ import (`obj_import.rs`, polygons through earcut); `SourceDocument`
//! (the source JSON and buffers; `fresh_document.rs` writes one for an OBJ); glTF export
//! (`gltf_export.rs` and `gltf_export/`: edited weights, baked poses, repacking, the atomic
//! `.gltf`/`.bin` pair, skeletons, clips); bone tail/roll extras (`bone_extras.rs`); helper drivers
//! in extras (`driver_extras.rs`), both through `node_extras.rs`; the weights
//! file; the GLB container; the contract's OBJ output and the writers' finite check (`obj.rs`);
//! atomic writes (`atomic_write.rs`: `StagedFile`, keeping the replaced file's mode, refusing
//! special files); what a command writes checked against what it reads before any work, and
//! several outputs renamed together (`output_plan.rs`); capped reading of regular files only
//! (`input_file.rs`); the recovery file (`recovery.rs`, `clips_json.rs`); the pose library with
//! its capped thumbnail decoding (`pose_library.rs`); XDG folders (`user_dirs.rs`); each
//! primitive's base colour and texture (`materials.rs`); source weights the exporter must rewrite
//! (`source_weights.rs`).
//!
//! Invariants: bad files give one-line errors, never panics; sizes and offsets are checked u64
//! (indices must fit the `gltf` crate's u32); decoded data at most 32× the file plus 64 MiB (cap
//! 8 GiB); every write is temporary-file-then-rename, an external-buffer pair through a
//! content-named `.bin`; no output is written over an input.

pub mod accessor;
pub mod atomic_write;
pub mod bone_extras;
pub mod clips_json;
pub mod driver_extras;
pub mod error;
pub mod fbx_import;
mod fresh_document;
pub mod glb;
pub mod gltf_export;
pub mod gltf_import;
pub mod input_file;
pub mod materials;
pub mod node_extras;
pub mod obj;
pub mod obj_import;
pub mod output_plan;
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
    load_document, load_document_from_bytes, load_document_timed, load_model, load_model_from_bytes,
    load_model_reported, LoadTimes, LoadedModel,
};
pub use input_file::read_input;
pub use output_plan::{OutputPlan, StagedSet};
pub use source_document::SourceDocument;
pub use user_dirs::UserDirs;
pub use weights_file::{apply_weights_file, write_weights_file, WeightsFileError};
