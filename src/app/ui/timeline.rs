//! The timeline: choose one of the model's animations (or start a new one), play / pause, scrub;
//! set a key of the selected joint or the whole pose (I, Shift+I), delete the keys at the current
//! time (Alt+I); time in frames at the clip's frame rate (`rig::keys::frame_rate`), or in seconds;
//! the keys' interpolation (step, linear, cubic spline: the selected joint's keys or those at the
//! current frame); the clip's keys drawn as diamonds under the scrubber (those of the selected
//! joint filled): click one to go to it, drag it to move every key at that time (to whole frames
//! when showing frames); the curve view of the selected joint's rotation (`curve_view.rs`).

use eframe::egui;

use super::curve_view;
use super::time_axis::{label_width, strip_width, TimeScale};
use crate::app::command::{Command, KeyCommand};
use crate::app::state::EditorState;
use crate::model::Interpolation;
use crate::rig::{key_interpolation, keys};

/// Accessible label of the interpolation menu.
pub const INTERPOLATION_LABEL: &str = "Interpolation";

/// The interpolation menu's entries.
const MODES: [(Interpolation, &str); 3] =
    [(Interpolation::Step, "Step"), (Interpolation::Linear, "Linear"), (Interpolation::CubicSpline, "Cubic spline")];

/// Draws the timeline and returns the commands it issued (display settings change in place).
pub fn timeline_ui(ui: &mut egui::Ui, s: &mut EditorState) -> Vec<Command> {
    let mut cmds = Vec::new();
    ui.horizontal(|ui| clip_row(ui, s, &mut cmds));
    let Some(clip) = s.posing.clip.and_then(|c| s.doc.model.clips.get(c)) else { return cmds };
    let scale = TimeScale { fps: (!s.posing.timeline.seconds).then(|| keys::frame_rate(clip)) };
    let mut view = s.posing.timeline;
    ui.horizontal(|ui| {
        let (a, b) = s.timeline_range();
        ui.spacing_mut().slider_width = strip_width(ui);
        let l = ui.label(scale.slider_label());
        let r = match scale.fps {
            Some(fps) => {
                let mut frame = (s.posing.time_secs * fps).round();
                let slider = egui::Slider::new(&mut frame, (a * fps).floor()..=(b * fps).ceil().max(a * fps + 1.0))
                    .step_by(1.0)
                    .fixed_decimals(0);
                let r = ui.add(slider).labelled_by(l.id);
                if r.changed() {
                    cmds.push(Command::SetTime(frame / fps));
                }
                r
            }
            None => {
                let mut t = s.posing.time_secs;
                let r = ui.add(egui::Slider::new(&mut t, a..=b.max(a + 1e-6)).fixed_decimals(2)).labelled_by(l.id);
                if r.changed() {
                    cmds.push(Command::SetTime(t));
                }
                r
            }
        };
        let _ = r.on_hover_text("drag or type the time");
    });
    ui.horizontal(|ui| interpolation_row(ui, s, &mut view, &mut cmds));
    key_strip(ui, s, scale, &mut cmds);
    if view.curves {
        curve_view::curve_view_ui(ui, s, scale, &mut view, &mut cmds);
    }
    s.posing.timeline = view;
    cmds
}

