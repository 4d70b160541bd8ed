//! The brush caches of a large model are built on a background thread: the editor state is
//! ready at once (posing and drawing need no caches), the first dab waits for them and says so,
//! and the caches it gets equal the ones built directly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/paint_rig.rs"]
mod paint_rig;

use glam::Vec3;
use skinlab::app::command::Command;
use skinlab::app::state::{EditorState, Mode};
use skinlab::app::topology_job::BACKGROUND_VERTICES;
use skinlab::paint::ModelTopology;

#[test]
fn a_large_model_builds_its_brush_caches_in_the_background_and_the_first_dab_waits() {
    // 800 rings × 129 columns = 103,200 vertices.
    let model = paint_rig::cylinder_rig(800, 128, 8, 4);
    assert!(model.skinned_vertex_count() >= BACKGROUND_VERTICES);
    let expected = ModelTopology::new(&model);
    let joint = paint_rig::joint(&model, "seg3.L");
    let node = model.skins[0].joints[joint as usize];
    let mut s = EditorState::new(model, "cylinder");
    // The caches are taken only by polling or by a command that needs them.
    assert!(s.topology_progress().is_some(), "the caches are built in the background");
    assert!(s.topology().surface.is_empty());
    // Posing, selecting and switching to paint mode do not wait.
    s.apply(Command::Select(Some(node)));
    s.apply(Command::SetMode(Mode::Paint));
    s.refresh();
    assert!(s.topology_progress().is_some());
    let weights_before = s.doc.model.meshes[0].primitives[0].influences.clone().unwrap();
    // A dab along -z onto the top of the cylinder near x = 1.2 (seg3.L's region).
    let ray = skinlab::paint::Ray { origin: Vec3::new(1.2, 0.0, 5.0), direction: -Vec3::Z };
    s.apply(Command::BeginStroke);
    s.apply(Command::Dab { ray, viewport_height_px: 600.0, panel: 0 });
    s.apply(Command::EndStroke);
    assert!(s.topology_progress().is_none(), "the dab took the caches");
    let message = s.message.clone().map(|m| m.text).unwrap_or_default();
    assert!(message.contains("waited"), "the wait is reported: {message:?}");
    assert!(*s.topology() == expected, "the background caches differ from the direct build");
    assert_eq!(s.painting.weight_tools.selection.len(), expected.surface.len());
    let after = s.doc.model.meshes[0].primitives[0].influences.as_ref().unwrap();
    assert!((0..after.len()).any(|v| after.snapshot(v) != weights_before.snapshot(v)), "the dab painted nothing");
}

#[test]
fn a_small_model_has_its_brush_caches_at_once() {
    let model = paint_rig::cylinder_rig(20, 16, 2, 4);
    let expected = ModelTopology::new(&model);
    let mut s = EditorState::new(model, "small");
    assert!(s.topology_progress().is_none());
    assert!(!s.poll_topology());
    assert!(*s.topology() == expected);
}

#[test]
fn skeleton_edits_keep_the_welded_surface_and_take_the_new_joints() {
    let model = paint_rig::cylinder_rig(20, 16, 4, 4);
    let node = model.skins[0].joints[paint_rig::joint(&model, "seg2.L") as usize];
    let mut s = EditorState::new(model, "small");
    s.apply(Command::SetMode(Mode::Rig));
    s.apply(Command::DeleteJoint(node));
    let moved = s.doc.model.skins[0].joints[1];
    let to = s.frame.model_from_node[moved].w_axis.truncate() + glam::DVec3::new(0.05, 0.02, 0.0);
    s.apply(Command::MoveJoint { node: moved, position: to, gesture: None });
    s.apply(Command::SetMode(Mode::Paint));
    s.refresh();
    let fresh = ModelTopology::new(&s.doc.model);
    assert_ne!(fresh.surface.joint_nodes().len(), 0);
    assert!(*s.topology() == fresh, "the caches after the edits differ from a fresh build of the edited model");
}

