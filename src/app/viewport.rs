//! The 3D viewport: one or two panels (split view) sharing one camera, drawn by three-d inside
//! egui paint callbacks, plus the CPU-side interaction (orbit / pan / zoom, click-to-select a
//! joint by projecting joint positions, the rotation gizmo) and the egui overlays (panel labels,
//! difference legend).
//!
//! Data flows one way: the state's CPU deformation is handed to [`GpuShared`] when its revision
//! changes, and the paint callback uploads it into the existing GPU buffers before drawing. The
//! GPU scene is created lazily inside the callback from egui's glow context, so the editor also
//! runs without OpenGL (egui_kittest), where nothing 3D is drawn.

use std::sync::{Arc, Mutex};

use eframe::egui;
use eframe::egui_glow;
use glam::{DMat4, Vec2};

use super::command::Command;
use super::gizmo::{self, Gizmo, Handle, JointFrame};
use super::gizmo_drag::RotateDrag;
use super::rig_input::{self, PanelPointer, RigInput};
use super::state::{EditorState, Mode};
use super::translate_gizmo::TranslateGizmo;
use crate::io::materials::Looks;
use crate::model::Model;
use crate::render::{OrbitCamera, Scene, ViewOptions};
use crate::skinning::DeformedPrimitive;

/// One frame's data for the GPU, taken from the state when it changes.
struct Upload {
    /// The model, only when it changed (so painting does not share the CPU model with the GPU side).
    model: Option<Arc<Model>>,
    model_rev: u64,
    bounds: (glam::Vec3, glam::Vec3),
    deformed: [Vec<Vec<DeformedPrimitive>>; 2],
    colours: Option<Vec<Vec<Vec<[u8; 4]>>>>,
    model_from_node: Vec<DMat4>,
    selected: Option<usize>,
    /// The model's materials, sent with the model.
    looks: Option<Arc<Looks>>,
    /// Draw the materials (no overlay colours, View ▸ Materials on).
    looks_on: bool,
}

/// What the paint callbacks share with the UI thread.
#[derive(Default)]
pub struct GpuShared {
    ctx: Option<three_d::Context>,
    scene: Option<Scene>,
    scene_model_rev: u64,
    pending: Option<Upload>,
}

impl GpuShared {
    fn apply_pending(&mut self, gl: &Arc<eframe::glow::Context>) {
        let Some(up) = self.pending.take() else { return };
        let ctx = match &self.ctx {
            Some(c) => c.clone(),
            None => match three_d::Context::from_gl_context(Arc::clone(gl)) {
                Ok(c) => {
                    self.ctx = Some(c.clone());
                    c
                }
                Err(_) => return,
            },
        };
        if self.scene.is_none() || self.scene_model_rev != up.model_rev {
            let Some(model) = &up.model else { return };
            self.scene = Some(Scene::new(&ctx, model, 2, up.bounds, up.looks.as_deref()));
            self.scene_model_rev = up.model_rev;
        }
        let Some(scene) = &mut self.scene else { return };
        let looks_on = up.looks_on && scene.has_looks();
        for (i, d) in up.deformed.iter().enumerate() {
            if let Some(panel) = scene.panel_mut(i) {
                if !d.is_empty() {
                    panel.upload(d, &up.model_from_node);
                }
                panel.set_colours(up.colours.as_deref(), looks_on);
            }
        }
        scene.update_bones(&up.model_from_node, up.selected);
    }
}

/// The viewport's persistent interaction state.
#[derive(Default)]
pub struct Viewport {
    shared: Arc<Mutex<GpuShared>>,
    sent: Option<(u64, u64, Option<usize>, bool, bool, bool)>,
    /// The looks read from the model's document, with the document they came from and the
    /// model's mesh count.
    looks: Option<(std::path::PathBuf, usize, Option<Arc<Looks>>)>,
    sent_model_rev: Option<u64>,
    /// A brush stroke is in progress (primary button held in paint mode).
    painting: bool,
    last_dab: Option<egui::Pos2>,
    /// Show the brush over the selected joint instead of at the pointer (for screenshots).
    pub preview_brush: bool,
    /// What the brush was over last frame (drawn as the brush circle and the read-out).
    pub hover: Option<(egui::Pos2, super::state::HoverInfo)>,
    drag: Option<RotateDrag>,
    next_gesture: u64,
    rig: RigInput,
    select: super::select_input::SelectInput,
    /// Where the viewport was drawn last frame (screen points).
    pub last_rect: Option<egui::Rect>,
}

