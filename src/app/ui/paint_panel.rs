//! The paint panel (right side in paint mode): weight display, brush settings (mode, radius and
//! its unit, strength, falloff, Replace value, front faces / whole volume, x-mirror) and the weight
//! rules (influence limit, Normalize All, Limit Total, Clean with its threshold, Smooth All) and
//! the weld report with Weld Weights.
//! Joint locks are toggled in the joint tree.

use eframe::egui;

use crate::app::command::{Command, WeightTool};
use crate::app::state::{EditorState, WeightDisplay};
use crate::paint::display::WeightRamp;
use crate::paint::mirror_weights::MirrorDirection;
use crate::paint::{BlendMode, Falloff, RadiusUnit, WeldSource};

/// Draws the paint panel; brush settings are edited in place, the rest returns commands.
pub fn paint_panel_ui(ui: &mut egui::Ui, s: &mut EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    ui.heading("Weights");
    if let Some(done) = s.topology_progress() {
        ui.add(egui::ProgressBar::new(done).text(format!("building the brush caches: {:.0} %", done * 100.0)))
            .on_hover_text("welded surface and mirrors of this large model; the first dab waits for them if needed");
    }
    let before = s.painting.settings.clone();
    ui.horizontal(|ui| {
        ui.selectable_value(&mut s.painting.settings.display, WeightDisplay::SelectedJoint, "Joint weight");
        ui.selectable_value(&mut s.painting.settings.display, WeightDisplay::Dominant, "Dominant joint");
    });
    if s.painting.settings.display == WeightDisplay::SelectedJoint {
        ui.horizontal(|ui| {
            for ramp in WeightRamp::ALL {
                ui.selectable_value(&mut s.painting.settings.ramp, ramp, ramp.label());
            }
        });
        isoline_row(ui, &mut s.painting.settings);
    }
    if s.painting.settings != before {
        s.repaint_colours();
    }
    match s.selected {
        Some(n) => ui.label(format!("painting: {}", s.doc.model.nodes.key(n))),
        None => ui.weak("Select a joint in the tree to paint it."),
    };
    ui.separator();
    ui.heading("Brush");
    let b = &mut s.painting.settings.brush;
    ui.horizontal_wrapped(|ui| {
        for m in BlendMode::ALL {
            ui.selectable_value(&mut b.mode, m, m.label());
        }
    });
    egui::Grid::new("brush").num_columns(2).show(ui, |ui| {
        let l = ui.label("Radius");
        let (speed, suffix) = match b.radius_unit {
            RadiusUnit::Screen => (0.5, " px"),
            RadiusUnit::Model => (0.001, ""),
        };
        ui.add(
            egui::DragValue::new(&mut b.radius)
                .speed(speed)
                .range(1e-4..=1e6)
                .suffix(suffix)
                .custom_formatter(|v, _| rounded_radius(v)),
        )
        .on_hover_text("[ and ], or Ctrl+wheel")
        .labelled_by(l.id);
        ui.end_row();
        let l = ui.label("Strength");
        ui.add(egui::Slider::new(&mut b.strength, 0.0..=1.0))
            .on_hover_text("- and =, or Shift+wheel")
            .labelled_by(l.id);
        ui.end_row();
        let l = ui.label("Falloff");
        egui::ComboBox::from_id_salt("falloff")
            .selected_text(b.falloff.label())
            .show_ui(ui, |ui| {
                for f in Falloff::ALL {
                    ui.selectable_value(&mut b.falloff, f, f.label());
                }
            })
            .response
            .labelled_by(l.id);
        ui.end_row();
        let l = ui.label("Replace value");
        ui.add(egui::Slider::new(&mut b.value, 0.0..=1.0)).on_hover_text("Ctrl+click samples it").labelled_by(l.id);
        ui.end_row();
    });
    let mut model_units = b.radius_unit == RadiusUnit::Model;
    if ui.checkbox(&mut model_units, "Radius in model units").changed() {
        let diagonal = (s.doc.model_bounds.1 - s.doc.model_bounds.0).length().max(1e-3);
        let b = &mut s.painting.settings.brush;
        (b.radius_unit, b.radius) =
            if model_units { (RadiusUnit::Model, diagonal * 0.05) } else { (RadiusUnit::Screen, 40.0) };
    }
    let b = &mut s.painting.settings.brush;
    ui.checkbox(&mut b.front_faces_only, "Front faces only");
    ui.checkbox(&mut b.whole_volume, "Whole volume");
    ui.checkbox(&mut b.mirror_x, "X-mirror");
    mirror_ui(ui, s, &mut cmds);
    ui.separator();
    ui.heading("Rules");
    egui::Grid::new("rules").num_columns(2).show(ui, |ui| {
        let l = ui.label("Influence limit");
        ui.add(egui::DragValue::new(&mut s.painting.settings.limit).range(1..=16)).labelled_by(l.id);
        ui.end_row();
        let l = ui.label("Clean threshold");
        ui.add(
            egui::DragValue::new(&mut s.painting.settings.clean_threshold)
                .speed(0.001)
                .range(0.0..=1.0)
                .fixed_decimals(3),
        )
        .labelled_by(l.id);
        ui.end_row();
    });
    ui.horizontal_wrapped(|ui| {
        for tool in [WeightTool::NormalizeAll, WeightTool::LimitTotal, WeightTool::Clean, WeightTool::SmoothAll] {
            if ui.button(tool.label()).clicked() {
                cmds.push(Command::Tool(tool));
            }
        }
    });
    weld_ui(ui, s, &mut cmds);
    ui.weak("Lock joints with the boxes in the joint tree.");
    ui.separator();
    ui.weak(
        "Left drag paints, Ctrl+click samples (the status bar shows how the mouse moves the view); \
         [ ] radius, - = strength, Ctrl/Shift+wheel likewise; Tab leaves paint mode.",
    );
    cmds
}

