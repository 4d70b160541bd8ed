//! The weight tools beyond brushes, through the core API: the selection mask (box, lasso,
//! grow/shrink, hide/reveal, weld groups selected as one) on a synthetic grid with known answers;
//! painting and tools restricted to the selection; gradient fill monotone along a path; the weight
//! table's operations; and, on the real multi-primitive models, every tool leaves every weld group
//! identical and undoes bit for bit. Weight transfer is in `tests/weight_transfer.rs`.

#![allow(clippy::unwrap_used)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;

use common::rigs;
use glam::{DVec3, Mat4, Vec2, Vec3};
use proptest::prelude::*;
use skinlab::model::influences::VertexInfluences;
use skinlab::model::StrokeRecord;
use skinlab::model::{Influences, Model, Primitive};
use skinlab::paint::gradient::distances_from;
use skinlab::paint::transfer::{apply_transfer, plan_transfer, TransferOptions};
use skinlab::paint::{
    apply_table_op, disagreeing_groups, gradient_fill, tools, weight_table, Gradient, ModelSurface, ModelTopology,
    ScreenProjection, SelectOp, Selection, SurfacePoint, TableOp, WeightRules,
};

const MULTI: [&str; 4] = ["Character_HumanoidRig.glb", "Knight.glb", "Enemy_Flying_Gun.glb", "Stegosaurus.glb"];

fn load(name: &str) -> Option<Model> {
    common::shared_model(name)
}

/// A 5 × 5 grid of unit squares' corners at z = 0 (x, y in 0..=4) in two primitives that share
/// column x = 2 (its vertices duplicated: weld groups across primitives); two joints, weights
/// blending along x.
fn grid() -> Model {
    let half = |x0: u32| {
        let mut m = rigs::MeshSpec::default();
        for y in 0..5u32 {
            for x in x0..x0 + 3 {
                m.positions.push(Vec3::new(x as f32, y as f32, 0.0));
                let t = x as f32 / 4.0;
                m.weights.push(vec![(0, 1.0 - t), (1, t)]);
            }
        }
        let idx = |x: u32, y: u32| y * 3 + x;
        for y in 0..4 {
            for x in 0..2 {
                m.triangles.push([idx(x, y), idx(x + 1, y), idx(x + 1, y + 1)]);
                m.triangles.push([idx(x, y), idx(x + 1, y + 1), idx(x, y + 1)]);
            }
        }
        m
    };
    let joints = [rigs::joint("a", None, DVec3::ZERO), rigs::joint("b", Some(0), DVec3::new(2.0, 0.0, 0.0))];
    let mut model = rigs::build(&joints, &half(0));
    let right = half(2);
    let raw: Vec<VertexInfluences> = right
        .weights
        .iter()
        .map(|w| VertexInfluences { pairs: w.iter().filter(|p| p.1 > 0.0).map(|&(j, x)| (j as u16, x)).collect() })
        .collect();
    let influences = Influences::from_vertices(&raw, &mut model.skins[0].sets).unwrap();
    let mut prim: Primitive = model.meshes[0].primitives[0].clone();
    prim.positions = right.positions;
    prim.triangles = right.triangles;
    prim.normals = None;
    prim.influences = Some(influences);
    model.meshes[0].primitives.push(prim);
    model
}

/// Looking down -z at the grid: pixel = ((x + 0.5) · 100, (4.5 − y) · 100).
fn top_view() -> ScreenProjection {
    ScreenProjection {
        view_proj: Mat4::orthographic_rh(-0.5, 4.5, -0.5, 4.5, -1.0, 1.0),
        size: Vec2::new(500.0, 500.0),
    }
}

/// The (x, y) of every selected surface vertex, sorted, with repeats (weld copies).
fn selected_xy(s: &Selection, surface: &ModelSurface) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = (0..surface.len() as u32)
        .filter(|&g| s.is_selected(g))
        .map(|g| {
            let p = surface.rest_positions()[g as usize];
            (p.x as i32, p.y as i32)
        })
        .collect();
    out.sort_unstable();
    out
}

