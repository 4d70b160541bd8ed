//! The node tree: names, parents, rest transforms. `order` lists every node with its parent first,
//! so forward kinematics is one pass over it.

use glam::{DMat3, DMat4, DQuat, DVec3};

/// A local transform as translation, rotation and scale (glTF's TRS): `T · R · S`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Translation.
    pub translation: DVec3,
    /// Rotation (unit quaternion; normalised before use).
    pub rotation: DQuat,
    /// Scale along the local axes.
    pub scale: DVec3,
}

impl Default for Trs {
    fn default() -> Self {
        Self { translation: DVec3::ZERO, rotation: DQuat::IDENTITY, scale: DVec3::ONE }
    }
}

impl Trs {
    /// `T · R · S` with the rotation normalised (spec: every quaternion is normalised before use).
    #[must_use]
    pub fn to_matrix(&self) -> DMat4 {
        DMat4::from_scale_rotation_translation(self.scale, self.rotation.normalize(), self.translation)
    }

    /// Decomposes a node matrix as the spec says: T the last column, S the column norms,
    /// R the rotation of the polar decomposition of the 3x3 part.
    #[must_use]
    pub fn from_matrix(m: DMat4) -> Self {
        let a = DMat3::from_mat4(m);
        let scale = DVec3::new(a.x_axis.length(), a.y_axis.length(), a.z_axis.length());
        let rotation = crate::maths::polar_rotation(a)
            .map(|r| DQuat::from_mat3(&r))
            .unwrap_or_else(|| m.to_scale_rotation_translation().1);
        Self { translation: m.w_axis.truncate(), rotation: rotation.normalize(), scale }
    }
}

/// How a node stores its rest transform in the file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeTransform {
    /// Separate translation, rotation and scale.
    Trs(Trs),
    /// A full matrix (decomposed into TRS when a pose or an animation overrides a component).
    Matrix(DMat4),
}

impl Default for NodeTransform {
    fn default() -> Self {
        Self::Trs(Trs::default())
    }
}

impl NodeTransform {
    /// The local matrix `parent_from_node`.
    #[must_use]
    pub fn to_matrix(&self) -> DMat4 {
        match self {
            Self::Trs(trs) => trs.to_matrix(),
            Self::Matrix(m) => *m,
        }
    }

    /// The TRS form (a matrix is decomposed as the spec says).
    #[must_use]
    pub fn to_trs(&self) -> Trs {
        match self {
            Self::Trs(trs) => *trs,
            Self::Matrix(m) => Trs::from_matrix(*m),
        }
    }
}

/// One node of the tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    /// The node's name in the file, if any.
    pub name: Option<String>,
    /// Parent node index.
    pub parent: Option<usize>,
    /// Child node indices, in file order.
    pub children: Vec<usize>,
    /// The rest (stored) local transform.
    pub rest: NodeTransform,
    /// Mesh index, if the node draws a mesh.
    pub mesh: Option<usize>,
    /// Skin index, if the node's mesh is skinned.
    pub skin: Option<usize>,
    /// Where the joint's bone ends, in the node's own frame (Blender's tail; glTF has none, so
    /// it travels in the node's `extras`). `None`: derived from the children when needed.
    pub bone_tail: Option<DVec3>,
    /// Blender's bone roll in radians: the twist of the node's frame about its head-to-tail axis
    /// relative to Blender's default frame for that axis (`rig::bone` computes it). Kept in extras.
    pub bone_roll: Option<f64>,
    /// The node's index in the file it was imported from; `None` for nodes made in the editor
    /// (the exporter carries the file's node object, cameras and extensions included, over).
    pub source: Option<usize>,
    /// For a helper joint of an LBS emulation: its transform as a map of its parent's rotation,
    /// used when no pose or key sets the node (kept in extras, `io::driver_extras`).
    pub driver: Option<super::driver::HelperDriver>,
}

/// Why a node key (a name or `#N`) names no single node.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NodeKeyError {
    /// No node carries that name, or the index is out of range.
    #[error("no node is named or numbered {0:?}")]
    Unknown(String),
    /// Several nodes carry the name.
    #[error("{name:?} names {} nodes ({}); use one of those keys", .candidates.len(), .candidates.join(", "))]
    Ambiguous {
        /// The ambiguous name.
        name: String,
        /// The `#N` keys of the nodes carrying it.
        candidates: Vec<String>,
    },
}

/// Every node of the file with its topology.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeTree {
    /// Nodes by index (the file's node order).
    pub nodes: Vec<Node>,
    /// Every node index, each after its parent.
    pub order: Vec<usize>,
    /// Roots of the default scene.
    pub scene_roots: Vec<usize>,
}

impl NodeTree {
    /// Builds the tree from nodes whose `parent`/`children` are already consistent, computing
    /// `order` (parents first).
    #[must_use]
    pub fn new(nodes: Vec<Node>, scene_roots: Vec<usize>) -> Self {
        let mut order = Vec::with_capacity(nodes.len());
        let mut stack: Vec<usize> = (0..nodes.len()).rev().filter(|&i| nodes[i].parent.is_none()).collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(nodes[i].children.iter().rev().copied());
        }
        Self { nodes, order, scene_roots }
    }

    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no nodes.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The key that names node `idx` in pose files and output: its name, or `#N` when unnamed.
    #[must_use]
    pub fn key(&self, idx: usize) -> String {
        match self.nodes.get(idx).and_then(|n| n.name.as_deref()) {
            Some(name) if !name.is_empty() => name.to_owned(),
            _ => format!("#{idx}"),
        }
    }

    /// A key that is unique: the name when only one node carries it, `#N` otherwise.
    #[must_use]
    pub fn unique_key(&self, idx: usize) -> String {
        let key = self.key(idx);
        if key.starts_with('#') || self.find(&key).is_ok() {
            key
        } else {
            format!("#{idx}")
        }
    }

    /// Resolves a key (a node name, or `#N`) to a node index.
    pub fn find(&self, key: &str) -> Result<usize, NodeKeyError> {
        if let Some(idx) = key.strip_prefix('#').and_then(|n| n.parse::<usize>().ok()) {
            if idx < self.nodes.len() {
                return Ok(idx);
            }
        }
        let hits: Vec<usize> = (0..self.nodes.len()).filter(|&i| self.nodes[i].name.as_deref() == Some(key)).collect();
        match hits.as_slice() {
            [] => Err(NodeKeyError::Unknown(key.to_owned())),
            [one] => Ok(*one),
            many => Err(NodeKeyError::Ambiguous {
                name: key.to_owned(),
                candidates: many.iter().map(|i| format!("#{i}")).collect(),
            }),
        }
    }

    /// Nodes of the default scene (roots and all descendants), in increasing index.
    #[must_use]
    pub fn scene_nodes(&self) -> Vec<usize> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = self.scene_roots.clone();
        while let Some(i) = stack.pop() {
            if i < seen.len() && !seen[i] {
                seen[i] = true;
                stack.extend(self.nodes[i].children.iter().copied());
            }
        }
        (0..self.nodes.len()).filter(|&i| seen[i]).collect()
    }

    /// Depth of a node (roots have depth 0).
    #[must_use]
    pub fn depth(&self, mut idx: usize) -> usize {
        let mut d = 0;
        while let Some(p) = self.nodes.get(idx).and_then(|n| n.parent) {
            d += 1;
            idx = p;
        }
        d
    }
}