fn to_vec2(p: egui::Pos2) -> Vec2 {
    Vec2::new(p.x, p.y)
}

impl Viewport {
    /// Hands the state's current deformation to the GPU side when it changed.
    fn send(&mut self, s: &mut EditorState) {
        let key = (s.model_rev, s.frame_rev, s.selected, s.difference, s.mode == Mode::Paint, s.view.materials);
        if self.sent == Some(key) {
            return;
        }
        self.sent = Some(key);
        let right = if s.split { s.deformed[1].clone() } else { Vec::new() };
        let colours = if s.mode == Mode::Paint {
            Some(s.paint_colours.clone())
        } else {
            s.difference.then(|| s.difference_colours.clone())
        };
        let mut model = (self.sent_model_rev != Some(s.model_rev)).then(|| Arc::clone(&s.model));
        self.sent_model_rev = Some(s.model_rev);
        if model.is_none() {
            // An upload the GPU side has not taken yet may carry the model: keep it.
            if let Ok(mut g) = self.shared.lock() {
                model = g.pending.take().and_then(|p| p.model).filter(|_| g.scene_model_rev != s.model_rev);
            }
        }
        let looks = if model.is_some() { self.looks_of(s) } else { None };
        let up = Upload {
            looks,
            looks_on: s.view.materials && colours.is_none(),
            model,
            model_rev: s.model_rev,
            bounds: s.model_bounds,
            deformed: [s.deformed[0].clone(), right],
            colours,
            model_from_node: s.model_from_node.clone(),
            selected: s.selected,
        };
        if let Ok(mut g) = self.shared.lock() {
            g.pending = Some(up);
        }
    }

    /// The looks of the state's model, read once per document (a failure is reported once and
    /// the surfaces are drawn plain).
    fn looks_of(&mut self, s: &mut EditorState) -> Option<Arc<Looks>> {
        let source = s.source.as_ref()?;
        let key = (source.path().to_path_buf(), s.model.meshes.len());
        if let Some((path, meshes, looks)) = &self.looks {
            if (path, *meshes) == (&key.0, key.1) {
                return looks.clone();
            }
        }
        let looks = match crate::io::materials::looks(&s.model, source) {
            Ok(l) => Some(Arc::new(l)),
            Err(e) => {
                s.message = Some(super::state::Message {
                    text: format!("{}: materials are drawn plain: {e}", source.path().display()),
                    is_error: true,
                });
                None
            }
        };
        self.looks = Some((key.0, key.1, looks.clone()));
        looks
    }

