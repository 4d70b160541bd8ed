//! Pose mode's IK input and overlay (IK on): dragging a joint moves it on the plane through it
//! facing the camera and the chain above it follows (`command::IkCommand::Drag`, solved every
//! frame); dragging the pole handle of a two-bone chain turns its bend plane; Esc or a right
//! click during a drag puts the pose back as it was. Pinned joints are drawn as orange squares,
//! the pole handle as a diamond joined to the middle joint.

use eframe::egui;
use glam::{Vec2, Vec3};

use super::command::Command;
use super::command::IkCommand;
use super::rig_input::PanelPointer;
use super::state::EditorState;
use crate::render::OrbitCamera;

/// How close (pixels) the pointer must be to a joint or the pole handle to grab it.
pub const GRAB_PX: f32 = 12.0;

/// What a drag holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Grip {
    /// The end joint.
    End,
    /// The pole handle of the chain ending at the joint.
    Pole,
}

/// A drag in progress.
struct Drag {
    grip: Grip,
    end: usize,
    /// The grabbed point at the start (joint or pole handle, model space).
    start: Vec3,
    /// Where the pointer's ray met the drag plane at the start.
    grabbed: Vec3,
}

/// The IK interaction state in the viewport.
#[derive(Default)]
pub struct IkInput {
    drag: Option<Drag>,
    /// A drag was cancelled: the pointer is ignored until the buttons are released.
    swallow: bool,
}

/// Where the ray through panel pixel `local` meets the plane through `point` facing the camera.
#[must_use]
pub fn on_view_plane(camera: &OrbitCamera, point: Vec3, local: Vec2, size: Vec2) -> Option<Vec3> {
    let (origin, direction) = camera.ray(local, size);
    let normal = (camera.target - camera.eye()).normalize_or_zero();
    let denom = direction.dot(normal);
    if denom.abs() < 1e-9 {
        return None;
    }
    let t = (point - origin).dot(normal) / denom;
    let hit = origin + direction * t;
    hit.is_finite().then_some(hit)
}

impl IkInput {
    /// Whether an IK drag is in progress.
    #[must_use]
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
    }

    /// Handles one frame's pointer input in Pose mode; returns whether it was used.
    pub fn input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        s: &mut EditorState,
        pointer: Option<&PanelPointer>,
    ) -> bool {
        let (primary, secondary, any_down, shift, press) = ui.input(|i| {
            (
                i.pointer.primary_down(),
                i.pointer.secondary_down(),
                i.pointer.any_down(),
                i.modifiers.shift,
                i.pointer.press_origin(),
            )
        });
        if self.swallow {
            self.swallow = any_down;
            return true;
        }
        if !s.posing.ik.enabled {
            if self.drag.take().is_some() {
                s.apply(Command::Ik(IkCommand::Cancel));
            }
            return false;
        }
        let camera = s.view.camera;
        if let Some(d) = &self.drag {
            let escape = ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
            if escape || secondary {
                s.apply(Command::Ik(IkCommand::Cancel));
                self.drag = None;
                self.swallow = any_down;
                return true;
            }
            if primary {
                if let Some(now) = pointer.and_then(|p| on_view_plane(&camera, d.start, p.local, p.size)) {
                    let at = (d.start + (now - d.grabbed)).as_dvec3();
                    let cmd = match d.grip {
                        Grip::End => IkCommand::Drag { end: d.end, target: at },
                        Grip::Pole => IkCommand::Pole { end: d.end, pole: at },
                    };
                    s.apply(Command::Ik(cmd));
                }
            } else {
                s.apply(Command::Ik(IkCommand::End));
                self.drag = None;
            }
            return true;
        }
        if !(response.drag_started() && primary && !shift) {
            return false;
        }
        let Some(p) = pointer else { return false };
        // The drag starts where the button went down (egui reports it a few pixels later).
        let local = press.map_or(p.local, |at| p.local + Vec2::new(at.x, at.y) - p.screen);
        let near = |q: Vec3| camera.project(q, p.size).is_some_and(|v| v.distance(local) < GRAB_PX);
        let pole = s.selected.and_then(|n| s.ik_pole_handle(n).map(|(_, h)| (n, h.as_vec3())));
        let (grip, end, start) = if let Some((end, handle)) = pole.filter(|&(_, h)| near(h)) {
            (Grip::Pole, end, handle)
        } else {
            let Some(node) = s.pick_joint(local, p.size) else { return false };
            let Some(at) = s.node_position(node) else { return false };
            if s.selected != Some(node) {
                s.apply(Command::Select(Some(node)));
            }
            if let Err(e) = s.ik_chain(node) {
                s.message = Some(super::state::Message { text: format!("IK: {e}"), is_error: true });
                return true;
            }
            (Grip::End, node, at)
        };
        let Some(grabbed) = on_view_plane(&camera, start, local, p.size) else { return false };
        self.drag = Some(Drag { grip, end, start, grabbed });
        true
    }

    /// Draws the pins, the IK end joint's ring and the pole handle (panel origin `origin`).
    pub fn draw(&self, painter: &egui::Painter, origin: egui::Pos2, s: &EditorState, size: Vec2) {
        if !s.posing.ik.enabled {
            return;
        }
        let at = |q: Vec3| s.view.camera.project(q, size).map(|v| origin + egui::vec2(v.x, v.y));
        let pin = egui::Color32::from_rgb(255, 150, 40);
        for &n in &s.posing.ik.pinned {
            if let Some(c) = s.node_position(n).and_then(at) {
                let r = egui::Rect::from_center_size(c, egui::vec2(11.0, 11.0));
                painter.rect_stroke(r, 1.0, egui::Stroke::new(2.5, pin), egui::StrokeKind::Middle);
                painter.rect_filled(egui::Rect::from_center_size(c, egui::vec2(4.0, 4.0)), 0.0, pin);
            }
        }
        let Some(end) = s.selected else { return };
        if s.ik_chain(end).is_err() {
            return;
        }
        let yellow = egui::Color32::from_rgb(250, 215, 60);
        if let Some(c) = s.node_position(end).and_then(at) {
            let width = if self.drag.as_ref().is_some_and(|d| d.grip == Grip::End) { 3.5 } else { 2.0 };
            painter.circle_stroke(c, GRAB_PX, egui::Stroke::new(width, yellow));
        }
        let Some((mid, handle)) = s.ik_pole_handle(end) else { return };
        let (Some(m), Some(h)) = (at(mid.as_vec3()), at(handle.as_vec3())) else { return };
        let pole = egui::Color32::from_rgb(90, 220, 230);
        painter.add(egui::Shape::dashed_line(&[m, h], egui::Stroke::new(1.5, pole), 6.0, 4.0));
        let r = if self.drag.as_ref().is_some_and(|d| d.grip == Grip::Pole) { 9.0 } else { 7.0 };
        let diamond =
            vec![h + egui::vec2(0.0, -r), h + egui::vec2(r, 0.0), h + egui::vec2(0.0, r), h + egui::vec2(-r, 0.0)];
        painter.add(egui::Shape::convex_polygon(diamond, pole, egui::Stroke::new(1.0, egui::Color32::BLACK)));
    }
}
