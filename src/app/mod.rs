//! The editor window (the only eframe / rfd user): a model posed in a three-d viewport with an
//! outliner, an inspector, a timeline and a status line. [`SkinlabApp`] owns the
//! [`state::EditorState`] and turns input into [`command::Command`]s; the viewport draws the
//! state's CPU deformation through `crate::render`.
//!
//! In detail: `SkinlabApp` (eframe), `EditorState` + `Command` (the only place state changes; its
//! sub-states in `state/document.rs`, `frame.rs`, `files.rs`, `view.rs`, `posing.rs`, `painting.rs`,
//! `rigging.rs`;
//! `state/paint_ops.rs`: strokes, tools, locks, save, export; `state/rig_ops.rs` (Rig mode: skeleton
//! edits through `rig::skeleton_edit`, joint placement, the bind job); `state/recovery_ops.rs`: unsaved
//! work as a recovery file, restoring one; `state/undo_ops.rs`: Undo and Redo (the model made unique
//! only for a step that changes it; the status line names the step); `state/edit_counts.rs`: the status
//! line's joint sets in use and unsaved strokes; `state/key_ops.rs`: keys on the timeline's clip
//! through `rig::keys`, each a `ModelEdit` of the clips; `state/pose_tools.rs`: Copy Pose, Paste, Paste
//! Flipped; `state/ik_ops.rs` + `ik_input.rs`: IK drags through `rig::ik` (solved from the drag's start
//! pose every frame, one undo step, Cancel restores), pins, chain length, the pole handle;
//! `state/pose_library_ops.rs` + `ui/pose_library_panel.rs`: the pose library), `History` (one undo
//! history of pose snapshots, paint records, skeleton edits as their skeleton-sized
//! `rig::skeleton_edit::SkeletonRecord` (a joint drag's moves chained into one with
//! `SkeletonRecord::then`) and `model::ModelEdit` steps (binds; key edits as `ModelEdit::since`, no
//! vertex data), with a revision; skeleton edits and key edits change the model in place, so its vertex
//! data is never copied unless the brush caches' build still shares it), `bind_job.rs` (automatic
//! weights on a thread, progress through an atomic), `translate_gizmo.rs` + `rig_input.rs` (Rig mode's
//! gizmo and viewport input), `select_input.rs` (Paint mode's box/lasso/gradient drags and selection
//! keys), `state/weight_tools_ops.rs` (`WeightToolCommand`: selection, restrict, gradient, table,
//! transfer; the selection lives in `PaintingState::weight_tools`), `ui/weight_tools_panel.rs`, viewport
//! paint callback (`viewport/paint_input.rs`: Paint mode's strokes, sampling, camera, wheel and hover),
//! `gizmo.rs` (rotation gizmo: Local/World rings and the twist ring, laid out and hit on the CPU) +
//! `gizmo_drag.rs` (pointer → angle: swept about the centre, tangential for edge-on rings; Shift fine,
//! Ctrl snap; the read-out), `ui/rotation_fields.rs` (Euler in a chosen order and Twist/Bend fields,
//! relative to rest, keeping typed values while the rotation is theirs), `paint_overlay.rs` (brush
//! circle, read-out, legends), panels (`ui/`: outliner, inspector, paint panel, rig panel, timeline,
//! status bar), `file_menu.rs` (File menu, Open Recent via `recent.rs`), `dialogs.rs` (`FileRequest` →
//! native dialog or `Answer::Unavailable`, the start-up choice), `file_browser.rs` (the in-window
//! browser), `recovery.rs` (autosave clock, restore offer; the file is made and written on a thread of
//! its own from `EditorState::recovery_snapshot`, which shares the model and source document by `Arc`,
//! and a clean quit waits for it; while the skeleton differs from the file the whole edited model is
//! exported beside it first, `io::recovery::companion`, and restored from there), `view_keys.rs` (axis
//! views, the numeric keypad), `shortcuts.rs` (every editor key, whatever widget has focus),
//! `state/modes.rs` (`Mode`, `WeightDisplay`, `PaintSettings`), `state/weight_look.rs` (a vertex's paint-mode colour: ramp, zero weights, dominant-joint palette), `frame_times.rs` (per-stage frame
//! times, medians, the View ▸ Frame times overlay), `frame_bench.rs` (`open --bench-frames`: a changing
//! pose, or with `--rig --select` a joint drag), `state/refresh.rs` (the per-frame deformation, timed
//! per stage; the paint colours computed in full only when what they depend on changed: `model_rev`,
//! `DocumentState::model_edits` (every in-place model edit but a dab's, through `refresh::edit_model`),
//! the joint shown, the mode, the surface, so a new pose sends no colours), `state/view.rs` (the
//! shown methods, the viewport's aspect, framing), `screenshot.rs` (`open --screenshot`: save the
//! window after N frames, then close), `panic_guard.rs` (the window loop run so that a panic on its
//! thread, such as winit's X11 start-up without the X keyboard data, becomes one error line and status
//! 2), `state/picking.rs` (every pick of the editor, through each panel's pick boxes, fitted lazily per
//! deformation and refitted after a dab), `topology_job.rs` + `state/topology_ops.rs` (brush caches of
//! models ≥ 100k vertices built on a thread, their parallel parts on a rayon pool of its own with one
//! thread fewer than the cores, so that frames never queue behind them; commands that paint or edit
//! weights wait for them, skeleton edits, keys and the undo of either do not; skeleton edits keep the
//! caches' welded surface and vertex mirrors and take the new joints, `paint::ModelTopology::rejoint`),
//! `DocumentState::geometry_rev` (bumped only when a new model is loaded: what the GPU meshes, rest
//! shading normals, brush caches and the recent-file list key on; `model_rev` changes with every edit);
//! `analysis/` (the analysis views' state: `joint_sets.rs` the set table of the shown pose, recomputed
//! only when the deformation revision changes, its sort, the chosen set, vertex colours by set;
//! `overlay.rs` centres, member lines and the hover read-out over the viewport; `sweep.rs` the sweep
//! panel's choices (its own steps or a driving clip), its background thread and the scrub that poses
//! the joint, or the model at a clip key, without an undo entry), `ui/joint_sets_panel.rs` (the
//! sortable set table, `ScrollArea::show_rows`), `ui/sweep_panel.rs` + `ui/sweep_plot.rs` (the sweep
//! panel docked beside the viewport and its egui_plot curves, coinciding ones dashed), `bone_names.rs` (View ▸ Names and the hovered bone's name), `navigation.rs` (the mouse maps: skinlab, Blender, Maya), `preferences.rs` (Edit ▸
//! Preferences, kept in the config folder), `menu_bar.rs` (the menu bar and each mode's right-hand panel), `first_look.rs` (the demo opened on its twisted frame in
//! split view), `ui/fixed_width.rs` (side-panel contents that never widen the panel), `emulate_job.rs` +
//! `state/lbs_export_ops.rs` + `ui/lbs_export_window.rs` (File ▸ Export for LBS runtimes: the fit on a
//! thread with progress and Cancel, the left panel "as exported" beside the target, the export).
//!
//! Invariants: the only egui/eframe/rfd user.

