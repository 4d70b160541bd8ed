//! Skeleton edits on a [`Model`]: add, delete, move, reparent, rename, symmetrize and orient
//! joints, and create a skin for an unskinned mesh. Each edit is one plain function that returns a
//! [`SkeletonRecord`] (undo and redo, bit for bit).
//!
//! **Spaces.** Positions are given in a skin's *bind space*: the space of the mesh's stored
//! positions, where joint `j` sits at `inverse(joint_from_bind[j]) · 0` (its *bind frame*). For a
//! joint node `n` the rest pose's `model_from_node[n] · joint_from_bind[j]` (the spec's `C_j` at
//! rest, identity when the rest pose is the bind pose) is its *rest offset*. Every edit keeps
//! each joint's rest offset, recomputing `joint_from_bind = inverse(model_from_node) · C` for
//! every joint whose rest global changed, so the rest pose stays the bind pose and the mesh does
//! not move on screen. A new joint takes its parent's rest offset.
//!
//! **Undo.** A record keeps the skeleton state (nodes, skins with their joint-set tables, mesh
//! instances, and the clips only when an edit changed them) before and after, and per-vertex
//! snapshots of the weights it changed: skeleton-sized, never whole meshes (creating a skin keeps
//! the new influences, which did not exist before).
//!
//! After an edit that changes a skin's joint list or set table (add, delete, symmetrize, create
//! skin) a prepared `skinning::Deformer` must be prepared again; node indices change only on
//! delete ([`SkeletonRecord::node_map`]).

mod create_skin;
mod placement;
mod structure;
mod symmetrize;
mod symmetrize_plan;

use glam::{DMat3, DMat4, DVec3};

pub use create_skin::{attach_meshes, create_skin, meshes_in_space, skin_space};
pub use placement::{joint_roll, move_joint, orient_joint, orient_joint_to, roll_axis, set_roll};
pub use structure::{add_joint, delete_joint, rename_node, reparent};
pub use symmetrize::symmetrize;
pub use symmetrize_plan::SymmetrizeReport;

use super::fk::model_from_node;
use super::Pose;
use crate::model::StrokeRecord;
use crate::model::{Clip, Influences, Model, Node, NodeTransform, NodeTree, Skin, SkinnedInstance};

/// Why a skeleton edit was refused (nothing was changed). Displays as one line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SkeletonEditError {
    /// The node index is out of range.
    #[error("there is no node #{0}")]
    NoSuchNode(usize),
    /// The node is not a joint of any skin.
    #[error("{0} is not a joint of any skin")]
    NotAJoint(String),
    /// A name is empty or only whitespace.
    #[error("a joint name cannot be empty")]
    EmptyName,
    /// A name contains a control character.
    #[error("the name {0:?} contains a control character")]
    BadName(String),
    /// Another node already carries the name.
    #[error("the name {name:?} is already used by node #{other}")]
    NameTaken {
        /// The requested name.
        name: String,
        /// The node that has it.
        other: usize,
    },
    /// Reparenting would make a node its own ancestor.
    #[error("cannot parent {node} under {parent}: {parent} is {node} or one of its descendants")]
    Cycle {
        /// The node being moved.
        node: String,
        /// The requested parent.
        parent: String,
    },
    /// A position or transform is not finite.
    #[error("the position of {0} is not finite")]
    NotFinite(String),
    /// The edit would give a node or a joint's bind matrix numbers that 32-bit floats (glTF's)
    /// cannot hold.
    #[error("the edit would give {0} a transform beyond 32-bit floats (about ±3.4e38), which glTF cannot store")]
    OutOfRange(String),
    /// A name of the form `#N`, which joint arguments read as node N.
    #[error("the name {0:?} reads as a node number (#N names node N): choose another")]
    NumberName(String),
    /// Deleting a joint whose weights have no parent joint to go to.
    #[error("cannot delete {0}: vertices are weighted to it and it has no parent joint to take the weights")]
    NoParentForWeights(String),
    /// Deleting a node that draws a mesh.
    #[error("cannot delete {0}: it draws a mesh")]
    DrawsMesh(String),
    /// A skin would get more joints than influences can index.
    #[error("skin {0} already has 65535 joints")]
    TooManyJoints(usize),
    /// Orienting a joint with no child and no tail.
    #[error("{0} has no child or tail to aim at")]
    NothingToAim(String),
    /// Orienting a joint whose child sits on it.
    #[error("{0} cannot aim at its child: they are at the same position")]
    ZeroLengthBone(String),
    /// Symmetrizing a subtree whose joints all lie on the symmetry plane.
    #[error("nothing to mirror: {0} and every joint below it lie on the symmetry plane")]
    NothingToMirror(String),
    /// Creating a skin on a node without a mesh.
    #[error("{0} draws no mesh")]
    NoMesh(String),
    /// Creating a skin on a mesh that already has one.
    #[error("{0} is already skinned")]
    AlreadySkinned(String),
    /// Creating a skin on a mesh that other nodes draw too.
    #[error("the mesh of {0} is also drawn by other nodes; skin needs a mesh of its own")]
    SharedMesh(String),
    /// Meshes placed differently cannot share one skin's bind space.
    #[error(
        "{mesh} is placed differently from {first}: one skin holds meshes in one space (apply the transforms first)"
    )]
    DifferentSpace {
        /// The mesh node that differs.
        mesh: String,
        /// What it was compared with.
        first: String,
    },
    /// The same node was given twice.
    #[error("{0} is named twice")]
    Repeated(String),
    /// The skin index is out of range.
    #[error("there is no skin {0}")]
    NoSuchSkin(usize),
    /// A mesh node outside the default scene.
    #[error("{0} is not in the default scene")]
    NotInScene(String),
}

