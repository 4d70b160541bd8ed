//! Key edits survive a crash: keys set and moved on a new clip and on a clip of the file are
//! written to the recovery file's "clips" section by autosave and restored in a new editor bit
//! for bit, as one undo step with the rest of the restored work.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::{Duration, Instant};

use glam::DQuat;
use skinlab::app::command::{Command, KeyCommand};
use skinlab::app::recovery::Autosave;
use skinlab::app::state::EditorState;
use skinlab::io::recovery::{RecoveryFile, CLIPS};
use skinlab::model::Clip;

#[path = "common/paint_rig.rs"]
mod paint_rig;

fn arm_in(dir: &std::path::Path) -> EditorState {
    let path = dir.join("arm.glb");
    if !path.exists() {
        std::fs::write(&path, skinlab::demo::demo_glb()).unwrap();
    }
    let (model, source) = skinlab::io::load_document(&path).unwrap();
    let mut s = EditorState::with_document(model, source, "arm.glb");
    s.files.model_path = Some(path);
    s
}

fn bits(clips: &[Clip]) -> Vec<Vec<(Vec<u64>, Vec<u64>)>> {
    clips
        .iter()
        .map(|c| {
            c.channels
                .iter()
                .map(|ch| {
                    (ch.times.iter().map(|t| t.to_bits()).collect(), ch.values.iter().map(|v| v.to_bits()).collect())
                })
                .collect()
        })
        .collect()
}

#[test]
fn edited_keys_are_autosaved_and_restored_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = arm_in(dir.path());
    let file_clips = s.doc.model.clips.len();
    // Keys on a new clip: the elbow at 0 s and 0.7 s, the second moved to 1.3 s.
    s.apply(Command::Select(Some(2)));
    s.apply(Command::SetRotation { node: 2, rotation: DQuat::from_rotation_z(0.3), gesture: None });
    s.apply(Command::Key(KeyCommand::Set { whole_pose: false }));
    s.apply(Command::SetTime(0.7));
    s.apply(Command::SetRotation {
        node: 2,
        rotation: DQuat::from_rotation_z(1.1) * DQuat::from_rotation_x(0.2),
        gesture: None,
    });
    s.apply(Command::Key(KeyCommand::Set { whole_pose: true }));
    s.apply(Command::Key(KeyCommand::Move { from_secs: 0.7, to_secs: 1.3 }));
    // A key on one of the file's clips.
    s.apply(Command::SelectClip(Some(0)));
    s.apply(Command::SetTime(0.25));
    s.apply(Command::SetRotation { node: 2, rotation: DQuat::from_rotation_y(0.45), gesture: None });
    s.apply(Command::Key(KeyCommand::Set { whole_pose: false }));
    assert_eq!(s.doc.model.clips.len(), file_clips + 1);
    let edited = s.doc.model.clips.clone();
    assert_ne!(edited[0], arm_in(dir.path()).doc.model.clips[0], "the file's clip changed");

    // Autosave writes the recovery file once the editor has been idle.
    let rec = dir.path().join("recovery");
    let mut autosave = Autosave::new(Some(rec.clone()));
    let t0 = Instant::now();
    let _ = autosave.tick(&s, t0, false);
    let (failed, again) = autosave.tick(&s, t0 + Duration::from_secs(3600), false);
    assert_eq!(failed, None);
    assert!(again.is_some(), "the write runs on its own thread: the editor looks again for its end");
    assert_eq!(autosave.wait(), None);
    let file = RecoveryFile::read(autosave.file().unwrap()).unwrap();
    assert!(file.sections.contains_key(CLIPS), "{:?}", file.sections.keys().collect::<Vec<_>>());
    assert!(file.unknown_sections().is_empty());
    drop(s);

    // A new editor on the same file restores the keys exactly.
    let mut fresh = arm_in(dir.path());
    let before = fresh.doc.model.clips.clone();
    let summary = fresh.restore(&file).unwrap();
    assert!(summary.contains("clip"), "{summary}");
    assert_eq!(fresh.doc.model.clips, edited);
    assert_eq!(bits(&fresh.doc.model.clips), bits(&edited), "bit for bit");
    assert!(fresh.has_unsaved_work());
    // Its sampled poses are the edited session's.
    fresh.apply(Command::SelectClip(Some(file_clips)));
    fresh.apply(Command::SetTime(1.3));
    let q = fresh.rotation_of(2);
    assert!(q.angle_between(DQuat::from_rotation_z(1.1) * DQuat::from_rotation_x(0.2)) < 1e-6, "{q:?}");
    // Undo of the restore takes the file's clips back.
    while fresh.doc.history.can_undo() {
        fresh.apply(Command::Undo);
    }
    assert_eq!(fresh.doc.model.clips, before);
}