pub mod analysis;
pub mod bind_job;
pub mod bone_names;
pub mod command;
pub mod dialogs;
pub mod emulate_job;
pub mod file_browser;
pub mod file_menu;
pub mod first_look;
pub mod frame_bench;
pub mod frame_times;
pub mod gizmo;
pub mod gizmo_drag;
pub mod history;
pub mod ik_input;
mod menu_bar;
pub mod navigation;
mod options;
pub mod paint_overlay;
mod panic_guard;
pub mod preferences;
pub mod recent;
pub mod recovery;
pub mod rig_input;
pub mod screenshot;
pub mod select_input;
mod shortcuts;
pub mod state;
pub mod topology_job;
pub mod translate_gizmo;
pub mod ui;
pub mod view_keys;
pub mod viewport;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use eframe::egui;

use command::Command;
use dialogs::FileDialogs;
pub use options::{initial_state, EditorOptions};
pub use screenshot::ScreenshotPlan;
use state::EditorState;
use viewport::Viewport;

/// The editor application.
pub struct SkinlabApp {
    /// Everything the editor shows and edits.
    pub state: EditorState,
    /// File dialogs, the in-window browser and the recent-file list.
    pub files: file_menu::Files,
    /// Autosave and the recovery offer.
    pub autosave: recovery::Autosave,
    viewport: Viewport,
    field_gesture: u64,
    frames: u64,
    screenshot: Option<ScreenshotPlan>,
    screenshot_done: Arc<AtomicBool>,
    screenshot_error: Arc<Mutex<Option<String>>>,
    last_title: String,
    /// The File ▸ Export window's choices while it is open.
    export_window: Option<command::ExportChoice>,
    /// The File ▸ Export for LBS runtimes window's choices while it is open.
    lbs_window: Option<emulate_job::LbsExportChoice>,
    asking_close: bool,
    close_confirmed: bool,
    /// The joint tree's inline rename and drag state.
    outliner: ui::outliner::OutlinerState,
    /// `open --bench-frames`: frames driven through changing poses, then a report.
    bench: Option<frame_bench::FrameBench>,
    /// Edit ▸ Preferences (the mouse map), kept in the config folder.
    pub preferences: preferences::Preferences,
    preferences_open: bool,
}

