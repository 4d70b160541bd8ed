//! Making a surface writable before a dab or tool: every primitive holds influences (empty ones
//! where it had none) and every skin at least as many slots per vertex as the weight limit.

use super::error::PaintError;
use super::model_surface::ModelSurface;
use super::normalize::WeightRules;
use crate::model::influences::VertexInfluences;
use crate::model::{Influences, Model};

/// Makes every primitive of the surface that has no influences hold empty ones (vertices that are
/// not moved), so that any vertex can be written. Returns whether anything was added.
pub fn ensure_all_influences(model: &mut Model, surface: &ModelSurface) -> Result<bool, PaintError> {
    let mut added = false;
    for part in surface.parts() {
        let Model { meshes, skins, .. } = &mut *model;
        let Some(prim) = meshes.get_mut(part.mesh).and_then(|m| m.primitives.get_mut(part.prim)) else { continue };
        if prim.influences.is_some() {
            continue;
        }
        let table = &mut skins.get_mut(part.skin).ok_or(PaintError::NoInstance(part.instance))?.sets;
        let empty = vec![VertexInfluences::default(); prim.positions.len()];
        prim.influences = Some(Influences::from_vertices(&empty, table)?);
        added = true;
    }
    Ok(added)
}

/// Makes the instance's skin hold at least `rules.limit()` slots per vertex (re-padding every
/// primitive drawn with it). Returns whether the layout changed.
pub fn ensure_slots(model: &mut Model, skin: usize, rules: &WeightRules) -> bool {
    let limit = rules.limit();
    match model.skins.get(skin) {
        Some(s) if s.sets.slots() < limit => model.grow_skin_slots(skin, limit),
        _ => false,
    }
}

/// Makes every skin of the surface hold at least `rules.limit()` slots. Returns whether a layout
/// changed.
pub fn ensure_surface_slots(model: &mut Model, surface: &ModelSurface, rules: &WeightRules) -> bool {
    let mut skins: Vec<usize> = surface.parts().iter().map(|p| p.skin).collect();
    skins.sort_unstable();
    skins.dedup();
    skins.into_iter().fold(false, |changed, skin| ensure_slots(model, skin, rules) | changed)
}
