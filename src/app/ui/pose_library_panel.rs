//! The Pose Library section of the Pose-mode inspector: where the library is kept (or that the
//! demo's lives in memory), a broken file's problem and the choice to replace it, a name field
//! with Add Pose (every joint) and Add Selected (the selected limb), and the poses as a grid of
//! thumbnails with Apply, Flipped, Rename and Delete under each.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use eframe::egui;

use crate::app::command::Command;
use crate::app::command::PoseLibraryCommand;
use crate::app::state::EditorState;
use crate::io::pose_library::decode_thumbnail;

/// Thumbnail size on screen (points).
const CELL: f32 = 96.0;

/// Draws the pose library and returns the commands it issued.
pub fn pose_library_ui(ui: &mut egui::Ui, s: &mut EditorState) -> Vec<Command> {
    s.sync_pose_library();
    let mut cmds = Vec::new();
    let lib = |c| Command::PoseLibrary(c);
    ui.heading("Pose Library");
    match &s.posing.poses.path {
        Some(p) => {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            ui.weak(format!("saved beside the model as {name}")).on_hover_text(p.display().to_string());
        }
        None => {
            ui.weak("the built-in demo has no file: this library is kept in memory only");
        }
    }
    if let Some(problem) = s.posing.poses.problem.clone() {
        ui.colored_label(egui::Color32::from_rgb(240, 110, 90), problem);
        if ui.button("Start a new library (replaces the broken file)").clicked() {
            cmds.push(lib(PoseLibraryCommand::ReplaceBroken));
        }
    }
    ui.horizontal(|ui| {
        let l = ui.label("Name");
        ui.add(egui::TextEdit::singleline(&mut s.posing.poses.name_field).desired_width(140.0).hint_text("pose name"))
            .labelled_by(l.id);
    });
    ui.horizontal(|ui| {
        let name = s.posing.poses.name_field.trim().to_owned();
        let named = !name.is_empty();
        if ui.add_enabled(named, egui::Button::new("Add Pose")).on_hover_text("every joint's pose").clicked() {
            cmds.push(lib(PoseLibraryCommand::Add { name: name.clone(), selected_only: false }));
        }
        let limb = if s.selected.is_some() { "the selected joint and those below it" } else { "every joint" };
        if ui.add_enabled(named, egui::Button::new("Add Selected")).on_hover_text(limb).clicked() {
            cmds.push(lib(PoseLibraryCommand::Add { name, selected_only: true }));
        }
    });
    if s.posing.poses.library.poses.is_empty() {
        ui.weak("no poses yet");
        return cmds;
    }
    let columns = ((ui.available_width() / (CELL + 12.0)).floor() as usize).max(1);
    egui::Grid::new("pose_library").num_columns(columns).spacing([8.0, 8.0]).show(ui, |ui| {
        for (i, p) in s.posing.poses.library.poses.iter().enumerate() {
            ui.vertical(|ui| {
                ui.set_width(CELL);
                match thumbnail(ui.ctx(), &p.thumbnail_png) {
                    Ok(tex) => {
                        let r =
                            ui.add(egui::Image::new((tex.id(), egui::vec2(CELL, CELL))).sense(egui::Sense::click()));
                        if r.on_hover_text(format!("{}: click to apply", p.name)).clicked() {
                            cmds.push(lib(PoseLibraryCommand::Apply { index: i, flipped: false }));
                        }
                    }
                    Err(problem) => {
                        // A broken picture is shown as broken; the pose itself still applies.
                        let (rect, r) = ui.allocate_exact_size(egui::vec2(CELL, CELL), egui::Sense::click());
                        let visuals = ui.visuals();
                        ui.painter().rect_stroke(
                            rect,
                            2.0,
                            visuals.widgets.noninteractive.bg_stroke,
                            egui::StrokeKind::Inside,
                        );
                        ui.painter().text(
                            rect.center(),
                            egui::Align2::CENTER_CENTER,
                            "broken thumbnail",
                            egui::FontId::proportional(11.0),
                            visuals.error_fg_color,
                        );
                        if r.on_hover_text(format!("{}: {problem}; click to apply", p.name)).clicked() {
                            cmds.push(lib(PoseLibraryCommand::Apply { index: i, flipped: false }));
                        }
                    }
                }
                match &mut s.posing.poses.renaming {
                    Some((k, text)) if *k == i => {
                        let l = ui.weak("New name (Enter)");
                        let r = ui.add(egui::TextEdit::singleline(text).desired_width(CELL)).labelled_by(l.id);
                        r.request_focus();
                        if ui.input(|inp| inp.key_pressed(egui::Key::Enter)) {
                            cmds.push(lib(PoseLibraryCommand::Rename { index: i, name: text.clone() }));
                        }
                    }
                    _ => {
                        ui.label(egui::RichText::new(&p.name).strong());
                    }
                }
                ui.horizontal_wrapped(|ui| {
                    if ui.small_button("Apply").on_hover_text(format!("apply {:?}", p.name)).clicked() {
                        cmds.push(lib(PoseLibraryCommand::Apply { index: i, flipped: false }));
                    }
                    if ui.small_button("Flipped").on_hover_text("apply mirrored onto the other side").clicked() {
                        cmds.push(lib(PoseLibraryCommand::Apply { index: i, flipped: true }));
                    }
                    if ui.small_button("Rename").clicked() {
                        s.posing.poses.renaming = Some((i, p.name.clone()));
                    }
                    if ui.small_button("Delete").clicked() {
                        cmds.push(lib(PoseLibraryCommand::Delete(i)));
                    }
                });
            });
            if (i + 1) % columns == 0 {
                ui.end_row();
            }
        }
    });
    if cmds.iter().any(|c| matches!(c, Command::PoseLibrary(PoseLibraryCommand::Rename { .. }))) {
        s.posing.poses.renaming = None;
    }
    cmds
}

/// The texture of a PNG thumbnail, decoded once (through `io::pose_library::decode_thumbnail`'s
/// size caps) and kept in egui's memory by content; a broken or oversized picture is kept as its
/// problem, so it is not decoded again every frame.
fn thumbnail(ctx: &egui::Context, png: &[u8]) -> Result<egui::TextureHandle, String> {
    type Cache = HashMap<u64, Result<egui::TextureHandle, String>>;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    png.hash(&mut h);
    let key = h.finish();
    let id = egui::Id::unique("pose_library_thumbnails");
    if let Some(t) = ctx.data(|d| d.get_temp::<Cache>(id).and_then(|c| c.get(&key).cloned())) {
        return t;
    }
    let tex = decode_thumbnail(png).map(|img| {
        let size = [img.width as usize, img.height as usize];
        let colour = egui::ColorImage::from_rgba_unmultiplied(size, &img.rgba);
        ctx.load_texture(format!("pose_thumbnail_{key}"), colour, egui::TextureOptions::LINEAR)
    });
    ctx.data_mut(|d| d.get_temp_mut_or_default::<Cache>(id).insert(key, tex.clone()));
    tex
}
