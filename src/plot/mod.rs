//! Pictures drawn on the CPU with plotters, without a window or a GPU: the stress sweep's plot
//! (`sweep.rs`, `skinlab sweep --plot`), and the labels and colour-ramp legend stamped into
//! rendered pictures (`label.rs`, `skinlab render`). Text uses the bundled DejaVu Sans
//! (`font.rs`), so that the pictures are the same on every machine whatever fonts it has.

pub mod font;
pub mod label;
pub mod sweep;

use plotters::drawing::DrawingAreaErrorKind;

/// Why a picture could not be drawn or encoded.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// plotters failed to draw (a text without its font, say).
    #[error("cannot draw the picture: {0}")]
    Draw(String),
    /// The PNG encoder failed.
    #[error("cannot encode the picture: {0}")]
    Encode(#[from] image::ImageError),
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        Self::Draw(e.to_string())
    }
}

/// An sRGB colour with alpha as plotters takes it.
#[must_use]
pub fn rgba(c: [u8; 4]) -> plotters::style::RGBAColor {
    plotters::style::RGBAColor(c[0], c[1], c[2], f64::from(c[3]) / 255.0)
}

/// `v` with about three significant digits (at most eight decimals): axis ends and legends.
#[must_use]
pub fn format_units(v: f32) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 8) as usize;
    format!("{v:.digits$}")
}
