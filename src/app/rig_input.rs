//! Rig mode's viewport input and overlay: the translate gizmo on the selected joint (drag an
//! arrow, a plane square or the centre to move it, its ring about the bone to turn its roll; one
//! undo step per drag), Ctrl+click to add a joint under the cursor as a child of the selected one,
//! a click to place the Auto-rig window's active marker, and the gizmo's drawing.

use eframe::egui;
use glam::{Vec2, Vec3};

use super::command::{AutorigCommand, Command};
use super::gizmo::nearest_on_ring;
use super::gizmo_drag::Sweep;
use super::state::EditorState;
use super::translate_gizmo::{self, grab_point, Handle, TranslateGizmo};
use crate::paint::Ray;
use crate::rig::skeleton_edit::joint_roll;

/// A joint drag in progress.
struct MoveDrag {
    handle: Handle,
    node: usize,
    /// The joint where the drag started (model space).
    start: Vec3,
    /// The point the drag grabbed at its start.
    grabbed: Vec3,
    gesture: u64,
}

/// A drag of the roll ring in progress: the roll is always the one at its start plus the angle
/// swept since.
struct RollDrag {
    node: usize,
    /// The roll at the start (radians).
    start: f64,
    centre: Vec2,
    sweep: Sweep,
    last: Vec2,
    /// The angle swept so far (radians).
    total: f64,
    gesture: u64,
}

/// A gizmo drag.
enum Drag {
    Move(MoveDrag),
    Roll(RollDrag),
}

/// Rig mode's interaction state in the viewport.
#[derive(Default)]
pub struct RigInput {
    drag: Option<Drag>,
    next_gesture: u64,
}

/// `a` in (−π, π].
fn wrapped(a: f64) -> f64 {
    a.sin().atan2(a.cos())
}

/// The pointer in panel pixels and the panel's size, for rays.
pub struct PanelPointer {
    /// Pointer position on screen (points).
    pub screen: Vec2,
    /// Pointer position within its panel.
    pub local: Vec2,
    /// The panel under the pointer (0 left, 1 right).
    pub panel: usize,
    /// The panel's size in pixels.
    pub size: Vec2,
}

impl RigInput {
    /// Whether a joint drag is in progress (the camera does not move meanwhile).
    #[must_use]
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
    }

    /// The handle being dragged, for highlighting.
    #[must_use]
    pub fn active_handle(&self) -> Option<Handle> {
        self.drag.as_ref().map(|d| match d {
            Drag::Move(m) => m.handle,
            Drag::Roll(_) => Handle::Roll,
        })
    }

    /// Handles one frame's pointer input; returns whether it was used (a drag or a click).
    pub fn input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        s: &mut EditorState,
        gizmo: Option<&TranslateGizmo>,
        pointer: Option<PanelPointer>,
    ) -> bool {
        let (primary, shift, ctrl, press) =
            ui.input(|i| (i.pointer.primary_down(), i.modifiers.shift, i.modifiers.command, i.pointer.press_origin()));
        let camera = s.view.camera;
        if response.drag_started() && primary && !shift {
            // The drag starts where the button went down (egui reports it a few pixels later).
            let pressed = pointer.as_ref().map(|p| match press {
                Some(at) => p.local + Vec2::new(at.x, at.y) - p.screen,
                None => p.local,
            });
            if let (Some(g), Some(local), Some(p), Some(node)) = (gizmo, pressed, pointer.as_ref(), s.selected) {
                self.next_gesture += 1;
                let gesture = (1 << 50) + self.next_gesture;
                match (g.hit(local), g.roll.as_ref()) {
                    (Some(Handle::Roll), Some(ring)) => {
                        let (point, dir) = nearest_on_ring(ring, local);
                        let sweep = Sweep::choose(g.centre, point, dir, ring.radius_px, ring.minor_px(g.centre));
                        let start = joint_roll(&s.doc.model, node).unwrap_or(0.0);
                        let centre = g.centre;
                        self.drag =
                            Some(Drag::Roll(RollDrag { node, start, centre, sweep, last: local, total: 0.0, gesture }));
                    }
                    (Some(handle), _) => {
                        if let Some(start) = s.node_position(node) {
                            let (origin, direction) = camera.ray(local, p.size);
                            if let Some(grabbed) = grab_point(handle, &camera, start, origin, direction) {
                                self.drag = Some(Drag::Move(MoveDrag { handle, node, start, grabbed, gesture }));
                            }
                        }
                    }
                    (None, _) => {}
                }
            }
        }
        if let (Some(d), Some(p)) = (&mut self.drag, pointer.as_ref()) {
            if response.dragged() {
                match d {
                    Drag::Move(d) => {
                        let (origin, direction) = camera.ray(p.local, p.size);
                        if let Some(now) = grab_point(d.handle, &camera, d.start, origin, direction) {
                            let position = (d.start + (now - d.grabbed)).as_dvec3();
                            s.apply(Command::MoveJoint { node: d.node, position, gesture: Some(d.gesture) });
                        }
                    }
                    Drag::Roll(r) => {
                        r.total += r.sweep.angle(r.centre, r.last, p.local);
                        r.last = p.local;
                        let roll = wrapped(r.start + r.total);
                        s.apply(Command::SetRoll { node: r.node, roll, gesture: Some(r.gesture) });
                    }
                }
            }
        }
        if response.drag_stopped() && self.drag.take().is_some() {
            s.end_gesture();
            return true;
        }
        if response.clicked() && !ctrl && s.rig.placing_marker().is_some() {
            if let Some(p) = pointer {
                let (origin, direction) = camera.ray(p.local, p.size);
                s.apply(Command::Autorig(AutorigCommand::PlaceMarker {
                    ray: Ray { origin, direction },
                    panel: p.panel,
                }));
            }
            return true;
        }
        if response.clicked() && ctrl {
            if let Some(p) = pointer {
                let (origin, direction) = camera.ray(p.local, p.size);
                s.apply(Command::AddJoint { ray: Ray { origin, direction }, panel: p.panel });
            }
            return true;
        }
        self.drag.is_some()
    }
}

