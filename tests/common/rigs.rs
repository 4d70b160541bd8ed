//! Synthetic rigs built directly as `Model`s: joints as TRS nodes with inverse bind matrices from
//! their rest globals, one skinned mesh node.

use glam::{DMat4, DQuat, DVec3, Vec3};
use skinlab::model::influences::VertexInfluences;
use skinlab::model::{
    Influences, JointSetTable, Mesh, Model, Node, NodeTransform, NodeTree, Primitive, Skin, SkinnedInstance, Topology,
    Trs,
};

/// A joint: parent joint index and rest TRS relative to it.
#[derive(Clone, Debug)]
pub struct JointSpec {
    pub name: String,
    pub parent: Option<usize>,
    pub rest: Trs,
}

/// Geometry and weights of the skinned mesh.
#[derive(Clone, Debug, Default)]
pub struct MeshSpec {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
    /// Raw `(joint, weight)` slots per vertex (normalised by the model's rules).
    pub weights: Vec<Vec<(u32, f32)>>,
}

pub fn joint(name: &str, parent: Option<usize>, translation: DVec3) -> JointSpec {
    JointSpec { name: name.into(), parent, rest: Trs { translation, ..Trs::default() } }
}

/// Builds a model: nodes 0..J are the joints, node J carries the mesh; the IBMs are the inverse
/// rest globals (rest pose = bind pose).
pub fn build(joints: &[JointSpec], mesh: &MeshSpec) -> Model {
    let j = joints.len();
    let mut nodes: Vec<Node> = joints
        .iter()
        .map(|js| Node {
            name: Some(js.name.clone()),
            parent: js.parent,
            children: vec![],
            rest: NodeTransform::Trs(js.rest),
            mesh: None,
            skin: None,
            ..Node::default()
        })
        .collect();
    for (i, js) in joints.iter().enumerate() {
        if let Some(p) = js.parent {
            nodes[p].children.push(i);
        }
    }
    nodes.push(Node {
        name: Some("mesh".into()),
        parent: None,
        children: vec![],
        rest: NodeTransform::Trs(Trs::default()),
        mesh: Some(0),
        skin: Some(0),
        ..Node::default()
    });
    let mut roots: Vec<usize> = (0..j).filter(|&i| joints[i].parent.is_none()).collect();
    roots.push(j);
    let tree = NodeTree::new(nodes, roots);
    let mut globals = vec![DMat4::IDENTITY; j + 1];
    for &i in &tree.order {
        let local = tree.nodes[i].rest.to_matrix();
        globals[i] = tree.nodes[i].parent.map_or(local, |p| globals[p] * local);
    }
    let raw: Vec<VertexInfluences> = mesh
        .weights
        .iter()
        .enumerate()
        .map(|(v, slots)| {
            let js: Vec<u32> = slots.iter().map(|s| s.0).collect();
            let ws: Vec<f32> = slots.iter().map(|s| s.1).collect();
            VertexInfluences::from_slots(v, &js, &ws, j).unwrap()
        })
        .collect();
    let k = raw.iter().map(|v| v.pairs.len()).max().unwrap_or(1);
    let mut table = JointSetTable::new(k);
    let influences = Influences::from_vertices(&raw, &mut table).unwrap();
    let skin = Skin {
        name: Some("skin".into()),
        joints: (0..j).collect(),
        joint_from_bind: (0..j).map(|i| globals[i].inverse()).collect(),
        sets: table,
    };
    let prim = Primitive {
        positions: mesh.positions.clone(),
        normals: (!mesh.normals.is_empty()).then(|| mesh.normals.clone()),
        triangles: mesh.triangles.clone(),
        topology: Topology::Triangles,
        influences: Some(influences),
        order: Default::default(),
    };
    Model {
        nodes: tree,
        meshes: vec![Mesh { name: Some("mesh".into()), primitives: vec![prim], ..Mesh::default() }],
        skins: vec![skin],
        clips: vec![],
        instances: vec![SkinnedInstance { node: j, mesh: 0, skin: 0 }],
        rigid_instances: vec![],
    }
}

/// A closed cylinder along +x from 0 to `length`, radius `radius`, with `rings` rings of
/// `segments` vertices and two cap centres; counter-clockwise (outward) winding.
pub fn cylinder_mesh(length: f32, radius: f32, rings: usize, segments: usize) -> MeshSpec {
    let mut m = MeshSpec::default();
    for r in 0..rings {
        let x = length * r as f32 / (rings - 1) as f32;
        for s in 0..segments {
            let a = std::f32::consts::TAU * s as f32 / segments as f32;
            let (sin, cos) = a.sin_cos();
            m.positions.push(Vec3::new(x, radius * cos, radius * sin));
            m.normals.push(Vec3::new(0.0, cos, sin));
        }
    }
    let idx = |r: usize, s: usize| (r * segments + s % segments) as u32;
    for r in 0..rings - 1 {
        for s in 0..segments {
            let (a, b, c, d) = (idx(r, s), idx(r, s + 1), idx(r + 1, s + 1), idx(r + 1, s));
            m.triangles.push([a, b, c]);
            m.triangles.push([a, c, d]);
        }
    }
    let start = m.positions.len() as u32;
    m.positions.push(Vec3::ZERO);
    m.normals.push(-Vec3::X);
    m.positions.push(Vec3::new(length, 0.0, 0.0));
    m.normals.push(Vec3::X);
    for s in 0..segments {
        m.triangles.push([start, idx(0, s + 1), idx(0, s)]);
        m.triangles.push([start + 1, idx(rings - 1, s), idx(rings - 1, s + 1)]);
    }
    m
}

/// A two-bone limb: joint 0 at the origin, joint 1 at x = length/2, both along +x, over a
/// cylinder whose weights blend linearly from joint 0 to joint 1 over x ∈ [length/4, 3·length/4].
pub fn two_bone_cylinder(rings: usize, segments: usize) -> Model {
    let length = 2.0;
    let mut mesh = cylinder_mesh(length, 0.25, rings, segments);
    mesh.weights = mesh
        .positions
        .iter()
        .map(|p| {
            let t = ((p.x - 0.5) / 1.0).clamp(0.0, 1.0);
            vec![(0, 1.0 - t), (1, t)]
        })
        .collect();
    build(&[joint("root", None, DVec3::ZERO), joint("mid", Some(0), DVec3::new(1.0, 0.0, 0.0))], &mesh)
}

/// Sets joint `node`'s rotation in `pose`.
pub fn rotate(pose: &mut skinlab::rig::Pose, node: usize, axis: DVec3, angle_rad: f64) {
    pose.set_rotation(node, DQuat::from_axis_angle(axis.normalize(), angle_rad));
}

/// Signed volume enclosed by a closed triangle mesh (divergence theorem).
pub fn enclosed_volume(positions: &[Vec3], triangles: &[[u32; 3]]) -> f64 {
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| positions[i as usize].as_dvec3());
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}
