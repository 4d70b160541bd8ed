//! The sweep as a picture (`skinlab sweep --plot`): one row per joint and motion, one panel per
//! metric, one curve per method, both axes labelled with their units. Drawn on the GUI-free
//! [`crate::canvas::Canvas`] (its 5×7 font needs no system fonts and no extra crate) and encoded
//! as PNG by `image`.

use super::{StepMetrics, SweepReport};
use crate::canvas::{format_units, Canvas};
use crate::skinning::SkinningMethod;

/// At most this many joint × motion rows are drawn in one picture.
pub const MAX_ROWS: usize = 64;

const PANEL_W: i64 = 330;
const PANEL_H: i64 = 210;
const LEFT: i64 = 58;
const RIGHT: i64 = 12;
const TOP: i64 = 26;
const BOTTOM: i64 = 34;
const ROW_TITLE: i64 = 22;
const HEADER: i64 = 34;

const BACKGROUND: [u8; 4] = [250, 250, 250, 255];
const INK: [u8; 4] = [30, 30, 30, 255];
const GRID: [u8; 4] = [215, 215, 215, 255];

/// The curve colour of a method.
#[must_use]
pub fn method_colour(method: SkinningMethod) -> [u8; 4] {
    match method {
        SkinningMethod::Lbs => [214, 39, 40, 255],
        SkinningMethod::Dqs => [31, 119, 180, 255],
        SkinningMethod::Sbs => [44, 160, 44, 255],
        SkinningMethod::SbsC => [255, 127, 14, 255],
    }
}

/// One panel's metric: title with unit, the value, and the range it is drawn over at least.
struct Metric {
    title: &'static str,
    value: fn(&StepMetrics) -> f64,
    floor: (f64, f64),
}

const METRICS: [Metric; 4] = [
    Metric { title: "COLLAPSE (RADIUS / REST)", value: |m| m.collapse, floor: (0.0, 1.2) },
    Metric { title: "VOLUME CHANGE (%)", value: |m| 100.0 * m.volume_change, floor: (-1.0, 1.0) },
    Metric { title: "BULGE (/ REST RADIUS)", value: |m| m.bulge, floor: (0.0, 0.1) },
    Metric { title: "FLIP (/ EXPECTED ARC)", value: |m| m.flip, floor: (0.0, 2.0) },
];

/// The picture's size in pixels for `rows` rows.
#[must_use]
pub fn picture_size(rows: usize) -> (u32, u32) {
    let w = METRICS.len() as i64 * PANEL_W;
    let h = HEADER + rows.max(1) as i64 * (ROW_TITLE + PANEL_H);
    (w as u32, h as u32)
}