/// Draws the translate gizmo (arrows, plane squares, centre) at panel origin `origin`.
pub fn draw(painter: &egui::Painter, origin: egui::Pos2, g: &TranslateGizmo, active: Option<Handle>) {
    let at = |v: Vec2| origin + egui::vec2(v.x, v.y);
    let colours = [
        egui::Color32::from_rgb(230, 70, 70),
        egui::Color32::from_rgb(90, 210, 90),
        egui::Color32::from_rgb(80, 130, 240),
    ];
    for (n, plane) in g.planes.iter().enumerate() {
        let Some(q) = plane else { continue };
        let alpha: u8 = if active == Some(Handle::Plane(n)) { 200 } else { 90 };
        let fill = colours[n].gamma_multiply(f32::from(alpha) / 255.0);
        painter.add(egui::Shape::convex_polygon(q.iter().map(|&v| at(v)).collect(), fill, egui::Stroke::NONE));
    }
    for (i, tip) in g.tips.iter().enumerate() {
        let Some(tip) = *tip else { continue };
        let width = if active == Some(Handle::Axis(i)) { 4.5 } else { 2.5 };
        let (c, t) = (at(g.centre), at(tip));
        painter.line_segment([c, t], egui::Stroke::new(width, colours[i]));
        let dir = (t - c).normalized();
        let side = egui::vec2(-dir.y, dir.x) * 6.0;
        let base = t - dir * 14.0;
        painter.add(egui::Shape::convex_polygon(vec![t, base + side, base - side], colours[i], egui::Stroke::NONE));
    }
    if let Some(ring) = &g.roll {
        let width = if active == Some(Handle::Roll) { 4.5 } else { 2.5 };
        let colour = super::gizmo::COLOURS[3];
        for w in ring.points.windows(2) {
            let ((a, fa), (b, fb)) = (w[0], w[1]);
            let stroke = if fa || fb {
                egui::Stroke::new(width, colour)
            } else {
                egui::Stroke::new(1.0, colour.gamma_multiply(0.35))
            };
            painter.line_segment([at(a), at(b)], stroke);
        }
    }
    let centre_alpha = if active == Some(Handle::Screen) { 255 } else { 170 };
    painter.circle(
        at(g.centre),
        translate_gizmo::CENTRE_PX * 0.7,
        egui::Color32::from_white_alpha(centre_alpha / 3),
        egui::Stroke::new(1.5, egui::Color32::from_white_alpha(centre_alpha)),
    );
}