impl SkinlabApp {
    /// The editor on `state`, asking for files through `dialogs`.
    #[must_use]
    pub fn new(state: EditorState, dialogs: Box<dyn FileDialogs>) -> Self {
        Self {
            state,
            files: file_menu::Files::new(dialogs, recent::RecentFiles::default()),
            autosave: recovery::Autosave::new(None),
            viewport: Viewport::default(),
            field_gesture: 1 << 40,
            frames: 0,
            screenshot: None,
            screenshot_done: Arc::new(AtomicBool::new(false)),
            screenshot_error: Arc::new(Mutex::new(None)),
            last_title: String::new(),
            export_window: None,
            lbs_window: None,
            asking_close: false,
            close_confirmed: false,
            outliner: ui::outliner::OutlinerState::default(),
            bench: None,
            preferences: preferences::Preferences::default(),
            preferences_open: false,
        }
    }

    /// Runs `bench` (changing poses every frame, then its report and close) instead of waiting
    /// for input.
    #[must_use]
    pub fn with_bench(mut self, bench: Option<frame_bench::FrameBench>) -> Self {
        self.bench = bench;
        self
    }

    /// Sends large ranges of vertex data to the GPU by `method`.
    #[must_use]
    pub fn with_upload(mut self, method: crate::render::streamed_mesh::UploadMethod) -> Self {
        self.viewport.upload = method;
        if let Some(bench) = &mut self.bench {
            bench.upload = method;
        }
        self
    }

    /// Keeps the recent-file list in `dirs.config` and autosaves to `dirs.data`'s recovery
    /// folder; recovery files of sessions that did not quit are offered (damaged ones are set
    /// aside and reported).
    #[must_use]
    pub fn with_user_dirs(mut self, dirs: &crate::io::UserDirs) -> Self {
        self.files.recent = recent::RecentFiles::load(dirs.config.as_deref());
        self.preferences = preferences::Preferences::load(dirs.config.as_deref());
        self.autosave = recovery::Autosave::new(dirs.recovery());
        let damaged = self.autosave.scan();
        if !damaged.is_empty() {
            self.state.message = Some(state::Message { text: damaged.join("; "), is_error: true });
        }
        self
    }

    /// Restores the newest recovery file found at start-up without asking (`open --recover`);
    /// the result is the editor's message.
    pub fn recover_newest(&mut self) {
        if self.autosave.offered.is_empty() {
            self.state.message =
                Some(state::Message { text: "--recover: there is no unsaved work to recover".into(), is_error: true });
            return;
        }
        let found = self.autosave.offered.remove(0);
        self.autosave.restore(&found, &mut self.state);
    }

    /// Opens File ▸ Export for LBS runtimes with `method` as the target and starts the fit.
    #[must_use]
    pub fn with_lbs_export(mut self, method: Option<crate::skinning::SkinningMethod>) -> Self {
        if let Some(method) = method {
            let choice = emulate_job::LbsExportChoice { method, ..emulate_job::LbsExportChoice::default() };
            self.lbs_window = Some(choice.clone());
            self.state.apply(Command::LbsExport(command::LbsExportCommand::Fit(choice)));
        }
        self
    }

