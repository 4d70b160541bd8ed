//! The editor's picks on a large mesh go through pick boxes fitted to the deformation, and a dab
//! refits only the runs of the vertices it re-skinned: every pick, before and after dabs, on a
//! bent 103k-vertex cylinder, equals testing every triangle (`paint::pick_model`), and so does a
//! new joint's place in the middle of the volume (Rig mode's Ctrl+click).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/paint_rig.rs"]
mod paint_rig;

use glam::{DQuat, Vec3};
use skinlab::app::command::Command;
use skinlab::app::state::{EditorState, Mode};
use skinlab::paint::volume_pick::{volume_midpoint, VolumeSurface};
use skinlab::paint::{pick_model, BrushSettings, Ray};

/// Rays at the deformed vertices that moved most between `before` and now, from outside along
/// their normals, and a few across the whole cylinder.
fn rays(s: &EditorState, before: &[Vec3]) -> Vec<Ray> {
    let out = &s.frame.deformed[0][0][0];
    let mut moved: Vec<usize> = (0..out.positions.len()).collect();
    moved.sort_by(|&a, &b| {
        let (da, db) = (out.positions[a].distance(before[a]), out.positions[b].distance(before[b]));
        db.total_cmp(&da)
    });
    let mut rays: Vec<Ray> = moved[..40]
        .iter()
        .map(|&v| Ray { origin: out.positions[v] + out.normals[v] * 2.0, direction: -out.normals[v] })
        .collect();
    rays.extend((0..20).map(|i| {
        let x = -2.0 + 0.2 * i as f32;
        Ray { origin: Vec3::new(x, 0.1, 5.0), direction: Vec3::new(0.05, 0.0, -1.0) }
    }));
    rays
}

#[test]
fn picks_through_the_boxes_equal_testing_every_triangle_across_dabs() {
    let model = paint_rig::cylinder_rig(800, 128, 8, 4);
    let joint = model.skins[0].joints[paint_rig::joint(&model, "seg3.L") as usize];
    let bend = model.skins[0].joints[paint_rig::joint(&model, "seg2.L") as usize];
    let mut s = EditorState::new(model, "cylinder");
    s.apply(Command::SetRotation { node: bend, rotation: DQuat::from_rotation_z(0.9), gesture: None });
    s.apply(Command::Select(Some(joint)));
    s.apply(Command::SetMode(Mode::Paint));
    s.painting.settings.brush = BrushSettings { radius: 120.0, strength: 1.0, ..s.painting.settings.brush.clone() };
    s.refresh();
    let rest = s.frame.deformed[0][0][0].positions.clone();
    for ray in rays(&s, &rest) {
        assert_eq!(s.pick_deformed(&ray, 0), pick_model(&ray, &s.doc.model, &s.frame.deformed[0]));
    }
    // Dabs along the bent part move the vertices they re-skin; the boxes must follow.
    s.apply(Command::BeginStroke);
    for step in 0..6 {
        let before = s.frame.deformed[0][0][0].positions.clone();
        let aim = Ray { origin: Vec3::new(0.4 + 0.1 * step as f32, 0.0, 5.0), direction: -Vec3::Z };
        let hit = pick_model(&aim, &s.doc.model, &s.frame.deformed[0]).expect("the dab's ray hits the cylinder");
        s.apply(Command::Dab { ray: aim, viewport_height_px: 600.0, panel: 0 });
        let out = &s.frame.deformed[0][0][0].positions;
        let moved = (0..out.len()).map(|v| out[v].distance(before[v])).fold(0.0f32, f32::max);
        assert!(moved > 1e-3, "dab {step} at {:?} moved no vertex", hit.1.point);
        for ray in rays(&s, &before) {
            assert_eq!(
                s.pick_deformed(&ray, 0),
                pick_model(&ray, &s.doc.model, &s.frame.deformed[0]),
                "after dab {step}"
            );
        }
    }
    s.apply(Command::EndStroke);
}

#[test]
fn a_new_joint_goes_where_testing_every_triangle_puts_it() {
    let model = paint_rig::cylinder_rig(800, 128, 8, 4);
    let mut s = EditorState::new(model, "cylinder");
    s.apply(Command::SetMode(Mode::Rig));
    s.refresh();
    let (lo, hi) = s.doc.model_bounds;
    let merge = (hi - lo).length().max(1e-6) * 1e-5;
    let positions = &s.frame.deformed[0][0][0].positions;
    let triangles = &s.doc.model.meshes[0].primitives[0].triangles;
    let mut inside = 0;
    for i in 0..30 {
        let x = -2.2 + 0.15 * i as f32;
        let ray = Ray { origin: Vec3::new(x, 0.05 * i as f32 - 0.7, 4.0), direction: Vec3::new(0.02, 0.01, -1.0) };
        let every = volume_midpoint(&ray, &[VolumeSurface::new(positions, triangles)], merge);
        inside += usize::from(every.is_some());
        let placed = s.placement(&ray, 0);
        match every {
            Some((p, _)) => assert_eq!(placed, Some((p, None)), "ray {i}"),
            None => assert!(placed.is_some_and(|(_, rigid)| rigid.is_none()), "ray {i}: the view plane"),
        }
    }
    assert!(inside >= 10, "only {inside} rays met the cylinder");
}
