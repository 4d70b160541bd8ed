//! Weight painting on the shared real models as the editor does it (pick → surface footprint over
//! every primitive → dab → re-skin): every invariant (valid, normalised, within the limit, weld
//! groups identical, undo bit for bit) under random strokes, and mirroring across each model's
//! symmetry plane.
#![allow(clippy::unwrap_used, clippy::type_complexity, missing_docs)]

#[path = "common/paint_rig.rs"]
mod paint_rig;

use paint_rig::bits;

use glam::Vec3;
use skinlab::model::Model;
use skinlab::model::StrokeRecord;
use skinlab::paint::normalize::is_valid;
use skinlab::paint::{
    apply_surface_dab, footprint, reskin_after_dab, BlendMode, BrushSettings, Dab, DabTarget, FootprintOptions,
    ModelTopology, Ray, SurfaceScratch, Touch, View, WeightRules,
};
use skinlab::rig::Pose;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
/// The footprint of a dab at `hit` on primitive `target` over the whole surface (surface
/// vertices), as the editor gathers it.
fn surface_footprint(
    topo: &ModelTopology,
    m: &Model,
    out: &[Vec<DeformedPrimitive>],
    target: DabTarget,
    hit: &skinlab::paint::Hit,
    opts: &FootprintOptions,
    touches: &mut Vec<Touch>,
) {
    let s = &topo.surface;
    let part = s.parts()[s.part_of(m.instances[target.instance].mesh, target.prim).unwrap()];
    let hit = skinlab::paint::Hit {
        triangle: hit.triangle + part.first_triangle as usize,
        vertex: hit.vertex + part.first_vertex,
        ..*hit
    };
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    s.gather_deformed(out, &mut positions, &mut normals);
    footprint(&hit, &positions, &normals, s.triangles(), s.adjacency(), opts, &mut SurfaceScratch::default(), touches);
}

/// The shared real models, loaded when present.
fn real_models() -> Vec<(String, Model)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models");
    let names = [
        "RiggedSimple.glb",
        "RiggedFigure.glb",
        "CesiumMan.glb",
        "Fox.glb",
        "Knight.glb",
        "Character_HumanoidRig.glb",
        "Enemy_Flying_Gun.glb",
        "Stegosaurus.glb",
    ];
    names
        .iter()
        .filter_map(|n| {
            let path = std::path::Path::new(dir).join(n);
            path.exists().then(|| (n.to_string(), skinlab::io::load_model(&path).unwrap()))
        })
        .collect()
}

