//! The analysis views through egui_kittest: View ▸ Joint sets (the table of the model's sets,
//! sorting by a column, the warning mark, choosing a set, vertex colours by set, the table not
//! recomputed on idle frames), the sweep panel (curves, the scrub posing the joint, the pose
//! restored on leaving, a clip driving the sweep) and the range-of-motion clip on the timeline.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, dead_code)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use skinlab::analysis::joint_sets::{joint_set_table, SetWarning};
use skinlab::app::analysis::set_colour;
use skinlab::app::state::EditorState;
use skinlab::app::ui::joint_sets_panel::row_label;
use skinlab::app::SkinlabApp;
use ui_harness::{bend_elbow, harness, harness_with, Scripted};

fn models() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models")
}

fn open(name: &str) -> Harness<'static, SkinlabApp> {
    let path = models().join(name);
    let (model, doc) = skinlab::io::load_document(&path).unwrap();
    harness_with(EditorState::with_document(model, doc, name), Scripted::default())
}

fn sets_on(h: &mut Harness<'_, SkinlabApp>) {
    h.get_by_label("Joint sets").click();
    h.run();
    assert!(h.state().state.analysis.sets.on);
}

#[test]
fn the_toggle_shows_the_table_with_the_models_set_count() {
    let mut h = open("CesiumMan.glb");
    assert!(h.query_by_label_contains("joint sets of two or more joints").is_none());
    sets_on(&mut h);
    let s = &h.state().state;
    let expected = joint_set_table(&s.doc.model, &s.doc.pose);
    let rows = expected[0].rows.len();
    assert!(rows > 20, "CesiumMan has many sets: {rows}");
    h.get_by_label_contains(&format!("{rows} joint sets of two or more joints"));
    // The table is the analysis module's, row for row.
    assert_eq!(h.state().state.analysis.sets.tables(), expected.as_slice());
    // Vertex colours by set: each vertex in its set's colour, the same as the table's swatch.
    let s = &h.state().state;
    let inst = &s.doc.model.instances[0];
    let inf = s.doc.model.meshes[inst.mesh].primitives[0].influences.as_ref().unwrap();
    let colours = &s.analysis.sets.colours[0][0];
    for v in (0..inf.len()).step_by(97) {
        let set = inf.set_of(v);
        let members = s.doc.model.skins[inst.skin].sets.joints(set).len();
        assert_eq!(colours[v], set_colour(inst.skin, set, members));
    }
    // Idle frames do not recompute the table; a pose change does.
    let computed = h.state().state.analysis.sets.computed;
    for _ in 0..5 {
        h.run();
    }
    assert_eq!(h.state().state.analysis.sets.computed, computed);
    let joint = h.state().state.analysis.sets.table().unwrap().rows[0].nodes[0];
    h.state_mut().state.apply(skinlab::app::command::Command::SetRotation {
        node: joint,
        rotation: glam::DQuat::from_rotation_x(0.5),
        gesture: None,
    });
    h.run();
    assert_eq!(h.state().state.analysis.sets.computed, computed + 1);
    // Closing the window turns the view off.
    h.get_by_label("Joint sets").click();
    h.run();
    assert!(!h.state().state.analysis.sets.on);
    assert!(h.query_by_label_contains("joint sets of two or more joints").is_none());
}