/// Draws `report` into RGBA pixels; returns (pixels, width, height).
#[must_use]
pub fn draw(report: &SweepReport) -> (Vec<u8>, u32, u32) {
    let rows = report.sweeps.len().min(MAX_ROWS);
    let (width, height) = picture_size(rows);
    let mut rgba = vec![0u8; width as usize * height as usize * 4];
    let mut canvas = Canvas { rgba: &mut rgba, width, height };
    canvas.fill(0, 0, i64::from(width), i64::from(height), BACKGROUND);
    // Legend: one swatch per method, and the x axis of every panel.
    let mut x = 10;
    let methods: Vec<SkinningMethod> =
        report.sweeps.first().map(|s| s.curves.iter().map(|c| c.method).collect()).unwrap_or_default();
    for m in &methods {
        canvas.fill(x, 14, 24, 4, method_colour(*m));
        canvas.text(x + 30, 10, m.label(), 2, INK);
        x += 30 + Canvas::text_width(m.label(), 2) + 24;
    }
    let clip_driven =
        report.sweeps.iter().flat_map(|s| &s.curves).flat_map(|c| &c.steps).any(|m| m.time_secs.is_some());
    let note = if clip_driven {
        format!("{} CLIP KEYS, TURNS UP TO {} DEG", report.steps, format_units(report.max_angle_deg as f32))
    } else {
        format!("{} STEPS TO {} DEG", report.steps, format_units(report.max_angle_deg as f32))
    };
    canvas.text(x + 10, 13, &note, 1, INK);
    if methods.len() > 1 {
        canvas.text(
            x + 10 + Canvas::text_width(&note, 1) + 18,
            13,
            "(CURVES DRAWN WIDEST FIRST: A COVERED CURVE SHOWS AS A BORDER)",
            1,
            INK,
        );
    }
    for (row, sw) in report.sweeps.iter().take(rows).enumerate() {
        let top = HEADER + row as i64 * (ROW_TITLE + PANEL_H);
        let title = format!("{} - {} ({} VERTICES)", sw.joint, sw.motion.name(), sw.influenced_vertices);
        canvas.fill(0, top, i64::from(width), ROW_TITLE - 2, [232, 232, 240, 255]);
        canvas.text(8, top + 4, &title, 2, INK);
        for (col, spec) in row_panels(sw, report.max_angle_deg).iter().enumerate() {
            panel(&mut canvas, (col as i64 * PANEL_W, top + ROW_TITLE), spec);
        }
    }
    (rgba, width, height)
}

/// One panel's content: titles, the x range, and one polyline per method.
struct Panel<'a> {
    title: &'a str,
    x_title: &'a str,
    x_min: f64,
    x_max: f64,
    floor: (f64, f64),
    curves: Vec<(SkinningMethod, Vec<(f64, f64)>)>,
}

