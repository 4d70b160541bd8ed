//! The weight display of Paint mode without a display (egui_kittest): isolines only where the
//! surface is seen (a segment behind another surface is not drawn), and the display row (Zero
//! weights black, Isolines, Greyscale) whole at the panel's default width with every weight tool
//! still in reach.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

#[path = "common/rigs.rs"]
#[allow(dead_code)]
mod rigs;

use eframe::egui;
use egui_kittest::kittest::Queryable;
use glam::{DVec3, Vec2, Vec3};
use skinlab::app::state::EditorState;
use skinlab::model::Model;
use ui_harness::{harness, harness_with, paint_mode, Scripted};

/// Two sheets facing +z: a back one at z = 0 whose weight of joint `sheet` rises along x, and a
/// cover at z = 0.5 over its upper half, weighted to joint `cover`.
fn covered_sheet() -> Model {
    let mut mesh = rigs::MeshSpec::default();
    let n = 16;
    for (z, y0, y1, joint) in [(0.0, -1.0, 1.0, 0), (0.5, 0.1, 1.5, 1)] {
        let first = mesh.positions.len() as u32;
        for r in 0..=n {
            for c in 0..=n {
                let (u, v) = (c as f32 / n as f32, r as f32 / n as f32);
                mesh.positions.push(Vec3::new(-1.0 + 2.0 * u, y0 + (y1 - y0) * v, z));
                mesh.normals.push(Vec3::Z);
                mesh.weights.push(if joint == 0 {
                    vec![(0, u.max(1e-3)), (1, (1.0 - u).max(1e-3))]
                } else {
                    vec![(1, 1.0)]
                });
            }
        }
        let at = |r: u32, c: u32| first + r * (n + 1) + c;
        for r in 0..n {
            for c in 0..n {
                mesh.triangles.push([at(r, c), at(r, c + 1), at(r + 1, c + 1)]);
                mesh.triangles.push([at(r, c), at(r + 1, c + 1), at(r + 1, c)]);
            }
        }
    }
    rigs::build(&[rigs::joint("sheet", None, DVec3::ZERO), rigs::joint("cover", Some(0), DVec3::Y)], &mesh)
}

#[test]
fn isolines_on_a_hidden_face_are_not_drawn() {
    let mut h = harness_with(EditorState::new(covered_sheet(), "sheets"), Scripted::default());
    paint_mode(&mut h, "sheet");
    h.get_by_label("Isolines").click();
    h.run();
    let s = &h.state().state;
    assert!(s.painting.settings.isolines);
    let rect = h.state().viewport_rect().unwrap();
    let size = Vec2::new(rect.width(), rect.height());
    let lines = skinlab::app::paint_overlay::isoline_lines(rect, 1, s);
    let lines = &lines[0];
    // The cover's outline on screen (a convex quad), and whether a point lies inside it.
    let on_screen = |p: Vec3| s.view.camera.project(p, size).unwrap() + Vec2::new(rect.min.x, rect.min.y);
    let corners = [(-1.0, 0.1), (1.0, 0.1), (1.0, 1.5), (-1.0, 1.5)].map(|(x, y)| on_screen(Vec3::new(x, y, 0.5)));
    let covered = |p: egui::Pos2| {
        let p = Vec2::new(p.x, p.y);
        let sides = (0..4).map(|i| {
            let (a, b) = (corners[i], corners[(i + 1) % 4]);
            (b - a).perp_dot(p - a)
        });
        let sides: Vec<f32> = sides.collect();
        sides.iter().all(|&d| d > 0.0) || sides.iter().all(|&d| d < 0.0)
    };
    // The back sheet's lines at 0.25, 0.5 and 0.75 run its full height; the cover hides their
    // upper half, so about half of each is drawn and nothing inside the cover's outline.
    let rows_below = lines.iter().filter(|[a, b]| !covered(*a + (*b - *a) * 0.5)).count();
    assert!(rows_below >= 3 * 8, "the lines below the cover are drawn: {} segments", lines.len());
    let hidden: Vec<_> = lines.iter().filter(|[a, b]| covered(*a + (*b - *a) * 0.5)).collect();
    assert!(hidden.is_empty(), "{} segments drawn over the cover: {:?}", hidden.len(), hidden.first());
    // The levels do cross behind the cover: its outline takes in some of the back sheet's line.
    let line_top = on_screen(Vec3::new(0.0, 0.9, 0.0));
    assert!(covered(egui::pos2(line_top.x, line_top.y)), "the cover hides part of the 0.5 line");
}

#[test]
fn the_weight_display_row_fits_the_panel_and_every_tool_stays_in_reach() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let viewport = h.state().viewport_rect().unwrap();
    let window = h.ctx.content_rect();
    for label in [skinlab::app::ui::paint_panel::ZERO_BLACK_LABEL, "Isolines", "Greyscale", "Smooth All"] {
        let r = h.get_by_label(label).rect();
        assert!(
            r.min.x >= viewport.max.x && r.max.x <= window.max.x && r.max.y <= window.max.y,
            "{label} at {r:?}: outside the panel right of {viewport:?} in {window:?}"
        );
    }
    // The box works where it now sits.
    h.get_by_label(skinlab::app::ui::paint_panel::ZERO_BLACK_LABEL).click();
    h.run();
    assert!(h.state().state.painting.settings.zero_black);
}