#[test]
fn sorting_by_a_column_orders_the_rows() {
    let mut h = open("CesiumMan.glb");
    sets_on(&mut h);
    for (header, key) in [("Vertices", 0usize), ("Condition", 1), ("Members", 2)] {
        h.get_by_label_contains(header).click();
        h.run();
        let view = &h.state().state.analysis.sets;
        let rows: Vec<_> = view.sorted_rows().cloned().collect();
        let descending = view.descending;
        // The state's order is sorted by the column …
        for w in rows.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let ord = match key {
                0 => a.vertices.cmp(&b.vertices),
                1 => a.condition.unwrap_or(f64::INFINITY).total_cmp(&b.condition.unwrap_or(f64::INFINITY)),
                _ => a.members.len().cmp(&b.members.len()).then_with(|| a.members.cmp(&b.members)),
            };
            let ord = if descending { ord.reverse() } else { ord };
            assert_ne!(ord, std::cmp::Ordering::Greater, "{header}: {} before {}", a.set, b.set);
        }
        // … and the window shows the rows in that order, top to bottom.
        let ys: Vec<f32> = rows.iter().take(6).map(|r| h.get_by_label(&row_label(r)).rect().min.y).collect();
        assert!(ys.windows(2).all(|w| w[0] < w[1]), "{header}: {ys:?}");
    }
    // A second click reverses the order.
    let first = h.state().state.analysis.sets.sorted_rows().next().unwrap().set;
    h.get_by_label_contains("Members").click();
    h.run();
    let view = &h.state().state.analysis.sets;
    assert_eq!(view.sorted_rows().last().unwrap().set, first);
}

#[test]
fn a_near_singular_set_shows_the_warning_and_a_row_click_chooses_the_set() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 80.0);
    // The wrist turned by 0.02° about the forearm: the elbow–wrist set's relative rotation is tiny.
    h.get_by_label("wrist").click();
    h.run();
    h.get_by_role_and_label(Role::SpinButton, "Rotation X (°)").set_value_accesskit(0.02);
    h.run();
    sets_on(&mut h);
    let rows: Vec<_> = h.state().state.analysis.sets.sorted_rows().cloned().collect();
    assert_eq!(rows.len(), 2);
    let warned: Vec<_> = rows.iter().filter(|r| r.warning.is_some()).collect();
    assert_eq!(warned.len(), 1, "{rows:?}");
    assert_eq!(warned[0].warning, Some(SetWarning::NearSingular));
    assert!(warned[0].members.contains(&"wrist".to_owned()));
    let label = row_label(warned[0]);
    assert!(label.contains("! near-singular"));
    h.get_by_label(&label);
    h.get_by_label_contains("! 1 near-singular");
    let fine = rows.iter().find(|r| r.warning.is_none()).unwrap();
    assert!(!row_label(fine).contains("! "));
    // A click on a row chooses the set: its vertices keep their colour, the others are dimmed.
    h.get_by_label(&row_label(fine)).click();
    h.run();
    let s = &h.state().state;
    assert_eq!(s.analysis.sets.chosen, Some(fine.set));
    let inf = s.doc.model.meshes[s.doc.model.instances[0].mesh].primitives[0].influences.as_ref().unwrap();
    let colours = &s.analysis.sets.colours[0][0];
    let own = set_colour(0, fine.set, 2);
    for (v, c) in colours.iter().enumerate().take(inf.len()) {
        assert_eq!(*c == own, inf.set_of(v) == fine.set, "vertex {v}");
    }
    // Clicking it again clears the choice.
    h.get_by_label(&row_label(fine)).click();
    h.run();
    assert_eq!(h.state().state.analysis.sets.chosen, None);
}

#[test]
fn hovering_a_vertex_names_its_set() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 60.0);
    sets_on(&mut h);
    let rect = h.state().viewport_rect().unwrap();
    // The camera frames the arm: sweep the pointer over the viewport until it is over the mesh.
    let mut found = None;
    'scan: for iy in 1..12 {
        for ix in 1..16 {
            let p = rect.min + egui::vec2(rect.width() * ix as f32 / 16.0, rect.height() * iy as f32 / 12.0);
            h.event(egui::Event::PointerMoved(p));
            h.run();
            if let Some(hover) = h.state().state.analysis.sets.hover.clone() {
                found = Some(hover);
                break 'scan;
            }
        }
    }
    let hover = found.expect("the pointer found the mesh");
    let s = &h.state().state;
    let joints = s.doc.model.skins[hover.skin].sets.joints(hover.set).len();
    assert!(joints >= 1);
    if joints >= 2 {
        assert!(s.analysis.sets.row(hover.set).is_some());
    }
}

