//! The timeline's time axis, shared by the scrubber, the key strip and the curve view: frames at
//! the clip's rate or seconds (how a time reads, where a dragged key lands), and the strip's
//! width and left edge so that all three line up.

use eframe::egui;

/// Accessible label of the time slider when it shows frames.
pub const FRAME_LABEL: &str = "Frame";
/// Accessible label of the time slider when it shows seconds.
pub const SECONDS_LABEL: &str = "Time (s)";

/// How the timeline writes times: frames at a rate, or seconds.
#[derive(Clone, Copy, Debug)]
pub struct TimeScale {
    /// Frames per second; `None` shows seconds.
    pub fps: Option<f64>,
}

impl TimeScale {
    /// A time as the user reads it: "frame 12" (a fraction where a key is between frames) or
    /// "0.40 s".
    pub fn label(self, t: f64) -> String {
        match self.fps {
            Some(fps) => {
                let f = t * fps;
                if (f - f.round()).abs() < 0.01 {
                    format!("frame {}", f.round())
                } else {
                    format!("frame {f:.1}")
                }
            }
            None => format!("{t:.2} s"),
        }
    }

    /// Where a dragged key lands: on the nearest whole frame when showing frames.
    pub fn snap(self, t: f64) -> f64 {
        self.fps.map_or(t, |fps| (t * fps).round() / fps)
    }

    /// The slider's label.
    pub fn slider_label(self) -> &'static str {
        if self.fps.is_some() {
            FRAME_LABEL
        } else {
            SECONDS_LABEL
        }
    }
}

/// Width of the scrubber and of the key strip under it, pixels.
pub fn strip_width(ui: &egui::Ui) -> f32 {
    (ui.available_width() - 120.0).max(100.0)
}

/// Width of the slider's label and the gap after it (the strip and curves start there).
pub fn label_width(ui: &egui::Ui, scale: TimeScale) -> f32 {
    ui.fonts_mut(|f| {
        f.layout_no_wrap(scale.slider_label().into(), egui::TextStyle::Body.resolve(ui.style()), egui::Color32::WHITE)
            .size()
            .x
    }) + ui.spacing().item_spacing.x
}
