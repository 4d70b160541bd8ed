//! The one font of skinlab's CPU pictures: DejaVu Sans cut down to Latin-1
//! (`assets/fonts/DejaVuSans-Latin1.ttf`, licence beside it), compiled into the program and
//! registered with plotters on first use.

use std::sync::OnceLock;

use plotters::style::{FontDesc, FontFamily, FontStyle};

/// The font file's bytes.
const DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Latin1.ttf");

/// The family name the font is registered under.
pub const FAMILY: &str = "DejaVu Sans";

/// Registers the font with plotters (once); returns whether it is usable.
pub fn ensure() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_ok())
}

/// The font at `size` pixels.
#[must_use]
pub fn sized(size: f64) -> FontDesc<'static> {
    ensure();
    FontDesc::new(FontFamily::Name(FAMILY), size, FontStyle::Normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_font_registers_and_measures_text() {
        assert!(ensure());
        let (w, h) = sized(20.0).box_size("Hello").unwrap();
        assert!((30..80).contains(&w) && (10..30).contains(&h), "{w} x {h}");
    }
}
