//! The Sweep window (View ▸ Sweep…): choose a joint (the selected one by default), a motion
//! (twist, bend, weight), the methods, and what drives the sweep: its own steps up to the largest
//! angle, or the keys of one of the model's clips (where the clip turns the joint about the
//! motion's axis, as `skinlab sweep --clip`); Run computes `analysis::sweep` on a background thread
//! and draws one plot per metric with a curve per method (`sweep_plot`), along the angle or, for a
//! clip, along the clip's time; the scrub slider poses the model at that step in every viewport
//! panel (no undo entry), and closing the window puts the earlier pose back. "Add ROM clip" adds
//! the range-of-motion clip of the joint to the timeline (and can then drive the sweep).

use std::sync::Arc;

use eframe::egui;

use super::sweep_plot::{legend_ui, Plot};
use crate::analysis::sweep::{weighted_joints, Motion, StepMetrics};
use crate::app::analysis::SweepResult;
use crate::app::command::Command;
use crate::app::state::EditorState;
use crate::skinning::SkinningMethod;

/// Seconds per motion of the ROM clip added from the panel.
pub const ROM_SECONDS_PER_MOTION: f64 = 1.0;

/// Shows the window while the panel is open; returns the commands it issued.
pub fn sweep_window(ctx: &egui::Context, s: &mut EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    if !s.analysis.sweep.open {
        return cmds;
    }
    if s.analysis.sweep.poll() {
        ctx.request_repaint_after(std::time::Duration::from_millis(30));
    }
    let mut open = true;
    egui::Window::new("Sweep")
        .open(&mut open)
        .default_size(egui::vec2(700.0, 600.0))
        .default_pos(egui::pos2(250.0, 60.0))
        .show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| panel_ui(ui, s, &mut cmds));
        });
    if !open {
        s.analysis.sweep.open = false;
        s.scrub_sweep(None);
    }
    cmds
}

fn panel_ui(ui: &mut egui::Ui, s: &mut EditorState, cmds: &mut Vec<Command>) {
    let joint = s.analysis.sweep.joint.or(s.selected);
    ui.horizontal(|ui| {
        let l = ui.label("Joint");
        let name = joint.map_or_else(|| "(select a joint)".to_owned(), |n| s.doc.model.nodes.key(n));
        let mut choice = s.analysis.sweep.joint;
        egui::ComboBox::from_id_salt("sweep_joint")
            .selected_text(name)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut choice, None, "(the selected joint)");
                for n in weighted_joints(&s.doc.model) {
                    ui.selectable_value(&mut choice, Some(n), s.doc.model.nodes.key(n));
                }
            })
            .response
            .labelled_by(l.id);
        s.analysis.sweep.joint = choice;
    });
    let panel = &mut s.analysis.sweep;
    ui.horizontal(|ui| {
        ui.label("Motion");
        for m in Motion::ALL {
            ui.selectable_value(&mut panel.motion, m, m.name());
        }
    });
    ui.horizontal(|ui| {
        ui.label("Methods");
        for m in SkinningMethod::MENU {
            let mut on = panel.methods.contains(&m);
            if ui.checkbox(&mut on, m.label()).changed() {
                panel.methods.retain(|&x| x != m);
                if on {
                    panel.methods.push(m);
                    panel.methods.sort_by_key(|x| SkinningMethod::MENU.iter().position(|y| y == x));
                }
            }
        }
    });
    let clips = &s.doc.model.clips;
    let clip_name = |i: usize| clips[i].name.clone().unwrap_or_else(|| format!("#{i}"));
    if panel.drive_clip.is_some_and(|c| c >= clips.len()) {
        panel.drive_clip = None;
    }
    ui.horizontal(|ui| {
        let l = ui.label("Driven by");
        let own = "its own steps";
        egui::ComboBox::from_id_salt("sweep_drive")
            .selected_text(panel.drive_clip.map_or_else(|| own.to_owned(), |c| format!("clip {}", clip_name(c))))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut panel.drive_clip, None, own);
                for c in 0..clips.len() {
                    ui.selectable_value(&mut panel.drive_clip, Some(c), format!("clip {}", clip_name(c)));
                }
            })
            .response
            .labelled_by(l.id)
            .on_hover_text("a clip measures the joint at the clip's keys where it turns about the motion's axis");
        if clips.is_empty() {
            ui.weak("(the model has no clips)");
        }
    });
    let own_steps = panel.drive_clip.is_none();
    ui.horizontal(|ui| {
        let l = ui.label("Max angle (°)");
        ui.add_enabled(
            own_steps && panel.motion != Motion::Weight,
            egui::DragValue::new(&mut panel.max_angle_deg).range(1.0..=360.0),
        )
        .labelled_by(l.id);
        let l = ui.label("Steps");
        ui.add_enabled(own_steps, egui::DragValue::new(&mut panel.steps).range(2..=721)).labelled_by(l.id);
    });
    ui.horizontal(|ui| {
        let panel = &s.analysis.sweep;
        let drivable = panel.drive_clip.is_none() || panel.motion != Motion::Weight;
        let ready = joint.is_some() && !panel.methods.is_empty() && !panel.running() && drivable;
        if ui.add_enabled(ready, egui::Button::new("Run")).clicked() {
            if let Some(node) = joint {
                s.scrub_sweep(None);
                s.analysis.sweep.start(Arc::clone(&s.doc.model), s.doc.model_rev, node);
            }
        }
        if s.analysis.sweep.running() {
            ui.spinner();
            ui.label("computing on a background thread…");
        }
        let max = s.analysis.sweep.max_angle_deg.min(180.0);
        if ui
            .add_enabled(joint.is_some(), egui::Button::new("Add ROM clip"))
            .on_hover_text(format!(
                "a clip on the timeline taking the joint through its twist and two bends, ±{max:.0}°, \
                 {ROM_SECONDS_PER_MOTION} s each"
            ))
            .clicked()
        {
            if let Some(node) = joint {
                cmds.push(Command::AddRomClip {
                    joints: vec![node],
                    max_angle_rad: max.to_radians(),
                    seconds_per_motion: ROM_SECONDS_PER_MOTION,
                });
            }
        }
    });
    if let Some(problem) = &s.analysis.sweep.problem {
        ui.colored_label(ui.visuals().error_fg_color, problem);
    }
    let Some(result) = s.analysis.sweep.result.clone() else {
        if joint.is_none() {
            ui.weak("Select a joint in the tree or the viewport, or choose one above.");
        }
        return;
    };
    ui.separator();
    let driven = match result.clip.and_then(|c| s.doc.model.clips.get(c)) {
        Some(clip) => format!(
            " · {} keys of clip {}",
            result.steps,
            clip.name.clone().unwrap_or_else(|| format!("#{}", result.clip.unwrap_or_default()))
        ),
        None => String::new(),
    };
    ui.label(format!(
        "{} · {}{driven} · {} influenced vertices · computed in {:.0} ms on a background thread",
        result.sweep.joint, result.sweep.motion, result.sweep.influenced_vertices, result.elapsed_ms
    ));
    let methods: Vec<SkinningMethod> = result.sweep.curves.iter().map(|c| c.method).collect();
    legend_ui(ui, &methods);
    if result.sweep.motion == Motion::Weight {
        weight_plot(ui, &result);
        return;
    }
    let at = |k: usize| result.step_time(k).unwrap_or_else(|| result.step_angle_deg(k));
    let marker = s.analysis.sweep.scrub.as_ref().map(|sc| at(sc.step));
    angle_plots(ui, &result, marker);
    let mut step = s.analysis.sweep.scrub.as_ref().map_or(0, |sc| sc.step);
    ui.horizontal(|ui| {
        let l = ui.label("Scrub");
        let shown = result.clone();
        let slider = egui::Slider::new(&mut step, 0..=result.steps.max(1) - 1).custom_formatter(move |v, _| {
            let k = v as usize;
            match shown.step_time(k) {
                Some(t) => format!("{t:.2} s, {:.1}°", shown.step_angle_deg(k)),
                None => format!("{:.1}°", shown.step_angle_deg(k)),
            }
        });
        let tip = if result.clip.is_some() {
            "poses the model as the clip does at this key, in the viewport"
        } else {
            "poses the joint at this step in the viewport"
        };
        if ui.add(slider).labelled_by(l.id).on_hover_text(tip).changed() {
            s.scrub_sweep(Some(step));
        }
        if s.analysis.sweep.scrub.is_some() && ui.button("Restore pose").clicked() {
            s.scrub_sweep(None);
        }
    });
}