    /// Saves the window to `plan.path` after `plan.after_frames` frames (counted once no fit for
    /// the LBS export runs) and then closes it.
    #[must_use]
    pub fn with_screenshot(mut self, plan: Option<ScreenshotPlan>) -> Self {
        self.viewport.preview_brush = plan.is_some();
        self.screenshot = plan;
        self
    }

    /// Where the 3D viewport was drawn last frame (screen points), for tests that click into it.
    #[must_use]
    pub fn viewport_rect(&self) -> Option<egui::Rect> {
        self.viewport.last_rect
    }

    /// File ▸ Save: writes to the last saved path, or asks for one.
    fn save_command(&mut self) -> Option<Command> {
        self.files.save(&self.state)
    }

    fn export_window_ui(&mut self, ctx: &egui::Context) -> Option<Command> {
        let mut choice = self.export_window?;
        let mut cmd = None;
        let mut open = true;
        egui::Window::new("Export").collapsible(false).resizable(false).show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label("Format");
                ui.selectable_value(&mut choice.glb, true, ".glb");
                ui.selectable_value(&mut choice.glb, false, ".gltf");
            });
            ui.horizontal(|ui| {
                let l = ui.label("Weights");
                let name = choice.weights.map_or("as painted (float)", crate::io::WeightsFormat::name);
                egui::ComboBox::from_id_salt("weights_format")
                    .selected_text(name)
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut choice.weights, None, "as painted (float)");
                        for f in [
                            crate::io::WeightsFormat::Float,
                            crate::io::WeightsFormat::U16,
                            crate::io::WeightsFormat::U8,
                        ] {
                            ui.selectable_value(&mut choice.weights, Some(f), f.name());
                        }
                    })
                    .response
                    .labelled_by(l.id);
            });
            ui.checkbox(&mut choice.bake, "Bake the current pose with the current method");
            ui.horizontal(|ui| {
                if ui.button("Export to…").clicked() {
                    cmd = self.files.ask(dialogs::FileRequest::Export(choice), &self.state);
                    open = false;
                }
                if ui.button("Cancel").clicked() {
                    open = false;
                }
            });
        });
        self.export_window = open.then_some(choice);
        cmd
    }

    fn confirm_window_ui(&self, ctx: &egui::Context) -> Option<Command> {
        let pending = self.state.files.pending_overwrite.as_ref()?;
        let mut cmd = None;
        let kinds = match (self.state.rig.unsaved_edits() > 0, self.state.painting.edited.is_dirty()) {
            (true, true) => "skeleton, animation and weight edits",
            (true, false) => "skeleton or animation edits",
            _ => "weight edits",
        };
        let (title, text, yes) = if pending.discard {
            (
                format!("Discard unsaved {kinds}?"),
                format!(
                    "Opening {} loses {}.",
                    pending.path.display(),
                    self.state.unsaved_summary().unwrap_or_else(|| "nothing".into())
                ),
                "Discard",
            )
        } else {
            (
                "Overwrite the input file?".to_owned(),
                format!("{} is the file the model was opened from.", pending.path.display()),
                "Overwrite",
            )
        };
        egui::Window::new(title).collapsible(false).resizable(false).show(ctx, |ui| {
            ui.label(text);
            ui.horizontal(|ui| {
                if ui.button(yes).clicked() {
                    cmd = Some(Command::ConfirmOverwrite(true));
                }
                if ui.button("Cancel").clicked() {
                    cmd = Some(Command::ConfirmOverwrite(false));
                }
            });
        });
        cmd
    }

    /// Asks before closing the window over unsaved weight edits.
    fn close_guard(&mut self, ctx: &egui::Context) {
        // A screenshot run closes itself: it never asks.
        let unsaved = self.state.unsaved_summary();
        let asks = unsaved.is_some() && !self.close_confirmed && self.screenshot.is_none();
        if ctx.input(|i| i.viewport().close_requested()) && asks {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.asking_close = true;
        }
        if !self.asking_close {
            return;
        }
        egui::Window::new("Quit without saving?").collapsible(false).resizable(false).show(ctx, |ui| {
            ui.label(format!("{} not saved.", unsaved.as_deref().unwrap_or("nothing")));
            ui.horizontal(|ui| {
                if ui.button("Quit").clicked() {
                    self.close_confirmed = true;
                    self.asking_close = false;
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
                if ui.button("Keep editing").clicked() {
                    self.asking_close = false;
                }
            });
        });
    }
}

