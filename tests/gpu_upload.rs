//! What the editor sends to the GPU (Mesa's software EGL, no display): a new pose sends every
//! position, normal and colour once; a brush dab sends only the byte ranges covering the
//! vertices it touched (counted in bytes), and the buffers it leaves draw the same picture as
//! buffers filled whole from the same state (so every range landed on its own vertices).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use glam::Vec3;
use skinlab::app::command::Command;
use skinlab::app::state::{EditorState, Mode};
use skinlab::app::viewport::Viewport;
use skinlab::model::TouchedPrimitive;
use skinlab::render::gpu_changes::{coalesce, Changed, MERGE_GAP};
use skinlab::render::streamed_mesh::UploadMethod;
use skinlab::render::{Headless, OrbitCamera, Scene, ViewOptions};

const ELBOW: usize = 2;

/// Bytes per vertex of a panel's positions and normals, and of the colours (linear RGBA f32).
const DEFORMED_BYTES: u64 = 24;
const COLOUR_BYTES: u64 = 8;

/// The demo arm in paint mode, split view, elbow selected and bent.
fn painting_state() -> EditorState {
    let mut s = EditorState::demo().unwrap();
    s.apply(Command::Select(Some(ELBOW)));
    s.apply(Command::SetRotation {
        node: ELBOW,
        rotation: glam::DQuat::from_rotation_z(50f64.to_radians()),
        gesture: None,
    });
    s.apply(Command::SetSplit(true));
    s.apply(Command::SetMode(Mode::Paint));
    s.refresh();
    s
}

/// A dab aimed straight down -z at the middle of the upper arm.
fn dab(s: &mut EditorState) {
    let a = s.node_position(1).unwrap();
    let b = s.node_position(ELBOW).unwrap();
    let mid = a + (b - a) * 0.5;
    let ray = skinlab::paint::Ray { origin: mid + Vec3::Z * 10.0, direction: -Vec3::Z };
    s.apply(Command::BeginStroke);
    s.apply(Command::Dab { ray, viewport_height_px: 600.0, panel: 0 });
    s.apply(Command::EndStroke);
}

fn picture(gl: &Headless, scene: &Scene, camera: &OrbitCamera) -> Vec<u8> {
    gl.draw(320, 240, [0, 0, 0], |target| {
        let scissor = three_d::ScissorBox { x: 0, y: 0, width: 320, height: 240 };
        scene.draw(target, scissor, camera, 0, &ViewOptions { grid: false, bones: false, ..ViewOptions::default() });
    })
}

/// [`painting_state`] sent to a viewport's GPU scene once, with its vertex count.
fn painting_on_gpu(gl: &Headless) -> (EditorState, Viewport, u64) {
    let mut s = painting_state();
    let vertices = s.doc.model.meshes[0].primitives[0].positions.len() as u64;
    let mut viewport = Viewport::default();
    viewport.sync_gpu(Some(gl.gl()), &mut s);
    (s, viewport, vertices)
}

