//! three-d glue shared by the editor viewport and the headless `skinlab render` (no egui here):
//! glam → three-d conversions, GPU buffers refilled from the CPU deformation, the skeleton, grid
//! and difference-colour overlays, the orbit camera, the headless EGL context, and the panel
//! picture with its bitmap labels.

pub mod camera;
pub mod gl_convert;
pub mod gpu_changes;
pub mod headless;
pub mod label;
pub mod overlays;
pub mod picture;
pub mod scene;
pub mod skinned_mesh;
pub mod streamed_mesh;

pub use camera::{CameraPreset, OrbitCamera};
pub use headless::Headless;
pub use picture::{render_picture, Picture, PictureRequest};
pub use scene::{MeshLayout, Scene, ViewOptions};
