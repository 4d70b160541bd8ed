//! What a newcomer meets first in the editor, through egui_kittest (no display): the status line's
//! joint-set counts follow painting and undo, "unsaved weight edits" counts strokes, Ctrl+wheel
//! steps the brush radius by exactly ×1.1 per notch and the field shows it rounded, the
//! dominant-joint legend lists every joint and scrolls, the joint tree folds, searches and scrolls
//! to a joint selected elsewhere, paint mode has the View options, and the numeric keypad (NumLock
//! off) turns the view without touching the method keys.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::Vec2;
use skinlab::app::state::EditorState;
use skinlab::app::SkinlabApp;
use skinlab::paint::BlendMode;
use skinlab::skinning::SkinningMethod;
use ui_harness::{harness, harness_with, paint_mode, press, Scripted};

const SHOULDER: usize = 1;
const ELBOW: usize = 2;

fn model(name: &str) -> EditorState {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models").join(name);
    let (m, source) = skinlab::io::load_document(&path).unwrap();
    let mut s = EditorState::with_document(m, source, name);
    s.refresh();
    s.frame_all();
    s
}

/// A screen point over the demo arm, a fraction `t` from the shoulder to the elbow.
fn over_arm(h: &Harness<'_, SkinlabApp>, t: f32) -> egui::Pos2 {
    let rect = h.state().viewport_rect().unwrap();
    let s = &h.state().state;
    let (a, b) = (s.node_position(SHOULDER).unwrap(), s.node_position(ELBOW).unwrap());
    let p = s.view.camera.project(a + (b - a) * t, Vec2::new(rect.width(), rect.height())).unwrap();
    rect.min + egui::vec2(p.x, p.y)
}

/// One stroke along the arm from fraction `t0` to `t1`.
fn stroke(h: &mut Harness<'_, SkinlabApp>, t0: f32, t1: f32) {
    let (from, to) = (over_arm(h, t0), over_arm(h, t1));
    h.event(egui::Event::PointerMoved(from));
    h.step();
    press(h, from, true, egui::Modifiers::NONE);
    for k in 1..=6 {
        h.event(egui::Event::PointerMoved(from + (to - from) * (k as f32 / 6.0)));
        h.step();
    }
    press(h, to, false, egui::Modifiers::NONE);
    h.run();
}

fn wheel(h: &mut Harness<'_, SkinlabApp>, at: egui::Pos2, notches: &[f32], modifiers: egui::Modifiers) {
    h.event(egui::Event::PointerMoved(at));
    h.step();
    for &n in notches {
        h.event_modifiers(
            egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Line,
                delta: egui::vec2(0.0, n),
                phase: egui::TouchPhase::Move,
                source: egui::MouseWheelSource::Wheel,
                modifiers,
            },
            modifiers,
        );
    }
    h.step();
    h.run();
}

fn status_has(h: &Harness<'_, SkinlabApp>, text: &str) -> bool {
    h.query_by_label_contains(text).is_some()
}

#[test]
fn the_status_line_counts_the_joint_sets_in_use_after_painting_and_undo() {
    let mut h = harness(Scripted::default());
    let (d0, n0) = h.state().state.doc.model.joint_set_counts();
    assert_eq!((h.state().state.frame.stats.distinct_sets, h.state().state.frame.stats.nontrivial_sets), (d0, n0));
    assert!(status_has(&h, &format!("joint sets: {d0} distinct, {n0} non-trivial")));
    // The wrist added near the shoulder: vertices get joint sets that did not exist.
    paint_mode(&mut h, "wrist");
    {
        let b = &mut h.state_mut().state.painting.settings.brush;
        b.mode = BlendMode::Add;
        b.strength = 1.0;
        b.radius = 120.0;
    }
    stroke(&mut h, 0.05, 0.6);
    let (d1, n1) = h.state().state.doc.model.joint_set_counts();
    assert_ne!((d1, n1), (d0, n0), "the stroke changed which joint sets are used");
    let stats = h.state().state.frame.stats;
    assert_eq!((stats.distinct_sets, stats.nontrivial_sets), (d1, n1), "stale counts after the stroke");
    assert!(status_has(&h, &format!("joint sets: {d1} distinct, {n1} non-trivial")));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    let stats = h.state().state.frame.stats;
    assert_eq!((stats.distinct_sets, stats.nontrivial_sets), (d0, n0), "stale counts after undo");
}

