//! A small GUI-free raster for pictures made without a window: an RGBA canvas with filled boxes,
//! lines and a built-in 5×7 bitmap font (upper case, digits, a little punctuation) scaled by an
//! integer. `render` stamps labels with it; `skinlab sweep --plot` draws its curves with it.

/// Glyph rows, 5 columns each ('#' = ink), for the characters the pictures use.
const GLYPHS: &[(char, [&str; 7])] = &[
    ('A', [" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"]),
    ('B', ["#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "]),
    ('C', [" ####", "#    ", "#    ", "#    ", "#    ", "#    ", " ####"]),
    ('D', ["#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "]),
    ('E', ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"]),
    ('F', ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "]),
    ('G', [" ####", "#    ", "#    ", "#  ##", "#   #", "#   #", " ####"]),
    ('H', ["#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"]),
    ('I', ["#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "#####"]),
    ('J', ["  ###", "    #", "    #", "    #", "    #", "#   #", " ### "]),
    ('K', ["#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"]),
    ('L', ["#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"]),
    ('M', ["#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"]),
    ('N', ["#   #", "##  #", "# # #", "#  ##", "#   #", "#   #", "#   #"]),
    ('O', [" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "]),
    ('P', ["#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "]),
    ('Q', [" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"]),
    ('R', ["#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"]),
    ('S', [" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "]),
    ('T', ["#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "]),
    ('U', ["#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "]),
    ('V', ["#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "]),
    ('W', ["#   #", "#   #", "#   #", "# # #", "# # #", "## ##", "#   #"]),
    ('X', ["#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"]),
    ('Y', ["#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "]),
    ('Z', ["#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"]),
    ('0', [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "]),
    ('1', ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "]),
    ('2', [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"]),
    ('3', ["#### ", "    #", "    #", " ### ", "    #", "    #", "#### "]),
    ('4', ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "]),
    ('5', ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "]),
    ('6', [" ### ", "#    ", "#    ", "#### ", "#   #", "#   #", " ### "]),
    ('7', ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "]),
    ('8', [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "]),
    ('9', [" ### ", "#   #", "#   #", " ####", "    #", "    #", " ### "]),
    ('.', ["     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "]),
    (',', ["     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "]),
    ('-', ["     ", "     ", "     ", "#####", "     ", "     ", "     "]),
    ('+', ["     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "]),
    (':', ["     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "]),
    ('=', ["     ", "     ", "#####", "     ", "#####", "     ", "     "]),
    ('/', ["    #", "    #", "   # ", "  #  ", " #   ", "#    ", "#    "]),
    ('|', ["  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "]),
    ('(', ["   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "]),
    (')', [" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "]),
    ('_', ["     ", "     ", "     ", "     ", "     ", "     ", "#####"]),
    ('#', [" # # ", " # # ", "#####", " # # ", "#####", " # # ", " # # "]),
    ('%', ["##  #", "##  #", "   # ", "  #  ", " #   ", "#  ##", "#  ##"]),
];

/// An RGBA picture, rows top-down.
pub struct Canvas<'a> {
    /// The pixels, 4 bytes each.
    pub rgba: &'a mut [u8],
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Canvas<'_> {
    /// Blends one pixel (by the colour's alpha); outside the canvas nothing happens.
    pub fn put(&mut self, x: i64, y: i64, c: [u8; 4]) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        if let Some(px) = self.rgba.get_mut(i..i + 4) {
            let a = u16::from(c[3]);
            for k in 0..3 {
                px[k] = ((u16::from(c[k]) * a + u16::from(px[k]) * (255 - a)) / 255) as u8;
            }
            px[3] = 255;
        }
    }

    /// Fills a rectangle (blended by the colour's alpha).
    pub fn fill(&mut self, x: i64, y: i64, w: i64, h: i64, c: [u8; 4]) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.put(xx, yy, c);
            }
        }
    }

    /// Width in pixels of `text` at `scale`.
    #[must_use]
    pub fn text_width(text: &str, scale: i64) -> i64 {
        text.chars().count() as i64 * 6 * scale - scale
    }

    /// Draws `text` with its top-left corner at (x, y); unknown characters draw as spaces.
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: i64, c: [u8; 4]) {
        for (i, ch) in text.chars().enumerate() {
            let ch = ch.to_ascii_uppercase();
            let Some((_, rows)) = GLYPHS.iter().find(|(g, _)| *g == ch) else { continue };
            let ox = x + i as i64 * 6 * scale;
            for (ry, row) in rows.iter().enumerate() {
                for (rx, b) in row.bytes().enumerate() {
                    if b == b'#' {
                        self.fill(ox + rx as i64 * scale, y + ry as i64 * scale, scale, scale, c);
                    }
                }
            }
        }
    }

    /// Draws `text` on a translucent dark box.
    pub fn label(&mut self, x: i64, y: i64, text: &str, scale: i64) {
        let pad = 2 * scale;
        self.fill(x, y, Self::text_width(text, scale) + 2 * pad, 7 * scale + 2 * pad, [0, 0, 0, 150]);
        self.text(x + pad, y + pad, text, scale, [255, 255, 255, 255]);
    }

    /// Draws a line from (x0, y0) to (x1, y1), `thickness` pixels wide (Bresenham, square pen).
    pub fn line(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64), thickness: i64, c: [u8; 4]) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        let half = thickness / 2;
        loop {
            self.fill(x - half, y - half, thickness, thickness, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }
}

/// A distance with three significant digits.
#[must_use]
pub fn format_units(v: f32) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 8) as usize;
    format!("{v:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glyph_is_five_by_seven() {
        for (c, rows) in GLYPHS {
            for r in rows {
                assert_eq!(r.len(), 5, "glyph {c:?}");
            }
        }
    }

    #[test]
    fn text_inks_pixels_inside_the_canvas_only() {
        let mut px = vec![0u8; 40 * 10 * 4];
        let mut c = Canvas { rgba: &mut px, width: 40, height: 10 };
        c.text(-3, 1, "LBS", 1, [255, 255, 255, 255]);
        assert!(px.chunks(4).any(|p| p[0] == 255));
    }

    #[test]
    fn lines_reach_both_ends() {
        let mut px = vec![0u8; 20 * 20 * 4];
        let mut c = Canvas { rgba: &mut px, width: 20, height: 20 };
        c.line((2, 3), (17, 12), 1, [255, 0, 0, 255]);
        let red = |x: usize, y: usize| px[(y * 20 + x) * 4] == 255;
        assert!(red(2, 3) && red(17, 12) && !red(17, 3));
    }

    #[test]
    fn units_have_three_significant_digits() {
        assert_eq!(format_units(0.12345), "0.123");
        assert_eq!(format_units(12.345), "12.3");
        assert_eq!(format_units(0.0), "0");
    }
}