/// The part of a model that skeleton edits change (see the module docs).
#[derive(Clone, Debug)]
struct RigState {
    nodes: NodeTree,
    skins: Vec<Skin>,
    instances: Vec<SkinnedInstance>,
    rigid_instances: Vec<(usize, usize)>,
    clips: Option<Vec<Clip>>,
    /// Whole influences of primitives that an edit created or removed: (mesh, prim, influences).
    influences: Vec<(usize, usize, Option<Influences>)>,
}

impl RigState {
    fn capture(model: &Model) -> Self {
        Self {
            nodes: model.nodes.clone(),
            skins: model.skins.clone(),
            instances: model.instances.clone(),
            rigid_instances: model.rigid_instances.clone(),
            clips: None,
            influences: Vec::new(),
        }
    }

    fn restore(&self, model: &mut Model) {
        model.nodes = self.nodes.clone();
        model.skins = self.skins.clone();
        model.instances = self.instances.clone();
        model.rigid_instances = self.rigid_instances.clone();
        if let Some(clips) = &self.clips {
            model.clips = clips.clone();
        }
        for (m, p, inf) in &self.influences {
            if let Some(prim) = model.meshes.get_mut(*m).and_then(|mesh| mesh.primitives.get_mut(*p)) {
                prim.influences = inf.clone();
            }
        }
    }
}

/// The undo record of one skeleton edit.
#[derive(Clone, Debug)]
pub struct SkeletonRecord {
    label: String,
    before: RigState,
    after: RigState,
    weights: StrokeRecord,
    node_map: Vec<Option<usize>>,
    created: Vec<usize>,
}

impl SkeletonRecord {
    /// The edit's name for the history ("Add Joint", "Delete Joint", ...).
    #[must_use]
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Puts the model back as it was before the edit, bit for bit.
    pub fn undo(&self, model: &mut Model) {
        self.before.restore(model);
        self.weights.undo(model);
    }

    /// Applies the edit again, bit for bit as it was first applied.
    pub fn redo(&self, model: &mut Model) {
        self.after.restore(model);
        self.weights.redo(model);
    }

    /// For each node index before the edit, its index after (`None`: deleted). Identity unless
    /// a node was deleted; undo maps back with [`SkeletonRecord::inverse_node_map`].
    #[must_use]
    pub fn node_map(&self) -> &[Option<usize>] {
        &self.node_map
    }

