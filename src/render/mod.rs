//! three-d glue shared by the editor viewport and the headless `skinlab render` (no egui here):
//! glam → three-d conversions, GPU buffers refilled from the CPU deformation, the skeleton, grid
//! and difference-colour overlays, the orbit camera, the headless EGL context, and the panel
//! picture (its labels and legend drawn by `crate::plot::label`).
//!
//! In detail: three-d glue: `gpu_changes.rs` (what changed since the last upload: nothing, all, or
//! vertex lists → coalesced ranges), `Scene` (skinned meshes refilled per frame (`skinned_mesh.rs`)
//! into vertex buffers skinlab owns and draws with three-d's shaders (`streamed_mesh.rs`: vertex
//! colours as 16-bit normalised linear RGBA, `gl_convert::LinearColour`; buffers refilled whole written
//! into the mapped, invalidated buffers by every rayon thread; parts of buffers, small buffers and
//! `open --upload sub-data` by `glBufferSubData` in calls of at most 1 MB), with the materials' looks
//! when not overlaid; bones, X-ray or occluded; wireframe over shading; grid, colour ramps; the
//! difference overlay's colours, `overlays::difference_overlay`: each distance once, on every thread,
//! distances and ramp eight at a time in AVX2 lanes with the scalar path's bits), camera, headless EGL
//! context, labelled multi-panel pictures.
//!
//! Invariants: never uses egui.

pub mod camera;
pub mod gl_convert;
pub mod gpu_changes;
pub mod headless;
pub mod overlays;
pub mod picture;
pub mod scene;
pub mod skinned_mesh;
pub mod streamed_mesh;

pub use camera::{CameraPreset, OrbitCamera};
pub use headless::Headless;
pub use picture::{render_picture, Picture, PictureRequest};
pub use scene::{MeshLayout, Scene, ViewOptions};