    /// Draws the viewport into the remaining space of `ui` and handles its input.
    pub fn ui(&mut self, ui: &mut egui::Ui, s: &mut EditorState) {
        self.send(s);
        let rect = ui.available_rect_before_wrap();
        self.last_rect = Some(rect);
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        let panels = if s.split { 2 } else { 1 };
        let panel_w = rect.width() / panels as f32;
        let panel_rect = |i: usize| {
            egui::Rect::from_min_size(
                rect.min + egui::vec2(panel_w * i as f32, 0.0),
                egui::vec2(panel_w, rect.height()),
            )
        };
        s.set_aspect(rect.width() / rect.height().max(1.0));
        let size = Vec2::new(panel_w, rect.height());
        // Pointer position within the panel it is over.
        let local = |p: egui::Pos2| {
            let i = (((p.x - rect.min.x) / panel_w).floor() as usize).min(panels - 1);
            to_vec2(p - panel_rect(i).min.to_vec2())
        };
        let joint = s.selected.and_then(|n| s.node_position(n));
        let gizmo = joint.filter(|_| s.mode == Mode::Pose).and_then(|j| {
            let frame = JointFrame::of(&s.model, &s.pose, &s.model_from_node, s.selected?)?;
            let axes = frame.ring_axes(s.gizmo.orientation).map(|a| a.as_vec3());
            Gizmo::new(&s.camera, j, axes, s.gizmo.orientation, size)
        });
        let mover = joint.filter(|_| s.mode == Mode::Rig).and_then(|j| TranslateGizmo::new(&s.camera, j, size));
        let panel_of = |p: egui::Pos2| (((p.x - rect.min.x) / panel_w).floor().max(0.0) as usize).min(panels - 1);

        if s.mode == Mode::Paint {
            self.drag = None;
            self.paint_input(ui, &response, s, &local, &panel_of, size);
        } else {
            self.hover = None;
            if self.painting {
                self.painting = false;
                s.apply(Command::EndStroke);
            }
            let used =
                s.mode == Mode::Rig && {
                    let pointer = response
                        .interact_pointer_pos()
                        .or_else(|| response.hover_pos())
                        .map(|p| PanelPointer { screen: to_vec2(p), local: local(p), panel: panel_of(p), size });
                    self.rig.input(ui, &response, s, mover.as_ref(), pointer)
                };
            if !used {
                self.handle_input(ui, &response, s, gizmo.as_ref(), &local, rect.height());
            }
        }

        let painter = ui.painter_at(rect);
        let methods = s.shown_methods();
        for (i, m) in methods.iter().enumerate() {
            let r = panel_rect(i);
            let shared = Arc::clone(&self.shared);
            let (camera, view) = (s.camera, s.view);
            let cb = egui_glow::CallbackFn::new(move |info, painter| {
                let Ok(mut g) = shared.lock() else { return };
                g.apply_pending(painter.gl());
                draw_panel(&g, &info, &camera, i, &view);
            });
            painter.add(egui::PaintCallback { rect: r, callback: Arc::new(cb) });
            let text = egui::RichText::new(m.label()).strong().size(18.0);
            let galley =
                painter.layout_no_wrap(text.text().to_owned(), egui::FontId::proportional(18.0), egui::Color32::WHITE);
            let pos = r.min + egui::vec2(10.0, 8.0);
            painter.rect_filled(
                egui::Rect::from_min_size(pos, galley.size()).expand(4.0),
                3.0,
                egui::Color32::from_black_alpha(150),
            );
            painter.galley(pos, galley, egui::Color32::WHITE);
            if i > 0 {
                painter.vline(r.min.x, r.y_range(), egui::Stroke::new(2.0, egui::Color32::from_gray(20)));
            }
        }
        if let Some(g) = &gizmo {
            draw_gizmo(&painter, rect.min, g, self.drag.as_ref().map(|d| d.handle));
        }
        if let Some(d) = &self.drag {
            draw_readout(&painter, rect, &d.readout());
        }
        if let Some(g) = &mover {
            rig_input::draw(&painter, rect.min, g, self.rig.active_handle());
        }
        if s.mode == Mode::Paint {
            super::paint_overlay::draw(&painter, rect, s, self.hover.as_ref());
            self.select.draw(&painter, s, ui.input(|i| i.pointer.hover_pos()));
            super::paint_overlay::legend_ui(ui, rect, s, self.hover.as_ref());
        } else if s.difference {
            draw_legend(&painter, rect, s.max_difference, s.method.label(), s.compare.label());
        }
    }