    /// For each node index after the edit, its index before (`None`: created by the edit).
    #[must_use]
    pub fn inverse_node_map(&self) -> Vec<Option<usize>> {
        let mut inv = vec![None; self.after.nodes.len()];
        for (old, new) in self.node_map.iter().enumerate() {
            if let Some(n) = new.and_then(|n| inv.get_mut(n)) {
                *n = Some(old);
            }
        }
        inv
    }

    /// Nodes the edit created (indices after the edit), e.g. to select them.
    #[must_use]
    pub fn created(&self) -> &[usize] {
        &self.created
    }

    /// Vertex weights the edit changed (empty for most edits).
    #[must_use]
    pub fn weights(&self) -> &StrokeRecord {
        &self.weights
    }

    /// This edit followed by `next` (made on the model this one left) as one record, named as
    /// this one: undo goes back to before this edit, redo forward to after `next`, bit for bit
    /// (e.g. the moves of one joint drag).
    #[must_use]
    pub fn then(mut self, next: SkeletonRecord) -> SkeletonRecord {
        // Clips and whole influences `self` left alone were, before `next`, as before `self`.
        if self.before.clips.is_none() {
            self.before.clips = next.before.clips;
        }
        let mine = |list: &[(usize, usize, Option<Influences>)], m: usize, p: usize| {
            list.iter().any(|&(lm, lp, _)| (lm, lp) == (m, p))
        };
        for entry in next.before.influences {
            if !mine(&self.before.influences, entry.0, entry.1) {
                self.before.influences.push(entry);
            }
        }
        let mut after = next.after;
        if after.clips.is_none() {
            after.clips = self.after.clips;
        }
        for entry in self.after.influences {
            if !mine(&after.influences, entry.0, entry.1) {
                after.influences.push(entry);
            }
        }
        self.weights.merge(&next.weights);
        let through = |n: Option<usize>| n.and_then(|n| next.node_map.get(n).copied().flatten());
        let created =
            self.created.iter().filter_map(|&n| through(Some(n))).chain(next.created.iter().copied()).collect();
        SkeletonRecord {
            node_map: self.node_map.iter().map(|&n| through(n)).collect(),
            label: self.label,
            before: self.before,
            after,
            weights: self.weights,
            created,
        }
    }
}

/// What an edit collects besides the state it changes.
#[derive(Default)]
struct EditLog {
    weights: StrokeRecord,
    clips_changed: bool,
    influences: Vec<(usize, usize)>,
    node_map: Option<Vec<Option<usize>>>,
    created: Vec<usize>,
}

/// Runs `edit` on `model` and records it. `edit` validates before it changes anything; on an
/// error the model is put back all the same.
fn record_edit(
    model: &mut Model,
    label: &str,
    edit: impl FnOnce(&mut Model, &mut EditLog) -> Result<(), SkeletonEditError>,
) -> Result<SkeletonRecord, SkeletonEditError> {
    let mut before = RigState::capture(model);
    let clips_before = model.clips.clone();
    let mut log = EditLog { weights: StrokeRecord::new(label), ..EditLog::default() };
    let n_before = model.nodes.len();
    let driven = driver_inputs(model);
    if let Err(e) = edit(model, &mut log).and_then(|()| check_storable(model)) {
        before.restore(model);
        model.clips = clips_before;
        log.weights.undo(model);
        return Err(e);
    }
    let node_map = log.node_map.take().unwrap_or_else(|| (0..n_before).map(Some).collect());
    rekey_drivers(model, &driven, &node_map);
    let mut after = RigState::capture(model);
    if log.clips_changed {
        before.clips = Some(clips_before);
        after.clips = Some(model.clips.clone());
    }
    for &(m, p) in &log.influences {
        let now = model.meshes.get(m).and_then(|mesh| mesh.primitives.get(p)).and_then(|prim| prim.influences.clone());
        before.influences.push((m, p, None));
        after.influences.push((m, p, now));
    }
    Ok(SkeletonRecord { label: label.to_owned(), before, after, weights: log.weights, node_map, created: log.created })
}

/// Every driven helper's inputs as the nodes they name now (`None`: no node answers).
fn driver_inputs(model: &Model) -> Vec<(usize, Vec<Option<usize>>)> {
    let tree = &model.nodes;
    (0..tree.len())
        .filter_map(|n| {
            let driver = tree.nodes[n].driver.as_ref()?;
            Some((n, driver.inputs.iter().map(|i| tree.find(&i.node).ok()).collect()))
        })
        .collect()
}

