//! The curve view under the timeline: the selected joint's rotation over the clip as three curves
//! in degrees from rest, Twist / Bend A / Bend B about the bone (`rig::twist_bend`) or the Euler
//! angles in the rotation fields' order (continuous from sample to sample), on the key strip's
//! time axis. Each rotation key is a handle on every curve: dragging one changes that number of
//! the key (vertically) and moves the joint's keys at that time (horizontally, to whole frames
//! when the timeline shows frames); the drag is one command, so one undo step.

use eframe::egui;
use glam::DQuat;

use super::time_axis::{label_width, strip_width, TimeScale};
use crate::app::command::{Command, KeyCommand};
use crate::app::state::{EditorState, EulerOrder, TimelineView};
use crate::model::{Channel, ChannelPath};
use crate::rig::sample::sample_channel;
use crate::rig::twist_bend::{compose, decompose, BendAxes, TwistBend};

/// Height of the curve area, pixels.
const HEIGHT: f32 = 150.0;
/// Samples drawn across the time axis.
const SAMPLES: usize = 240;
/// The curves' colours (X / Twist red, Y / Bend A green, Z / Bend B blue).
const COLOURS: [egui::Color32; 3] = [
    egui::Color32::from_rgb(230, 90, 80),
    egui::Color32::from_rgb(110, 200, 90),
    egui::Color32::from_rgb(90, 150, 240),
];

/// The three numbers a rotation reads as.
#[derive(Clone, Copy)]
enum Reading {
    TwistBend { rest: DQuat, axes: BendAxes },
    Euler { rest: DQuat, order: EulerOrder },
}

impl Reading {
    fn names(self) -> [&'static str; 3] {
        match self {
            Self::TwistBend { .. } => ["Twist", "Bend A", "Bend B"],
            Self::Euler { .. } => ["X", "Y", "Z"],
        }
    }

    /// Degrees of `q`, near `previous` (Euler angles' continuity).
    fn degrees(self, q: DQuat, previous: [f64; 3]) -> [f64; 3] {
        match self {
            Self::TwistBend { rest, axes } => {
                let tb = decompose(rest, q, &axes);
                [tb.twist, tb.bend_a, tb.bend_b].map(f64::to_degrees)
            }
            Self::Euler { rest, order } => {
                order.angles_near(rest.inverse() * q.normalize(), previous.map(f64::to_radians)).map(f64::to_degrees)
            }
        }
    }

    /// The local rotation of three numbers.
    fn rotation(self, degrees: [f64; 3]) -> DQuat {
        let [a, b, c] = degrees.map(f64::to_radians);
        match self {
            Self::TwistBend { rest, axes } => compose(rest, TwistBend { twist: a, bend_a: b, bend_b: c }, &axes),
            Self::Euler { rest, order } => (rest * order.to_quat([a, b, c])).normalize(),
        }
    }
}

fn quat(v: [f64; 4]) -> DQuat {
    DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize()
}

/// Draws the curve view of the selected joint (a hint without one, or without rotation keys).
pub(super) fn curve_view_ui(
    ui: &mut egui::Ui,
    s: &EditorState,
    scale: TimeScale,
    view: &mut TimelineView,
    cmds: &mut Vec<Command>,
) {
    let Some(clip) = s.posing.clip.and_then(|c| s.doc.model.clips.get(c)) else { return };
    let Some(node) = s.selected else {
        ui.weak("select a joint to see its rotation curves");
        return;
    };
    let Some(channel) = clip.channels.iter().rev().find(|c| c.node == node && c.path == ChannelPath::Rotation) else {
        ui.weak(format!("{} has no rotation keys in this clip: Set Key adds one", s.doc.model.nodes.key(node)));
        return;
    };
    let Some(rest) = s.doc.model.nodes.nodes.get(node).map(|n| n.rest.to_trs().rotation.normalize()) else { return };
    let order = s.posing.rotation_fields.order;
    let reading = if view.euler_curves {
        Reading::Euler { rest, order }
    } else {
        let bone = crate::rig::bone_axis::bone_axis(&s.doc.model, &s.doc.pose, node);
        Reading::TwistBend { rest, axes: BendAxes::new(bone.axis) }
    };
    ui.horizontal(|ui| {
        ui.label(format!("Curves of {} (° from rest)", s.doc.model.nodes.key(node)));
        ui.radio_value(&mut view.euler_curves, false, "Twist / Bend");
        ui.radio_value(&mut view.euler_curves, true, format!("Euler {}", order.label()));
        for (name, colour) in reading.names().into_iter().zip(COLOURS) {
            ui.colored_label(colour, name);
        }
    });
    curves(ui, s, channel, reading, scale, cmds);
}