fn panel(canvas: &mut Canvas, (px, py): (i64, i64), spec: &Panel) {
    let (x0, x1) = (px + LEFT, px + PANEL_W - RIGHT);
    let (y0, y1) = (py + TOP, py + PANEL_H - BOTTOM);
    let (mut lo, mut hi) = spec.floor;
    for (_, points) in &spec.curves {
        for &(_, v) in points {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    let (lo, hi, step) = nice_range(lo, hi);
    let ticks = ((hi - lo) / step).round().max(1.0) as i64;
    let span = (hi - lo).max(1e-12);
    let x_span = (spec.x_max - spec.x_min).max(1e-12);
    let to_x = |a: f64| x0 + (((a - spec.x_min) / x_span) * (x1 - x0) as f64).round() as i64;
    let to_y = |v: f64| y1 - (((v - lo) / span) * (y1 - y0) as f64).round() as i64;
    canvas.text(px + LEFT, py + 8, spec.title, 1, INK);
    for k in 0..=ticks {
        let v = lo + step * k as f64;
        let gy = to_y(v);
        canvas.fill(x0, gy, x1 - x0, 1, GRID);
        let label = tick_label(v, step);
        canvas.text(x0 - 6 - Canvas::text_width(&label, 1), gy - 3, &label, 1, INK);
    }
    for k in 0..=4 {
        let gx = x0 + (x1 - x0) * k / 4;
        canvas.fill(gx, y0, 1, y1 - y0, GRID);
        let a = format_units((spec.x_min + (spec.x_max - spec.x_min) * k as f64 / 4.0) as f32);
        canvas.text(gx - Canvas::text_width(&a, 1) / 2, y1 + 5, &a, 1, INK);
    }
    canvas.fill(x0, y0, 1, y1 - y0 + 1, INK);
    canvas.fill(x0, y1, x1 - x0 + 1, 1, INK);
    canvas.text((x0 + x1) / 2 - Canvas::text_width(spec.x_title, 1) / 2, y1 + 18, spec.x_title, 1, INK);
    // Widest first, so that a curve drawn over an equal one (DQS and SBS on two-joint sets) leaves
    // the one below visible as a border.
    let n = spec.curves.len() as i64;
    for (i, (method, points)) in spec.curves.iter().enumerate() {
        let thickness = 2 + (n - 1 - i as i64).min(3);
        let pixels: Vec<(i64, i64)> =
            points.iter().filter(|p| p.1.is_finite()).map(|&(x, v)| (to_x(x), to_y(v))).collect();
        for pair in pixels.windows(2) {
            canvas.line(pair[0], pair[1], thickness, method_colour(*method));
        }
    }
}

/// The panels of one joint × motion row.
fn row_panels(sw: &super::JointSweep, max_angle: f64) -> Vec<Panel<'static>> {
    if sw.motion == super::Motion::Weight {
        let x_max = sw.curves.iter().flat_map(|c| &c.weight_steps).map(|s| -s.weight.log10()).fold(0.0, f64::max);
        let curves = sw
            .curves
            .iter()
            .map(|c| (c.method, c.weight_steps.iter().map(|s| (-s.weight.log10(), 1e3 * s.jump)).collect()))
            .collect();
        return vec![Panel {
            title: "JUMP AS THE WEIGHT GOES TO 0 (1/1000 DIAGONAL)",
            x_title: "-LOG10 WEIGHT",
            x_min: 0.0,
            x_max,
            floor: (0.0, 0.01),
            curves,
        }];
    }
    // A sweep driven by a clip goes back and forth in angle: it is drawn along the clip's time.
    let times: Vec<f64> = sw.curves.iter().flat_map(|c| &c.steps).filter_map(|m| m.time_secs).collect();
    let (x_title, x_min, x_max) = match (times.first(), times.iter().copied().reduce(f64::max)) {
        (Some(&first), Some(last)) => ("CLIP TIME (S)", first.min(last), last),
        _ => ("ANGLE (DEG)", 0.0, max_angle),
    };
    let x = |m: &super::StepMetrics| m.time_secs.unwrap_or(m.angle_deg);
    METRICS
        .iter()
        .map(|metric| Panel {
            title: metric.title,
            x_title,
            x_min,
            x_max,
            floor: metric.floor,
            curves: sw
                .curves
                .iter()
                .map(|c| (c.method, c.steps.iter().map(|m| (x(m), (metric.value)(m))).collect()))
                .collect(),
        })
        .collect()
}

/// `lo`..`hi` widened to multiples of a round step (1, 2 or 5 times a power of ten) giving 3 to 6
/// intervals; returns (lo, hi, step).
#[must_use]
pub fn nice_range(lo: f64, hi: f64) -> (f64, f64, f64) {
    let span = (hi - lo).max(1e-12);
    let raw = span / 5.0;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| span / s <= 6.0).unwrap_or(10.0 * power);
    ((lo / step).floor() * step, (hi / step).ceil() * step, step)
}

/// A tick value with as many decimals as its step needs.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).clamp(0.0, 6.0) as usize;
    let v = if v.abs() < step * 1e-6 { 0.0 } else { v };
    format!("{v:.decimals$}")
}

/// The picture as PNG bytes.
///
/// # Errors
/// The encoder's failure.
pub fn png(report: &SweepReport) -> Result<Vec<u8>, image::ImageError> {
    use image::ImageEncoder as _;
    let (rgba, width, height) = draw(report);
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new(&mut bytes).write_image(
        &rgba,
        width,
        height,
        image::ExtendedColorType::Rgba8,
    )?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_widen_to_round_steps() {
        let (lo, hi, step) = nice_range(0.0, 1.2);
        assert!(lo == 0.0 && (hi - 1.2).abs() < 1e-12 && (step - 0.2).abs() < 1e-12, "{lo} {hi} {step}");
        let (lo, hi, step) = nice_range(-5.78, 0.0);
        assert_eq!((lo, hi, step), (-6.0, 0.0, 1.0));
        assert_eq!(tick_label(-0.2, 0.2), "-0.2");
        assert_eq!(tick_label(1e-17, 0.05), "0.00");
    }
}
