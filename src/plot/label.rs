//! What `skinlab render` stamps into its pictures (three-d without its `text` feature draws no
//! text): each panel's method name in a dark box, a line between panels, and the difference
//! overlay's colour-ramp legend. Drawn with plotters on an RGB copy of the picture.

use plotters::backend::BitMapBackend;
use plotters::coord::Shift;
use plotters::drawing::{DrawingArea, IntoDrawingArea as _};
use plotters::element::{Rectangle, Text};
use plotters::style::Color as _;

use super::{font, format_units, rgba, PlotError};

/// The difference legend: a ramp from 0 to `full_scale` model units in the ramp's colours.
#[derive(Clone, Copy, Debug)]
pub struct Legend {
    /// The distance at the ramp's right end (model units).
    pub full_scale: f32,
    /// The colour at a fraction (0 to 1) of the ramp.
    pub ramp: fn(f32) -> [u8; 4],
}

const WHITE: [u8; 4] = [255, 255, 255, 255];
const BACKING: [u8; 4] = [0, 0, 0, 150];
const SEPARATOR: [u8; 4] = [20, 20, 24, 255];

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// Stamps the names of `panels` (equal widths, left to right) and, if given, the legend at the
/// bottom right into `pixels` (`width` × `height` RGBA; alpha is kept).
///
/// # Errors
/// A size that does not match the pixels, or a text plotters cannot draw.
pub fn stamp(
    pixels: &mut [u8],
    width: u32,
    height: u32,
    panels: &[&str],
    legend: Option<Legend>,
) -> Result<(), PlotError> {
    let mut rgb: Vec<u8> = pixels.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    {
        let backend = BitMapBackend::with_buffer_and_format(&mut rgb, (width, height))
            .map_err(|e| PlotError::Draw(e.to_string()))?;
        let area = backend.into_drawing_area();
        let scale = i32::try_from((height / 200).clamp(2, 6)).unwrap_or(2);
        let n = panels.len().max(1) as u32;
        let pw = i32::try_from(width / n).unwrap_or(i32::MAX);
        for (i, name) in panels.iter().enumerate() {
            let x0 = i32::try_from(i).unwrap_or(0) * pw;
            if i > 0 {
                area.draw(&Rectangle::new([(x0 - 1, 0), (x0 + 1, height as i32)], rgba(SEPARATOR).filled()))?;
            }
            boxed_text(&area, (x0 + 4 * scale, 4 * scale), name, f64::from(9 * scale))?;
        }
        if let Some(legend) = legend {
            let s = (scale / 2).max(1);
            let lw = (pw - 8 * scale).min(75 * scale);
            let (x, bottom) = (width as i32 - lw - 4 * scale, height as i32 - 4 * scale);
            draw_legend(&area, (x, bottom), lw, s, legend)?;
        }
        area.present()?;
    }
    for (p, c) in pixels.chunks_exact_mut(4).zip(rgb.chunks_exact(3)) {
        p[..3].copy_from_slice(c);
    }
    Ok(())
}

/// White text of `size` pixels on a translucent dark box with its top-left corner at `at`.
fn boxed_text(area: &Area<'_>, at: (i32, i32), text: &str, size: f64) -> Result<(), PlotError> {
    let style = font::sized(size).color(&rgba(WHITE));
    let (w, h) = area.estimate_text_size(text, &style)?;
    let pad = (size / 4.0).round() as i32;
    let (w, h) = (i32::try_from(w).unwrap_or(0), i32::try_from(h).unwrap_or(0));
    area.draw(&Rectangle::new([at, (at.0 + w + 2 * pad, at.1 + h + 2 * pad)], rgba(BACKING).filled()))?;
    area.draw(&Text::new(text.to_owned(), (at.0 + pad, at.1 + pad), style))?;
    Ok(())
}

/// The legend: a title, the ramp, and its ends and middle in model units, on a dark box whose
/// bottom-left corner is `(x, bottom)`.
fn draw_legend(area: &Area<'_>, (x, bottom): (i32, i32), width: i32, s: i32, legend: Legend) -> Result<(), PlotError> {
    let style = font::sized(f64::from(9 * s)).color(&rgba(WHITE));
    let text_h = 9 * s;
    let (pad, bar_h) = (3 * s, 5 * s);
    let total_h = pad + text_h + pad + bar_h + pad + text_h + pad;
    let top = bottom - total_h;
    area.draw(&Rectangle::new([(x, top), (x + width, bottom)], rgba(BACKING).filled()))?;
    area.draw(&Text::new("distance (model units)", (x + pad, top + pad), style.clone()))?;
    let bar_y = top + pad + text_h + pad;
    let bar_w = width - 2 * pad;
    for i in 0..bar_w {
        let t = i as f32 / (bar_w - 1).max(1) as f32;
        let c = rgba((legend.ramp)(t)).filled();
        area.draw(&Rectangle::new([(x + pad + i, bar_y), (x + pad + i + 1, bar_y + bar_h)], c))?;
    }
    let ty = bar_y + bar_h + pad;
    let width_of = |t: &str| area.estimate_text_size(t, &style).map(|(w, _)| i32::try_from(w).unwrap_or(0));
    let hi = format_units(legend.full_scale);
    let mid = format_units(legend.full_scale * 0.5);
    area.draw(&Text::new("0", (x + pad, ty), style.clone()))?;
    area.draw(&Text::new(hi.clone(), (x + width - pad - width_of(&hi)?, ty), style.clone()))?;
    area.draw(&Text::new(mid.clone(), (x + width / 2 - width_of(&mid)? / 2, ty), style))?;
    Ok(())
}
