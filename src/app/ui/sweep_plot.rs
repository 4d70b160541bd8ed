//! Curves of the sweep panel, drawn by egui_plot: one plot per metric, one line per method (the
//! colours of `sweep --plot`), both axes labelled with their units, the scrub's angle as a
//! vertical line, the value under the pointer on hover. A curve that coincides with an earlier one
//! (DQS on SBS for a pure bend) is drawn dashed over it, so both colours show, and the legend says
//! which coincide. Each plot is one accessible widget named after its metric and methods.

use eframe::egui;
use egui_plot::{uniform_grid_spacer, GridInput, HoverPosition, Line, LineStyle, PlotPoints, VLine};

use crate::plot::sweep::method_colour;
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

/// Grid steps for about four labelled intervals: a round step (1, 2 or 5 times a power of ten),
/// with a fifth of it for the thin lines (egui_plot's default subdivides by ten, which leaves a
/// small plot with one label on an axis).
fn round_steps(input: GridInput) -> [f64; 3] {
    let span = (input.bounds.1 - input.bounds.0).abs().max(1e-12);
    let power = 10f64.powf((span / 4.0).log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| span / s <= 5.0).unwrap_or(10.0 * power);
    [step / 5.0, step, step * 5.0]
}

/// A method's curve colour.
fn colour(method: SkinningMethod) -> egui::Color32 {
    let c = method_colour(method);
    egui::Color32::from_rgb(c[0], c[1], c[2])
}

impl Plot<'_> {
    /// Draws the plot `width` × `height` points (its title above it).
    pub fn ui(&self, ui: &mut egui::Ui, width: f32, height: f32) -> egui::Response {
        let methods: Vec<SkinningMethod> = self.curves.iter().map(|c| c.0).collect();
        let label = plot_label(self.title, &methods);
        let log_x = self.log_x;
        // Plotted x: log10 of the value on a logarithmic axis.
        let fx = move |x: f64| if log_x { x.max(1e-300).log10() } else { x };
        let from_fx = move |x: f64| if log_x { 10f64.powf(x) } else { x };
        let inner = ui.vertical(|ui| {
            ui.set_width(width);
            ui.label(egui::RichText::new(self.title).small());
            let curves = &self.curves;
            let marker = self.marker;
            let dashed = &self.dashed;
            let warn = ui.visuals().warn_fg_color;
            let mut plot = egui_plot::Plot::new(("sweep plot", self.title));
            if !log_x {
                plot = plot.x_grid_spacer(uniform_grid_spacer(round_steps));
            }
            plot.width(width)
                .height(height - 18.0)
                .include_y(self.floor.0)
                .include_y(self.floor.1)
                .x_axis_label(self.x_label)
                .x_axis_formatter(move |mark, _| short(from_fx(mark.value)))
                .y_axis_formatter(|mark, _| short(mark.value))
                .y_grid_spacer(uniform_grid_spacer(round_steps))
                .y_axis_min_width(36.0)
                .label_formatter(move |hover| {
                    Some(match *hover {
                        HoverPosition::NearDataPoint { plot_name, position: p, .. } => {
                            format!("{plot_name}: {}, {}", short(from_fx(p.x)), short(p.y))
                        }
                        HoverPosition::Elsewhere { position: p } => format!("{}, {}", short(from_fx(p.x)), short(p.y)),
                    })
                })
                .allow_drag(false)
                .allow_zoom(false)
                .allow_scroll(false)
                .allow_boxed_zoom(false)
                .allow_double_click_reset(false)
                .show(ui, |plot| {
                    for (method, curve) in curves {
                        let points: Vec<[f64; 2]> = curve
                            .iter()
                            .filter(|p| p.0.is_finite() && p.1.is_finite())
                            .map(|&(x, y)| [fx(x), y])
                            .collect();
                        let mut line =
                            Line::new(method.label(), PlotPoints::from(points)).color(colour(*method)).width(2.0);
                        if dashed.contains(method) {
                            line = line.style(LineStyle::Dashed { length: 6.0 });
                        }
                        plot.line(line);
                    }
                    if let Some(m) = marker {
                        plot.vline(VLine::new("scrub", fx(m)).color(warn).width(1.5));
                    }
                })
                .response
        });
        let response = inner.inner;
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &label));
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
            let (rect, _) = ui.allocate_exact_size(egui::vec2(22.0, 12.0), egui::Sense::hover());
            ui.painter().hline(rect.x_range(), rect.center().y, egui::Stroke::new(3.0, colour(*m)));
            ui.label(m.label());
        }
        if let Some(note) = coincide_note(coinciding) {
            ui.label(egui::RichText::new(note).color(ui.visuals().warn_fg_color));
        }
    });
}
