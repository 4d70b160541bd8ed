//! Screenshots of the editor window for tests and the README pictures (`open --screenshot`): after
//! a number of frames (counted once a fit for the LBS export has finished) the window is saved as a PNG (atomically) and closed.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use eframe::egui;

use super::SkinlabApp;

/// Saves the window after a number of frames, then closes it (for tests and README pictures).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScreenshotPlan {
    /// Frames to draw first.
    pub after_frames: u64,
    /// The PNG to write.
    pub path: PathBuf,
}

impl SkinlabApp {
    /// Counts a frame and, at the planned one, asks egui for the window's pixels; closes the
    /// window once they are saved.
    pub(super) fn screenshot_step(&mut self, ctx: &egui::Context) {
        let Some(plan) = &self.screenshot else { return };
        ctx.request_repaint();
        // A fit started with the window (`open --lbs-export`) is waited for.
        if self.state.lbs_export.job.is_some() {
            return;
        }
        self.frames += 1;
        if self.screenshot_done.load(Ordering::SeqCst) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if self.frames == plan.after_frames.max(1) {
            let (path, done, error) =
                (plan.path.clone(), Arc::clone(&self.screenshot_done), Arc::clone(&self.screenshot_error));
            ctx.request_screenshot(move |img: Arc<egui::ColorImage>| {
                if let Err(e) = save_png(&path, &img) {
                    if let Ok(mut slot) = error.lock() {
                        *slot = Some(e);
                    }
                }
                done.store(true, Ordering::SeqCst);
            });
        }
    }
}

fn save_png(path: &std::path::Path, img: &egui::ColorImage) -> Result<(), String> {
    use image::ImageEncoder as _;
    let [w, h] = img.size;
    let rgba: Vec<u8> = img.pixels.iter().flat_map(|c| c.to_array()).collect();
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&rgba, w as u32, h as u32, image::ExtendedColorType::Rgba8)
        .map_err(|e| format!("{}: cannot encode PNG: {e}", path.display()))?;
    crate::io::atomic_write(path, |f| f.write_all(&png)).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
