//! The 3D viewport: one or two panels (split view) sharing one camera, drawn by three-d inside
//! egui paint callbacks, plus the CPU-side interaction (orbit / pan / zoom, click-to-select a
//! joint by projecting joint positions, the rotation gizmo) and the egui overlays (panel labels,
//! difference legend).
//!
//! Data flows one way: after the frame's commands, [`Viewport::sync_gpu`] sends what changed in
//! the state's CPU deformation and colours (see [`crate::render::gpu_changes`]) straight from
//! the state's buffers into the existing GPU buffers (nothing is copied on the way), on the UI
//! thread where eframe's GL context is current; the paint callbacks only draw. The GPU scene is
//! created from eframe's glow context, so the editor also runs without OpenGL (egui_kittest),
//! where nothing 3D is drawn.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui;
use eframe::egui_glow;
use glam::Vec2;

use super::command::Command;
use super::frame_times::Stage;
use super::gizmo::{self, Gizmo, Handle, JointFrame};
use super::gizmo_drag::RotateDrag;
use super::navigation::{CameraDrag, Held, MousePreset};
use super::rig_input::{self, PanelPointer, RigInput};
use super::state::{EditorState, Mode};
use super::translate_gizmo::TranslateGizmo;
use crate::io::materials::Looks;
use crate::render::gpu_changes::{Changed, GpuChanges};
use crate::render::skinned_mesh::SkinnedMeshes;
use crate::render::streamed_mesh::UploadMethod;
use crate::render::{MeshLayout, OrbitCamera, Scene, ViewOptions};

mod paint_input;

/// What the paint callbacks share with the UI thread.
#[derive(Default)]
pub struct GpuShared {
    ctx: Option<three_d::Context>,
    scene: Option<Scene>,
    /// The state's `geometry_rev` and the model's layout the scene's meshes were built from.
    scene_meshes: Option<(u64, MeshLayout)>,
    /// The state's `model_rev` the scene's skeleton was built from.
    scene_model_rev: u64,
    /// Seconds the paint callbacks spent drawing since the UI thread last took them.
    draw_secs: f64,
    /// When the first panel was drawn.
    first_draw: Option<Instant>,
}

/// What the GPU buffers were last filled from: when it changes, every colour is sent again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ColourSource {
    model_rev: u64,
    paint: bool,
    difference: bool,
    /// The joint-sets colours' revision while they are shown.
    sets: Option<u64>,
    looks_on: bool,
}

/// The viewport's persistent interaction state.
#[derive(Default)]
pub struct Viewport {
    shared: Arc<Mutex<GpuShared>>,
    /// The state's `(frame_rev, selected)` last sent.
    sent: Option<(u64, Option<usize>)>,
    colour_source: Option<ColourSource>,
    /// Changes of the right panel not sent while it was hidden (single view).
    right_behind: Changed,
    /// The revision of the unskinned morphed surfaces each panel holds.
    rigid_sent: [Option<u64>; 2],
    /// The looks read from the model's document, with the document they came from and the
    /// model's mesh count.
    looks: Option<(std::path::PathBuf, usize, Option<Arc<Looks>>)>,
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
    ik: super::ik_input::IkInput,
    select: super::select_input::SelectInput,
    /// Where the viewport was drawn last frame (screen points).
    pub last_rect: Option<egui::Rect>,
    /// How large ranges of vertex data reach the GPU (`open --upload`).
    pub upload: UploadMethod,
    /// The mouse map (Edit ▸ Preferences).
    pub mouse: MousePreset,
    /// The camera drag claimed by the buttons held since they went down.
    camera_claim: Option<CameraDrag>,
}

fn to_vec2(p: egui::Pos2) -> Vec2 {
    Vec2::new(p.x, p.y)
}