#[test]
fn a_dab_uploads_only_the_ranges_of_its_touched_vertices() {
    let gl = Headless::new().expect("Mesa EGL");
    let (mut s, mut viewport, vertices) = painting_on_gpu(&gl);
    let full = viewport.uploaded_bytes();
    // The first upload fills both panels whole (the colours too).
    assert_eq!(full, [vertices * (DEFORMED_BYTES + COLOUR_BYTES); 2]);
    // Nothing changed: nothing is sent.
    viewport.sync_gpu(Some(gl.gl()), &mut s);
    assert_eq!(viewport.uploaded_bytes(), full);
    // The first dab may widen the weight layout (a full re-skin); the next ones do not.
    dab(&mut s);
    viewport.sync_gpu(Some(gl.gl()), &mut s);
    let full = viewport.uploaded_bytes();

    let before_weights = s.doc.model.meshes[0].primitives[0].influences.clone().unwrap();
    let before_deformed = s.frame.deformed[0].clone();
    let before_colours = s.painting.colours.clone();
    dab(&mut s);
    let changes = s.gpu_changes().clone();
    let Changed::Vertices(parts) = &changes.deformed[0] else { panic!("a dab records its vertices: {changes:?}") };
    assert_eq!(changes.deformed[1], changes.deformed[0], "the right panel is re-skinned at the same vertices");
    assert_eq!(changes.colours, changes.deformed[0], "the colours change at the same vertices");
    let [TouchedPrimitive { mesh: 0, prim: 0, vertices: touched }] = parts.as_slice() else { panic!("{parts:?}") };
    // Every vertex whose weights changed is among the touched ones, and those are a small part.
    let after_weights = s.doc.model.meshes[0].primitives[0].influences.as_ref().unwrap();
    let changed: Vec<u32> = (0..vertices as u32)
        .filter(|&v| before_weights.snapshot(v as usize) != after_weights.snapshot(v as usize))
        .collect();
    assert!(!changed.is_empty(), "the dab changed no weight");
    assert!(changed.iter().all(|v| touched.binary_search(v).is_ok()), "a changed vertex is not in the record");
    assert!((touched.len() as u64) < vertices / 4, "{} of {vertices} vertices touched", touched.len());

    viewport.sync_gpu(Some(gl.gl()), &mut s);
    let sent = viewport.uploaded_bytes();
    let ranges = coalesce(touched, MERGE_GAP);
    let in_ranges: u64 = ranges.iter().map(|r| u64::from(r.end - r.start)).sum();
    assert!(in_ranges >= touched.len() as u64 && in_ranges < vertices / 3, "{in_ranges} vertices in the ranges");
    for panel in 0..2 {
        assert_eq!(
            sent[panel] - full[panel],
            in_ranges * (DEFORMED_BYTES + COLOUR_BYTES),
            "panel {panel} sent more than the ranges of the touched vertices"
        );
    }

    // The same partial upload on a scene filled from the state before the dab draws exactly
    // what a scene filled whole from the state after it draws.
    let ctx = gl.context();
    let mut camera = OrbitCamera::default();
    camera.frame(s.doc.model_bounds.0, s.doc.model_bounds.1, 320.0 / 240.0);
    let mut partial = Scene::new(ctx, &s.doc.model, 1, s.doc.model_bounds, None);
    let mut whole = Scene::new(ctx, &s.doc.model, 1, s.doc.model_bounds, None);
    let p = partial.panel_mut(0).unwrap();
    p.upload(&before_deformed, &s.frame.model_from_node);
    p.set_colours(Some(&before_colours), false);
    let before_picture = picture(&gl, &partial, &camera);
    let p = partial.panel_mut(0).unwrap();
    p.upload_changes(&s.frame.deformed[0], &s.frame.model_from_node, &changes.deformed[0]);
    p.set_colours_changes(Some(&s.painting.colours), false, &changes.colours);
    let w = whole.panel_mut(0).unwrap();
    w.upload(&s.frame.deformed[0], &s.frame.model_from_node);
    w.set_colours(Some(&s.painting.colours), false);
    let (a, b) = (picture(&gl, &partial, &camera), picture(&gl, &whole, &camera));
    assert_ne!(before_picture, b, "the dab changed nothing visible");
    assert!(a == b, "the partly updated buffers draw a different picture");
}

#[test]
fn a_new_pose_uploads_every_position_and_normal_once() {
    let gl = Headless::new().expect("Mesa EGL");
    let mut s = painting_state();
    s.apply(Command::SetMode(Mode::Pose));
    s.apply(Command::SetSplit(false));
    let mut viewport = Viewport::default();
    viewport.sync_gpu(Some(gl.gl()), &mut s);
    let vertices = s.doc.model.meshes[0].primitives[0].positions.len() as u64;
    let start = viewport.uploaded_bytes();
    s.apply(Command::SetRotation { node: ELBOW, rotation: glam::DQuat::from_rotation_z(0.3), gesture: None });
    s.refresh();
    viewport.sync_gpu(Some(gl.gl()), &mut s);
    let after = viewport.uploaded_bytes();
    // The shown panel gets its positions and normals; colours (plain) and the hidden right
    // panel are not sent again.
    assert_eq!(after[0] - start[0], vertices * DEFORMED_BYTES);
    assert_eq!(after[1], start[1]);
}