/// Names the drivers' inputs again after an edit that renamed or renumbered nodes (`node_map`:
/// each node's index before the edit to its index after), so a helper follows the same joints.
fn rekey_drivers(model: &mut Model, driven: &[(usize, Vec<Option<usize>>)], node_map: &[Option<usize>]) {
    for (node, inputs) in driven {
        let Some(now) = node_map.get(*node).copied().flatten() else { continue };
        let keys: Vec<Option<String>> = inputs
            .iter()
            .map(|i| i.and_then(|i| node_map.get(i).copied().flatten()).map(|i| model.nodes.key(i)))
            .collect();
        let Some(driver) = model.nodes.nodes.get_mut(now).and_then(|n| n.driver.as_mut()) else { continue };
        for (input, key) in driver.inputs.iter_mut().zip(keys) {
            if let Some(key) = key {
                input.node = key;
            }
        }
    }
}

/// Refuses a model whose node transforms or inverse bind matrices have a number that is not
/// finite in 32-bit floats (a position of 1e39, or a product that overflows): the file could not
/// store it.
fn check_storable(model: &Model) -> Result<(), SkeletonEditError> {
    let storable = |values: &[f64]| values.iter().all(|&v| (v as f32).is_finite());
    for (i, node) in model.nodes.nodes.iter().enumerate() {
        let ok = match &node.rest {
            NodeTransform::Matrix(m) => storable(&m.to_cols_array()),
            NodeTransform::Trs(t) => {
                storable(&t.translation.to_array()) && storable(&t.rotation.to_array()) && storable(&t.scale.to_array())
            }
        } && node.bone_tail.is_none_or(|tail| storable(&tail.to_array()));
        if !ok {
            return Err(SkeletonEditError::OutOfRange(describe(&model.nodes, i)));
        }
    }
    for skin in &model.skins {
        for (&joint, ibm) in skin.joints.iter().zip(&skin.joint_from_bind) {
            if !storable(&ibm.to_cols_array()) {
                return Err(SkeletonEditError::OutOfRange(format!("{}'s bind matrix", describe(&model.nodes, joint))));
            }
        }
    }
    Ok(())
}

/// Every node's rest global (`model_from_node` with no pose).
fn rest_globals(tree: &NodeTree) -> Vec<DMat4> {
    let mut out = Vec::new();
    model_from_node(tree, &Pose::rest(), &mut out);
    out
}

/// Per skin and joint, the rest offset `C = model_from_node · joint_from_bind`.
fn rest_offsets(model: &Model, globals: &[DMat4]) -> Vec<Vec<DMat4>> {
    model
        .skins
        .iter()
        .map(|s| s.joints.iter().zip(&s.joint_from_bind).map(|(&n, ibm)| globals[n] * *ibm).collect())
        .collect()
}

/// Recomputes `joint_from_bind` of every joint whose rest global changed (compared with
/// `old_globals`, which index the nodes as they are now) so that its rest offset stays `offsets`.
fn keep_rest_offsets(model: &mut Model, old_globals: &[DMat4], offsets: &[Vec<DMat4>]) {
    let globals = rest_globals(&model.nodes);
    for (skin, offs) in model.skins.iter_mut().zip(offsets) {
        for ((&n, ibm), c) in skin.joints.iter().zip(skin.joint_from_bind.iter_mut()).zip(offs) {
            if old_globals.get(n) != Some(&globals[n]) {
                *ibm = globals[n].inverse() * *c;
            }
        }
    }
}

/// Meshes drawn with skin `skin` (each once, ascending).
fn meshes_of_skin(model: &Model, skin: usize) -> Vec<usize> {
    let mut meshes: Vec<usize> = model.instances.iter().filter(|i| i.skin == skin).map(|i| i.mesh).collect();
    meshes.sort_unstable();
    meshes.dedup();
    meshes
}