/// The plot: axes, the three curves, the current time, the keys' handles.
fn curves(
    ui: &mut egui::Ui,
    s: &EditorState,
    channel: &Channel,
    reading: Reading,
    scale: TimeScale,
    cmds: &mut Vec<Command>,
) {
    let (a, b) = s.timeline_range();
    let span = (b - a).max(1e-6);
    let (left, width) = (label_width(ui, scale), strip_width(ui));
    let (area, _) = ui.allocate_exact_size(egui::vec2(left + width, HEIGHT), egui::Sense::hover());
    let (x0, x1) = (area.left() + left + 6.0, area.left() + left + width - 6.0);
    let (y0, y1) = (area.top() + 6.0, area.bottom() - 6.0);
    let x_of = |t: f64| x0 + (x1 - x0) * ((t - a) / span) as f32;
    let t_of = |x: f32| a + span * f64::from((x - x0) / (x1 - x0));

    // Samples (each continuous with the one before) and the keys' readings (near the curve).
    let mut previous = [0.0; 3];
    let samples: Vec<(f64, [f64; 3])> = (0..=SAMPLES)
        .map(|i| {
            let t = a + span * i as f64 / SAMPLES as f64;
            previous = reading.degrees(quat(sample_channel(channel, t)), previous);
            (t, previous)
        })
        .collect();
    let key_values: Vec<(f64, [f64; 3])> = channel
        .times
        .iter()
        .map(|&t| {
            let near =
                samples.iter().min_by(|p, q| (p.0 - t).abs().total_cmp(&(q.0 - t).abs())).map_or([0.0; 3], |p| p.1);
            (t, reading.degrees(quat(sample_channel(channel, t)), near))
        })
        .collect();
    let all = samples.iter().chain(&key_values).flat_map(|(_, v)| *v);
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    let mid = 0.5 * (lo + hi);
    let half = (0.5 * (hi - lo) * 1.15).max(10.0);
    let (vlo, vhi) = (mid - half, mid + half);
    let y_of = |v: f64| y1 - (y1 - y0) * ((v - vlo) / (vhi - vlo)) as f32;
    let v_of = |y: f32| vlo + (vhi - vlo) * f64::from((y1 - y) / (y1 - y0));

    let painter = ui.painter_at(area);
    painter.rect_filled(
        egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1)),
        2.0,
        ui.visuals().extreme_bg_color,
    );
    let grid = ui.visuals().widgets.noninteractive.bg_stroke;
    let font = egui::TextStyle::Small.resolve(ui.style());
    let step = nice_step(vhi - vlo);
    let mut v = (vlo / step).ceil() * step;
    while v <= vhi {
        let y = y_of(v);
        painter.line_segment([egui::pos2(x0, y), egui::pos2(x1, y)], grid);
        let text = ui.visuals().weak_text_color();
        painter.text(egui::pos2(x0 - 4.0, y), egui::Align2::RIGHT_CENTER, format!("{v:.0}°"), font.clone(), text);
        v += step;
    }
    let now = x_of(s.posing.time_secs);
    painter.line_segment(
        [egui::pos2(now, y0), egui::pos2(now, y1)],
        egui::Stroke::new(1.5, egui::Color32::from_rgb(90, 160, 255)),
    );
    for (i, colour) in COLOURS.into_iter().enumerate() {
        let points: Vec<egui::Pos2> = samples.iter().map(|(t, v)| egui::pos2(x_of(*t), y_of(v[i]))).collect();
        painter.add(egui::Shape::line(points, egui::Stroke::new(1.5, colour)));
    }

    for (k, &(t, values)) in key_values.iter().enumerate() {
        for (i, colour) in COLOURS.into_iter().enumerate() {
            let centre = egui::pos2(x_of(t), y_of(values[i]));
            let id = ui.scope_id().with(("curve key", k, i));
            let response =
                ui.interact(egui::Rect::from_center_size(centre, egui::vec2(10.0, 10.0)), id, egui::Sense::drag());
            let text = format!("{} key at {}", reading.names()[i], scale.label(t));
            response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &text));
            let target = |p: egui::Pos2| {
                let to = scale.snap(t_of(p.x.clamp(x0, x1))).max(0.0);
                let mut v = values;
                v[i] = v_of(p.y.clamp(y0, y1));
                (to, v)
            };
            let mut at = centre;
            if response.dragged() {
                if let Some(p) = response.interact_pointer_pos() {
                    let (to, v) = target(p);
                    at = egui::pos2(x_of(to), y_of(v[i]));
                }
            }
            if response.drag_stopped() {
                if let Some(p) = response.interact_pointer_pos() {
                    let (to, v) = target(p);
                    cmds.push(Command::Key(KeyCommand::EditRotationKey {
                        node: channel.node,
                        from_secs: t,
                        to_secs: to,
                        rotation: reading.rotation(v),
                    }));
                }
            }
            let r = if response.hovered() || response.dragged() { 5.0 } else { 4.0 };
            painter.rect_filled(egui::Rect::from_center_size(at, egui::vec2(2.0 * r, 2.0 * r)), 1.0, colour);
            painter.rect_stroke(
                egui::Rect::from_center_size(at, egui::vec2(2.0 * r, 2.0 * r)),
                1.0,
                egui::Stroke::new(1.0, egui::Color32::BLACK),
                egui::StrokeKind::Outside,
            );
            let value = values[i];
            response
                .on_hover_text(format!("{text}: {value:.1}°; drag up or down to change it, sideways to move the key"));
        }
    }
}

/// A round grid step (1, 2 or 5 times a power of ten) giving four to ten lines over `range`.
fn nice_step(range: f64) -> f64 {
    let raw = range / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&s| s >= raw).unwrap_or(10.0 * p)
}