impl Viewport {
    /// Sends what changed in the state's deformation and colours to the GPU buffers (creating
    /// the scene for a new model), on the UI thread with eframe's GL context `gl` current;
    /// without one (egui_kittest) the changes are dropped. The time goes to [`Stage::Upload`].
    pub fn sync_gpu(&mut self, gl: Option<&Arc<eframe::glow::Context>>, s: &mut EditorState) {
        let started = Instant::now();
        let mut changes = s.take_gpu_changes();
        let Some(gl) = gl else { return };
        let shared = Arc::clone(&self.shared);
        let Ok(mut g) = shared.lock() else { return };
        if g.ctx.is_none() {
            g.ctx = three_d::Context::from_gl_context(Arc::clone(gl)).ok();
        }
        let Some(ctx) = g.ctx.clone() else { return };
        if g.scene.is_none() || g.scene_model_rev != s.doc.model_rev {
            // A skeleton or weight edit keeps the meshes (rebuilding them at 1M vertices took
            // 130-160 ms a frame of a joint drag): only a new geometry or layout rebuilds them.
            let meshes = (s.doc.geometry_rev, MeshLayout::of(&s.doc.model));
            let g = &mut *g;
            match g.scene.as_mut() {
                Some(scene) if g.scene_meshes.as_ref() == Some(&meshes) => scene.rebuild_bones(&s.doc.model),
                _ => {
                    let looks = self.looks_of(s);
                    let mut scene = Scene::new(&ctx, &s.doc.model, 2, s.doc.model_bounds, looks.as_deref());
                    scene.set_upload_method(self.upload);
                    let undrawable = scene.panel(0).map_or(0, SkinnedMeshes::undrawable);
                    if undrawable > 0 {
                        s.message = Some(super::state::Message {
                            text: format!(
                                "OpenGL could not make the buffers of {undrawable} primitives: they are not drawn"
                            ),
                            is_error: true,
                        });
                    }
                    g.scene = Some(scene);
                    g.scene_meshes = Some(meshes);
                    self.colour_source = None;
                    self.right_behind = Changed::Nothing;
                    self.rigid_sent = [None; 2];
                }
            }
            g.scene_model_rev = s.doc.model_rev;
            changes = GpuChanges::all();
        }
        let key = (s.frame.frame_rev, s.selected);
        if self.sent != Some(key) && !changes.any() {
            // The deformation changed without a record of what: send everything.
            changes = GpuChanges::all();
        }
        let Some(scene) = g.scene.as_mut() else { return };
        // View ▸ Joint sets colours the vertices by set outside paint mode.
        let sets = s.analysis.sets.on && s.mode != Mode::Paint;
        let colours = if s.mode == Mode::Paint {
            Some(&s.painting.colours)
        } else if sets {
            Some(&s.analysis.sets.colours)
        } else {
            s.view.difference.then_some(&s.frame.difference_colours)
        };
        let source = ColourSource {
            model_rev: s.doc.model_rev,
            paint: s.mode == Mode::Paint,
            difference: s.view.difference,
            sets: sets.then_some(s.analysis.sets.colour_rev),
            looks_on: s.view.options.materials && colours.is_none() && scene.has_looks(),
        };
        if self.colour_source != Some(source) {
            changes.colours = Changed::All;
            self.colour_source = Some(source);
        }
        let [left, right] = changes.deformed;
        self.right_behind.merge(right);
        for i in 0..2 {
            let deformed =
                if i == 0 { Some(left.clone()) } else { s.view.split.then(|| std::mem::take(&mut self.right_behind)) };
            let Some(panel) = scene.panel_mut(i) else { continue };
            if let Some(changed) = deformed.filter(|_| !s.frame.deformed[i].is_empty()) {
                panel.upload_changes(&s.frame.deformed[i], &s.frame.model_from_node, &changed);
            }
            let rigid = Some(s.frame.rigid_morphs.revision());
            if self.rigid_sent[i] != rigid && (i == 0 || s.view.split) {
                panel.upload_rigid_morphs(&s.frame.rigid_morphs);
                self.rigid_sent[i] = rigid;
            }
            panel.set_colours_changes(colours.map(Vec::as_slice), source.looks_on, &changes.colours);
        }
        if self.sent != Some(key) {
            scene.update_bones(&s.frame.model_from_node, s.selected);
            self.sent = Some(key);
        }
        drop(g);
        s.frame.frame_times.add(Stage::Upload, started.elapsed().as_secs_f64());
    }