/// What dropping a file does: a .gltf/.glb opens as the model, a .json loads as a pose, anything
/// else is refused with a message.
#[must_use]
pub fn dropped_command(path: PathBuf) -> Command {
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "json" => Command::LoadPose(path),
        // Anything else goes to the model loader, which names the file and the problem.
        _ => Command::OpenModel(path),
    }
}

impl eframe::App for SkinlabApp {
    /// A clean quit (the window closed, unsaved edits discarded on request) leaves no recovery file.
    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.autosave.remove();
    }

    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let frame_started = std::time::Instant::now();
        // The previous frame's paint callbacks ran after its UI: their time closes that frame.
        let drawn = self.viewport.take_draw_secs();
        self.state.frame.frame_times.add(frame_times::Stage::Draw, drawn);
        self.state.frame.frame_times.start_frame(frame_started);
        let ctx = ui.ctx().clone();
        if let Some(bench) = &mut self.bench {
            if let Some(gl) = frame.gl().filter(|_| bench.needs_renderer()) {
                use eframe::glow::HasContext as _;
                // SAFETY: a plain string query on the current context, on the thread that owns it.
                bench.set_renderer(unsafe { gl.get_parameter_string(eframe::glow::RENDERER) });
            }
            if bench.step(&mut self.state, self.viewport.first_draw()) {
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint();
        }
        self.screenshot_step(&ctx);
        let mut cmds = self.shortcuts(&ctx);
        let dropped: Vec<PathBuf> = ctx.input(|i| i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).collect());
        for path in dropped.into_iter().filter(|p| !p.as_os_str().is_empty()) {
            cmds.push(dropped_command(path));
        }
        if self.state.posing.playing {
            let dt = ctx.input(|i| f64::from(i.stable_dt).min(0.1));
            self.state.advance(dt);
            ctx.request_repaint();
        }
        egui::Panel::top("menu").show(ui, |ui| cmds.extend(self.menu_ui(ui)));
        self.viewport.mouse = self.preferences.mouse;
        let help = self.preferences.mouse.help(self.state.mode);
        egui::Panel::bottom("status").show(ui, |ui| ui::status_bar::status_bar_ui(ui, &self.state, help));
        egui::Panel::bottom("timeline").show(ui, |ui| cmds.extend(ui::timeline::timeline_ui(ui, &self.state)));
        if self.state.poll_bind() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
        if self.state.poll_lbs_export() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        if self.state.poll_topology() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        egui::Panel::left("outliner").default_size(190.0).resizable(true).show(ui, |ui| {
            ui::fixed_width::show(ui, |ui| cmds.extend(self.outliner.ui(ui, &self.state)));
        });
        egui::Panel::right("inspector").default_size(270.0).resizable(true).show(ui, |ui| {
            ui::fixed_width::show(ui, |ui| self.inspector_ui(ui, &mut cmds));
        });
        if self.state.analysis.sweep.open {
            egui::Panel::right("sweep").default_size(520.0).resizable(true).show(ui, |ui| {
                ui::fixed_width::show(ui, |ui| cmds.extend(ui::sweep_panel::sweep_dock(ui, &mut self.state)));
            });
        }
        ui::joint_sets_panel::joint_sets_window(&ctx, &mut self.state);
        cmds.extend(self.export_window_ui(&ctx));
        cmds.extend(ui::lbs_export_window::show(&ctx, &self.state, &mut self.files, &mut self.lbs_window));
        cmds.extend(self.files.browser_ui(&ctx));
        cmds.extend(self.confirm_window_ui(&ctx));
        if let Some(text) = self.preferences.window_ui(&ctx, &mut self.preferences_open) {
            self.state.message = Some(state::Message { text, is_error: true });
        }
        self.close_guard(&ctx);
        for c in cmds.drain(..) {
            self.state.apply(c);
        }
        self.autosave.offer_ui(&ctx, &mut self.state);
        self.files.note(&mut self.state);
        self.state.refresh();
        self.state.refresh_analysis();
        let bg = crate::render::scene::BACKGROUND;
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE.fill(egui::Color32::from_rgb(bg[0], bg[1], bg[2])))
            .show(ui, |ui| self.viewport.ui(ui, &mut self.state));
        // Gizmo drags and clicks in the viewport apply directly; make them visible this frame.
        self.state.refresh();
        self.viewport.sync_gpu(frame.gl(), &mut self.state);
        let busy = ctx.input(|i| i.pointer.any_down());
        let (failed, again) = self.autosave.tick(&self.state, std::time::Instant::now(), busy);
        if let Some(text) = failed {
            self.state.message = Some(state::Message { text, is_error: true });
        }
        if let Some(after) = again {
            ctx.request_repaint_after(after);
        }
        let unsaved = if self.state.unsaved_summary().is_some() { " *" } else { "" };
        let title = format!("skinlab — {}{unsaved}", self.state.doc.model_name);
        if title != self.last_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.last_title = title;
        }
        let t = &mut self.state.frame.frame_times;
        let measured: f64 = [
            frame_times::Stage::Prepare,
            frame_times::Stage::DeformLeft,
            frame_times::Stage::DeformRight,
            frame_times::Stage::Colours,
            frame_times::Stage::Upload,
        ]
        .iter()
        .map(|&st| t.current(st))
        .sum();
        t.add(frame_times::Stage::Ui, frame_started.elapsed().as_secs_f64() - measured);
    }
}

