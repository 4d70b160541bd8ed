//! The sweep as a picture (`skinlab sweep --plot`): one row per joint and motion, one chart per
//! metric, one curve per method, both axes labelled with their units, the methods' colours in a
//! legend at the top. Charts, ticks and text by plotters; encoded as PNG by `image`.

use plotters::backend::BitMapBackend;
use plotters::chart::ChartBuilder;
use plotters::coord::Shift;
use plotters::drawing::{DrawingArea, IntoDrawingArea as _};
use plotters::element::{Rectangle, Text};
use plotters::series::LineSeries;
use plotters::style::{Color as _, ShapeStyle};

use super::{font, format_units, rgba, PlotError};
use crate::analysis::sweep::{JointSweep, Motion, StepMetrics, SweepReport};
use crate::skinning::SkinningMethod;

/// At most this many joint × motion rows are drawn in one picture.
pub const MAX_ROWS: usize = 64;

const PANEL_W: u32 = 330;
const PANEL_H: u32 = 210;
const ROW_TITLE: u32 = 22;
const HEADER: u32 = 34;

const BACKGROUND: [u8; 4] = [250, 250, 250, 255];
const INK: [u8; 4] = [30, 30, 30, 255];
const GRID: [u8; 4] = [215, 215, 215, 255];
const ROW_BAND: [u8; 4] = [232, 232, 240, 255];

/// The curve colour of a method (also the editor's sweep panel's).
#[must_use]
pub fn method_colour(method: SkinningMethod) -> [u8; 4] {
    match method {
        SkinningMethod::Lbs => [214, 39, 40, 255],
        SkinningMethod::Dqs => [31, 119, 180, 255],
        SkinningMethod::Sbs => [44, 160, 44, 255],
        SkinningMethod::SbsC => [255, 127, 14, 255],
    }
}

/// One chart's metric: title with unit, the value, and the range it is drawn over at least.
struct Metric {
    title: &'static str,
    value: fn(&StepMetrics) -> f64,
    floor: (f64, f64),
}

const METRICS: [Metric; 4] = [
    Metric { title: "collapse (radius / rest)", value: |m| m.collapse, floor: (0.0, 1.2) },
    Metric { title: "volume change (%)", value: |m| 100.0 * m.volume_change, floor: (-1.0, 1.0) },
    Metric { title: "bulge (/ rest radius)", value: |m| m.bulge, floor: (0.0, 0.1) },
    Metric { title: "flip (/ expected arc)", value: |m| m.flip, floor: (0.0, 2.0) },
];

/// The picture's size in pixels for `rows` rows.
#[must_use]
pub fn picture_size(rows: usize) -> (u32, u32) {
    (METRICS.len() as u32 * PANEL_W, HEADER + rows.max(1) as u32 * (ROW_TITLE + PANEL_H))
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// Draws `report` into RGB pixels; returns (pixels, width, height).
///
/// # Errors
/// A text plotters cannot draw.
pub fn draw(report: &SweepReport) -> Result<(Vec<u8>, u32, u32), PlotError> {
    let rows = report.sweeps.len().min(MAX_ROWS);
    let (width, height) = picture_size(rows);
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    {
        let backend = BitMapBackend::with_buffer_and_format(&mut rgb, (width, height))
            .map_err(|e| PlotError::Draw(e.to_string()))?;
        let root = backend.into_drawing_area();
        root.fill(&rgba(BACKGROUND))?;
        let (header, body) = root.split_vertically(HEADER);
        draw_header(&header, report)?;
        for (row, sw) in report.sweeps.iter().take(rows).enumerate() {
            let top = (row as u32 * (ROW_TITLE + PANEL_H)) as i32;
            let area = body.clone().shrink((0, top), (width, ROW_TITLE + PANEL_H));
            let (title, charts) = area.split_vertically(ROW_TITLE);
            title.fill(&rgba(ROW_BAND))?;
            let text = format!("{} - {} ({} vertices)", sw.joint, sw.motion.name(), sw.influenced_vertices);
            title.draw(&Text::new(text, (8, 3), font::sized(15.0).color(&rgba(INK))))?;
            for (col, spec) in row_panels(sw, report.max_angle_deg).iter().enumerate() {
                let x = col as i32 * PANEL_W as i32;
                chart(&charts.clone().shrink((x, 0), (PANEL_W, PANEL_H)), spec)?;
            }
        }
        root.present()?;
    }
    Ok((rgb, width, height))
}

/// The methods' swatches and names, and what the x axes show.
fn draw_header(area: &Area<'_>, report: &SweepReport) -> Result<(), PlotError> {
    let ink = rgba(INK);
    let big = font::sized(18.0).color(&ink);
    let small = font::sized(13.0).color(&ink);
    let methods: Vec<SkinningMethod> =
        report.sweeps.first().map(|s| s.curves.iter().map(|c| c.method).collect()).unwrap_or_default();
    let mut x = 10;
    for m in &methods {
        area.draw(&Rectangle::new([(x, 14), (x + 24, 18)], rgba(method_colour(*m)).filled()))?;
        area.draw(&Text::new(m.label(), (x + 30, 7), big.clone()))?;
        x += 30 + area.estimate_text_size(m.label(), &big)?.0 as i32 + 24;
    }
    let clip_driven =
        report.sweeps.iter().flat_map(|s| &s.curves).flat_map(|c| &c.steps).any(|m| m.time_secs.is_some());
    let angle = format_units(report.max_angle_deg as f32);
    let mut note = if clip_driven {
        format!("{} clip keys, turns up to {angle}°", report.steps)
    } else {
        format!("{} steps to {angle}°", report.steps)
    };
    if methods.len() > 1 {
        note.push_str("   (curves drawn widest first: a covered curve shows as a border)");
    }
    area.draw(&Text::new(note, (x + 10, 10), small))?;
    Ok(())
}

/// One chart's content: titles, the x range, and one polyline per method.
struct Panel<'a> {
    title: &'a str,
    x_title: &'a str,
    x_min: f64,
    x_max: f64,
    floor: (f64, f64),
    curves: Vec<(SkinningMethod, Vec<(f64, f64)>)>,
}