#[test]
fn caches_built_while_the_skeleton_was_edited_take_its_joints() {
    let model = paint_rig::cylinder_rig(800, 128, 8, 4);
    let node = model.skins[0].joints[paint_rig::joint(&model, "seg3.L") as usize];
    let mut s = EditorState::new(model, "cylinder");
    assert!(s.topology_progress().is_some(), "the caches are built in the background");
    s.apply(Command::SetMode(Mode::Rig));
    s.apply(Command::DeleteJoint(node));
    // A skeleton edit does not wait for the caches.
    assert!(s.topology_progress().is_some());
    assert!(s.message.as_ref().is_none_or(|m| !m.text.contains("waited")));
    // A tool that needs them takes them, with the edited skeleton's joints.
    s.apply(Command::SetMode(Mode::Paint));
    s.apply(Command::BeginStroke);
    s.apply(Command::EndStroke);
    while s.poll_topology() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    s.refresh();
    assert!(*s.topology() == ModelTopology::new(&s.doc.model), "the caches kept the skeleton they were started on");
}

#[test]
fn a_newly_skinned_mesh_needs_its_caches_built_again() {
    let model = paint_rig::cylinder_rig(20, 16, 2, 4);
    let mut topology = ModelTopology::new(&model);
    let before = topology.clone();
    let mut unskinned = model.clone();
    unskinned.instances.clear();
    assert!(!topology.rejoint(&unskinned), "a surface without its parts cannot be kept");
    assert!(topology == before, "a refused rejoint changes nothing");
    assert!(topology.rejoint(&model));
    assert!(topology == before);
}

/// What skeleton edits and their undos touch: the node tree, each skin's joints and bind
/// matrices (bits), and every vertex's weights (set and weights).
#[derive(PartialEq)]
struct Rig {
    nodes: skinlab::model::NodeTree,
    skins: Vec<(Vec<usize>, Vec<[u64; 16]>)>,
    weights: Vec<skinlab::model::influences::VertexSnapshot>,
}

fn rig_of(m: &skinlab::model::Model) -> Rig {
    let skins = m
        .skins
        .iter()
        .map(|s| (s.joints.clone(), s.joint_from_bind.iter().map(|c| c.to_cols_array().map(f64::to_bits)).collect()))
        .collect();
    let weights = m
        .meshes
        .iter()
        .flat_map(|mesh| &mesh.primitives)
        .filter_map(|p| p.influences.as_ref())
        .flat_map(|inf| (0..inf.len()).map(|v| inf.snapshot(v)))
        .collect();
    Rig { nodes: m.nodes.clone(), skins, weights }
}

#[test]
fn undoing_skeleton_edits_and_keys_does_not_wait_for_the_caches() {
    let model = paint_rig::cylinder_rig(800, 128, 8, 4);
    let node = model.skins[0].joints[paint_rig::joint(&model, "seg3.L") as usize];
    let original = rig_of(&model);
    let mut s = EditorState::new(model, "cylinder");
    assert!(s.topology_progress().is_some(), "the caches are built in the background");
    s.apply(Command::SetMode(Mode::Rig));
    s.apply(Command::DeleteJoint(node));
    let moved = s.doc.model.skins[0].joints[1];
    let to = s.frame.model_from_node[moved].w_axis.truncate() + glam::DVec3::new(0.05, 0.02, 0.0);
    s.apply(Command::MoveJoint { node: moved, position: to, gesture: None });
    s.apply(Command::Key(skinlab::app::command::KeyCommand::Set { whole_pose: true }));
    let edited = rig_of(&s.doc.model);
    // Delete, move, and the key (a new clip, then its key: two steps).
    for _ in 0..4 {
        s.apply(Command::Undo);
    }
    assert!(rig_of(&s.doc.model) == original, "undo restores the skeleton and the weights bit for bit");
    assert_eq!(s.message.as_ref().map(|m| m.text.as_str()), Some("Undo: Delete Joint"), "undo names its step");
    assert!(s.doc.model.clips.is_empty(), "undo removes the keyed clip");
    assert!(s.topology_progress().is_some(), "undoing skeleton edits and keys waits for no cache");
    assert!(s.message.as_ref().is_none_or(|m| !m.text.contains("waited")));
    for _ in 0..4 {
        s.apply(Command::Redo);
    }
    assert!(rig_of(&s.doc.model) == edited, "redo reapplies the edits bit for bit");
    assert_eq!(s.message.as_ref().map(|m| m.text.as_str()), Some("Redo: Set Key (whole pose)"));
    assert!(s.topology_progress().is_some());
    s.apply(Command::SetMode(Mode::Paint));
    while s.poll_topology() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    s.refresh();
    assert!(*s.topology() == ModelTopology::new(&s.doc.model), "the caches took the redone skeleton");
}