#[test]
fn unsaved_weight_edits_count_strokes_not_vertices() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    assert!(!status_has(&h, "unsaved weight edit"));
    stroke(&mut h, 0.2, 0.5);
    assert!(h.state().state.painting.edited.len() > 1, "the stroke painted several vertices");
    assert!(status_has(&h, "• 1 unsaved weight edit |"), "one stroke is one edit");
    stroke(&mut h, 0.5, 0.8);
    assert!(status_has(&h, "• 2 unsaved weight edits"));
    assert_eq!(h.state().state.unsaved_strokes(), 2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(h.state().state.unsaved_strokes(), 1, "undo takes a stroke back");
    assert!(h.state().state.unsaved_summary().unwrap().starts_with("1 weight edit ("), "the quit question says so");
}

#[test]
fn ctrl_wheel_steps_the_radius_by_a_tenth_per_notch_and_the_field_rounds_it() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    let at = over_arm(&h, 0.5);
    let r0 = h.state().state.painting.settings.brush.radius;
    wheel(&mut h, at, &[1.0], egui::Modifiers::COMMAND);
    assert_eq!(h.state().state.painting.settings.brush.radius, r0 * 1.1, "one notch, one ×1.1 step (as `]`)");
    let r1 = h.state().state.painting.settings.brush.radius;
    h.key_press(egui::Key::CloseBracket);
    h.run();
    assert_eq!(h.state().state.painting.settings.brush.radius, r1 * 1.1, "`]` steps the same");
    // Two notches in one frame are two steps; one notch down is one step back.
    let r2 = h.state().state.painting.settings.brush.radius;
    wheel(&mut h, at, &[1.0, 1.0], egui::Modifiers::COMMAND);
    assert_eq!(h.state().state.painting.settings.brush.radius, r2 * 1.1 * 1.1);
    let r3 = h.state().state.painting.settings.brush.radius;
    wheel(&mut h, at, &[-1.0], egui::Modifiers::COMMAND);
    assert_eq!(h.state().state.painting.settings.brush.radius, r3 * 1.1f32.powi(-1));
    // The field shows three significant digits, not the float's tail.
    h.state_mut().state.painting.settings.brush.radius = 40.0 * 1.1f32.powi(3);
    h.run();
    let values: Vec<String> = h.query_all_by_label("Radius").filter_map(|n| n.value()).collect();
    assert_eq!(values, vec!["53.2 px".to_owned()], "{values:?}");
    assert_eq!(skinlab::app::ui::paint_panel::rounded_radius(0.053_240_005), "0.0532");
    assert_eq!(skinlab::app::ui::paint_panel::rounded_radius(40.0), "40");
}

#[test]
fn the_dominant_joint_legend_lists_every_joint_and_scrolls() {
    let mut h = harness_with(model("Knight.glb"), Scripted::default());
    let s = &h.state().state;
    let last = s.doc.model.nodes.key(*s.doc.model.skins[0].joints.last().unwrap());
    h.get_by_label("Paint").click();
    h.run();
    h.get_by_label("Dominant joint").click();
    h.run();
    let viewport = h.state().viewport_rect().unwrap();
    let legend_row = |h: &Harness<'_, SkinlabApp>| {
        h.query_all_by_label(&last).map(|n| n.rect()).find(|r| r.min.x > viewport.center().x).map(|r| r.min.y)
    };
    let before = legend_row(&h).expect("the legend lists the skin's last joint (41 joints, no cut at 12)");
    let title = h.get_by_label(skinlab::app::paint_overlay::LEGEND_LABEL).rect();
    assert!(title.max.y < viewport.max.y && title.min.y > viewport.min.y, "the legend sits in the viewport");
    let over = egui::pos2(title.center().x, title.max.y + 30.0);
    wheel(&mut h, over, &[-3.0, -3.0, -3.0], egui::Modifiers::NONE);
    let after = legend_row(&h).unwrap();
    assert!(after < before - 20.0, "the list did not scroll: row at {before} then {after}");
}