    /// Seconds the viewport's paint callbacks spent drawing since the last call.
    pub fn take_draw_secs(&self) -> f64 {
        self.shared.lock().map(|mut g| std::mem::take(&mut g.draw_secs)).unwrap_or(0.0)
    }

    /// When the viewport was first drawn (`None` before, and without OpenGL).
    #[must_use]
    pub fn first_draw(&self) -> Option<Instant> {
        self.shared.lock().ok().and_then(|g| g.first_draw)
    }

    /// Bytes sent to the GPU so far by each panel (for tests of what an edit uploads).
    #[must_use]
    pub fn uploaded_bytes(&self) -> [u64; 2] {
        let Ok(g) = self.shared.lock() else { return [0; 2] };
        let Some(scene) = &g.scene else { return [0; 2] };
        [0, 1].map(|i| scene.panel(i).map_or(0, SkinnedMeshes::uploaded_bytes))
    }

    /// The looks of the state's model, read once per document (a failure is reported once and
    /// the surfaces are drawn plain).
    fn looks_of(&mut self, s: &mut EditorState) -> Option<Arc<Looks>> {
        let source = s.files.source.as_ref()?;
        let key = (source.path().to_path_buf(), s.doc.model.meshes.len());
        if let Some((path, meshes, looks)) = &self.looks {
            if (path, *meshes) == (&key.0, key.1) {
                return looks.clone();
            }
        }
        let looks = match crate::io::materials::looks(&s.doc.model, source) {
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
        let rect = ui.available_rect_before_wrap();
        self.last_rect = Some(rect);
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        let panels = if s.view.split { 2 } else { 1 };
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
            let frame = JointFrame::of(&s.doc.model, &s.doc.pose, &s.frame.model_from_node, s.selected?)?;
            let axes = frame.ring_axes(s.posing.gizmo.orientation).map(|a| a.as_vec3());
            Gizmo::new(&s.view.camera, j, axes, s.posing.gizmo.orientation, size)
        });
        let mover = joint.filter(|_| s.mode == Mode::Rig).and_then(|j| {
            let g = TranslateGizmo::new(&s.view.camera, j, size)?;
            Some(match s.selected.and_then(|n| s.roll_axis(n)) {
                Some(axis) => g.with_roll(&s.view.camera, j, axis, size),
                None => g,
            })
        });
        let panel_of = |p: egui::Pos2| (((p.x - rect.min.x) / panel_w).floor().max(0.0) as usize).min(panels - 1);

        let held = ui.input(|i| Held {
            primary: i.pointer.primary_down(),
            secondary: i.pointer.secondary_down(),
            middle: i.pointer.middle_down(),
            shift: i.modifiers.shift,
            ctrl: i.modifiers.command,
            alt: i.modifiers.alt,
        });
        if !(held.primary || held.secondary || held.middle) {
            self.camera_claim = None;
        } else if self.camera_claim.is_none()
            && !self.tool_busy()
            && response.hovered()
            && ui.input(|i| i.pointer.any_pressed())
        {
            self.camera_claim = self.mouse.camera_first(s.mode, held);
        }
        if let Some(action) = self.camera_claim {
            if response.dragged() {
                move_camera(s, action, response.drag_delta(), rect.height());
            }
        } else if s.mode == Mode::Paint {
            self.drag = None;
            self.paint_input(ui, &response, s, &local, &panel_of, size);
        } else {
            self.hover = None;
            if self.painting {
                self.painting = false;
                s.apply(Command::EndStroke);
            }
            let pointer = response.interact_pointer_pos().or_else(|| response.hover_pos()).map(|p| PanelPointer {
                screen: to_vec2(p),
                local: local(p),
                panel: panel_of(p),
                size,
            });
            let used = match s.mode {
                Mode::Rig => self.rig.input(ui, &response, s, mover.as_ref(), pointer),
                Mode::Pose => self.drag.is_none() && self.ik.input(ui, &response, s, pointer.as_ref()),
                Mode::Paint => false,
            };
            if !used {
                self.handle_input(ui, &response, s, gizmo.as_ref(), (&local, &panel_of), rect.height());
            }
        }