#[test]
fn unchanged_clips_write_no_section_and_a_bad_section_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = arm_in(dir.path());
    s.apply(Command::SetRotation { node: 2, rotation: DQuat::from_rotation_z(0.3), gesture: None });
    let mut file = s.recovery_file(999_999_994);
    assert!(!file.sections.contains_key(CLIPS), "clips as in the file are not written");
    file.sections.insert(
        CLIPS.into(),
        serde_json::json!([{"name": "x", "channels": [{"node": "no_such_joint",
        "path": "rotation", "interpolation": "LINEAR", "times": [0], "values": [0, 0, 0, 1]}]}]),
    );
    let mut fresh = arm_in(dir.path());
    let e = fresh.restore(&file).unwrap_err();
    assert!(e.contains("recovered clips") && e.contains("no_such_joint"), "{e}");
    assert!(fresh.doc.pose.overrides.is_empty(), "nothing restored");
}

#[test]
fn a_recovered_clip_with_a_channel_without_keys_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = arm_in(dir.path());
    s.apply(Command::SetRotation { node: 2, rotation: DQuat::from_rotation_z(0.3), gesture: None });
    let mut file = s.recovery_file(999_999_993);
    // Choosing such a clip sampled an empty key list (a panic), and the crashed editor saved the
    // same clip again at every start.
    file.sections.insert(
        CLIPS.into(),
        serde_json::json!([{"name": "empty", "channels": [{"node": "elbow",
        "path": "rotation", "interpolation": "LINEAR", "times": [], "values": []}]}]),
    );
    let mut fresh = arm_in(dir.path());
    let e = fresh.restore(&file).unwrap_err();
    assert!(e.contains("recovered clips") && e.contains("no keys"), "{e}");
    assert!(fresh.doc.model.clips.iter().all(|c| c.name.as_deref() != Some("empty")), "the clip is not taken");
}

#[test]
fn autosave_writes_on_its_own_thread_and_a_clean_quit_waits_for_it() {
    // 103,200 vertices without a file: every vertex's weights go into the recovery file, a write
    // of a few hundred milliseconds.
    let model = paint_rig::cylinder_rig(800, 128, 8, 4);
    let mut s = EditorState::new(model, "cylinder");
    s.apply(Command::SetRotation { node: 1, rotation: DQuat::from_rotation_z(0.3), gesture: None });
    let dir = tempfile::tempdir().unwrap();
    let mut autosave = Autosave::new(Some(dir.path().join("recovery")));
    let t0 = Instant::now();
    let _ = autosave.tick(&s, t0, false);
    let started = Instant::now();
    let (failed, again) = autosave.tick(&s, t0 + Duration::from_secs(3600), false);
    let tick = started.elapsed();
    assert_eq!(failed, None);
    assert!(again.is_some());
    let file = autosave.file().unwrap().to_path_buf();
    // The quit comes while the write runs: the file must not come back after it is removed.
    autosave.remove();
    // (A writer still running after the removal would be joined here, its file written.)
    assert_eq!(autosave.wait(), None);
    assert!(!file.exists(), "the write in progress recreated the removed recovery file (tick took {tick:?})");
    // Written in full, it is the same file the state describes.
    let _ = autosave.tick(&s, t0 + Duration::from_secs(7200), false);
    assert_eq!(autosave.wait(), None);
    let written = RecoveryFile::read(&file).unwrap();
    let expected = s.recovery_file(std::process::id());
    assert_eq!(written.sections, expected.sections);
}

/// Each vertex's weights by joint name, weights by bits (set ids and joint indices may differ
/// between two models with the same skeleton).
fn named_weights(s: &EditorState) -> Vec<Vec<(String, u32)>> {
    let m = &s.doc.model;
    let inst = &m.instances[0];
    let skin = &m.skins[inst.skin];
    let inf = m.meshes[inst.mesh].primitives[0].influences.as_ref().unwrap();
    (0..inf.len())
        .map(|v| {
            let mut pairs: Vec<(String, u32)> = inf
                .vertex(v, &skin.sets)
                .filter(|&(_, w)| w > 0.0)
                .map(|(j, w)| (m.nodes.key(skin.joints[usize::from(j)]).to_string(), w.to_bits()))
                .collect();
            pairs.sort();
            pairs
        })
        .collect()
}

fn tree(s: &EditorState) -> Vec<(String, Option<String>)> {
    let nodes = &s.doc.model.nodes;
    (0..nodes.len())
        .map(|n| (nodes.key(n).to_string(), nodes.nodes[n].parent.map(|p| nodes.key(p).to_string())))
        .collect()
}

/// One autosave write of `s`, waited for: a tick, then another an hour later.
fn write_now(autosave: &mut Autosave, s: &EditorState) {
    let t0 = Instant::now();
    let _ = autosave.tick(s, t0, false);
    let _ = autosave.tick(s, t0 + Duration::from_secs(3600), false);
    assert_eq!(autosave.wait(), None);
}