#[test]
fn a_skeleton_edit_keeps_the_gpu_meshes_and_sends_only_the_new_deformation() {
    let gl = Headless::new().expect("Mesa EGL");
    let mut s = painting_state();
    s.apply(Command::SetMode(Mode::Rig));
    s.apply(Command::SetSplit(false));
    s.refresh();
    let mut viewport = Viewport::default();
    viewport.sync_gpu(Some(gl.gl()), &mut s);
    let vertices = s.doc.model.meshes[0].primitives[0].positions.len() as u64;
    let start = viewport.uploaded_bytes();
    assert_eq!(start[0], vertices * (DEFORMED_BYTES + COLOUR_BYTES), "a new scene is filled whole");
    for step in 1..=3 {
        let to = s.frame.model_from_node[ELBOW].w_axis.truncate() + glam::DVec3::new(0.0, 0.01, 0.0);
        s.apply(Command::MoveJoint { node: ELBOW, position: to, gesture: Some(7) });
        s.refresh();
        viewport.sync_gpu(Some(gl.gl()), &mut s);
        // The meshes stay: each frame of the drag sends the positions and normals, nothing else
        // (a scene built again would have counted its whole first fill, colours included).
        assert_eq!(viewport.uploaded_bytes()[0], start[0] + step * vertices * DEFORMED_BYTES, "frame {step}");
    }
}

/// The demo arm densified to 120k vertices and bent at the elbow: 1.4 MB of positions and of
/// normals (more than one `glBufferSubData` call of 1 MB; mapped, when sent whole, with the
/// default method).
fn dense_bent_arm() -> EditorState {
    let demo = EditorState::demo().unwrap();
    let dense = skinlab::model::densify::densify(&demo.doc.model, 120_000).unwrap().model;
    let mut s = EditorState::new(dense, "dense arm");
    s.apply(Command::SetRotation {
        node: ELBOW,
        rotation: glam::DQuat::from_rotation_z(60f64.to_radians()),
        gesture: None,
    });
    s.refresh();
    let vertices = s.doc.model.meshes[0].primitives[0].positions.len();
    assert!(vertices * 12 > 1 << 20, "{vertices} vertices fit one call");
    s
}

/// The model of `s` with the deformed positions and normals of `vertices` as its rest geometry.
fn posed_model(s: &EditorState, vertices: std::ops::Range<usize>) -> skinlab::model::Model {
    let mut posed = skinlab::model::Model::clone(&s.doc.model);
    let d = &s.frame.deformed[0][0][0];
    let p = &mut posed.meshes[0].primitives[0];
    p.positions[vertices.clone()].copy_from_slice(&d.positions[vertices.clone()]);
    p.normals.as_mut().unwrap()[vertices.clone()].copy_from_slice(&d.normals[vertices]);
    posed
}

/// A camera framing `s`'s model, and the picture of a scene created from `model` through it.
fn framed_picture(gl: &Headless, s: &EditorState, model: &skinlab::model::Model) -> (OrbitCamera, Vec<u8>) {
    let mut camera = OrbitCamera::default();
    camera.frame(s.doc.model_bounds.0, s.doc.model_bounds.1, 320.0 / 240.0);
    let created = Scene::new(gl.context(), model, 1, s.doc.model_bounds, None);
    let expected = picture(gl, &created, &camera);
    (camera, expected)
}

#[test]
fn a_deformation_larger_than_one_upload_call_lands_whole() {
    let s = dense_bent_arm();
    let vertices = s.doc.model.meshes[0].primitives[0].positions.len();
    // The same deformed surface as the rest geometry of a second model: its scene is filled
    // whole when created, never through an upload.
    let gl = Headless::new().expect("Mesa EGL");
    let ctx = gl.context();
    let (camera, expected) = framed_picture(&gl, &s, &posed_model(&s, 0..vertices));
    for method in [UploadMethod::Mapped, UploadMethod::SubData] {
        let mut uploaded = Scene::new(ctx, &s.doc.model, 1, s.doc.model_bounds, None);
        uploaded.set_upload_method(method);
        let rest = picture(&gl, &uploaded, &camera);
        uploaded.panel_mut(0).unwrap().upload(&s.frame.deformed[0], &s.frame.model_from_node);
        assert_ne!(rest, expected, "the bend changed nothing visible");
        assert!(
            picture(&gl, &uploaded, &camera) == expected,
            "{method:?}: the uploaded deformation draws another picture"
        );
    }
}