#[test]
fn skeleton_edits_keys_and_their_undo_leave_the_vertex_data_in_place() {
    let model = paint_rig::cylinder_rig(20, 16, 4, 4);
    let node = model.skins[0].joints[paint_rig::joint(&model, "seg2.L") as usize];
    let mut s = EditorState::new(model, "small");
    let data = |s: &EditorState| {
        let p = &s.doc.model.meshes[0].primitives[0];
        (p.positions.as_ptr(), p.triangles.as_ptr())
    };
    let at_load = data(&s);
    s.apply(Command::SetMode(Mode::Rig));
    let to = s.frame.model_from_node[node].w_axis.truncate() + glam::DVec3::new(0.05, 0.02, 0.0);
    s.apply(Command::MoveJoint { node, position: to, gesture: None });
    for g in 0..3 {
        s.apply(Command::MoveJoint { node, position: to + glam::DVec3::splat(0.01 * f64::from(g)), gesture: Some(5) });
    }
    s.apply(Command::Select(None));
    s.apply(Command::Key(skinlab::app::command::KeyCommand::Set { whole_pose: true }));
    s.apply(Command::DeleteJoint(node));
    let mut steps = 0;
    while s.doc.history.can_undo() {
        s.apply(Command::Undo);
        steps += 1;
    }
    assert_eq!(steps, 5, "the typed move, the drag, the new clip, its key and the delete are one step each");
    s.apply(Command::Undo);
    assert_eq!(s.message.as_ref().map(|m| m.text.as_str()), Some("nothing to undo"));
    assert_eq!(data(&s), at_load, "an edit copied the model's vertex data");
}

/// `skinlab open --bench-frames`: the timed frames of a large model wait for its brush caches'
/// background build (which shares the cores with the frames), and the report says so.
#[test]
fn the_frame_benchmark_times_its_frames_once_the_background_build_is_done() {
    use skinlab::app::frame_bench::{FrameBench, WARM_UP};
    use std::time::{Duration, Instant};
    let model = paint_rig::cylinder_rig(800, 128, 8, 4);
    let mut s = EditorState::new(model, "cylinder");
    assert!(s.topology_progress().is_some(), "the caches are built in the background");
    let mut bench = FrameBench::new(2, Instant::now(), &s);
    let report = bench.report_slot();
    let mut waiting = 0;
    while s.topology_progress().is_some() {
        assert!(!bench.step(&mut s, None), "no report while the caches are built");
        s.frame.frame_times.start_frame(Instant::now());
        waiting += 1;
        std::thread::sleep(Duration::from_millis(2));
        s.poll_topology();
    }
    assert!(waiting > WARM_UP, "the build outlasted the warm-up ({waiting} frames)");
    let mut timed = 0;
    while !bench.step(&mut s, None) {
        s.frame.frame_times.start_frame(Instant::now());
        timed += 1;
        assert!(timed < 10, "the benchmark ends after its timed frames");
    }
    let text = report.lock().unwrap().clone().unwrap_or_default();
    assert!(text.contains("timed frames began") && text.contains("background build"), "{text}");
}
