//! Rig mode's viewport input and overlay: the translate gizmo on the selected joint (drag an
//! arrow, a plane square or the centre; one undo step per drag), Ctrl+click to add a joint under
//! the cursor as a child of the selected one, a click to place the Auto-rig window's active marker,
//! and the gizmo's drawing.

use eframe::egui;
use glam::{Vec2, Vec3};

use super::command::{AutorigCommand, Command};
use super::state::EditorState;
use super::translate_gizmo::{self, grab_point, Handle, TranslateGizmo};
use crate::paint::Ray;

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

/// Rig mode's interaction state in the viewport.
#[derive(Default)]
pub struct RigInput {
    drag: Option<MoveDrag>,
    next_gesture: u64,
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
        self.drag.as_ref().map(|d| d.handle)
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
                if let (Some(handle), Some(start)) = (g.hit(local), s.node_position(node)) {
                    let (origin, direction) = camera.ray(local, p.size);
                    if let Some(grabbed) = grab_point(handle, &camera, start, origin, direction) {
                        self.next_gesture += 1;
                        let gesture = (1 << 50) + self.next_gesture;
                        self.drag = Some(MoveDrag { handle, node, start, grabbed, gesture });
                    }
                }
            }
        }
        if let (Some(d), Some(p)) = (&self.drag, pointer.as_ref()) {
            if response.dragged() {
                let (origin, direction) = camera.ray(p.local, p.size);
                if let Some(now) = grab_point(d.handle, &camera, d.start, origin, direction) {
                    let position = (d.start + (now - d.grabbed)).as_dvec3();
                    s.apply(Command::MoveJoint { node: d.node, position, gesture: Some(d.gesture) });
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
    let centre_alpha = if active == Some(Handle::Screen) { 255 } else { 170 };
    painter.circle(
        at(g.centre),
        translate_gizmo::CENTRE_PX * 0.7,
        egui::Color32::from_white_alpha(centre_alpha / 3),
        egui::Stroke::new(1.5, egui::Color32::from_white_alpha(centre_alpha)),
    );
}