        let painter = ui.painter_at(rect);
        let labels = s.panel_labels();
        for (i, label) in labels.iter().enumerate() {
            let r = panel_rect(i);
            let shared = Arc::clone(&self.shared);
            let (camera, view) = (s.view.camera, s.view.options);
            let cb = egui_glow::CallbackFn::new(move |info, _painter| {
                let Ok(mut g) = shared.lock() else { return };
                let started = Instant::now();
                draw_panel(&g, &info, &camera, i, &view);
                g.draw_secs += started.elapsed().as_secs_f64();
                g.first_draw.get_or_insert_with(Instant::now);
            });
            painter.add(egui::PaintCallback { rect: r, callback: Arc::new(cb) });
            let text = egui::RichText::new(label).strong().size(18.0);
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
        if s.mode == Mode::Pose {
            self.ik.draw(&painter, rect.min, s, size);
        }
        if let Some(d) = &self.drag {
            draw_readout(&painter, rect, &d.readout());
        }
        if let Some(g) = &mover {
            rig_input::draw(&painter, rect.min, g, self.rig.active_handle());
        }
        if s.mode == Mode::Rig {
            super::autorig_markers::draw(&painter, rect, panels, s);
        }
        if s.analysis.sets.on && s.mode != Mode::Paint {
            let pointer = response.hover_pos().filter(|_| self.drag.is_none() && !response.dragged());
            s.analysis.sets.hover = pointer.and_then(|p| super::analysis::overlay::hover_at(s, rect, panels, p));
            super::analysis::overlay::draw(&painter, rect, panels, s);
        }
        if s.mode == Mode::Paint {
            super::paint_overlay::draw_isolines(&painter, rect, panels, s);
            super::paint_overlay::draw(&painter, rect, s, self.hover.as_ref());
            self.select.draw(&painter, s, ui.input(|i| i.pointer.hover_pos()));
            super::paint_overlay::legend_ui(ui, rect, s, self.hover.as_ref());
        } else if s.view.difference {
            let left = if s.shows_export() { "as exported" } else { s.view.method.label() };
            let labels = (left, s.view.compare.label());
            draw_legend(&painter, rect, (s.frame.max_difference, s.difference_floor()), labels);
        }
        let hover =
            response.hover_pos().filter(|_| s.mode != Mode::Paint && self.drag.is_none() && !response.dragged());
        if s.view.bone_names || hover.is_some() {
            super::bone_names::draw(&painter, rect, panels, s, hover);
        }
        if s.view.show_frame_times {
            super::frame_times::draw_overlay(&painter, rect, &s.frame.frame_times);
        }
    }

    /// Whether a tool gesture (a gizmo or IK drag, a stroke, a box or lasso, a joint move) is
    /// in progress: a button pressed meanwhile belongs to it, not to the camera.
    fn tool_busy(&self) -> bool {
        self.drag.is_some() || self.painting || self.ik.dragging() || self.rig.dragging() || self.select.active()
    }

