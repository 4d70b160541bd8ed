//! The Joint sets window (View ▸ Joint sets): the SBS set table of the current pose from
//! `analysis::joint_sets` — colour swatch and id, members, vertex count, the centre system's
//! condition number, the centre's distance in skin extents, whether the far-centre f64 path is
//! used, and a `!` mark on near-singular or coincident sets. A click on a header sorts by that
//! column (again: reversed); a click on a row chooses that set (highlighted in the viewport, the
//! other vertices dimmed), a second click clears it. Rows are laid out only where visible
//! (`ScrollArea::show_rows`), so tables of hundreds of sets scroll smoothly.

use eframe::egui;

use crate::analysis::joint_sets::{far_centre_extents, SetRow};
use crate::app::analysis::{set_colour, JointSetsView, SetColumn};
use crate::app::state::EditorState;

/// Height of one table row, points.
const ROW_HEIGHT: f32 = 18.0;

/// The accessible label of a row (tests find rows by it): `set N: members · V vertices · …`.
#[must_use]
pub fn row_label(row: &SetRow) -> String {
    format!(
        "set {}: {} · {} vertices · condition {} · centre {:.2} extents · {}{}",
        row.set,
        row.members.join(", "),
        row.vertices,
        condition_text(row),
        row.centre_distance,
        if row.far_path { "f64 path" } else { "f32 path" },
        row.warning.map_or(String::new(), |w| format!(" · ! {}", w.text()))
    )
}

fn condition_text(row: &SetRow) -> String {
    match row.condition {
        Some(c) if c < 1e4 => format!("{c:.1}"),
        Some(c) => format!("{c:.1e}"),
        None => "∞".to_owned(),
    }
}

fn cell_text(row: &SetRow, column: SetColumn) -> String {
    match column {
        SetColumn::Set => format!("{}", row.set),
        SetColumn::Members => row.members.join(", "),
        SetColumn::Vertices => row.vertices.to_string(),
        SetColumn::Condition => condition_text(row),
        SetColumn::Centre => format!("{:.2}", row.centre_distance),
        SetColumn::FarPath => (if row.far_path { "yes" } else { "no" }).to_owned(),
        SetColumn::Warning => row.warning.map_or(String::new(), |_| "!".to_owned()),
    }
}

/// Shows the window while the view is on (closing it turns the view off).
pub fn joint_sets_window(ctx: &egui::Context, s: &mut EditorState) {
    if !s.analysis.sets.on {
        return;
    }
    let mut open = true;
    egui::Window::new("SBS joint sets")
        .open(&mut open)
        .default_size(egui::vec2(660.0, 250.0))
        .default_pos(egui::pos2(250.0, 480.0))
        .show(ctx, |ui| table_ui(ui, &mut s.analysis.sets, s.doc.model.skins.len()));
    if !open {
        s.analysis.sets.on = false;
        s.analysis.sets.hover = None;
    }
}