/// The first skin that has `node` as a joint, with the joint's index.
fn first_joint(model: &Model, node: usize) -> Option<(usize, usize)> {
    model.skins.iter().enumerate().find_map(|(s, skin)| skin.joints.iter().position(|&n| n == node).map(|j| (s, j)))
}

/// The node's bind frame (`inverse(joint_from_bind)`) in its first skin, and that skin's rest
/// offset for it.
fn bind_frame(model: &Model, globals: &[DMat4], node: usize) -> Option<(DMat4, DMat4)> {
    let (s, j) = first_joint(model, node)?;
    let ibm = model.skins[s].joint_from_bind[j];
    Some((ibm.inverse(), globals[node] * ibm))
}

/// The bind-space position of joint `node` in its first skin (`None` when it is no joint).
#[must_use]
pub fn bind_position(model: &Model, node: usize) -> Option<DVec3> {
    let (s, j) = first_joint(model, node)?;
    Some(model.skins[s].joint_from_bind[j].inverse().transform_point3(DVec3::ZERO))
}

/// A node's key for messages: its name in quotes, or `#N`.
fn describe(tree: &NodeTree, node: usize) -> String {
    match tree.nodes.get(node).and_then(|n| n.name.as_deref()) {
        Some(name) if !name.is_empty() => format!("{name:?}"),
        _ => format!("node #{node}"),
    }
}

fn check_node(model: &Model, node: usize) -> Result<(), SkeletonEditError> {
    if node < model.nodes.len() {
        Ok(())
    } else {
        Err(SkeletonEditError::NoSuchNode(node))
    }
}

fn check_joint(model: &Model, node: usize) -> Result<(), SkeletonEditError> {
    check_node(model, node)?;
    if first_joint(model, node).is_some() {
        Ok(())
    } else {
        Err(SkeletonEditError::NotAJoint(describe(&model.nodes, node)))
    }
}

/// Sets a node's local transform to `local`, keeping its stored form: a TRS node whose rotation
/// and scale are unchanged (to 1e-12) takes only the new translation, so those stay bit for bit.
fn set_local(node: &mut Node, local: DMat4) {
    node.rest = match node.rest {
        NodeTransform::Matrix(_) => NodeTransform::Matrix(local),
        NodeTransform::Trs(old) => {
            let same_basis = DMat3::from_mat4(old.to_matrix()).abs_diff_eq(DMat3::from_mat4(local), 1e-12);
            if same_basis {
                NodeTransform::Trs(crate::model::Trs { translation: local.w_axis.truncate(), ..old })
            } else {
                NodeTransform::Trs(crate::model::Trs::from_matrix(local))
            }
        }
    };
}

/// The local transform that puts `node` at the rest global `global` under its current parent.
fn local_for_global(tree: &NodeTree, globals: &[DMat4], node: usize, global: DMat4) -> DMat4 {
    match tree.nodes[node].parent {
        Some(p) => globals[p].inverse() * global,
        None => global,
    }
}

/// Checks a joint name: not empty, no control characters, not used by another node.
fn check_name(tree: &NodeTree, name: &str, except: Option<usize>) -> Result<(), SkeletonEditError> {
    if name.trim().is_empty() {
        return Err(SkeletonEditError::EmptyName);
    }
    if name.chars().any(char::is_control) {
        return Err(SkeletonEditError::BadName(name.to_owned()));
    }
    if name.strip_prefix('#').is_some_and(|n| n.parse::<usize>().is_ok()) {
        return Err(SkeletonEditError::NumberName(name.to_owned()));
    }
    match tree.nodes.iter().position(|n| n.name.as_deref() == Some(name)) {
        Some(other) if Some(other) != except => Err(SkeletonEditError::NameTaken { name: name.to_owned(), other }),
        _ => Ok(()),
    }
}

/// `base`, or `base.001`, `base.002`, ... (Blender's scheme): the first name no node carries.
#[must_use]
pub fn unique_name(tree: &NodeTree, base: &str) -> String {
    let taken = |n: &str| tree.nodes.iter().any(|node| node.name.as_deref() == Some(n));
    if !taken(base) {
        return base.to_owned();
    }
    (1..).map(|i| format!("{base}.{i:03}")).find(|n| !taken(n)).unwrap_or_else(|| base.to_owned())
}