#[test]
fn a_large_range_in_the_middle_lands_on_its_vertices() {
    // 40k vertices from vertex 40k on: 480 kB of positions and of normals, the rest of the
    // buffers kept (parts of buffers go by glBufferSubData with either method: mapping a part
    // would wait for the GPU's last draw from it).
    let s = dense_bent_arm();
    let range = 40_000..80_000;
    let posed = posed_model(&s, range.clone());
    let changed = Changed::Vertices(vec![TouchedPrimitive {
        mesh: 0,
        prim: 0,
        vertices: (range.start as u32..range.end as u32).collect(),
    }]);
    let gl = Headless::new().expect("Mesa EGL");
    let ctx = gl.context();
    let (camera, expected) = framed_picture(&gl, &s, &posed);
    let rest = picture(&gl, &Scene::new(ctx, &s.doc.model, 1, s.doc.model_bounds, None), &camera);
    assert_ne!(rest, expected, "the bend of the range changed nothing visible");
    for method in [UploadMethod::Mapped, UploadMethod::SubData] {
        let mut uploaded = Scene::new(ctx, &s.doc.model, 1, s.doc.model_bounds, None);
        uploaded.set_upload_method(method);
        let before = uploaded.panel(0).unwrap().uploaded_bytes();
        uploaded.panel_mut(0).unwrap().upload_changes(&s.frame.deformed[0], &s.frame.model_from_node, &changed);
        let sent = uploaded.panel(0).unwrap().uploaded_bytes() - before;
        assert_eq!(sent, range.len() as u64 * DEFORMED_BYTES, "{method:?}");
        assert!(picture(&gl, &uploaded, &camera) == expected, "{method:?}: the range landed elsewhere");
    }
}

#[test]
fn posing_in_paint_mode_sends_no_colours_and_weight_edits_recolour() {
    let gl = Headless::new().expect("Mesa EGL");
    let (mut s, mut viewport, vertices) = painting_on_gpu(&gl);
    // A new pose in paint mode: positions and normals of both panels, no colours.
    let start = viewport.uploaded_bytes();
    let colours = s.painting.colours.clone();
    s.apply(Command::SetRotation { node: ELBOW, rotation: glam::DQuat::from_rotation_z(0.3), gesture: None });
    s.refresh();
    viewport.sync_gpu(Some(gl.gl()), &mut s);
    let after = viewport.uploaded_bytes();
    assert_eq!([after[0] - start[0], after[1] - start[1]], [vertices * DEFORMED_BYTES; 2]);
    assert_eq!(s.painting.colours, colours);
    // Colours computed in full from the current state equal the kept ones after every edit (the
    // first dab, which may widen the weight layout, a second one, and its undo), each followed by
    // a new pose.
    let mut angle = 0.3;
    let mut check = |s: &mut EditorState, what: &str| {
        angle += 0.1;
        s.apply(Command::SetRotation { node: ELBOW, rotation: glam::DQuat::from_rotation_z(angle), gesture: None });
        s.refresh();
        let kept = s.painting.colours.clone();
        s.repaint_colours();
        assert!(kept == s.painting.colours, "{what}: the paint colours went stale");
    };
    dab(&mut s);
    check(&mut s, "first dab");
    let after_first = s.painting.colours.clone();
    assert!(after_first != colours, "the dab changed no colour");
    dab(&mut s);
    assert!(s.painting.colours != after_first, "the second dab changed no colour");
    s.apply(Command::Undo);
    check(&mut s, "undo");
    assert!(s.painting.colours == after_first, "the undone dab's colours stayed");
}