#[test]
fn real_models_keep_every_invariant_under_painting() {
    for (name, mut m) in real_models() {
        let topo = ModelTopology::new(&m);
        let original: Vec<Vec<Option<(Vec<u32>, Vec<u32>)>>> = m
            .meshes
            .iter()
            .map(|mesh| mesh.primitives.iter().map(|p| p.influences.as_ref().map(bits)).collect())
            .collect();
        let pairs: usize = topo.joint_mirrors.iter().enumerate().filter(|(j, &k)| *j != k as usize).count();
        let pose = Pose::rest();
        let method = SkinningMethod::Sbs;
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        deformer.deform_all(&m, &pose, method, &mut out);
        let (lo, hi) = m.rest_bounds();
        let diag = lo.distance(hi);
        let mut records = Vec::new();
        let mut landed = 0;
        for (i, mode) in [BlendMode::Add, BlendMode::Smooth, BlendMode::Replace, BlendMode::Blur, BlendMode::Subtract]
            .into_iter()
            .enumerate()
        {
            for (inst_i, inst) in m.instances.clone().iter().enumerate() {
                let prims = m.meshes[inst.mesh].primitives.len();
                let prim = i % prims;
                let buf = &out[inst_i][prim];
                if buf.positions.is_empty() || m.meshes[inst.mesh].primitives[prim].influences.is_none() {
                    continue;
                }
                let v = (buf.positions.len() * (i + 1)) / 7;
                let centre = buf.positions.iter().fold(Vec3::ZERO, |a, p| a + *p) / buf.positions.len() as f32;
                let away = (buf.positions[v] - centre).normalize_or(Vec3::Z);
                let ray = Ray { origin: buf.positions[v] + away * diag, direction: -away };
                let Some((target, hit)) = skinlab::paint::pick_model(&ray, &m, &out) else { continue };
                if m.meshes[m.instances[target.instance].mesh].primitives[target.prim].influences.is_none() {
                    continue;
                }
                let mut touches = Vec::new();
                let opts = FootprintOptions {
                    radius: 0.08 * diag,
                    whole_volume: i % 2 == 1,
                    front_faces_only: true,
                    view: Some(View::Perspective { eye: ray.origin }),
                };
                surface_footprint(&topo, &m, &out, target, &hit, &opts, &mut touches);
                let joint = (i * 7 % topo.surface.joint_nodes().len()) as u16;
                let b = BrushSettings { mode, strength: 0.6, value: 0.7, mirror_x: true, ..BrushSettings::default() };
                let mut rec = StrokeRecord::new("real");
                let dab = Dab { joint, brush: &b, radius: opts.radius, touches: &touches };
                let rules = WeightRules::default();
                let outcome = apply_surface_dab(&mut m, target, &dab, &rules, &topo, &mut rec).unwrap();
                landed += usize::from(!outcome.parts.is_empty());
                reskin_after_dab(&mut deformer, &m, &pose, &outcome, &mut out);
                records.push(rec);
            }
        }
        assert!(landed > 0, "{name}: no dab landed");
        for (mi, mesh) in m.meshes.iter().enumerate() {
            for (pi, p) in mesh.primitives.iter().enumerate() {
                let Some(inf) = &p.influences else { continue };
                let skin = m.instances.iter().find(|i| i.mesh == mi).map_or(0, |i| i.skin);
                for v in 0..inf.len() {
                    let ws: Vec<(u16, f32)> = inf.vertex(v, &m.skins[skin].sets).collect();
                    assert!(ws.is_empty() || is_valid(&ws), "{name} mesh {mi} prim {pi} vertex {v}: {ws:?}");
                }
            }
        }
        let mut fresh = Vec::new();
        Deformer::new().deform_all(&m, &pose, method, &mut fresh);
        assert_eq!(out, fresh, "{name}: partial re-skinning == full pass");
        for rec in records.iter().rev() {
            rec.undo(&mut m);
        }
        for (mi, mesh) in m.meshes.iter().enumerate() {
            for (pi, p) in mesh.primitives.iter().enumerate() {
                let (Some(inf), Some(orig)) = (&p.influences, &original[mi][pi]) else { continue };
                let now = bits(inf);
                assert_eq!(now.1, orig.1, "{name}: set words after undo");
                if now.0.len() == orig.0.len() {
                    assert_eq!(now.0, orig.0, "{name}: weights after undo");
                }
            }
        }
        eprintln!("{name}: {landed} dabs landed, {pairs} mirrored joints");
    }
}

#[test]
fn real_models_mirror_across_their_symmetry_plane() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/models");
    // (file, expected axis, minimum share of prim 0 mirrored, a joint pair)
    let cases = [
        ("CesiumMan.glb", 1, 0.99, ("leg_joint_L_1", "leg_joint_R_1")),
        ("Fox.glb", 0, 0.95, ("b_LeftUpperArm_09", "b_RightUpperArm_06")),
        ("RiggedFigure.glb", 0, 0.99, ("arm_joint_L_2", "arm_joint_R_2")),
    ];
    for (file, axis, share, (left, right)) in cases {
        let path = std::path::Path::new(dir).join(file);
        if !path.exists() {
            continue;
        }
        let m = skinlab::io::load_model(&path).unwrap();
        let topo = ModelTopology::new(&m);
        assert_eq!(topo.mirror_axis, axis, "{file}");
        let n = m.meshes[0].primitives[0].positions.len();
        let matched = topo.mirror.matched();
        assert!(matched as f64 >= share * n as f64, "{file}: {matched} of {n} mirrored");
        let find = |name: &str| {
            m.skins[0].joints.iter().position(|&j| m.nodes.nodes[j].name.as_deref() == Some(name)).unwrap() as u16
        };
        assert_eq!(topo.mirror_joint(find(left)), find(right), "{file}");
        assert_eq!(topo.mirror_joint(find(right)), find(left), "{file}");
    }
}
