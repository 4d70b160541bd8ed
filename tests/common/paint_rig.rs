//! Synthetic rigs for the weight-painting tests and benchmark: a capped-free cylinder along x,
//! symmetric about x = 0, with a UV seam (a duplicated column of vertices), driven by a chain of
//! joints along its axis named for mirroring ("Spine", "seg1.L", "seg1.R", ...).

#![allow(dead_code, clippy::unwrap_used)]

use glam::{DMat4, DVec3, Vec3};
use skinlab::model::influences::VertexInfluences;
use skinlab::model::{
    Influences, JointSetTable, Mesh, Model, Node, NodeTransform, NodeTree, Primitive, Skin, SkinnedInstance, Topology,
    Trs,
};

/// Half the cylinder's length.
pub const HALF_LENGTH: f32 = 2.0;
/// The cylinder's radius.
pub const RADIUS: f32 = 0.5;

/// A cylinder of `rings` rings of `segments` (+1 seam copy) vertices from x = −2 to 2, skinned to
/// `2 · side + 1` joints evenly spaced along x (each vertex weighted by the hat functions of the
/// two nearest joints), with a joint-set table of `slots` slots.
pub fn cylinder_rig(rings: usize, segments: usize, side: usize, slots: usize) -> Model {
    let n_joints = 2 * side + 1;
    let spacing = f64::from(HALF_LENGTH) / side.max(1) as f64;
    // Joint k sits at x = (k − side) · spacing; node index = joint index; the mesh node is last.
    let joint_x = |k: usize| (k as f64 - side as f64) * spacing;
    let name = |k: usize| -> String {
        if k == side {
            "Spine".to_owned()
        } else if k > side {
            format!("seg{}.L", k - side)
        } else {
            format!("seg{}.R", side - k)
        }
    };
    let parent = |k: usize| -> Option<usize> {
        if k == side {
            None
        } else if k > side {
            Some(k - 1)
        } else {
            Some(k + 1)
        }
    };
    let mut nodes = Vec::new();
    for k in 0..n_joints {
        let local_x = match parent(k) {
            None => joint_x(k),
            Some(p) => joint_x(k) - joint_x(p),
        };
        nodes.push(Node {
            name: Some(name(k)),
            parent: parent(k),
            children: Vec::new(),
            rest: NodeTransform::Trs(Trs { translation: DVec3::new(local_x, 0.0, 0.0), ..Trs::default() }),
            mesh: None,
            skin: None,
            ..Node::default()
        });
    }
    for k in 0..n_joints {
        if let Some(p) = parent(k) {
            nodes[p].children.push(k);
        }
    }
    nodes.push(Node {
        name: Some("body".to_owned()),
        parent: None,
        children: Vec::new(),
        rest: NodeTransform::Trs(Trs::default()),
        mesh: Some(0),
        skin: Some(0),
        ..Node::default()
    });
    let tree = NodeTree::new(nodes, vec![side, n_joints]);

    let cols = segments + 1;
    let mut positions = Vec::with_capacity(rings * cols);
    let mut normals = Vec::with_capacity(rings * cols);
    let mut weights = Vec::with_capacity(rings * cols);
    for r in 0..rings {
        let x = -HALF_LENGTH + 2.0 * HALF_LENGTH * r as f32 / (rings - 1) as f32;
        // Hat functions of the two nearest joints.
        let s = (f64::from(x) / spacing + side as f64).clamp(0.0, (n_joints - 1) as f64);
        let k0 = (s.floor() as usize).min(n_joints - 1);
        let f = (s - k0 as f64) as f32;
        let pairs = if f > 0.0 && k0 + 1 < n_joints {
            vec![(k0 as u16, 1.0 - f), ((k0 + 1) as u16, f)]
        } else {
            vec![(k0 as u16, 1.0)]
        };
        for c in 0..cols {
            let a = std::f32::consts::TAU * (c % segments) as f32 / segments as f32;
            let (sin, cos) = a.sin_cos();
            positions.push(Vec3::new(x, RADIUS * cos, RADIUS * sin));
            normals.push(Vec3::new(0.0, cos, sin));
            let mut pairs = pairs.clone();
            if slots < 2 {
                pairs.truncate(1);
                pairs[0].1 = 1.0;
            }
            weights.push(VertexInfluences { pairs });
        }
    }
    let mut triangles = Vec::new();
    for r in 0..rings - 1 {
        for c in 0..segments {
            let a = (r * cols + c) as u32;
            let b = a + 1;
            let d = a + cols as u32;
            let e = d + 1;
            triangles.push([a, d, b]);
            triangles.push([b, d, e]);
        }
    }
    let mut table = JointSetTable::new(slots);
    let influences = Influences::from_vertices(&weights, &mut table).ok();
    let joint_from_bind = (0..n_joints).map(|k| DMat4::from_translation(DVec3::new(-joint_x(k), 0.0, 0.0))).collect();
    Model {
        nodes: tree,
        meshes: vec![Mesh {
            name: Some("cylinder".to_owned()),
            primitives: vec![Primitive {
                positions,
                normals: Some(normals),
                triangles,
                topology: Topology::Triangles,
                influences,
                order: Default::default(),
            }],
            ..Mesh::default()
        }],
        skins: vec![Skin { name: None, joints: (0..n_joints).collect(), joint_from_bind, sets: table }],
        clips: Vec::new(),
        instances: vec![SkinnedInstance { node: n_joints, mesh: 0, skin: 0 }],
        rigid_instances: Vec::new(),
    }
}

/// The joint index of a joint name in the rig.
pub fn joint(model: &Model, name: &str) -> u16 {
    model.skins[0].joints.iter().position(|&n| model.nodes.nodes[n].name.as_deref() == Some(name)).unwrap() as u16
}

/// The first primitive's influences.
pub fn influences(model: &Model) -> &Influences {
    model.meshes[0].primitives[0].influences.as_ref().unwrap()
}

/// Vertex `v`'s weights on the first primitive, joints ascending.
pub fn weights(model: &Model, v: usize) -> Vec<(u16, f32)> {
    influences(model).vertex(v, &model.skins[0].sets).collect()
}

/// Every bit of a primitive's stored influences.
pub fn bits(inf: &Influences) -> (Vec<u32>, Vec<u32>) {
    (inf.weights().iter().map(|w| w.to_bits()).collect(), inf.packed_sets().to_vec())
}