/// A plotted metric: its title with the unit, its value per step, the y range always shown.
type Metric = (&'static str, fn(&StepMetrics) -> f64, (f64, f64));

const METRICS: [Metric; 4] = [
    ("collapse (radius / rest)", |m| m.collapse, (0.0, 1.2)),
    ("volume change (%)", |m| 100.0 * m.volume_change, (-1.0, 1.0)),
    ("bulge (/ rest radius)", |m| m.bulge, (0.0, 0.1)),
    ("flip (/ expected arc)", |m| m.flip, (0.0, 2.0)),
];

/// The metrics along the angle, or along the clip's time for a clip-driven sweep (whose angle goes
/// back and forth), as `sweep --plot` draws them.
fn angle_plots(ui: &mut egui::Ui, result: &SweepResult, marker: Option<f64>) {
    // Room for the scroll bar and the gap between the two plots.
    let width = ((ui.available_width() - 24.0) / 2.0).max(200.0);
    let by_time = result.clip.is_some();
    let x = |m: &StepMetrics| if by_time { m.time_secs.unwrap_or(m.angle_deg) } else { m.angle_deg };
    let x_label = if by_time { "clip time (s)" } else { "angle (°)" };
    for pair in METRICS.chunks(2) {
        ui.horizontal(|ui| {
            for (title, value, floor) in pair {
                let curves = result
                    .sweep
                    .curves
                    .iter()
                    .map(|c| (c.method, c.steps.iter().map(|m| (x(m), value(m))).collect()))
                    .collect();
                let plot = Plot { title, x_label, log_x: false, floor: *floor, curves, marker };
                plot.ui(ui, width, 170.0);
            }
        });
    }
}

fn weight_plot(ui: &mut egui::Ui, result: &SweepResult) {
    let curves = result
        .sweep
        .curves
        .iter()
        .map(|c| (c.method, c.weight_steps.iter().map(|w| (w.weight, w.jump)).collect()))
        .collect();
    let plot = Plot {
        title: "jump as the weight goes to 0 (/ bounding-box diagonal)",
        x_label: "weight ε before it goes to 0 (log scale)",
        log_x: true,
        floor: (0.0, 1e-6),
        curves,
        marker: None,
    };
    plot.ui(ui, ui.available_width().max(300.0), 220.0);
}