    fn handle_input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        s: &mut EditorState,
        gizmo: Option<&Gizmo>,
        (local, panel_of): (&dyn Fn(egui::Pos2) -> Vec2, &dyn Fn(egui::Pos2) -> usize),
        height: f32,
    ) {
        let pointer = response.interact_pointer_pos().or_else(|| response.hover_pos());
        let (primary, shift, alt) = ui.input(|i| (i.pointer.primary_down(), i.modifiers.shift, i.modifiers.alt));
        let tool = match self.mouse {
            MousePreset::Skinlab => !shift,
            MousePreset::Blender => true,
            MousePreset::Maya => !alt,
        };
        if response.drag_started() && primary && tool {
            // Grab where the button went down: egui reports the drag a few pixels later.
            let pressed_at = ui.input(|i| i.pointer.press_origin()).or(pointer);
            if let (Some(g), Some(p), Some(node)) = (gizmo, pressed_at, s.selected) {
                let frame = JointFrame::of(&s.doc.model, &s.doc.pose, &s.frame.model_from_node, node);
                if let (Some(handle), Some(frame)) = (g.hit(local(p)), frame) {
                    self.next_gesture += 1;
                    self.drag = Some(RotateDrag::start(g, handle, local(p), frame, self.next_gesture));
                }
            }
        }
        if let (Some(d), Some(p)) = (&mut self.drag, pointer) {
            if response.dragged() {
                let (fine, snap) = ui.input(|i| (i.modifiers.shift, i.modifiers.command));
                let rotation = d.update(local(p), fine, snap, &s.view.camera);
                s.apply(Command::SetRotation { node: d.node, rotation, gesture: Some(d.gesture) });
            }
        }
        if response.drag_stopped() {
            self.drag = None;
            s.doc.history.close_gesture();
        }
        if self.drag.is_none() && response.dragged() {
            let held =
                ui.input(|i| Held { primary: i.pointer.primary_down(), shift: i.modifiers.shift, ..Held::default() });
            if let Some(action) = self.mouse.camera_fallback(s.mode, held) {
                move_camera(s, action, response.drag_delta(), height);
            }
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if let Some(p) = pointer.filter(|_| scroll != 0.0) {
                let size = Vec2::new(response.rect.width() / if s.view.split { 2.0 } else { 1.0 }, height);
                s.zoom_toward(scroll, local(p), panel_of(p), size);
            }
        }
        if response.clicked() {
            if let Some(p) = pointer {
                let picked = s.pick_joint(
                    local(p),
                    Vec2::new(response.rect.width() / if s.view.split { 2.0 } else { 1.0 }, height),
                );
                s.apply(Command::Select(picked));
            }
        }
    }
}

/// Moves the camera by a drag of `d` points in a viewport `height` points tall.
fn move_camera(s: &mut EditorState, action: CameraDrag, d: egui::Vec2, height: f32) {
    match action {
        CameraDrag::Orbit => s.view.camera.orbit(Vec2::new(d.x, d.y)),
        CameraDrag::Pan => s.view.camera.pan(Vec2::new(d.x, d.y), height),
        // Right or up moves in.
        CameraDrag::Dolly => s.view.camera.zoom((d.x - d.y) * 2.0),
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

/// The difference overlay's legend: the ramp from 0 to the largest distance `max`, or to
/// `floor` with "identical within rounding" when the largest distance is below it.
fn draw_legend(painter: &egui::Painter, rect: egui::Rect, (max, floor): (f32, f32), (a, b): (&str, &str)) {
    let w = 240.0;
    let r = egui::Rect::from_min_size(rect.right_bottom() - egui::vec2(w + 12.0, 86.0), egui::vec2(w, 76.0));
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
    let label = crate::plot::format_units;
    let top = max.max(floor);
    for (x, align, text) in [
        (bar.min.x, egui::Align2::LEFT_TOP, "0".to_owned()),
        (bar.center().x, egui::Align2::CENTER_TOP, label(top * 0.5)),
        (bar.max.x, egui::Align2::RIGHT_TOP, label(top)),
    ] {
        painter.text(egui::pos2(x, bar.max.y + 4.0), align, text, font.clone(), egui::Color32::WHITE);
    }
    let note = difference_note(max, floor);
    painter.text(egui::pos2(bar.min.x, bar.max.y + 20.0), egui::Align2::LEFT_TOP, note, font, egui::Color32::WHITE);
}

/// The difference legend's last line: "identical within rounding" while the largest distance
/// `max` is below the overlay's `floor`, else the largest distance.
#[must_use]
pub fn difference_note(max: f32, floor: f32) -> String {
    let label = crate::plot::format_units;
    if max < floor {
        format!("identical within rounding (largest {})", label(max))
    } else {
        format!("largest {}", label(max))
    }
}