    /// Paint-mode input: the primary button paints (Ctrl+click samples the weight under the
    /// cursor), the secondary button orbits, the middle button pans; the wheel zooms, Ctrl+wheel
    /// sizes the brush and Shift+wheel changes its strength.
    fn paint_input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        s: &mut EditorState,
        local: &dyn Fn(egui::Pos2) -> Vec2,
        panel_of: &dyn Fn(egui::Pos2) -> usize,
        panel_size: Vec2,
    ) {
        let preview = || {
            let node = s.selected?;
            let p = s.camera.project(s.node_position(node)?, panel_size)?;
            Some(response.rect.min + egui::vec2(p.x, p.y))
        };
        let pointer = if self.preview_brush {
            preview()
        } else {
            response.hover_pos().or_else(|| response.interact_pointer_pos())
        };
        let (pressed, down, ctrl, shift, secondary, middle) = ui.input(|i| {
            (
                i.pointer.primary_pressed(),
                i.pointer.primary_down(),
                i.modifiers.command,
                i.modifiers.shift,
                i.pointer.secondary_down(),
                i.pointer.middle_down(),
            )
        });
        let camera = s.camera;
        let ray_at = |p: egui::Pos2| {
            let (origin, direction) = camera.ray(local(p), panel_size);
            crate::paint::Ray { origin, direction }
        };
        let height = panel_size.y;
        if !self.painting && self.select.input(ui, response, s, local, panel_of, &ray_at, panel_size) {
            self.hover = None;
            return;
        }
        let brush = s.weight_tools.tool == super::state::PaintTool::Brush;
        if pressed && response.hovered() && brush {
            if let Some(p) = pointer {
                if ctrl {
                    s.apply(Command::SampleWeight { ray: ray_at(p), panel: panel_of(p) });
                } else {
                    self.painting = true;
                    s.apply(Command::BeginStroke);
                    s.apply(Command::Dab { ray: ray_at(p), viewport_height_px: height, panel: panel_of(p) });
                    self.last_dab = Some(p);
                }
            }
        } else if self.painting && down {
            if let Some(p) = pointer {
                let spacing = self.hover.as_ref().map_or(4.0, |h| (h.1.radius_px * 0.2).max(1.0));
                if self.last_dab.is_none_or(|q| q.distance(p) >= spacing) {
                    s.apply(Command::Dab { ray: ray_at(p), viewport_height_px: height, panel: panel_of(p) });
                    self.last_dab = Some(p);
                }
            }
        }
        if self.painting && !down {
            self.painting = false;
            self.last_dab = None;
            s.apply(Command::EndStroke);
        }
        if !self.painting && response.dragged() {
            let d = response.drag_delta();
            let delta = Vec2::new(d.x, d.y);
            if middle || (secondary && shift) {
                s.camera.pan(delta, height);
            } else if secondary {
                s.camera.orbit(delta);
            }
        }
        if response.hovered() {
            let steps = ui.input(|i| wheel_notches(&i.raw.events));
            if ctrl {
                s.paint.brush.step_radius(steps);
            } else if shift {
                s.paint.brush.step_strength(steps);
            } else {
                let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                if scroll != 0.0 {
                    s.camera.zoom(scroll);
                }
            }
        }
        self.hover = pointer
            .filter(|_| response.hovered() || self.painting || self.preview_brush)
            .and_then(|p| s.hover(&ray_at(p), height, panel_of(p)).map(|h| (p, h)));
    }

    fn handle_input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        s: &mut EditorState,
        gizmo: Option<&Gizmo>,
        local: &dyn Fn(egui::Pos2) -> Vec2,
        height: f32,
    ) {
        let pointer = response.interact_pointer_pos().or_else(|| response.hover_pos());
        let (primary, secondary, middle, shift) = ui.input(|i| {
            (i.pointer.primary_down(), i.pointer.secondary_down(), i.pointer.middle_down(), i.modifiers.shift)
        });
        if response.drag_started() && primary && !shift {
            // Grab where the button went down: egui reports the drag a few pixels later.
            let pressed_at = ui.input(|i| i.pointer.press_origin()).or(pointer);
            if let (Some(g), Some(p), Some(node)) = (gizmo, pressed_at, s.selected) {
                let frame = JointFrame::of(&s.model, &s.pose, &s.model_from_node, node);
                if let (Some(handle), Some(frame)) = (g.hit(local(p)), frame) {
                    self.next_gesture += 1;
                    self.drag = Some(RotateDrag::start(g, handle, local(p), frame, self.next_gesture));
                }
            }
        }
        if let (Some(d), Some(p)) = (&mut self.drag, pointer) {
            if response.dragged() {
                let (fine, snap) = ui.input(|i| (i.modifiers.shift, i.modifiers.command));
                let rotation = d.update(local(p), fine, snap, &s.camera);
                s.apply(Command::SetRotation { node: d.node, rotation, gesture: Some(d.gesture) });
            }
        }
        if response.drag_stopped() {
            self.drag = None;
            s.history.close_gesture();
        }
        if self.drag.is_none() && response.dragged() {
            let d = response.drag_delta();
            let delta = Vec2::new(d.x, d.y);
            if secondary || middle || (primary && shift) {
                s.camera.pan(delta, height);
            } else if primary {
                s.camera.orbit(delta);
            }
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                s.camera.zoom(scroll);
            }
        }
        if response.clicked() {
            if let Some(p) = pointer {
                let picked =
                    pick_joint(s, local(p), Vec2::new(response.rect.width() / if s.split { 2.0 } else { 1.0 }, height));
                s.apply(Command::Select(picked));
            }
        }
    }
}

/// Wheel notches in this frame's events (up or away from the user positive), each counted once,
/// as `[`/`]` count key presses: a mouse wheel reports lines (one per notch); a touchpad's pixel
/// scrolling counts as one notch per frame in its direction. egui's zoom factor, which it also
/// derives from Ctrl+wheel, is not used, so one notch is one ×1.1 step of the brush radius.
#[must_use]
pub fn wheel_notches(events: &[egui::Event]) -> i32 {
    let (mut lines, mut points) = (0.0f32, 0.0f32);
    for e in events {
        if let egui::Event::MouseWheel { unit, delta, .. } = e {
            match unit {
                egui::MouseWheelUnit::Line | egui::MouseWheelUnit::Page => lines += delta.y + delta.x,
                egui::MouseWheelUnit::Point => points += delta.y + delta.x,
            }
        }
    }
    let sign = |v: f32| i32::from(v > 0.0) - i32::from(v < 0.0);
    if lines != 0.0 {
        sign(lines) * (lines.abs().round() as i32).max(1)
    } else {
        sign(points)
    }
}