fn columns(cols: &[i32]) -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    for &x in cols {
        for y in 0..5 {
            out.push((x, y));
            if x == 2 {
                out.push((x, y));
            }
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn box_lasso_grow_shrink_hide_and_reveal_have_known_answers() {
    let m = grid();
    let surface = ModelSurface::new(&m);
    assert_eq!(surface.len(), 30, "two primitives of 15 vertices");
    let adj = surface.adjacency();
    let view = top_view();
    let pos = surface.rest_positions();
    assert_eq!(view.to_screen(Vec3::new(2.0, 2.0, 0.0)), Some(Vec2::new(250.0, 250.0)));
    let mut s = Selection::new(surface.len());
    // Box over columns 1..=3: the shared column's copies in both primitives come along.
    s.select_box(adj, pos, &view, Vec2::new(140.0, -10.0), Vec2::new(360.0, 510.0), SelectOp::Replace);
    assert_eq!(selected_xy(&s, &surface), columns(&[1, 2, 3]));
    // Ctrl-drag removes column 3, Shift-drag adds column 0 (dragged right to left).
    s.select_box(adj, pos, &view, Vec2::new(420.0, 510.0), Vec2::new(320.0, -10.0), SelectOp::Subtract);
    assert_eq!(selected_xy(&s, &surface), columns(&[1, 2]));
    s.select_box(adj, pos, &view, Vec2::new(90.0, 0.0), Vec2::new(0.0, 500.0), SelectOp::Add);
    assert_eq!(selected_xy(&s, &surface), columns(&[0, 1, 2]));
    // A lasso around (2, 2) alone: one weld group, two copies.
    let square = [Vec2::new(220.0, 220.0), Vec2::new(280.0, 220.0), Vec2::new(280.0, 280.0), Vec2::new(220.0, 280.0)];
    s.select_lasso(adj, pos, &view, &square, SelectOp::Replace);
    assert_eq!(selected_xy(&s, &surface), vec![(2, 2), (2, 2)]);
    // Grow: the 1-ring of (2, 2) on this triangulation (diagonals run from (x, y) to (x+1, y+1)).
    s.grow(adj);
    let mut ring = vec![(1, 1), (1, 2), (2, 1), (2, 3), (3, 2), (3, 3)];
    ring.extend([(2, 2), (2, 2), (2, 1), (2, 3)]);
    ring.sort_unstable();
    assert_eq!(selected_xy(&s, &surface), ring);
    s.shrink(adj);
    assert_eq!(selected_xy(&s, &surface), vec![(2, 2), (2, 2)], "shrink undoes grow here");
    s.shrink(adj);
    assert!(selected_xy(&s, &surface).is_empty());
    // Select column 0, grow twice, shrink once: columns 0 and 1.
    s.select_box(adj, pos, &view, Vec2::new(0.0, 0.0), Vec2::new(100.0, 500.0), SelectOp::Replace);
    s.grow(adj);
    s.grow(adj);
    assert_eq!(selected_xy(&s, &surface), columns(&[0, 1, 2]));
    s.shrink(adj);
    assert_eq!(selected_xy(&s, &surface), columns(&[0, 1]));
    // Hide them: not selectable, not editable; select all takes the rest; reveal selects them.
    s.hide(adj, false);
    assert_eq!(s.hidden_count(), 10);
    assert!(selected_xy(&s, &surface).is_empty());
    s.select_all(adj);
    assert_eq!(selected_xy(&s, &surface), columns(&[2, 3, 4]));
    s.select_box(adj, pos, &view, Vec2::new(-10.0, -10.0), Vec2::new(510.0, 510.0), SelectOp::Replace);
    assert_eq!(selected_xy(&s, &surface), columns(&[2, 3, 4]), "hidden vertices cannot be box-selected");
    let unrestricted = s.editable_mask(false).unwrap();
    assert_eq!(unrestricted.iter().filter(|&&e| e).count(), 20);
    s.select_none();
    assert_eq!(s.editable_mask(true).unwrap().iter().filter(|&&e| e).count(), 0);
    s.reveal();
    assert_eq!(s.hidden_count(), 0);
    assert_eq!(selected_xy(&s, &surface), columns(&[0, 1]));
    assert_eq!(s.editable_mask(false), None, "nothing hidden: no mask");
    s.invert(adj);
    assert_eq!(selected_xy(&s, &surface), columns(&[2, 3, 4]));
    // Shift+H hides the unselected.
    s.hide(adj, true);
    assert_eq!(s.hidden_count(), 10);
    assert_eq!(selected_xy(&s, &surface), columns(&[2, 3, 4]));
}

#[test]
fn tools_and_painting_change_only_the_selection_when_restricted() {
    let mut m = grid();
    let topo = ModelTopology::new(&m);
    let surface = &topo.surface;
    let adj = surface.adjacency();
    let mut s = Selection::new(surface.len());
    s.select_box(
        adj,
        surface.rest_positions(),
        &top_view(),
        Vec2::new(150.0, 0.0),
        Vec2::new(250.0, 500.0),
        SelectOp::Replace,
    );
    let rules = WeightRules { mask: s.editable_mask(true), ..WeightRules::default() };
    let before: Vec<Vec<(u16, f32)>> = (0..surface.len() as u32).map(|g| surface.weights(&m, g)).collect();
    let mut rec = StrokeRecord::new("smooth");
    let out = tools::smooth_all(&mut m, &topo, &rules, 1.0, 3, &mut rec).unwrap();
    assert!(out.changed > 0);
    let mut rec2 = StrokeRecord::new("set");
    apply_table_op(
        &mut m,
        surface,
        &rules,
        &(0..surface.len() as u32).collect::<Vec<_>>(),
        &TableOp::Set { joint: 1, value: 0.9 },
        &mut rec2,
    )
    .unwrap();
    for g in 0..surface.len() as u32 {
        let now = surface.weights(&m, g);
        if s.is_selected(g) {
            assert!((now.iter().find(|p| p.0 == 1).unwrap().1 - 0.9).abs() < 1e-6, "selected {g}: {now:?}");
        } else {
            assert_eq!(now, before[g as usize], "unselected vertex {g} changed");
        }
    }
    // Hidden vertices are never written, even unrestricted.
    s.hide(adj, false);
    let rules = WeightRules { mask: s.editable_mask(false), ..WeightRules::default() };
    let hidden: Vec<u32> = (0..surface.len() as u32).filter(|&g| s.is_hidden(g)).collect();
    let kept: Vec<Vec<(u16, f32)>> = hidden.iter().map(|&g| surface.weights(&m, g)).collect();
    let mut rec3 = StrokeRecord::new("normalize");
    let all: Vec<u32> = (0..surface.len() as u32).collect();
    apply_table_op(&mut m, surface, &rules, &all, &TableOp::Set { joint: 0, value: 0.5 }, &mut rec3).unwrap();
    for (g, w) in hidden.iter().zip(&kept) {
        assert_eq!(&surface.weights(&m, *g), w);
    }
}

#[test]
fn gradient_is_monotone_along_a_limb_and_hits_its_end_values() {
    let mut m = rigs::two_bone_cylinder(21, 12);
    let topo = ModelTopology::new(&m);
    let surface = &topo.surface;
    let tris = surface.triangles();
    // A: vertex 0 (ring 0 at x = 0); B: vertex 240 (ring 20 at x = 2), as points of a triangle.
    let at = |g: u32| {
        let t = tris.iter().position(|t| t.contains(&g)).unwrap();
        let mut barycentric = [0.0; 3];
        barycentric[tris[t].iter().position(|&k| k == g).unwrap()] = 1.0;
        SurfacePoint { triangle: t as u32, barycentric }
    };
    let (start, end) = (at(0), at(240));
    let gradient = Gradient { joint: 1, start, end, start_value: 0.0, end_value: 1.0 };
    let mut rec = StrokeRecord::new("gradient");
    let before = common::weight_bits(&m);
    let out = gradient_fill(&mut m, surface, &WeightRules::default(), &gradient, &mut rec).unwrap();
    assert!(out.tool.changed > 0);
    let da = distances_from(surface, start);
    // Along a path from A to B (the line of vertices at angle 0 of every ring): monotone.
    let line: Vec<u32> = (0..21).map(|r| r * 12).collect();
    let w: Vec<f32> =
        line.iter().map(|&g| surface.weights(&m, g).iter().find(|p| p.0 == 1).map_or(0.0, |p| p.1)).collect();
    assert!(w.windows(2).all(|p| p[1] >= p[0] - 1e-6), "not monotone: {w:?}");
    let (a_corner, b_corner) = (0u32, 240u32);
    let weight = |g: u32| surface.weights(&m, g).iter().find(|p| p.0 == 1).map_or(0.0, |p| p.1);
    assert!(weight(a_corner) < 1e-6, "A holds the start value: {}", weight(a_corner));
    assert!((weight(b_corner) - 1.0).abs() < 1e-6, "B holds the end value: {}", weight(b_corner));
    assert!(da[a_corner as usize] == 0.0 && da[b_corner as usize] > 1.9);
    // Halfway along the surface (x = 1 ring at angle 0), near 0.5.
    assert!((w[10] - 0.5).abs() < 0.1, "{}", w[10]);
    // Every vertex is valid and one undo restores the file bit for bit.
    for g in 0..surface.len() as u32 {
        let s: f32 = surface.weights(&m, g).iter().map(|p| p.1).sum();
        assert!((s - 1.0).abs() < 1e-5);
    }
    rec.undo(&mut m);
    assert_eq!(common::weight_bits(&m), before);
    // A locked joint cannot be filled.
    let mut locked = WeightRules::default();
    locked.set_locked(1, true);
    assert!(gradient_fill(&mut m, surface, &locked, &gradient, &mut StrokeRecord::new("x")).is_err());
}

#[test]
fn the_weight_table_sets_scales_normalises_and_pastes() {
    let mut m = rigs::two_bone_cylinder(9, 8);
    let topo = ModelTopology::new(&m);
    let surface = &topo.surface;
    let groups: Vec<u32> = (24..40).collect();
    let table = weight_table(&m, surface, &groups);
    assert_eq!(table.joints, vec![0, 1]);
    assert_eq!(table.rows.len(), 16);
    let before = common::weight_bits(&m);
    let rules = WeightRules::default();
    let mut rec = StrokeRecord::new("table");
    apply_table_op(&mut m, surface, &rules, &groups, &TableOp::Set { joint: 0, value: 0.3 }, &mut rec).unwrap();
    let t = weight_table(&m, surface, &groups);
    assert!(t.rows.iter().all(|r| (r.1[0] - 0.3).abs() < 1e-6 && (r.1[1] - 0.7).abs() < 1e-6), "{t:?}");
    apply_table_op(&mut m, surface, &rules, &groups, &TableOp::Scale { joint: 0, factor: 2.0 }, &mut rec).unwrap();
    let t = weight_table(&m, surface, &groups);
    assert!(t.rows.iter().all(|r| (r.1[0] - 0.6).abs() < 1e-6 && (r.1[1] - 0.4).abs() < 1e-6), "{t:?}");
    // Copy vertex 0 (all on the root) and paste onto the selection.
    let copied = surface.weights(&m, 0);
    assert_eq!(copied, vec![(0, 1.0)]);
    apply_table_op(&mut m, surface, &rules, &groups, &TableOp::Paste(copied.clone()), &mut rec).unwrap();
    assert!(groups.iter().all(|&g| surface.weights(&m, g) == copied));
    // Setting the only influence to 0 moves the weight to the nearest joint (the child here).
    apply_table_op(&mut m, surface, &rules, &groups[..1], &TableOp::Set { joint: 0, value: 0.0 }, &mut rec).unwrap();
    assert_eq!(surface.weights(&m, groups[0]), vec![(1, 1.0)]);
    // A locked joint is refused; normalise keeps locked weights.
    let mut locked = WeightRules::default();
    locked.set_locked(1, true);
    let err = apply_table_op(&mut m, surface, &locked, &groups, &TableOp::Set { joint: 1, value: 0.5 }, &mut rec);
    assert!(err.is_err());
    apply_table_op(&mut m, surface, &locked, &groups, &TableOp::Normalize, &mut rec).unwrap();
    rec.undo(&mut m);
    assert_eq!(common::weight_bits(&m), before, "one record undoes every operation bit for bit");
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Gradient(u32, u32, u8),
    Set(u16, u8),
    Scale(u16, u8),
    Normalize,
    Paste(u32),
    Transfer,
    SmoothRestricted,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (any::<u32>(), any::<u32>(), any::<u8>()).prop_map(|(a, b, v)| Step::Gradient(a, b, v)),
        (any::<u16>(), any::<u8>()).prop_map(|(j, v)| Step::Set(j, v)),
        (any::<u16>(), any::<u8>()).prop_map(|(j, v)| Step::Scale(j, v)),
        Just(Step::Normalize),
        any::<u32>().prop_map(Step::Paste),
        Just(Step::Transfer),
        Just(Step::SmoothRestricted),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x7001_5EED),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_weight_tool_keeps_weld_groups_identical_and_undoes_exactly(
        steps in prop::collection::vec(step(), 1..6),
        model in 0usize..MULTI.len(),
        region in (0.0f32..0.8, 0.0f32..0.8, 0.1f32..0.6),
    ) {
        let Some(mut m) = load(MULTI[model]) else { return Ok(()) };
        let topo = ModelTopology::new(&m);
        let s = &topo.surface;
        let adj = s.adjacency();
        let shipped = disagreeing_groups(&m, s, 0.0);
        let original = common::weight_bits(&m);
        // A box over part of the model seen from the front (x right, y up), grown once.
        let (lo, hi) = m.rest_bounds();
        let view = ScreenProjection {
            view_proj: Mat4::orthographic_rh(lo.x, hi.x, lo.y, hi.y, -hi.z - 1.0, -lo.z + 1.0),
            size: Vec2::new(1000.0, 1000.0),
        };
        let mut sel = Selection::new(s.len());
        let (x, y, w) = region;
        let a = Vec2::new(x, y) * 1000.0;
        sel.select_box(adj, s.rest_positions(), &view, a, a + Vec2::splat(w * 1000.0), SelectOp::Replace);
        sel.grow(adj);
        let groups = sel.selected_groups(adj);
        let rules = WeightRules { mask: sel.editable_mask(true), ..WeightRules::default() };
        let joints = s.joint_nodes().len() as u16;
        let tris = s.triangles().len() as u32;
        let mut records = Vec::new();
        for &st in &steps {
            let mut rec = StrokeRecord::new("step");
            match st {
                Step::Gradient(a, b, v) => {
                    let g = Gradient {
                        joint: (a as u16) % joints,
                        start: SurfacePoint { triangle: a % tris, barycentric: [0.2, 0.3, 0.5] },
                        end: SurfacePoint { triangle: b % tris, barycentric: [1.0, 0.0, 0.0] },
                        start_value: f32::from(v) / 255.0,
                        end_value: 1.0 - f32::from(v) / 255.0,
                    };
                    gradient_fill(&mut m, s, &rules, &g, &mut rec).unwrap();
                }
                Step::Set(j, v) => {
                    apply_table_op(&mut m, s, &rules, &groups, &TableOp::Set { joint: j % joints, value: f32::from(v) / 255.0 }, &mut rec).unwrap();
                }
                Step::Scale(j, v) => {
                    apply_table_op(&mut m, s, &rules, &groups, &TableOp::Scale { joint: j % joints, factor: f32::from(v) / 64.0 }, &mut rec).unwrap();
                }
                Step::Normalize => {
                    apply_table_op(&mut m, s, &rules, &groups, &TableOp::Normalize, &mut rec).unwrap();
                }
                Step::Paste(v) => {
                    let from = s.weights(&m, v % s.len() as u32);
                    apply_table_op(&mut m, s, &rules, &groups, &TableOp::Paste(from), &mut rec).unwrap();
                }
                Step::Transfer => {
                    let source = m.clone();
                    let plan = plan_transfer(&source, s, &m, s, &rules, &TransferOptions::default()).unwrap();
                    apply_transfer(&mut m, s, &rules, &plan, &mut rec).unwrap();
                }
                Step::SmoothRestricted => {
                    tools::smooth_all(&mut m, &topo, &rules, 0.7, 2, &mut rec).unwrap();
                }
            }
            let bad = disagreeing_groups(&m, s, 0.0);
            prop_assert!(bad.iter().all(|g| shipped.contains(g)), "{}: {} weld groups disagree after {:?}", MULTI[model], bad.len(), st);
            // Nothing outside the selection changed.
            for e in rec.entries() {
                let part = s.part_of(e.mesh, e.prim).unwrap();
                let g = s.parts()[part].first_vertex + e.vertex;
                prop_assert!(sel.is_selected(g), "{}: {:?} wrote unselected vertex {g}", MULTI[model], st);
            }
            records.push(rec);
        }
        for r in records.iter().rev() {
            r.undo(&mut m);
        }
        prop_assert!(common::weight_bits(&m) == original, "{}: undo is not bit for bit", MULTI[model]);
    }
}
