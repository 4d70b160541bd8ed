//! Keys and clips in the editor through egui_kittest: Set Key on a new clip, keys drawn on the
//! timeline (click to go to one, drag to move it), Delete Key, undo of key edits, the I shortcut,
//! and choosing a clip over a hand-made pose keeping that pose one Undo away.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui::{self, accesskit::Role};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use skinlab::app::SkinlabApp;
use skinlab::rig::keys::key_times;
use ui_harness::{bend_elbow, drag, elbow_degrees, harness, Scripted};

fn keys_of_clip(h: &Harness<'_, SkinlabApp>) -> Vec<f64> {
    let s = &h.state().state;
    key_times(&s.doc.model.clips[s.posing.clip.unwrap()], None)
}

#[test]
fn set_key_starts_a_clip_and_keys_are_drawn_moved_deleted_and_undone() {
    let mut h = harness(Scripted::default());
    let clips = h.state().state.doc.model.clips.len();
    bend_elbow(&mut h, 40.0);
    h.get_by_label("Set Key").click();
    h.run();
    {
        let s = &h.state().state;
        assert_eq!(s.doc.model.clips.len(), clips + 1, "a new clip");
        assert_eq!(s.posing.clip, Some(clips));
        assert_eq!(s.doc.model.clips[clips].name.as_deref(), Some("Action"));
    }
    assert_eq!(keys_of_clip(&h), vec![0.0]);
    h.get_by_role_and_label(Role::Slider, "Frame").set_value_accesskit(30.0);
    h.run();
    bend_elbow(&mut h, 80.0);
    h.get_by_label("Set Key").click();
    h.run();
    assert_eq!(keys_of_clip(&h), vec![0.0, 1.0]);
    // Both keys are drawn; clicking one goes to its time and shows its pose.
    h.get_by_label("key at frame 30");
    h.get_by_label("key at frame 0").click();
    h.run();
    assert_eq!(h.state().state.posing.time_secs, 0.0);
    assert!((elbow_degrees(&h) - 40.0).abs() < 1e-3, "{}", elbow_degrees(&h));
    h.get_by_role_and_label(Role::Slider, "Frame").set_value_accesskit(15.0);
    h.run();
    assert!((elbow_degrees(&h) - 60.0).abs() < 1e-3, "linear keys slerp: {}", elbow_degrees(&h));
    // Drag the key at 1 s to the right: it moves later.
    let at = h.get_by_label("key at frame 30").rect().center();
    drag(&mut h, at, at + egui::vec2(60.0, 0.0));
    let moved = keys_of_clip(&h);
    assert_eq!(moved.len(), 2);
    assert!(moved[1] > 1.05, "{moved:?}");
    // Delete the key at 0 (the elbow is selected: its keys), then undo the delete and the move.
    h.get_by_label("key at frame 0").click();
    h.run();
    h.get_by_label("Delete Key").click();
    h.run();
    assert_eq!(keys_of_clip(&h), vec![moved[1]]);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(keys_of_clip(&h), moved);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(keys_of_clip(&h), vec![0.0, 1.0]);
    // The I key keys the whole pose when nothing is selected.
    h.state_mut().state.apply(skinlab::app::command::Command::Select(None));
    h.state_mut().state.apply(skinlab::app::command::Command::SetTime(1.5));
    h.run();
    h.key_press(egui::Key::I);
    h.run();
    let s = &h.state().state;
    let clip = &s.doc.model.clips[s.posing.clip.unwrap()];
    let keyed: std::collections::BTreeSet<usize> =
        clip.channels.iter().filter(|c| c.times.iter().any(|&t| (t - 1.5).abs() < 1e-6)).map(|c| c.node).collect();
    assert_eq!(keyed.len(), s.doc.model.skins[0].joints.len(), "every joint keyed at 1.5 s");
}

#[test]
fn choosing_a_clip_keeps_a_hand_made_pose_one_undo_away() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 50.0);
    assert!((elbow_degrees(&h) - 50.0).abs() < 1e-6);
    h.get_by_role_and_label(Role::ComboBox, "Animation").click();
    h.run();
    h.get_by_label("twist").click();
    h.run();
    assert_eq!(h.state().state.posing.clip, Some(0));
    assert!((elbow_degrees(&h) - 50.0).abs() > 1.0, "the clip's pose is shown");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!((elbow_degrees(&h) - 50.0).abs() < 1e-6, "Undo brings the hand-made pose back: {}", elbow_degrees(&h));
}
