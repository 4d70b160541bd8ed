//! Legends stamped into rendered pictures (three-d without its `text` feature draws no text), on
//! the GUI-free [`crate::canvas::Canvas`]: the difference colour-ramp legend.

pub use crate::canvas::{format_units, Canvas};

/// Draws the difference legend (a horizontal ramp from 0 to `full_scale` model units) with its
/// bottom-left corner at (x, y_bottom).
pub fn legend(canvas: &mut Canvas, x: i64, y_bottom: i64, width: i64, full_scale: f32, scale: i64) {
    let bar_h = 5 * scale;
    let text_h = 7 * scale;
    let pad = 3 * scale;
    let title = "DISTANCE (MODEL UNITS)";
    let total_h = pad + text_h + pad + bar_h + pad + text_h + pad;
    let top = y_bottom - total_h;
    canvas.fill(x, top, width, total_h, [0, 0, 0, 150]);
    canvas.text(x + pad, top + pad, title, scale, [255, 255, 255, 255]);
    let bar_y = top + pad + text_h + pad;
    let bar_w = width - 2 * pad;
    for i in 0..bar_w {
        let t = i as f32 / (bar_w - 1).max(1) as f32;
        canvas.fill(x + pad + i, bar_y, 1, bar_h, super::overlays::ramp(t));
    }
    let ty = bar_y + bar_h + pad;
    canvas.text(x + pad, ty, "0", scale, [255, 255, 255, 255]);
    let hi = format_units(full_scale);
    canvas.text(x + width - pad - Canvas::text_width(&hi, scale), ty, &hi, scale, [255, 255, 255, 255]);
    let mid = format_units(full_scale * 0.5);
    canvas.text(x + width / 2 - Canvas::text_width(&mid, scale) / 2, ty, &mid, scale, [255, 255, 255, 255]);
}