#[test]
fn the_joint_tree_folds_searches_and_scrolls_to_a_joint_selected_elsewhere() {
    let mut h = harness(Scripted::default());
    h.get_by_label("Collapse shoulder").click();
    h.run();
    assert!(h.query_by_label("elbow").is_none() && h.query_by_label("wrist").is_none(), "folded away");
    h.get_by_label("Expand shoulder").click();
    h.run();
    assert!(h.query_by_label("wrist").is_some());
    // Search: any case, only the matches.
    h.get_by_label(skinlab::app::ui::outliner::SEARCH_LABEL).click();
    h.run();
    h.get_by_label(skinlab::app::ui::outliner::SEARCH_LABEL).type_text("ELB");
    h.run();
    assert!(h.query_by_label("elbow").is_some());
    assert!(h.query_by_label("shoulder").is_none() && h.query_by_label("wrist").is_none());

    // Knight's 41 joints do not fit: a joint selected in the viewport comes into view, its
    // folded parents unfolded.
    let mut h = harness_with(model("Knight.glb"), Scripted::default());
    let s = &h.state().state;
    let (last, parent) = *s.doc.skeleton.joints.last().unwrap();
    let name = s.doc.model.nodes.key(last);
    let parent_name = s.doc.model.nodes.key(parent.unwrap());
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1200.0, 760.0));
    let below = h.query_all_by_label(&name).map(|n| n.rect().min.y).next();
    assert!(below.is_none_or(|y| y > window.max.y), "{name} is out of view at first ({below:?})");
    h.get_by_label(&format!("Collapse {parent_name}")).scroll_to_me();
    h.run();
    h.get_by_label(&format!("Collapse {parent_name}")).click();
    h.run();
    assert!(h.query_all_by_label(&name).next().is_none());
    // Scroll the tree back to the top, then pick the joint as the viewport does.
    h.get_by_label(skinlab::app::ui::outliner::SEARCH_LABEL).scroll_to_me();
    h.run();
    h.state_mut().state.apply(skinlab::app::command::Command::Select(Some(last)));
    h.run();
    let row = h.query_all_by_label(&name).map(|n| n.rect()).find(|r| r.min.x < 300.0).unwrap();
    assert!(row.min.y > window.min.y && row.max.y < window.max.y, "{name} at {row:?} outside {window:?}");
}

#[test]
fn paint_mode_has_the_view_options_and_the_keypad_turns_the_view() {
    let mut h = harness(Scripted::default());
    paint_mode(&mut h, "elbow");
    for label in ["Wireframe", "Bones", "X-ray", "Grid", "Materials"] {
        assert!(h.query_by_label(label).is_some(), "no {label} in paint mode");
    }
    // The View section sits below the paint panel: scroll the inspector to it first.
    for label in ["Wireframe", "X-ray"] {
        h.get_by_label(label).scroll_to_me();
        h.run();
        h.get_by_label(label).click();
        h.run();
    }
    assert!(h.state().state.view.options.wireframe && !h.state().state.view.options.xray_bones);
    h.get_by_label("Top").scroll_to_me();
    h.run();
    h.get_by_label("Top").click();
    h.run();
    assert!(h.state().state.view.camera.pitch_rad > 1.5, "looking down");

    let key = |h: &mut Harness<'_, SkinlabApp>, key: egui::Key, physical: egui::Key, modifiers: egui::Modifiers| {
        for pressed in [true, false] {
            h.event(egui::Event::Key { key, physical_key: Some(physical), pressed, repeat: false, modifiers });
        }
        h.run();
    };
    // Keypad 1 with NumLock off arrives as End from the keypad's 1.
    key(&mut h, egui::Key::End, egui::Key::Num1, egui::Modifiers::NONE);
    assert_eq!((h.state().state.view.camera.yaw_rad, h.state().state.view.camera.pitch_rad), (0.0, 0.0), "front");
    key(&mut h, egui::Key::End, egui::Key::Num1, egui::Modifiers::COMMAND);
    assert_eq!(h.state().state.view.camera.yaw_rad, std::f32::consts::PI, "Ctrl: back");
    key(&mut h, egui::Key::PageDown, egui::Key::Num3, egui::Modifiers::NONE);
    assert_eq!(h.state().state.view.camera.yaw_rad, std::f32::consts::FRAC_PI_2, "right side");
    assert_eq!(h.state().state.view.method, SkinningMethod::Lbs, "keypad 3 is not the SBS key");
    key(&mut h, egui::Key::Home, egui::Key::Num7, egui::Modifiers::NONE);
    assert!(h.state().state.view.camera.pitch_rad > 1.5, "top");
    // The top-row 3 still chooses SBS.
    h.key_press(egui::Key::Num3);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Sbs);
}