fn deformed(h: &Harness<'_, SkinlabApp>) -> Vec<glam::Vec3> {
    h.state().state.frame.deformed[0].iter().flatten().flat_map(|d| d.positions.iter().copied()).collect()
}

/// Opens the sweep panel on the elbow, runs a bend sweep and waits for the background thread.
fn run_elbow_sweep(h: &mut Harness<'_, SkinlabApp>) {
    h.get_by_label("elbow").click();
    h.run();
    h.get_by_label("Sweep…").click();
    h.run();
    assert!(h.state().state.analysis.sweep.open);
    h.get_by_label("bend").click();
    h.run();
    run_sweep(h);
}

/// Clicks Run in the open sweep panel and waits for the background thread.
fn run_sweep(h: &mut Harness<'_, SkinlabApp>) {
    h.state_mut().state.analysis.sweep.result = None;
    h.get_by_label("Run").click();
    // The spinner repaints while the thread works: step frames instead of running to idle.
    h.step();
    let started = std::time::Instant::now();
    while h.state().state.analysis.sweep.result.is_none() {
        assert!(started.elapsed().as_secs() < 60, "the sweep finished");
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    h.run();
}

#[test]
fn the_sweep_panel_runs_draws_curves_and_its_scrub_poses_the_joint() {
    let mut h = harness(Scripted::default());
    let rest = deformed(&h);
    run_elbow_sweep(&mut h);
    let result = h.state().state.analysis.sweep.result.clone().unwrap();
    assert_eq!(result.sweep.joint, "elbow");
    assert_eq!(result.sweep.curves.len(), 3);
    assert!(result.sweep.curves.iter().all(|c| c.steps.len() == 37));
    // A 180° bend: LBS loses volume, SBS keeps more of it (the curves the plots draw).
    let worst = |k: usize| result.sweep.curves[k].steps.iter().map(|m| m.volume_change).fold(0.0, f64::min);
    assert!(worst(0) < worst(2), "LBS {} SBS {}", worst(0), worst(2));
    let methods: Vec<_> = result.sweep.curves.iter().map(|c| c.method).collect();
    for title in ["collapse (radius / rest)", "volume change (%)", "bulge (/ rest radius)", "flip (/ expected arc)"] {
        h.get_by_label(&skinlab::app::ui::sweep_plot::plot_label(title, &methods));
    }
    h.get_by_label_contains("computed in");
    // The scrub poses the elbow at that step (no undo entry), in every panel.
    h.get_by_label("Split view").click();
    h.run();
    let undo = h.state().state.doc.history.can_undo();
    h.get_by_role_and_label(Role::Slider, "Scrub").set_value_accesskit(18.0);
    h.run();
    let s = &h.state().state;
    assert_eq!(s.analysis.sweep.scrub.as_ref().map(|sc| sc.step), Some(18));
    let elbow = s.doc.model.nodes.find("elbow").unwrap();
    let turned = s.rotation_of(elbow).angle_between(glam::DQuat::IDENTITY).to_degrees();
    assert!((turned - 90.0).abs() < 1e-6, "step 18 of 37 to 180° is 90°: {turned}");
    assert_eq!(s.doc.history.can_undo(), undo);
    let bent = deformed(&h);
    let moved = rest.iter().zip(&bent).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(moved > 0.5, "the forearm swung: {moved}");
    let right: Vec<glam::Vec3> =
        h.state().state.frame.deformed[1].iter().flatten().flat_map(|d| d.positions.iter().copied()).collect();
    let right_moved = rest.iter().zip(&right).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(right_moved > 0.5, "the right panel shows the step too: {right_moved}");
    // Leaving the panel puts the pose back.
    h.get_by_label("Sweep…").click();
    h.run();
    assert!(!h.state().state.analysis.sweep.open);
    assert!(h.state().state.doc.pose.overrides.is_empty());
    assert_eq!(deformed(&h), rest);
}

#[test]
fn a_clip_drives_the_sweep_and_the_scrub_shows_the_clip_at_its_keys() {
    let mut h = harness(Scripted::default());
    run_elbow_sweep(&mut h);
    h.get_by_label("Add ROM clip").click();
    h.run();
    let clip = h.state().state.doc.model.clips.len() - 1;
    h.get_by_role_and_label(Role::ComboBox, "Driven by").click();
    h.run();
    h.get_by_label("clip ROM").click();
    h.run();
    assert_eq!(h.state().state.analysis.sweep.drive_clip, Some(clip));
    run_sweep(&mut h);
    let s = &h.state().state;
    let result = s.analysis.sweep.result.clone().unwrap();
    assert_eq!(result.clip, Some(clip));
    assert_eq!(result.sweep.joint, "elbow");
    // The ROM clip bends the elbow out to ±180° and back in its bend legs: the sweep measures
    // the keys where it turns about the bend axis, at their clip times.
    let keys = result.sweep.curves[0].steps.len();
    assert!(keys > 10 && keys == result.steps, "{keys} keys");
    assert!(result.sweep.curves[0].steps.iter().all(|m| m.time_secs.is_some()));
    assert!((result.max_angle_deg - 180.0).abs() < 1e-3, "{}", result.max_angle_deg);
    assert!(s.analysis.sweep.problem.is_none());
    h.get_by_label_contains(&format!("{keys} keys of clip ROM"));
    // The scrub shows the model as the clip poses it at that key (no undo entry).
    let undo = h.state().state.doc.history.can_undo();
    let step = keys / 3;
    h.get_by_role_and_label(Role::Slider, "Scrub").set_value_accesskit(step as f64);
    h.run();
    let s = &h.state().state;
    assert_eq!(s.analysis.sweep.scrub.as_ref().map(|sc| sc.step), Some(step));
    let time = result.step_time(step).unwrap();
    let expect = skinlab::analysis::rom::sample_on_bind(&s.doc.model, &s.doc.model.clips[clip], time);
    assert_eq!(s.doc.pose, expect);
    let elbow = s.doc.model.nodes.find("elbow").unwrap();
    let turned = s.rotation_of(elbow).angle_between(glam::DQuat::IDENTITY).to_degrees();
    let angle = result.step_angle_deg(step).abs();
    assert!((turned - angle.min(360.0 - angle)).abs() < 1e-3, "the elbow is at the key's turn: {turned} vs {angle}");
    assert_eq!(s.doc.history.can_undo(), undo);
    // The weight motion turns nothing: a clip cannot drive it.
    h.get_by_label("weight").click();
    h.run();
    assert!(h.get_by_label("Run").accesskit_node().is_disabled());
}

#[test]
fn the_rom_clip_appears_on_the_timeline_and_undo_removes_it() {
    let mut h = harness(Scripted::default());
    run_elbow_sweep(&mut h);
    let clips = h.state().state.doc.model.clips.len();
    h.get_by_label("Add ROM clip").click();
    h.run();
    let s = &h.state().state;
    assert_eq!(s.doc.model.clips.len(), clips + 1);
    assert_eq!(s.posing.clip, Some(clips));
    assert_eq!(s.doc.model.clips[clips].name.as_deref(), Some("ROM"));
    assert_eq!(s.doc.model.clips[clips].range(), (0.0, 3.0));
    // The timeline shows it with its keys (180° legs: keys every 1/16 s, so 48 fps).
    let combo = h.get_by_role_and_label(Role::ComboBox, "Animation");
    assert_eq!(combo.value().as_deref(), Some("ROM"));
    h.get_by_label("key at frame 12").click();
    h.run();
    let s = &h.state().state;
    assert_eq!(s.posing.time_secs, 0.25);
    let elbow = s.doc.model.nodes.find("elbow").unwrap();
    let turned = s.rotation_of(elbow).angle_between(glam::DQuat::IDENTITY).to_degrees();
    assert!((turned - 180.0).abs() < 1e-3, "a quarter into the twist the elbow is at +180°: {turned}");
    h.state_mut().state.apply(skinlab::app::command::Command::Undo);
    h.run();
    assert_eq!(h.state().state.doc.model.clips.len(), clips);
}
