//! The undo record of a model edit that skeleton edits' own records do not cover (automatic
//! weights, key edits, a restored recovery file):
//! the skeleton-sized parts of the model (node tree, skins, clips, instance lists) as they were
//! before and after, plus only the primitives the edit changed. Undo and redo write those parts
//! back, so both restore the model bit for bit, and the record never holds unchanged vertex data
//! (of a primitive whose weights alone changed, as in a bind, only the weights).

use super::{Clip, Influences, Mesh, Model, NodeTree, Primitive, Skin, SkinnedInstance};

/// What a record keeps of one changed primitive.
#[derive(Clone, Debug)]
enum PrimData {
    /// Only its influences changed: them.
    Influences(Option<Influences>),
    /// Its geometry changed: all of it.
    Whole(Primitive),
}

impl PrimData {
    /// What to keep of `side`, a version of a primitive that differs from its other version.
    fn of(side: &Primitive, only_weights: bool) -> Self {
        if only_weights {
            Self::Influences(side.influences.clone())
        } else {
            Self::Whole(side.clone())
        }
    }
}

/// One side (before or after) of an edit.
#[derive(Clone, Debug)]
struct Parts {
    nodes: NodeTree,
    skins: Vec<Skin>,
    clips: Vec<Clip>,
    instances: Vec<SkinnedInstance>,
    rigid_instances: Vec<(usize, usize)>,
    /// The changed primitives as `(mesh, primitive, data)`, when the mesh list kept its shape.
    prims: Vec<(usize, usize, PrimData)>,
    /// Every mesh, when the edit changed the mesh list's shape or a mesh's name.
    meshes: Option<Vec<Mesh>>,
}

impl Parts {
    fn of(model: &Model, prims: Vec<(usize, usize, PrimData)>, meshes: Option<Vec<Mesh>>) -> Self {
        Self {
            nodes: model.nodes.clone(),
            skins: model.skins.clone(),
            clips: model.clips.clone(),
            instances: model.instances.clone(),
            rigid_instances: model.rigid_instances.clone(),
            prims,
            meshes,
        }
    }

    fn write(&self, model: &mut Model) {
        model.nodes.clone_from(&self.nodes);
        model.skins.clone_from(&self.skins);
        model.clips.clone_from(&self.clips);
        model.instances.clone_from(&self.instances);
        model.rigid_instances.clone_from(&self.rigid_instances);
        if let Some(meshes) = &self.meshes {
            model.meshes.clone_from(meshes);
        }
        for (m, p, data) in &self.prims {
            if let Some(slot) = model.meshes.get_mut(*m).and_then(|mesh| mesh.primitives.get_mut(*p)) {
                match data {
                    PrimData::Influences(influences) => slot.influences.clone_from(influences),
                    PrimData::Whole(prim) => slot.clone_from(prim),
                }
            }
        }
    }
}

/// Whether two versions of a primitive have the same geometry (all but the influences).
fn same_geometry(a: &Primitive, b: &Primitive) -> bool {
    a.topology == b.topology && a.positions == b.positions && a.normals == b.normals && a.triangles == b.triangles
}

/// The skeleton-sized parts of a model (node tree, skins, clips, instance lists), taken before an
/// edit that leaves every primitive alone ([`ModelEdit::since`]).
#[derive(Clone, Debug)]
pub struct ModelParts(Parts);

impl ModelParts {
    /// `model`'s skeleton-sized parts.
    #[must_use]
    pub fn of(model: &Model) -> Self {
        Self(Parts::of(model, Vec::new(), None))
    }
}

/// A model edit that can be undone and redone.
#[derive(Clone, Debug)]
pub struct ModelEdit {
    label: String,
    before: Parts,
    after: Parts,
}

impl ModelEdit {
    /// The edit that turned `before` into `after`, named `label` (e.g. "Add joint").
    #[must_use]
    pub fn between(label: impl Into<String>, before: &Model, after: &Model) -> Self {
        let same_shape = before.meshes.len() == after.meshes.len()
            && before
                .meshes
                .iter()
                .zip(&after.meshes)
                .all(|(a, b)| a.name == b.name && a.primitives.len() == b.primitives.len());
        let (mut old, mut new) = (Vec::new(), Vec::new());
        let (mut old_meshes, mut new_meshes) = (None, None);
        if same_shape {
            for (m, (a, b)) in before.meshes.iter().zip(&after.meshes).enumerate() {
                for (p, (pa, pb)) in a.primitives.iter().zip(&b.primitives).enumerate() {
                    let only_weights = same_geometry(pa, pb);
                    if !only_weights || pa.influences != pb.influences {
                        old.push((m, p, PrimData::of(pa, only_weights)));
                        new.push((m, p, PrimData::of(pb, only_weights)));
                    }
                }
            }
        } else {
            old_meshes = Some(before.meshes.clone());
            new_meshes = Some(after.meshes.clone());
        }
        Self {
            label: label.into(),
            before: Parts::of(before, old, old_meshes),
            after: Parts::of(after, new, new_meshes),
        }
    }

