//! The viewport's panels: which methods they show, the window's aspect ratio and framing the
//! deformed model in one panel.

use super::EditorState;
use crate::render::scene::deformed_bounds;
use crate::skinning::SkinningMethod;

impl EditorState {
    /// The methods shown, left to right.
    #[must_use]
    pub fn shown_methods(&self) -> Vec<SkinningMethod> {
        if self.split {
            vec![self.method, self.compare]
        } else {
            vec![self.method]
        }
    }

    /// Remembers the whole viewport's aspect ratio (for framing); the first report re-frames the
    /// model, which was framed for a guessed aspect before the window had a size.
    pub fn set_aspect(&mut self, aspect: f32) {
        if aspect.is_finite() && aspect > 0.0 {
            self.aspect = aspect;
            if std::mem::take(&mut self.aspect_guessed) {
                self.frame_all();
            }
        }
    }

    /// Width / height of one viewport panel.
    pub(super) fn panel_aspect(&self) -> f32 {
        if self.split {
            self.aspect * 0.5
        } else {
            self.aspect
        }
    }

    /// Aims the camera at the whole deformed model.
    pub fn frame_all(&mut self) {
        (self.camera.yaw_rad, self.camera.pitch_rad) = crate::render::CameraPreset::ThreeQuarter.angles_rad();
        let (lo, hi) = deformed_bounds(&self.deformed[0], self.model.rest_bounds());
        self.camera.frame(lo, hi, self.panel_aspect());
    }
}