/// The radius as the field shows it: three significant digits (at least whole pixels' tenths),
/// so that ×1.1 steps read 44, 48.4, 53.2 rather than 53.240005.
#[must_use]
pub fn rounded_radius(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// The weld report: how many groups of coincident vertices disagree, and the Weld Weights tool.
fn weld_ui(ui: &mut egui::Ui, s: &EditorState, cmds: &mut Vec<Command>) {
    let n = s.painting.weld_disagreements;
    if n == 0 {
        ui.weak("Coincident vertices agree (no cracks).");
        return;
    }
    ui.colored_label(
        ui.visuals().warn_fg_color,
        format!(
            "{n} weld group{} of coincident vertices disagree: the mesh cracks there when posed.",
            if n == 1 { "" } else { "s" }
        ),
    );
    ui.horizontal_wrapped(|ui| {
        for source in [WeldSource::Mean, WeldSource::LargerSide] {
            let tool = WeightTool::Weld(source);
            if ui.button(tool.label()).clicked() {
                cmds.push(Command::Tool(tool));
            }
        }
    });
}

/// What the mirror paints (the mirrored joint, vertices without an exact mirror, joints whose
/// names disagree with their positions) and the Mirror Weights operator.
fn mirror_ui(ui: &mut egui::Ui, s: &EditorState, cmds: &mut Vec<Command>) {
    let topo = s.topology();
    if let Some(j) = s.selected_surface_joint() {
        let m = topo.mirror_joint(j);
        let text = if m == j {
            format!("mirror paints: {} (its own mirror)", s.surface_joint_name(j))
        } else {
            format!("mirror paints: {}", s.surface_joint_name(m))
        };
        ui.label(text);
    }
    let inexact = topo.closest_mirrors.len();
    if inexact > 0 {
        ui.weak(format!("{inexact} vertices have no exact mirror: the closest point is used"));
    }
    let disagree = topo.joint_mirror_disagreements.len();
    if disagree > 0 {
        ui.weak(format!("{disagree} joints mirrored by position (their names pair them differently)")).on_hover_text(
            topo.joint_mirror_disagreements
                .iter()
                .map(|&(j, n, p)| {
                    format!(
                        "{} mirrors to {} (its name says {})",
                        s.surface_joint_name(j),
                        s.surface_joint_name(p),
                        s.surface_joint_name(n)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    ui.horizontal_wrapped(|ui| {
        for direction in [MirrorDirection::PositiveToNegative, MirrorDirection::NegativeToPositive] {
            let label = format!("Mirror {}", direction.label(topo.mirror_axis));
            ui.menu_button(label, |ui| {
                for all_joints in [true, false] {
                    let tool = WeightTool::MirrorWeights { direction, all_joints };
                    if ui.button(tool.label()).clicked() {
                        cmds.push(Command::Tool(tool));
                        ui.close();
                    }
                }
            });
        }
    });
}

/// The label of the checkbox that draws zero weights black.
pub const ZERO_BLACK_LABEL: &str = "Zero weights black";

/// Most isoline levels.
const MAX_ISOLINES: usize = 6;

/// The isolines toggle beside Zero weights black (one short row that the panel's default width
/// holds whole), then the isolines' levels (each a weight in 0..1; + adds one, − drops the last),
/// three levels a row so that the panel never cuts them.
fn isoline_row(ui: &mut egui::Ui, settings: &mut crate::app::state::PaintSettings) {
    ui.horizontal(|ui| {
        ui.checkbox(&mut settings.isolines, "Isolines")
            .on_hover_text("lines on the skin where the joint's weight equals each level");
        ui.checkbox(&mut settings.zero_black, ZERO_BLACK_LABEL)
            .on_hover_text("vertices the joint does not move drawn black (Blender's Show Zero Weights: Active)");
    });
    if !settings.isolines {
        return;
    }
    for (r, chunk) in settings.isoline_levels.chunks_mut(3).enumerate() {
        ui.horizontal(|ui| {
            for (i, level) in chunk.iter_mut().enumerate() {
                ui.add(egui::DragValue::new(level).speed(0.01).range(0.0..=1.0).fixed_decimals(2))
                    .on_hover_text(format!("isoline {}: the weight it follows", 3 * r + i + 1));
            }
        });
    }
    ui.horizontal(|ui| {
        if settings.isoline_levels.len() < MAX_ISOLINES && ui.small_button("+").on_hover_text("another level").clicked()
        {
            let next = settings.isoline_levels.last().map_or(0.5, |l| (l + 0.1).min(1.0));
            settings.isoline_levels.push(next);
        }
        if settings.isoline_levels.len() > 1 && ui.small_button("−").on_hover_text("drop the last level").clicked() {
            settings.isoline_levels.pop();
        }
    });
}