/// The first row: the clip menu, New Clip, the key buttons, Play.
fn clip_row(ui: &mut egui::Ui, s: &EditorState, cmds: &mut Vec<Command>) {
    let name = |i: usize| s.doc.model.clips[i].name.clone().unwrap_or_else(|| format!("#{i}"));
    let current = s.posing.clip.map_or_else(|| "(no animation)".to_owned(), name);
    let l = ui.label("Animation");
    egui::ComboBox::from_id_salt("clip")
        .selected_text(current)
        .show_ui(ui, |ui| {
            if ui.selectable_label(s.posing.clip.is_none(), "(no animation)").clicked() {
                cmds.push(Command::SelectClip(None));
            }
            for i in 0..s.doc.model.clips.len() {
                if ui.selectable_label(s.posing.clip == Some(i), name(i)).clicked() {
                    cmds.push(Command::SelectClip(Some(i)));
                }
            }
        })
        .response
        .labelled_by(l.id);
    if ui.button("New Clip").on_hover_text("start an empty clip to key poses on").clicked() {
        cmds.push(Command::Key(KeyCommand::NewClip));
    }
    let key_tip = if s.selected.is_some() { "key the selected joint here (I)" } else { "key the whole pose here (I)" };
    if ui.button("Set Key").on_hover_text(key_tip).clicked() {
        cmds.push(Command::Key(KeyCommand::Set { whole_pose: false }));
    }
    if ui.button("Key Whole Pose").on_hover_text("key every joint and morph target here (Shift+I)").clicked() {
        cmds.push(Command::Key(KeyCommand::Set { whole_pose: true }));
    }
    if s.posing.clip.and_then(|c| s.doc.model.clips.get(c)).is_none() {
        ui.weak(if s.doc.model.clips.is_empty() {
            "this model has no animations: Set Key starts one"
        } else {
            "choose an animation to scrub, or Set Key to start one"
        });
        return;
    }
    if ui.button("Delete Key").on_hover_text("delete the keys here (Alt+I)").clicked() {
        cmds.push(Command::Key(KeyCommand::Delete { whole_pose: s.selected.is_none() }));
    }
    if ui.button(if s.posing.playing { "Pause" } else { "Play" }).clicked() {
        cmds.push(Command::Play(!s.posing.playing));
    }
}

/// Seconds or frames, the interpolation menu and what it applies to, the curve view's toggle.
fn interpolation_row(
    ui: &mut egui::Ui,
    s: &EditorState,
    view: &mut crate::app::state::TimelineView,
    cmds: &mut Vec<Command>,
) {
    let Some(clip) = s.posing.clip.and_then(|c| s.doc.model.clips.get(c)) else { return };
    let nodes = s.selected.map(|n| vec![n]);
    let time = view.keys_here.then_some(s.posing.time_secs);
    let current = key_interpolation::interpolation_of(clip, nodes.as_deref(), time);
    let shown = match current {
        Some(m) => MODES.iter().find(|(x, _)| *x == m).map_or("", |(_, n)| n),
        None if keys::key_times(clip, nodes.as_deref()).is_empty() => "(no keys)",
        None if view.keys_here
            && !keys::key_times(clip, nodes.as_deref())
                .iter()
                .any(|&k| (k - s.posing.time_secs).abs() <= keys::KEY_TIME_TOLERANCE) =>
        {
            "(no key here)"
        }
        None => "mixed",
    };
    let fps = keys::frame_rate(clip);
    ui.checkbox(&mut view.seconds, "Seconds")
        .on_hover_text(format!("show seconds instead of frames ({fps} fps, read from the clip's keys)"));
    ui.separator();
    let whose = if s.selected.is_some() { "the selected joint's" } else { "every joint's" };
    let l = ui.label(INTERPOLATION_LABEL);
    egui::ComboBox::from_id_salt("interpolation")
        .selected_text(shown)
        .show_ui(ui, |ui| {
            for (mode, name) in MODES {
                if ui.selectable_label(current == Some(mode), name).clicked() {
                    cmds.push(Command::Key(KeyCommand::Interpolation { mode, here_only: view.keys_here }));
                }
            }
        })
        .response
        .labelled_by(l.id)
        .on_hover_text(format!(
            "how the curve goes from a key to the next: hold (step), straight (linear) or smooth (cubic spline); sets {whose} {}",
            if view.keys_here { "keys at this time" } else { "keys" }
        ));
    ui.checkbox(&mut view.keys_here, "only keys here")
        .on_hover_text("set the interpolation of the keys at the current time only");
    ui.separator();
    ui.toggle_value(&mut view.curves, "Curves")
        .on_hover_text("the selected joint's rotation over the clip, keys to drag");
}

