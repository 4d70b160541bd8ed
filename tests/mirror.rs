//! Mirroring that finds its match: joints by mirrored bind position on a rig whose names pair them
//! wrongly (CesiumMan), vertices by closest point on an asymmetric mesh, and Mirror Weights
//! (all joints or one) with the report's counts.

#![allow(clippy::unwrap_used)]

#[path = "common/paint_rig.rs"]
mod paint_rig;

use glam::Vec3;
use skinlab::model::Model;
use skinlab::model::StrokeRecord;
use skinlab::paint::mirror_weights::{mirror_weights, MirrorDirection};
use skinlab::paint::{disagreeing_groups, BlendMode, ModelTopology, WeightRules};

fn weight(m: &Model, topo: &ModelTopology, g: u32, j: u16) -> f32 {
    topo.surface.weights(m, g).iter().find(|p| p.0 == j).map_or(0.0, |p| p.1)
}

#[test]
fn cesium_man_mirrors_joints_by_position_not_by_its_names() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models/CesiumMan.glb"));
    if !path.exists() {
        return;
    }
    let m = skinlab::io::load_model(path).unwrap();
    let topo = ModelTopology::new(&m);
    let name = |j: u16| m.nodes.nodes[topo.surface.joint_nodes()[j as usize]].name.clone().unwrap_or_default();
    let depth = |j: u16| m.nodes.depth(topo.surface.joint_nodes()[j as usize]);
    let mut arms = 0;
    for j in 0..topo.surface.joint_nodes().len() as u16 {
        let k = topo.mirror_joint(j);
        assert_eq!(topo.mirror_joint(k), j, "{} ↔ {}: the map pairs joints", name(j), name(k));
        let n = name(j);
        if n.contains("arm_joint_L") {
            arms += 1;
            assert!(name(k).contains("arm_joint_R"), "{n} → {}", name(k));
            assert_eq!(depth(j), depth(k), "{n} → {}: the same link of the chain (elbow to elbow)", name(k));
        }
    }
    assert_eq!(arms, 3);
    // The names pair L__2_ with R__2_ (elbow with wrist): every such case is reported.
    let reported: Vec<(String, String)> =
        topo.joint_mirror_disagreements.iter().map(|&(j, _, p)| (name(j), name(p))).collect();
    assert!(!reported.is_empty(), "the name/position disagreement is reported");
    for &(j, by_name, by_position) in &topo.joint_mirror_disagreements {
        assert_eq!(topo.mirror_joint(j), by_position);
        assert_ne!(by_name, by_position);
    }
    assert!(topo.closest_mirrors.len() * 100 < topo.surface.len(), "CesiumMan is nearly symmetric");
}

/// The cylinder rig with its negative side (x < −0.15) pushed along y: no exact mirrors there.
fn asymmetric() -> (Model, usize) {
    let mut m = paint_rig::cylinder_rig(41, 16, 2, 4);
    let mut moved = 0;
    for p in &mut m.meshes[0].primitives[0].positions {
        if p.x < -0.15 {
            p.y += 0.013;
            moved += 1;
        }
    }
    (m, moved)
}

#[test]
fn an_asymmetric_mesh_mirrors_by_closest_point_and_reports_it() {
    let (mut m, moved) = asymmetric();
    // The shifted cylinder is still symmetric across z: mirror across x as the rig is named.
    let topo = ModelTopology::with_axis(&m, 0);
    let s = &topo.surface;
    // Both the moved vertices and their former partners lost their exact mirror.
    let positive = s.rest_positions().iter().filter(|p| p.x > 0.15).count();
    assert_eq!(topo.closest_mirrors.len(), moved + positive, "every vertex off the plane uses the closest point");
    let left = paint_rig::joint(&m, "seg1.L");
    let right = paint_rig::joint(&m, "seg1.R");
    assert_eq!(topo.mirror_joint(left), right);
    // Paint the positive side's seg1.L to 1 near x = 1, then mirror every joint onto the negative side.
    let rules = WeightRules::default();
    let brush = skinlab::paint::BrushSettings {
        mode: BlendMode::Replace,
        value: 1.0,
        strength: 1.0,
        falloff: skinlab::paint::Falloff::Constant,
        ..skinlab::paint::BrushSettings::default()
    };
    let touches: Vec<skinlab::paint::Touch> = (0..s.len() as u32)
        .filter(|&g| (s.rest_positions()[g as usize].x - 1.0).abs() < 0.3)
        .map(|g| skinlab::paint::Touch { vertex: g, distance: 0.0 })
        .collect();
    let mut rec = StrokeRecord::new("paint");
    let dab = skinlab::paint::Dab { joint: left, brush: &brush, radius: 1.0, touches: &touches };
    let target = skinlab::paint::DabTarget { instance: 0, prim: 0 };
    skinlab::paint::apply_surface_dab(&mut m, target, &dab, &rules, &topo, &mut rec).unwrap();
    let mut rec = StrokeRecord::new("mirror");
    let out = mirror_weights(&mut m, &topo, MirrorDirection::PositiveToNegative, None, &rules, &mut rec).unwrap();
    let negative_groups =
        (0..s.len() as u32).filter(|&g| s.adjacency().rep(g) == g && s.rest_positions()[g as usize].x < -0.15).count();
    assert_eq!(out.interpolated, negative_groups, "the report counts every interpolated vertex");
    assert_eq!(out.unmatched, 0);
    assert!(out.changed > 0);
    // Around x = −1 the negative side now holds seg1.R at (nearly) 1: interpolated from the
    // painted side; the weights stay valid and the weld groups agree.
    for g in 0..s.len() as u32 {
        let p: Vec3 = s.rest_positions()[g as usize];
        if (p.x + 1.0).abs() < 0.15 {
            assert!(weight(&m, &topo, g, right) > 0.99, "vertex {g} at {p}: {:?}", s.weights(&m, g));
        }
        let w = s.weights(&m, g);
        assert!(w.is_empty() || skinlab::paint::normalize::is_valid(&w), "{w:?}");
    }
    assert!(disagreeing_groups(&m, s, 0.0).is_empty());
}