    /// The edit from `before` to `after` where no primitive changed in between (key edits): no
    /// vertex data is compared or kept.
    #[must_use]
    pub fn since(label: impl Into<String>, before: ModelParts, after: &Model) -> Self {
        Self { label: label.into(), before: before.0, after: Parts::of(after, Vec::new(), None) }
    }

    /// The edit's name (shown in messages).
    #[must_use]
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Puts `model` back as it was before the edit.
    pub fn undo(&self, model: &mut Model) {
        self.before.write(model);
    }

    /// Applies the edit to `model` again (as it was right after the edit).
    pub fn redo(&self, model: &mut Model) {
        self.after.write(model);
    }

    /// How many primitives' vertex data the record holds per side (0 for pure skeleton edits).
    #[must_use]
    pub fn changed_primitives(&self) -> usize {
        self.after.meshes.as_ref().map_or(self.after.prims.len(), |m| m.iter().map(|m| m.primitives.len()).sum())
    }

    /// Whether undoing or redoing the edit rewrites vertex data (a primitive or the mesh list).
    #[must_use]
    pub fn touches_primitives(&self) -> bool {
        self.before.meshes.is_some() || !self.before.prims.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        crate::demo::demo_model().unwrap()
    }

    #[test]
    fn undo_and_redo_restore_nodes_and_only_changed_primitives() {
        let before = model();
        let mut after = before.clone();
        after.nodes.nodes[1].name = Some("renamed".into());
        after.skins[0].joint_from_bind[0].w_axis.x += 0.5;
        let edit = ModelEdit::between("Rename", &before, &after);
        assert_eq!(edit.changed_primitives(), 0);
        let mut m = after.clone();
        edit.undo(&mut m);
        assert_eq!(m.nodes, before.nodes);
        assert_eq!(m.skins[0].joint_from_bind, before.skins[0].joint_from_bind);
        edit.redo(&mut m);
        assert_eq!(m.nodes, after.nodes);
        assert_eq!(m.skins[0].joint_from_bind, after.skins[0].joint_from_bind);

        let mut moved = before.clone();
        moved.meshes[0].primitives[0].positions[3].x += 1.0;
        let edit = ModelEdit::between("Move", &before, &moved);
        assert_eq!(edit.changed_primitives(), 1);
        assert!(matches!(edit.after.prims[0].2, PrimData::Whole(_)), "a moved vertex keeps the whole primitive");
        let mut m = moved.clone();
        edit.undo(&mut m);
        assert_eq!(m.meshes[0].primitives[0].positions, before.meshes[0].primitives[0].positions);
        edit.redo(&mut m);
        assert_eq!(m.meshes[0].primitives[0].positions, moved.meshes[0].primitives[0].positions);
    }

    #[test]
    fn a_weights_only_change_keeps_only_the_weights() {
        let before = model();
        let mut after = before.clone();
        let (table, meshes) = (&mut after.skins[0].sets, &mut after.meshes);
        let inf = meshes[0].primitives[0].influences.as_mut().unwrap();
        inf.set_vertex_pairs(2, &[(1, 1.0)], table).unwrap();
        let edit = ModelEdit::between("Bind", &before, &after);
        assert_eq!(edit.changed_primitives(), 1);
        assert!(edit.touches_primitives());
        for side in [&edit.before, &edit.after] {
            assert!(matches!(side.prims[0].2, PrimData::Influences(Some(_))), "only the weights are kept");
        }
        let mut m = after.clone();
        edit.undo(&mut m);
        assert!(m.meshes[0].primitives[0].influences == before.meshes[0].primitives[0].influences);
        edit.redo(&mut m);
        assert!(m.meshes[0].primitives[0].influences == after.meshes[0].primitives[0].influences);
        assert_eq!(m.meshes[0].primitives[0].positions, after.meshes[0].primitives[0].positions);
    }
}