/// The clip's keys under the scrubber: diamonds to click (go to that time) and drag (move them).
fn key_strip(ui: &mut egui::Ui, s: &EditorState, scale: TimeScale, cmds: &mut Vec<Command>) {
    let Some(clip) = s.posing.clip.and_then(|c| s.doc.model.clips.get(c)) else { return };
    let (a, b) = s.timeline_range();
    let span = (b - a).max(1e-6);
    let label_width = label_width(ui, scale);
    let width = strip_width(ui);
    let (strip, _) = ui.allocate_exact_size(egui::vec2(label_width + width, 16.0), egui::Sense::hover());
    let (x0, x1) = (strip.left() + label_width + 6.0, strip.left() + label_width + width - 6.0);
    let x_of = |t: f64| x0 + (x1 - x0) * ((t - a) / span) as f32;
    let t_of = |x: f32| a + span * f64::from((x - x0) / (x1 - x0));
    let painter = ui.painter_at(strip.expand(2.0));
    let y = strip.center().y;
    painter.line_segment([egui::pos2(x0, y), egui::pos2(x1, y)], ui.visuals().widgets.noninteractive.bg_stroke);
    painter.line_segment(
        [egui::pos2(x_of(s.posing.time_secs), strip.top()), egui::pos2(x_of(s.posing.time_secs), strip.bottom())],
        egui::Stroke::new(1.5, egui::Color32::from_rgb(90, 160, 255)),
    );
    let selected: Vec<f64> = s.selected.map(|n| keys::key_times(clip, Some(&[n]))).unwrap_or_default();
    for t in keys::key_times(clip, None) {
        let id = ui.scope_id().with(("key", t.to_bits()));
        let rect = egui::Rect::from_center_size(egui::pos2(x_of(t), y), egui::vec2(12.0, 16.0));
        let response = ui.interact(rect, id, egui::Sense::click_and_drag());
        let text = format!("key at {}", scale.label(t));
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &text));
        let mut x = x_of(t);
        if response.dragged() {
            if let Some(p) = response.interact_pointer_pos() {
                x = x_of(scale.snap(t_of(p.x.clamp(x0, x1))));
            }
        }
        if response.drag_stopped() {
            if let Some(p) = response.interact_pointer_pos() {
                let to = scale.snap(t_of(p.x.clamp(x0, x1))).max(0.0);
                if (to - t).abs() > keys::KEY_TIME_TOLERANCE {
                    cmds.push(Command::Key(KeyCommand::Move { from_secs: t, to_secs: to }));
                }
            }
        } else if response.clicked() {
            cmds.push(Command::SetTime(t));
        }
        let on_selected = selected.iter().any(|&k| (k - t).abs() <= keys::KEY_TIME_TOLERANCE);
        let fill = if on_selected { egui::Color32::from_rgb(240, 200, 60) } else { egui::Color32::from_gray(150) };
        let r = if response.hovered() || response.dragged() { 6.0 } else { 5.0 };
        let c = egui::pos2(x, y);
        let diamond =
            vec![c + egui::vec2(0.0, -r), c + egui::vec2(r, 0.0), c + egui::vec2(0.0, r), c + egui::vec2(-r, 0.0)];
        painter.add(egui::Shape::convex_polygon(diamond, fill, egui::Stroke::new(1.0, egui::Color32::BLACK)));
        response.on_hover_text(format!("{text}: click to go there, drag to move"));
    }
}

/// The timeline's keys (Pose mode): I keys the selected joint (the whole pose with nothing
/// selected), Shift+I the whole pose, Alt+I deletes the keys at the current time.
pub fn key_shortcuts(i: &mut egui::InputState) -> Vec<Command> {
    let mut cmds = Vec::new();
    if i.consume_key(egui::Modifiers::NONE, egui::Key::I) {
        cmds.push(Command::Key(KeyCommand::Set { whole_pose: false }));
    }
    if i.consume_key(egui::Modifiers::SHIFT, egui::Key::I) {
        cmds.push(Command::Key(KeyCommand::Set { whole_pose: true }));
    }
    if i.consume_key(egui::Modifiers::ALT, egui::Key::I) {
        cmds.push(Command::Key(KeyCommand::Delete { whole_pose: false }));
    }
    cmds
}