/// Opens the editor window and runs it until it is closed; with `bench_frames`, returns the
/// frame-time report.
pub fn run(opts: EditorOptions) -> Result<Option<String>, String> {
    let started = std::time::Instant::now();
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if !has_display {
        return Err("cannot open the editor: no display (DISPLAY and WAYLAND_DISPLAY are unset); \
                    `skinlab render` draws pictures without one"
            .into());
    }
    // A file that cannot be opened (launched from a file manager, say) still opens the window,
    // on the demo arm, with the problem shown; the terminal gets the same line.
    let (state, problem) = match initial_state(&opts) {
        Ok(s) => (s, None),
        Err(e) if opts.bench_frames.is_some() => return Err(e),
        Err(e) => {
            eprintln!("error: {}", crate::error_line::one_line(&e));
            let demo = EditorOptions { screenshot: None, rest: true, ..EditorOptions::default() };
            (initial_state(&demo)?, Some(format!("{e} (showing the demo arm instead)")))
        }
    };
    let backend = dialogs::choose_backend(&dialogs::DialogFacts::probe());
    let mut app = SkinlabApp::new(state, dialogs::dialogs_for(backend))
        .with_screenshot(opts.screenshot.clone())
        .with_user_dirs(&crate::io::UserDirs::from_env())
        .with_lbs_export(opts.lbs_export);
    if opts.recover {
        app.recover_newest();
        if let Some(m) = &app.state.message {
            eprintln!("{}{}", if m.is_error { "error: " } else { "" }, m.text);
        }
    }
    if let Some(text) = problem {
        app.state.message = Some(state::Message { text, is_error: true });
    }
    let bench = opts.bench_frames.map(|n| frame_bench::FrameBench::new(n, started, &app.state));
    let report = bench.as_ref().map(frame_bench::FrameBench::report_slot);
    let app = app.with_bench(bench).with_upload(opts.upload);
    let error = Arc::clone(&app.screenshot_error);
    let native = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        depth_buffer: 24,
        multisampling: 4,
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1280.0, 800.0])
            .with_title("skinlab")
            .with_drag_and_drop(true),
        ..Default::default()
    };
    panic_guard::run_guarded(|| eframe::run_native("skinlab", native, Box::new(move |_cc| Ok(Box::new(app)))))
        .map_err(|e| format!("the editor stopped: {e}"))?
        .map_err(|e| format!("cannot open the editor window: {}", e.to_string().replace('\n', " ")))?;
    if let Some(e) = error.lock().ok().and_then(|mut g| g.take()) {
        return Err(e);
    }
    if let Some(plan) = &opts.screenshot {
        if !plan.path.exists() {
            return Err(format!("{}: the window closed before the screenshot was taken", plan.path.display()));
        }
    }
    match report {
        Some(slot) => match slot.lock().ok().and_then(|mut g| g.take()) {
            Some(text) => Ok(Some(text)),
            None => Err("--bench-frames: the window closed before the frames were drawn".into()),
        },
        None => Ok(None),
    }
}