#[test]
fn an_edited_skeleton_is_autosaved_as_a_copy_and_restored() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = arm_in(dir.path());
    let file_tree = tree(&s);
    s.apply(Command::SetMode(skinlab::app::state::Mode::Rig));
    let elbow = s.doc.model.nodes.find("elbow").unwrap();
    s.apply(Command::DeleteJoint(elbow));
    let wrist = s.doc.model.nodes.find("wrist").unwrap();
    s.apply(Command::RenameJoint { node: wrist, name: "hand".into() });
    assert!(s.doc.model.nodes.find("hand").is_ok(), "{:?}", s.message);
    let (edited_tree, edited_weights) = (tree(&s), named_weights(&s));

    let mut autosave = Autosave::new(Some(dir.path().join("recovery")));
    write_now(&mut autosave, &s);
    let path = autosave.file().unwrap().to_path_buf();
    let copy = skinlab::io::recovery::companion(&path);
    let file = RecoveryFile::read(&path).unwrap();
    assert!(
        file.sections.contains_key(skinlab::io::recovery::SKELETON),
        "{:?}",
        file.sections.keys().collect::<Vec<_>>()
    );
    assert!(copy.exists(), "the edited model is kept beside the recovery file");

    // A new editor on the file gets the edited skeleton and its weights back.
    let mut fresh = arm_in(dir.path());
    let summary = fresh.restore(&file).unwrap();
    assert!(summary.contains("skeleton"), "{summary}");
    assert_eq!(tree(&fresh), edited_tree);
    assert_eq!(named_weights(&fresh), edited_weights);
    while fresh.doc.history.can_undo() {
        fresh.apply(Command::Undo);
    }
    assert_eq!(tree(&fresh), file_tree, "undoing the restore brings back the file's skeleton");

    // Back to the file's skeleton, the next write drops the copy; a clean quit removes both.
    s.apply(Command::Undo);
    s.apply(Command::Undo);
    assert_eq!(tree(&s), file_tree);
    let t1 = Instant::now();
    let _ = autosave.tick(&s, t1, false);
    let _ = autosave.tick(&s, t1 + Duration::from_secs(3600), false);
    assert_eq!(autosave.wait(), None);
    let file = RecoveryFile::read(&path).unwrap();
    assert!(!file.sections.contains_key(skinlab::io::recovery::SKELETON));
    assert!(!copy.exists(), "the copy went with the skeleton edits");
    s.apply(Command::Redo);
    let t2 = Instant::now();
    let _ = autosave.tick(&s, t2, false);
    let _ = autosave.tick(&s, t2 + Duration::from_secs(3600), false);
    assert_eq!(autosave.wait(), None);
    assert!(copy.exists());
    autosave.remove();
    assert!(!path.exists() && !copy.exists(), "a clean quit leaves neither file");
}

/// A real model whose edited weights order its vertices otherwise than the file's: the restored
/// copy keeps the order the file's model holds them in (the GPU meshes, brush caches and undo
/// records were made for it), with the copy's weights.
#[test]
fn a_restored_skeleton_copy_keeps_the_models_vertex_order() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models/CesiumMan.glb");
    if !src.exists() {
        return;
    }
    let path = dir.path().join("CesiumMan.glb");
    std::fs::copy(&src, &path).unwrap();
    let open = || {
        let (model, source) = skinlab::io::load_document(&path).unwrap();
        let mut s = EditorState::with_document(model, source, "CesiumMan.glb");
        s.files.model_path = Some(path.clone());
        s
    };
    let mut s = open();
    s.apply(Command::SetMode(skinlab::app::state::Mode::Rig));
    for name in ["Skeleton_arm_joint_L__3_", "Skeleton_arm_joint_R__2_", "leg_joint_L_2"] {
        let joint = s.doc.model.nodes.find(name).unwrap();
        s.apply(Command::DeleteJoint(joint));
    }
    let edited = named_weights(&s);
    let mut autosave = Autosave::new(Some(dir.path().join("recovery")));
    write_now(&mut autosave, &s);
    let file = RecoveryFile::read(autosave.file().unwrap()).unwrap();
    let copy = skinlab::io::recovery::companion(autosave.file().unwrap());
    let (alone, _) = skinlab::io::load_document(&copy).unwrap();

    let mut fresh = open();
    let before = fresh.doc.model.meshes[0].primitives[0].clone();
    assert_ne!(alone.meshes[0].primitives[0].order, before.order, "the copy alone is ordered otherwise");
    fresh.restore(&file).unwrap();
    let after = &fresh.doc.model.meshes[0].primitives[0];
    assert_eq!(after.order, before.order);
    assert!(after.positions == before.positions && after.triangles == before.triangles, "the same geometry, in place");
    // The copy's weights went through a file (renormalised on reading: an ulp or two).
    let got = named_weights(&fresh);
    assert_eq!(got.len(), edited.len());
    for (v, (a, b)) in got.iter().zip(&edited).enumerate() {
        let close = a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| x.0 == y.0 && (f32::from_bits(x.1) - f32::from_bits(y.1)).abs() < 1e-6);
        assert!(close, "vertex {v}: {a:?} vs {b:?}");
    }
}
