//! Binding every mesh of a model as one skin: before automatic weights, the unskinned meshes of
//! a model with a single skin join that skin ([`attach_unskinned`]), so objects imported as
//! separate meshes (an OBJ's `o` objects, a glTF's loose parts) are all weighted and follow the
//! skeleton. Meshes that cannot join (placed differently, drawn by several nodes) are reported.

use crate::model::Model;
use crate::rig::skeleton_edit::{attach_meshes, meshes_in_space, skin_space};

/// What [`attach_unskinned`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attached {
    /// Mesh nodes that joined the skin.
    pub nodes: Vec<usize>,
    /// Mesh nodes left unskinned, each with the reason (one line).
    pub skipped: Vec<String>,
}

/// When `model` has exactly one skin, makes every unskinned mesh of the default scene placed in
/// that skin's bind space an instance of it (every vertex on its first joint until bound). With
/// no skin or several, nothing changes.
pub fn attach_unskinned(model: &mut Model) -> Attached {
    let Some(space) = (model.skins.len() == 1).then(|| skin_space(model, 0)).flatten() else {
        return Attached::default();
    };
    let (nodes, skipped) = meshes_in_space(model, space);
    let skipped: Vec<String> = skipped.iter().map(|(_, e)| e.to_string()).collect();
    if nodes.is_empty() || attach_meshes(model, 0, &nodes).is_err() {
        return Attached { nodes: Vec::new(), skipped };
    }
    Attached { nodes, skipped }
}
