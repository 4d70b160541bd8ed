//! Morph targets and FBX files in the editor, through egui_kittest (no display): File ▸ Open takes
//! an FBX file (its import warnings on the status line); the Pose panel's morph-target sliders,
//! named by the mesh's target names, move the deformed surface; Undo puts it back; "Key" keys the
//! weights on the timeline as a weights channel that the clip plays back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/morph_strip.rs"]
mod morph_strip;
#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use std::path::{Path, PathBuf};

use eframe::egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::Vec3;
use skinlab::app::command::Command;
use skinlab::app::state::EditorState;
use skinlab::app::SkinlabApp;
use ui_harness::{harness, harness_with, Scripted};

fn deformed(h: &Harness<'_, SkinlabApp>) -> Vec<Vec3> {
    h.state().state.frame.deformed[0].iter().flatten().flat_map(|d| d.positions.iter().copied()).collect()
}

/// The morphed strip written to `dir`, opened in the editor.
fn strip_editor(dir: &Path) -> Harness<'static, SkinlabApp> {
    let path = dir.join("strip.gltf");
    std::fs::write(&path, morph_strip::morphed_gltf()).unwrap();
    let (model, source) = skinlab::io::load_document(&path).unwrap();
    let mut s = EditorState::with_document(model, source, "strip.gltf");
    s.files.model_path = Some(path);
    harness_with(s, Scripted::default())
}

fn ufbx(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ufbx").join(name)
}

#[test]
fn file_open_takes_an_fbx_file_and_shows_its_import_warnings() {
    let dialogs = Scripted::default();
    let file = ufbx("max_transformed_skin_7500_binary.fbx");
    *dialogs.model.lock().unwrap() = Some(file.clone());
    let mut h = harness(dialogs);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Open model…").click();
    h.run();
    let s = &h.state().state;
    assert_eq!(s.doc.model_name, "max_transformed_skin_7500_binary.fbx");
    assert_eq!(s.files.model_path.as_deref(), Some(file.as_path()));
    assert_eq!(s.doc.model.skinned_vertex_count(), 352);
    let message = s.message.as_ref().unwrap();
    assert!(!message.is_error, "{}", message.text);
    assert!(message.text.contains("warning: 1 skins ask for dual-quaternion skinning"), "{}", message.text);
    assert!(h.query_by_label_contains("dual-quaternion").is_some(), "the warning is not on the status line");
    // The skinned FBX mesh is drawn: every one of its vertices deformed, finite, none at the origin.
    let points = deformed(&h);
    assert_eq!(points.len(), 352);
    assert!(points.iter().all(|p| p.is_finite()) && points.iter().any(|p| p.length() > 0.1));
    // Its skin poses: the clip turns joints and the surface follows.
    h.state_mut().state.apply(Command::SelectClip(Some(0)));
    let (a, b) = h.state().state.doc.model.clips[0].range();
    h.state_mut().state.apply(Command::SetTime(0.5 * (a + b)));
    h.run();
    assert_ne!(deformed(&h), points, "the FBX clip does not move the skin");
}

#[test]
fn a_morph_slider_moves_the_surface_and_undo_puts_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = strip_editor(dir.path());
    assert!(h.query_by_label("Morph targets").is_some(), "no morph-target section in Pose mode");
    let before = deformed(&h);
    // "Swell" (target 1) moves every vertex: 0.05·y up and 0.2 outwards in z.
    h.get_by_role_and_label(Role::Slider, "Swell").set_value_accesskit(1.0);
    h.run();
    let node = h.state().state.doc.model.instances[0].node;
    assert_eq!(h.state().state.morph_weights(node), vec![0.25, 1.0]);
    let after = deformed(&h);
    let moved = before.iter().zip(&after).filter(|(a, b)| a.distance(**b) > 0.01).count();
    assert_eq!(moved, before.len(), "every vertex follows the dense target");
    // At rest the joints do not move, so the surface moves by the target itself.
    let top = before.iter().zip(&after).find(|(a, _)| a.y > 1.9 && a.z > 0.0).unwrap();
    assert!((top.1.z - top.0.z - 0.2).abs() < 1e-5, "{top:?}");
    h.state_mut().state.apply(Command::Undo);
    h.run();
    assert_eq!(deformed(&h), before, "Undo does not put the surface back");
    assert_eq!(h.state().state.morph_weights(node), vec![0.25, 0.0]);
}