fn table_ui(ui: &mut egui::Ui, view: &mut JointSetsView, skins: usize) {
    if skins > 1 {
        ui.horizontal(|ui| {
            let l = ui.label("Skin");
            let mut skin = view.skin;
            egui::ComboBox::from_id_salt("sets_skin")
                .selected_text(view.tables().get(skin).and_then(|t| t.name.clone()).unwrap_or(format!("#{skin}")))
                .show_ui(ui, |ui| {
                    for (i, t) in view.tables().iter().enumerate() {
                        ui.selectable_value(&mut skin, i, t.name.clone().unwrap_or(format!("#{i}")));
                    }
                })
                .response
                .labelled_by(l.id);
            view.show_skin(skin);
        });
    }
    let Some(table) = view.table() else {
        ui.weak("This model has no skin.");
        return;
    };
    let warned = table.rows.iter().filter(|r| r.warning.is_some()).count();
    ui.label(format!(
        "{} joint sets of two or more joints · {} one-joint vertices · extent {:.3} · far-centre path beyond {} extents",
        table.rows.len(),
        table.single_joint_vertices,
        table.extent,
        far_centre_extents()
    ));
    if warned > 0 {
        ui.label(egui::RichText::new(format!("! {warned} near-singular")).color(ui.visuals().warn_fg_color))
            .on_hover_text(
                "the centre system is (nearly) singular: relative rotations under about 0.06°, \
                 rotations nearly about one axis, or rotations that coincide",
            );
    }
    let width: f32 = SetColumn::ALL.iter().map(|c| c.width()).sum();
    egui::ScrollArea::horizontal().show(ui, |ui| {
        ui.set_min_width(width);
        ui.horizontal(|ui| {
            ui.spacing_mut().item_spacing.x = 0.0;
            for column in SetColumn::ALL {
                let button = egui::Button::new(egui::RichText::new(column.label()).strong()).frame(false);
                let response = ui.add_sized([column.width(), ROW_HEIGHT], button);
                if view.sort == column {
                    sort_arrow(ui, response.rect, view.descending);
                }
                if response.on_hover_text("sort by this column (again: reversed)").clicked() {
                    view.sort_by(column);
                }
            }
        });
        ui.separator();
        let rows: Vec<&SetRow> = view.sorted_rows().collect();
        let chosen = view.chosen;
        let skin = view.skin;
        let mut clicked = None;
        egui::ScrollArea::vertical().auto_shrink([false, true]).show_rows(ui, ROW_HEIGHT, rows.len(), |ui, range| {
            ui.spacing_mut().item_spacing.y = 0.0;
            for &row in &rows[range] {
                let (rect, response) = ui.allocate_exact_size(egui::vec2(width, ROW_HEIGHT), egui::Sense::click());
                let label = row_label(row);
                response.widget_info(|| {
                    egui::WidgetInfo::selected(egui::Role::Button, true, chosen == Some(row.set), &label)
                });
                if response.clicked() {
                    clicked = Some(row.set);
                }
                paint_row(ui, rect, row, skin, chosen == Some(row.set), response.hovered());
                response.on_hover_text(label);
            }
        });
        drop(rows);
        if let Some(set) = clicked {
            view.chosen = if view.chosen == Some(set) { None } else { Some(set) };
        }
    });
}

fn paint_row(ui: &egui::Ui, rect: egui::Rect, row: &SetRow, skin: usize, chosen: bool, hovered: bool) {
    let visuals = ui.visuals();
    if chosen {
        ui.painter().rect_filled(rect, 0.0, visuals.selection.bg_fill);
    } else if hovered {
        ui.painter().rect_filled(rect, 0.0, visuals.widgets.hovered.weak_bg_fill);
    }
    let text_colour = if chosen { visuals.selection.stroke.color } else { visuals.text_color() };
    let font = egui::TextStyle::Body.resolve(ui.style());
    let mut x = rect.left();
    for column in SetColumn::ALL {
        let cell = egui::Rect::from_min_size(egui::pos2(x, rect.top()), egui::vec2(column.width(), ROW_HEIGHT));
        x += column.width();
        let painter = ui.painter().with_clip_rect(cell.shrink2(egui::vec2(3.0, 0.0)).intersect(ui.clip_rect()));
        let mut left = cell.left() + 4.0;
        if column == SetColumn::Set {
            let c = set_colour(skin, row.set, row.members.len());
            let swatch = egui::Rect::from_center_size(egui::pos2(left + 6.0, cell.center().y), egui::vec2(12.0, 12.0));
            painter.rect_filled(swatch, 2.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
            left += 18.0;
        }
        let colour = if column == SetColumn::Warning { visuals.warn_fg_color } else { text_colour };
        painter.text(
            egui::pos2(left, cell.center().y),
            egui::Align2::LEFT_CENTER,
            cell_text(row, column),
            font.clone(),
            colour,
        );
    }
}

/// The sort direction as a small triangle at the right of a header (the UI font has no arrows).
fn sort_arrow(ui: &egui::Ui, header: egui::Rect, descending: bool) {
    let c = egui::pos2(header.right() - 8.0, header.center().y);
    let (tip, base) = if descending { (4.0, -3.0) } else { (-4.0, 3.0) };
    let points = vec![c + egui::vec2(0.0, tip), c + egui::vec2(-4.0, base), c + egui::vec2(4.0, base)];
    ui.painter().add(egui::Shape::convex_polygon(points, ui.visuals().strong_text_color(), egui::Stroke::NONE));
}