/// The joint whose projected position is nearest to `p` (within 14 px), on the CPU.
#[must_use]
pub fn pick_joint(s: &EditorState, p: Vec2, size: Vec2) -> Option<usize> {
    s.skeleton
        .joints
        .iter()
        .filter_map(|&(n, _)| {
            let q = s.camera.project(s.node_position(n)?, size)?;
            let d = q.distance(p);
            (d < 14.0).then_some((d, n))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

fn draw_panel(g: &GpuShared, info: &egui::PaintCallbackInfo, camera: &OrbitCamera, panel: usize, view: &ViewOptions) {
    let (Some(ctx), Some(scene)) = (&g.ctx, &g.scene) else { return };
    let vp = info.viewport_in_pixels();
    let target = three_d::RenderTarget::screen(ctx, info.screen_size_px[0], info.screen_size_px[1]);
    let scissor = three_d::ScissorBox {
        x: vp.left_px,
        y: vp.from_bottom_px,
        width: vp.width_px.max(1) as u32,
        height: vp.height_px.max(1) as u32,
    };
    scene.draw(&target, scissor, camera, panel, view);
}

fn draw_gizmo(painter: &egui::Painter, origin: egui::Pos2, g: &Gizmo, active: Option<Handle>) {
    gizmo::draw(painter, origin, g, active);
}

/// The angle being applied, at the top of the viewport (where Blender's header shows it).
fn draw_readout(painter: &egui::Painter, rect: egui::Rect, text: &str) {
    let galley = painter.layout_no_wrap(text.to_owned(), egui::FontId::proportional(16.0), egui::Color32::WHITE);
    let pos = egui::pos2(rect.center().x - galley.size().x * 0.5, rect.min.y + 8.0);
    painter.rect_filled(
        egui::Rect::from_min_size(pos, galley.size()).expand(5.0),
        3.0,
        egui::Color32::from_black_alpha(170),
    );
    painter.galley(pos, galley, egui::Color32::WHITE);
}

fn draw_legend(painter: &egui::Painter, rect: egui::Rect, max: f32, a: &str, b: &str) {
    let w = 240.0;
    let r = egui::Rect::from_min_size(rect.right_bottom() - egui::vec2(w + 12.0, 70.0), egui::vec2(w, 60.0));
    painter.rect_filled(r, 4.0, egui::Color32::from_black_alpha(170));
    let font = egui::FontId::proportional(12.0);
    painter.text(
        r.min + egui::vec2(8.0, 6.0),
        egui::Align2::LEFT_TOP,
        format!("|{a} − {b}| (model units)"),
        font.clone(),
        egui::Color32::WHITE,
    );
    let bar = egui::Rect::from_min_size(r.min + egui::vec2(8.0, 24.0), egui::vec2(w - 16.0, 12.0));
    let steps = 48;
    for k in 0..steps {
        let t = k as f32 / (steps - 1) as f32;
        let c = crate::render::overlays::ramp(t);
        let x0 = bar.min.x + bar.width() * k as f32 / steps as f32;
        let seg = egui::Rect::from_min_max(
            egui::pos2(x0, bar.min.y),
            egui::pos2(x0 + bar.width() / steps as f32 + 0.5, bar.max.y),
        );
        painter.rect_filled(seg, 0.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
    }
    let label = crate::render::label::format_units;
    painter.text(
        egui::pos2(bar.min.x, bar.max.y + 4.0),
        egui::Align2::LEFT_TOP,
        "0",
        font.clone(),
        egui::Color32::WHITE,
    );
    painter.text(
        egui::pos2(bar.center().x, bar.max.y + 4.0),
        egui::Align2::CENTER_TOP,
        label(max * 0.5),
        font.clone(),
        egui::Color32::WHITE,
    );
    painter.text(
        egui::pos2(bar.max.x, bar.max.y + 4.0),
        egui::Align2::RIGHT_TOP,
        label(max),
        font,
        egui::Color32::WHITE,
    );
}
