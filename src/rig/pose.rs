//! A pose: overrides of nodes' local translation, rotation and scale on top of the rest transforms.

use std::collections::BTreeMap;

use glam::{DMat4, DQuat, DVec3};

use crate::model::{NodeTree, Trs};

/// Components that replace a node's rest TRS components (as a glTF animation channel does).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointOverride {
    /// Replacement translation.
    pub translation: Option<DVec3>,
    /// Replacement rotation (normalised before use).
    pub rotation: Option<DQuat>,
    /// Replacement scale.
    pub scale: Option<DVec3>,
}

impl JointOverride {
    /// Whether nothing is overridden.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.translation.is_none() && self.rotation.is_none() && self.scale.is_none()
    }

    /// Applies the override to a TRS.
    #[must_use]
    pub fn apply(&self, mut trs: Trs) -> Trs {
        if let Some(t) = self.translation {
            trs.translation = t;
        }
        if let Some(r) = self.rotation {
            trs.rotation = r;
        }
        if let Some(s) = self.scale {
            trs.scale = s;
        }
        trs
    }
}

/// Overrides by node index; nodes not listed keep their rest transform.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pose {
    /// Per-node overrides.
    pub overrides: BTreeMap<usize, JointOverride>,
    /// Per mesh node, its morph-target weights (nodes not listed use their mesh's defaults).
    pub morph_weights: BTreeMap<usize, Vec<f32>>,
}

impl Pose {
    /// The rest pose (no overrides).
    #[must_use]
    pub fn rest() -> Self {
        Self::default()
    }

    /// The local TRS of a node in this pose (a stored matrix is decomposed first; a driven
    /// helper that the pose does not set follows its driver).
    #[must_use]
    pub fn local_trs(&self, tree: &NodeTree, node: usize) -> Trs {
        match self.overrides.get(&node) {
            Some(o) if !o.is_empty() => o.apply(tree.nodes[node].rest.to_trs()),
            _ => self.driven(tree, node).unwrap_or_else(|| tree.nodes[node].rest.to_trs()),
        }
    }

    /// The local matrix `parent_from_node` of a node in this pose.
    #[must_use]
    pub fn local_matrix(&self, tree: &NodeTree, node: usize) -> DMat4 {
        match self.overrides.get(&node) {
            Some(o) if !o.is_empty() => o.apply(tree.nodes[node].rest.to_trs()).to_matrix(),
            _ => self.driven(tree, node).map_or_else(|| tree.nodes[node].rest.to_matrix(), |t| t.to_matrix()),
        }
    }

    /// A driven helper's local TRS from its inputs' rotations in this pose (`model::driver`; an
    /// input no node answers to stays at its rest rotation); `None` for a node without a driver.
    /// The caller checks that the pose does not set the node itself.
    #[must_use]
    pub fn driven(&self, tree: &NodeTree, node: usize) -> Option<Trs> {
        let driver = tree.nodes.get(node)?.driver.as_ref()?;
        let rotations: Vec<DQuat> = driver
            .inputs
            .iter()
            .map(|input| match tree.find(&input.node) {
                Ok(n) => match self.overrides.get(&n).and_then(|o| o.rotation) {
                    Some(q) => q,
                    None => tree.nodes[n].rest.to_trs().rotation,
                },
                Err(_) => input.rest_rotation,
            })
            .collect();
        let (translation, rotation) = driver.local(&rotations);
        Some(Trs { translation, rotation, scale: DVec3::ONE })
    }

    /// Sets a node's rotation override.
    pub fn set_rotation(&mut self, node: usize, rotation: DQuat) {
        self.overrides.entry(node).or_default().rotation = Some(rotation);
    }

    /// Sets a node's translation override.
    pub fn set_translation(&mut self, node: usize, translation: DVec3) {
        self.overrides.entry(node).or_default().translation = Some(translation);
    }

    /// Sets a node's scale override.
    pub fn set_scale(&mut self, node: usize, scale: DVec3) {
        self.overrides.entry(node).or_default().scale = Some(scale);
    }
}
