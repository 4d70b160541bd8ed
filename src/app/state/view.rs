//! What the viewport shows and from where: the skinning method of each panel, the split view and
//! the difference overlay, the drawing options, the shared camera, the frame-time overlay and the
//! window's aspect ratio for framing.

use glam::Vec3;

use crate::app::command::Command;
use crate::render::{CameraPreset, OrbitCamera, ViewOptions};
use crate::skinning::SkinningMethod;

/// The view's settings (a concern of its own: no edit of the model changes them).
#[derive(Clone, Debug)]
pub struct ViewState {
    /// The method of the (left) viewport.
    pub method: SkinningMethod,
    /// Whether the split view is shown.
    pub split: bool,
    /// The method of the right panel in split view.
    pub compare: SkinningMethod,
    /// Whether the skin is coloured by the distance between `method` and `compare`.
    pub difference: bool,
    /// Viewport drawing options.
    pub options: ViewOptions,
    /// The shared camera.
    pub camera: OrbitCamera,
    /// Whether the viewport shows the frame-time overlay (View ▸ Frame times).
    pub show_frame_times: bool,
    /// Whether every joint's name is drawn in the viewport (View ▸ Names).
    pub bone_names: bool,
    /// Width / height of the whole viewport (both panels in split view).
    aspect: f32,
    /// The viewport has not reported its size yet: framing used a guessed aspect and is redone
    /// once the real one arrives.
    aspect_guessed: bool,
}

impl Default for ViewState {
    fn default() -> Self {
        Self {
            method: SkinningMethod::Lbs,
            split: false,
            compare: SkinningMethod::Sbs,
            difference: false,
            options: ViewOptions::default(),
            camera: OrbitCamera::default(),
            show_frame_times: false,
            bone_names: false,
            aspect: 1.6,
            aspect_guessed: true,
        }
    }
}

impl ViewState {
    /// Carries out a view command (a method, the split view, the compared method, the difference
    /// overlay); returns whether the deformation must be computed again. Other commands are left
    /// alone (`false`).
    pub fn apply(&mut self, cmd: &Command) -> bool {
        match *cmd {
            Command::SetMethod(m) => self.method = m,
            Command::SetSplit(on) => self.split = on,
            Command::SetCompare(m) => self.compare = m,
            Command::SetDifference(on) => self.difference = on,
            _ => return false,
        }
        true
    }

    /// The methods shown, left to right.
    #[must_use]
    pub fn shown_methods(&self) -> Vec<SkinningMethod> {
        if self.split {
            vec![self.method, self.compare]
        } else {
            vec![self.method]
        }
    }

    /// The deformation shown in viewport panel `panel` (0 left, 1 right): the right one only in
    /// split view.
    #[must_use]
    pub fn deformation_of_panel(&self, panel: usize) -> usize {
        usize::from(self.split && panel == 1)
    }

    /// Remembers the whole viewport's aspect ratio (for framing); returns whether this is the
    /// first report, after which the model, framed for a guessed aspect, must be framed again.
    pub fn set_aspect(&mut self, aspect: f32) -> bool {
        if aspect.is_finite() && aspect > 0.0 {
            self.aspect = aspect;
            return std::mem::take(&mut self.aspect_guessed);
        }
        false
    }

    /// Width / height of one viewport panel.
    #[must_use]
    pub fn panel_aspect(&self) -> f32 {
        if self.split {
            self.aspect * 0.5
        } else {
            self.aspect
        }
    }

    /// Aims the camera, from the three-quarter view, at the box `lo`..`hi`.
    pub fn frame_box(&mut self, lo: Vec3, hi: Vec3) {
        (self.camera.yaw_rad, self.camera.pitch_rad) = CameraPreset::ThreeQuarter.angles_rad();
        self.camera.frame(lo, hi, self.panel_aspect());
    }
}
