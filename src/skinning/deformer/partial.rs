//! Re-skinning part of a primitive: after a weight-painting dab only the touched vertices are
//! deformed again, by exactly the same kernels as a full pass (so the results are identical).

use glam::Vec3;

use super::Deformer;
use crate::model::{Model, SkinnedInstance};
use crate::skinning::{DeformedPrimitive, SkinningMethod};

impl Deformer {
    /// The method of the last [`Deformer::prepare`], if any.
    #[must_use]
    pub fn method(&self) -> Option<SkinningMethod> {
        self.method
    }

    /// Prepares the joint sets that the skins' tables gained since the last prepare (same pose and
    /// method; SBS centres are solved for the new sets only). Returns the number of new sets. A
    /// skin whose table changed its slot count needs a full [`Deformer::prepare`] instead.
    pub fn prepare_new_sets(&mut self, model: &Model) -> usize {
        let method = self.method.unwrap_or(SkinningMethod::Lbs);
        let mut added = 0;
        for (frame, skin) in self.frames.iter_mut().zip(&model.skins) {
            added += frame.prepare_new_sets(skin, method);
        }
        added
    }

    /// Whether every skin's frame matches its table (same slot count, every set prepared), so
    /// that [`Deformer::deform_vertices`] may run.
    #[must_use]
    pub fn is_current(&self, model: &Model) -> bool {
        self.frames.len() == model.skins.len()
            && self
                .frames
                .iter()
                .zip(&model.skins)
                .all(|(f, s)| f.slots == s.sets.slots() && f.prepared_sets() == s.sets.len())
    }

    /// Deforms only `vertices` of primitive `prim` of `instance` by the prepared method, writing
    /// their entries of `out` (which must already hold the primitive's other vertices, e.g. from
    /// [`Deformer::deform_primitive`]); when `out` has the wrong size the whole primitive is
    /// deformed instead. Returns `false`, leaving `out` untouched, when the primitive is unknown or
    /// the skin's frame is stale (never prepared, re-padded, or sets appended without
    /// [`Deformer::prepare_new_sets`]). Indices out of range are ignored.
    pub fn deform_vertices(
        &self,
        model: &Model,
        instance: &SkinnedInstance,
        prim: usize,
        vertices: &[u32],
        out: &mut DeformedPrimitive,
    ) -> bool {
        let Some(p) = model.meshes.get(instance.mesh).and_then(|m| m.primitives.get(prim)) else { return false };
        let (Some(frame), Some(skin)) = (self.frames.get(instance.skin), model.skins.get(instance.skin)) else {
            return false;
        };
        if frame.slots != skin.sets.slots() || frame.prepared_sets() != skin.sets.len() {
            return false;
        }
        let n = p.positions.len();
        let rest = self.rest(model, instance, prim, p);
        let normals = rest.normals;
        let sized = out.positions.len() == n && out.normals.len() == if normals.is_some() { n } else { 0 };
        let Some(inf) = p.influences.as_ref().filter(|_| sized) else {
            self.deform_primitive(model, instance, prim, out);
            return true;
        };
        let vertices: Vec<u32> = vertices.iter().copied().filter(|&v| (v as usize) < n).collect();
        let sub = inf.gather(&vertices);
        let mut positions: Vec<_> = vertices.iter().map(|&v| rest.positions[v as usize]).collect();
        let mut sub_normals: Option<Vec<_>> = normals.map(|nr| vertices.iter().map(|&v| nr[v as usize]).collect());
        if let Some(morph) = rest.morph {
            for (i, &v) in vertices.iter().enumerate() {
                let n = sub_normals.as_ref().map_or(Vec3::ZERO, |s| s[i]);
                let (a, b) = morph.vertex(v as usize, positions[i], n);
                positions[i] = a;
                if let Some(s) = sub_normals.as_mut() {
                    s[i] = b;
                }
            }
        }
        let mut part = DeformedPrimitive::default();
        self.method.unwrap_or(SkinningMethod::Lbs).deform(frame, &sub, &positions, sub_normals.as_deref(), &mut part);
        for (i, &v) in vertices.iter().enumerate() {
            out.positions[v as usize] = part.positions[i];
            if normals.is_some() {
                out.normals[v as usize] = part.normals[i];
            }
        }
        true
    }
}
