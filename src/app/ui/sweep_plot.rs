//! Curves of the sweep panel drawn with egui's painter: one plot per metric, one polyline per
//! method (the colours of `sweep --plot`), both axes labelled with their units, the scrub's angle as
//! a vertical line. A curve that coincides with an earlier one (DQS on SBS for a pure bend) is
//! drawn dashed over it, so both colours show, and the legend says which coincide. Each plot is
//! one accessible widget named after its metric and methods.

use eframe::egui;

use crate::analysis::sweep::plot::method_colour;
use crate::skinning::SkinningMethod;

/// One metric's plot.
pub struct Plot<'a> {
    /// The metric and its unit, e.g. "collapse (radius / rest)".
    pub title: &'a str,
    /// The x axis's label with its unit.
    pub x_label: &'a str,
    /// The x axis is logarithmic (base 10; values must be positive).
    pub log_x: bool,
    /// The y range always shown (the data widens it).
    pub floor: (f64, f64),
    /// One curve per method: (x, y) points.
    pub curves: Vec<(SkinningMethod, Vec<(f64, f64)>)>,
    /// The x of the scrub's line.
    pub marker: Option<f64>,
    /// The methods whose curves coincide with an earlier curve's (drawn dashed).
    pub dashed: Vec<SkinningMethod>,
}

fn short(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-2..1e4).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The accessible name of a plot: its title and methods.
#[must_use]
pub fn plot_label(title: &str, methods: &[SkinningMethod]) -> String {
    let names: Vec<&str> = methods.iter().map(|m| m.label()).collect();
    format!("plot of {title}: {}", names.join(", "))
}

impl Plot<'_> {
    /// Draws the plot `width` × `height` points.
    pub fn ui(&self, ui: &mut egui::Ui, width: f32, height: f32) -> egui::Response {
        let (rect, response) = ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::hover());
        let methods: Vec<SkinningMethod> = self.curves.iter().map(|c| c.0).collect();
        let label = plot_label(self.title, &methods);
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &label));
        let painter = ui.painter_at(rect);
        let visuals = ui.visuals();
        painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);
        let font = egui::FontId::proportional(11.0);
        let ink = visuals.text_color();
        let area = egui::Rect::from_min_max(rect.min + egui::vec2(46.0, 18.0), rect.max - egui::vec2(8.0, 30.0));
        let fx = |x: f64| if self.log_x { x.max(1e-300).log10() } else { x };
        let points = self.curves.iter().flat_map(|c| c.1.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, self.floor.0, self.floor.1);
        for &(x, y) in points {
            (x0, x1) = (x0.min(fx(x)), x1.max(fx(x)));
            (y0, y1) = (y0.min(y), y1.max(y));
        }
        if x0 >= x1 {
            (x0, x1) = (x0.min(0.0), x0.max(0.0) + 1.0);
        }
        let pad = (y1 - y0) * 0.05;
        (y0, y1) = (y0 - pad, y1 + pad);
        let at = |x: f64, y: f64| {
            egui::pos2(
                area.left() + area.width() * ((fx(x) - x0) / (x1 - x0)) as f32,
                area.bottom() - area.height() * ((y - y0) / (y1 - y0)) as f32,
            )
        };
        painter.text(rect.left_top() + egui::vec2(6.0, 3.0), egui::Align2::LEFT_TOP, self.title, font.clone(), ink);
        let grid = egui::Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color);
        for k in 0..=4 {
            let t = f64::from(k) / 4.0;
            let y = y0 + (y1 - y0) * t;
            let py = area.bottom() - area.height() * t as f32;
            painter.hline(area.x_range(), py, grid);
            painter.text(egui::pos2(area.left() - 4.0, py), egui::Align2::RIGHT_CENTER, short(y), font.clone(), ink);
            let x = x0 + (x1 - x0) * t;
            let px = area.left() + area.width() * t as f32;
            painter.vline(px, area.y_range(), grid);
            let xv = if self.log_x { 10f64.powf(x) } else { x };
            painter.text(egui::pos2(px, area.bottom() + 3.0), egui::Align2::CENTER_TOP, short(xv), font.clone(), ink);
        }
        painter.text(
            egui::pos2(area.center().x, rect.bottom() - 2.0),
            egui::Align2::CENTER_BOTTOM,
            self.x_label,
            font.clone(),
            ink,
        );
        if let Some(m) = self.marker {
            let p = at(m, y0);
            painter.vline(p.x, area.y_range(), egui::Stroke::new(1.5, visuals.warn_fg_color));
        }
        for (method, curve) in &self.curves {
            let c = method_colour(*method);
            let stroke = egui::Stroke::new(2.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
            let line: Vec<egui::Pos2> =
                curve.iter().filter(|p| p.0.is_finite() && p.1.is_finite()).map(|&(x, y)| at(x, y)).collect();
            if self.dashed.contains(method) {
                painter.extend(egui::Shape::dashed_line(&line, stroke, 6.0, 6.0));
            } else {
                painter.add(egui::Shape::line(line, stroke));
            }
        }
        response.on_hover_text(label)
    }
}

/// The legend's note on curves that coincide (`None` when none do), e.g. "DQS = SBS: the curves
/// coincide (drawn dashed over each other)".
#[must_use]
pub fn coincide_note(pairs: &[(SkinningMethod, SkinningMethod)]) -> Option<String> {
    let names: Vec<String> = pairs.iter().map(|(a, b)| format!("{} = {}", a.label(), b.label())).collect();
    (!names.is_empty()).then(|| format!("{}: the curves coincide (drawn dashed over each other)", names.join(", ")))
}

/// The methods' colours with their names, and which curves coincide.
pub fn legend_ui(ui: &mut egui::Ui, methods: &[SkinningMethod], coinciding: &[(SkinningMethod, SkinningMethod)]) {
    ui.horizontal(|ui| {
        for m in methods {
            let c = method_colour(*m);
            let (rect, _) = ui.allocate_exact_size(egui::vec2(22.0, 12.0), egui::Sense::hover());
            ui.painter().hline(
                rect.x_range(),
                rect.center().y,
                egui::Stroke::new(3.0, egui::Color32::from_rgb(c[0], c[1], c[2])),
            );
            ui.label(m.label());
        }
        if let Some(note) = coincide_note(coinciding) {
            ui.label(egui::RichText::new(note).color(ui.visuals().warn_fg_color));
        }
    });
}