#[test]
fn keyed_morph_weights_play_back_on_the_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = strip_editor(dir.path());
    let node = h.state().state.doc.model.instances[0].node;
    // A new clip: weights keyed at 0 s (as opened) and at 1 s (Lean at 1).
    h.state_mut().state.apply(Command::Key(skinlab::app::command::KeyCommand::NewClip));
    h.run();
    h.get_by_label("Key").click();
    h.run();
    h.state_mut().state.apply(Command::SetTime(1.0));
    h.get_by_role_and_label(Role::Slider, "Lean").set_value_accesskit(1.0);
    h.run();
    h.get_by_label("Key").click();
    h.run();
    let s = &h.state().state;
    let clip = &s.doc.model.clips[s.posing.clip.unwrap()];
    assert_eq!(clip.weights.len(), 1);
    assert_eq!((clip.weights[0].node, clip.weights[0].times.clone()), (node, vec![0.0, 1.0]));
    // Halfway the clip plays the weights halfway.
    h.state_mut().state.apply(Command::SetTime(0.5));
    h.run();
    assert_eq!(h.state().state.morph_weights(node), vec![0.625, 0.0]);
    // Undo takes the last key away.
    h.state_mut().state.apply(Command::Undo);
    h.run();
    let s = &h.state().state;
    assert_eq!(s.doc.model.clips[s.posing.clip.unwrap()].weights[0].times, vec![0.0]);
}

#[test]
fn a_mesh_without_a_skin_follows_its_morph_sliders_and_clip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("strip.gltf");
    std::fs::write(&path, morph_strip::unskinned_gltf()).unwrap();
    let (model, source) = skinlab::io::load_document(&path).unwrap();
    let mut h = harness_with(EditorState::with_document(model, source, "strip.gltf"), Scripted::default());
    h.state_mut().state.apply(Command::SelectClip(None));
    h.run();
    let node = h.state().state.doc.model.rigid_instances[0].0;
    let rest = h.state().state.doc.model.meshes[0].primitives[0].positions.clone();
    let surface =
        |h: &Harness<'_, SkinlabApp>| h.state().state.frame.rigid_morphs.surface(node, 0).unwrap().positions.clone();
    assert_eq!(h.state().state.mode, skinlab::app::state::Mode::Pose, "a model with a clip opens in Pose mode");
    assert!(h.query_by_label("Morph targets").is_some(), "no morph-target section for the unskinned mesh");
    // The default weights [0.25, 0]: "Lean" moves the top ring 0.25 · 0.4 sideways.
    let lean = |s: &[Vec3]| s.iter().zip(&rest).map(|(p, r)| p.x - r.x).fold(0.0f32, f32::max);
    assert!((lean(&surface(&h)) - 0.1).abs() < 1e-6, "{}", lean(&surface(&h)));
    h.get_by_role_and_label(Role::Slider, "Swell").set_value_accesskit(1.0);
    h.run();
    let moved = surface(&h).iter().zip(&rest).filter(|(a, b)| (a.z - b.z).abs() > 0.19).count();
    assert_eq!(moved, rest.len(), "every vertex follows the dense target");
    h.state_mut().state.apply(Command::Undo);
    h.run();
    assert!(surface(&h).iter().zip(&rest).all(|(a, b)| a.z == b.z), "Undo does not put the surface back");
    // The clip "Bend" plays the weights to [1, 0.5] at 1 s.
    h.state_mut().state.apply(Command::SelectClip(Some(0)));
    h.state_mut().state.apply(Command::SetTime(1.0));
    h.run();
    assert!((lean(&surface(&h)) - 0.4).abs() < 1e-6, "{}", lean(&surface(&h)));
}