fn chart(area: &Area<'_>, spec: &Panel) -> Result<(), PlotError> {
    let (mut lo, mut hi) = spec.floor;
    for &(_, v) in spec.curves.iter().flat_map(|(_, points)| points) {
        if v.is_finite() {
            (lo, hi) = (lo.min(v), hi.max(v));
        }
    }
    let pad = (hi - lo).max(1e-12) * 0.04;
    let x_max = if spec.x_max > spec.x_min { spec.x_max } else { spec.x_min + 1.0 };
    let ink = rgba(INK);
    let mut chart = ChartBuilder::on(area)
        .caption(spec.title, font::sized(14.0).color(&ink))
        .margin_top(4)
        .margin_right(12)
        .x_label_area_size(34)
        .y_label_area_size(52)
        .build_cartesian_2d(spec.x_min..x_max, (lo - pad)..(hi + pad))?;
    chart
        .configure_mesh()
        .x_desc(spec.x_title)
        .x_labels(5)
        .y_labels(6)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style(font::sized(12.0).color(&ink))
        .axis_desc_style(font::sized(12.0).color(&ink))
        .bold_line_style(rgba(GRID))
        .light_line_style(rgba([0, 0, 0, 0]))
        .axis_style(ink)
        .draw()?;
    // Widest first, so that a curve drawn over an equal one (DQS and SBS on two-joint sets) leaves
    // the one below visible as a border.
    let n = spec.curves.len() as u32;
    for (i, (method, points)) in spec.curves.iter().enumerate() {
        let width = 2 + (n - 1 - i as u32).min(3);
        let style = ShapeStyle { color: rgba(method_colour(*method)), filled: true, stroke_width: width };
        chart.draw_series(LineSeries::new(points.iter().copied().filter(|p| p.1.is_finite()), style))?;
    }
    Ok(())
}

/// The charts of one joint × motion row.
fn row_panels(sw: &JointSweep, max_angle: f64) -> Vec<Panel<'static>> {
    if sw.motion == Motion::Weight {
        let x_max = sw.curves.iter().flat_map(|c| &c.weight_steps).map(|s| -s.weight.log10()).fold(0.0, f64::max);
        let curves = sw
            .curves
            .iter()
            .map(|c| (c.method, c.weight_steps.iter().map(|s| (-s.weight.log10(), 1e3 * s.jump)).collect()))
            .collect();
        return vec![Panel {
            title: "jump as the weight goes to 0 (1/1000 diagonal)",
            x_title: "-log10 weight",
            x_min: 0.0,
            x_max,
            floor: (0.0, 0.01),
            curves,
        }];
    }
    // A sweep driven by a clip goes back and forth in angle: it is drawn along the clip's time.
    let times: Vec<f64> = sw.curves.iter().flat_map(|c| &c.steps).filter_map(|m| m.time_secs).collect();
    let (x_title, x_min, x_max) = match (times.first(), times.iter().copied().reduce(f64::max)) {
        (Some(&first), Some(last)) => ("clip time (s)", first.min(last), last),
        _ => ("angle (°)", 0.0, max_angle),
    };
    let x = |m: &StepMetrics| m.time_secs.unwrap_or(m.angle_deg);
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

/// An axis tick: about three significant digits, without trailing zeros ("50", "0.25", "-2").
fn tick(v: f64) -> String {
    let text = format_units(v as f32);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// The picture as PNG bytes.
///
/// # Errors
/// A text plotters cannot draw, or the encoder's failure.
pub fn png(report: &SweepReport) -> Result<Vec<u8>, PlotError> {
    use image::ImageEncoder as _;
    let (rgb, width, height) = draw(report)?;
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new(&mut bytes).write_image(&rgb, width, height, image::ExtendedColorType::Rgb8)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(tick(50.0), "50");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(-2.0), "-2");
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(150.0), "150");
    }
}