#[test]
fn mirror_weights_copies_one_joint_or_all_exactly_on_a_symmetric_mesh_and_undoes() {
    let mut m = paint_rig::cylinder_rig(41, 16, 2, 4);
    let topo = ModelTopology::new(&m);
    let s = &topo.surface;
    assert!(topo.closest_mirrors.is_empty(), "the cylinder is symmetric");
    let left = paint_rig::joint(&m, "seg1.L");
    let right = paint_rig::joint(&m, "seg1.R");
    let spine = paint_rig::joint(&m, "Spine");
    // Unbalance the sides: the negative side's seg1.R set to 0.3 near x = −1.
    let rules = WeightRules::default();
    let brush = skinlab::paint::BrushSettings {
        mode: BlendMode::Replace,
        value: 0.3,
        strength: 1.0,
        falloff: skinlab::paint::Falloff::Constant,
        ..skinlab::paint::BrushSettings::default()
    };
    let touches: Vec<skinlab::paint::Touch> = (0..s.len() as u32)
        .filter(|&g| (s.rest_positions()[g as usize].x + 1.0).abs() < 0.3)
        .map(|g| skinlab::paint::Touch { vertex: g, distance: 0.0 })
        .collect();
    let mut rec = StrokeRecord::new("paint");
    let dab = skinlab::paint::Dab { joint: right, brush: &brush, radius: 1.0, touches: &touches };
    skinlab::paint::apply_surface_dab(
        &mut m,
        skinlab::paint::DabTarget { instance: 0, prim: 0 },
        &dab,
        &rules,
        &topo,
        &mut rec,
    )
    .unwrap();
    for joint in [Some(left), None] {
        let mut work = m.clone();
        let mut rec = StrokeRecord::new("mirror");
        let out =
            mirror_weights(&mut work, &topo, MirrorDirection::PositiveToNegative, joint, &rules, &mut rec).unwrap();
        assert_eq!(out.interpolated, 0);
        assert!(out.changed > 0, "{joint:?}");
        for g in 0..s.len() as u32 {
            let Some(mg) = topo.mirror.get(g) else { continue };
            if s.rest_positions()[g as usize].x < -0.01 {
                let d = weight(&work, &topo, g, right) - weight(&work, &topo, mg, left);
                assert!(d.abs() < 1e-6, "{joint:?}: vertex {g}: {d}");
                if joint.is_none() {
                    let d = weight(&work, &topo, g, spine) - weight(&work, &topo, mg, spine);
                    assert!(d.abs() < 1e-6, "spine on vertex {g}");
                }
            }
        }
        rec.undo(&mut work);
        for (a, b) in work.meshes[0].primitives[0].influences.iter().zip(&m.meshes[0].primitives[0].influences) {
            assert_eq!(a.weights(), b.weights());
        }
    }
}

#[test]
fn the_symmetry_plane_is_found_over_every_part_together() {
    // A warped tube along x (x from 1 to 3.7, so no mirror across x; z bent, so none across z)
    // whose halves y > 0 and y < 0 are separate parts: neither part is symmetric by itself, the
    // two together are symmetric across y.
    let ring = |r: usize, k: usize| {
        let a = (k as f32 + 0.5) * std::f32::consts::TAU / 16.0;
        let z = 0.5 * a.cos();
        Vec3::new(1.0 + 0.3 * r as f32, 0.5 * a.sin(), z + 0.4 * z * z)
    };
    let points: Vec<Vec3> = (0..10).flat_map(|r| (0..16).map(move |k| ring(r, k))).collect();
    let (upper, lower): (Vec<Vec3>, Vec<Vec3>) = points.iter().copied().partition(|p| p.y > 0.0);
    assert!(!upper.is_empty() && upper.len() == lower.len());
    let axis = skinlab::rig::symmetry::symmetry_axis([upper.as_slice(), lower.as_slice()]);
    assert_eq!(axis, 1, "the parts mirror each other across y");
    // Each vertex of one part finds its mirror in the other.
    let all: Vec<Vec3> = upper.iter().chain(&lower).copied().collect();
    let map = skinlab::paint::MirrorMap::across_with_default_tolerance(&all, axis);
    for v in 0..upper.len() as u32 {
        let m = map.get(v).unwrap();
        assert!(m as usize >= upper.len(), "vertex {v} mirrors to {m} in its own part");
    }
}
