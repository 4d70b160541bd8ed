//! The imported model, independent of any file format: the node tree, meshes, skins with their
//! joint-set tables, per-vertex influences, morph targets, undo records of weight edits and animation clips. The editor, the deformation core
//! and the exporter all work on these types; nothing here knows about glTF or the GUI.
//!
//! In detail: `Model`: node tree (`skeleton.rs`), meshes (`mesh.rs`, with `vertex_normals`:
//! area-weighted normals of a triangle mesh, the one sum the renderer, the brush and the shading
//! normals use), skins, `influences.rs` (compact weights and packed set words), `joint_set_table.rs`
//! (`JointSetTable`: the skin's distinct joint sets, interned; re-exported by `influences`),
//! `slot_influences.rs` (a file's flat JOINTS_n/WEIGHTS_n slots → the weight rules in parallel →
//! interned layout, bit-identical to the per-vertex path, no per-vertex allocation), `vertex_order.rs`
//! (`VertexOrder`: skinned vertices in joint-set order from import, the file's order kept for every
//! boundary), `lane_order.rs` (per 2048-vertex window, the vertices grouped by packed set word for the
//! eight-lane path; cached in `Influences`, rebuilt per window after a change), `densify.rs`
//! (production-density copies: midpoint edge splits, longest edges first in the last round, weights
//! averaged and held to the skin's influence limit; originals keep index and data; edges keyed by their
//! ends' file indices, so the result does not depend on the model's vertex order), `morph.rs` (morph
//! targets as sparse displacements by file index), animation clips.
//!
//! Invariants: format-free; weights finite, ≥ 0, sum to 1; slot *m* of a vertex is member *m* of its
//! set; tables only grow (undo stays bit-exact).

pub mod animation;
pub mod densify;
pub mod driver;
pub mod edit_record;
pub mod influences;
pub mod joint_set_table;
pub mod lane_order;
pub mod mesh;
pub mod morph;
pub mod reorder;
pub mod skeleton;
pub mod skin;
pub mod slot_influences;
pub mod vertex_order;
pub mod weight_record;

pub use animation::{Channel, ChannelPath, Clip, Interpolation, WeightsChannel};
pub use densify::{densify, Densified, DensifyError, PrimitiveRefinement};
pub use driver::{DriverInput, HelperDriver};
pub use edit_record::{ModelEdit, ModelParts};
pub use influences::{InfluenceError, Influences, JointSetTable, EMPTY_SET};
pub use mesh::{Mesh, Primitive, Topology};
pub use morph::{MeshMorphs, MorphTarget};
pub use skeleton::{Node, NodeTransform, NodeTree, Trs};
pub use skin::Skin;
pub use slot_influences::SlotInfluences;
pub use vertex_order::VertexOrder;
pub use weight_record::{StrokeRecord, TouchedPrimitive};

/// A node of the default scene that draws a mesh with a skin (the unit that `deform` writes).
#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedInstance {
    /// The node that carries the mesh and the skin.
    pub node: usize,
    /// Index into [`Model::meshes`].
    pub mesh: usize,
    /// Index into [`Model::skins`].
    pub skin: usize,
}

/// A whole imported model.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// The node tree (every node of the file, parents before children in `order`).
    pub nodes: NodeTree,
    /// Meshes; a primitive's influences index the joints of the skin its instances use.
    pub meshes: Vec<Mesh>,
    /// Skins with their joint-set tables.
    pub skins: Vec<Skin>,
    /// Animation clips.
    pub clips: Vec<Clip>,
    /// Skinned mesh nodes of the default scene, in increasing node index.
    pub instances: Vec<SkinnedInstance>,
    /// Nodes of the default scene with a mesh but no skin (drawn rigidly with their node).
    pub rigid_instances: Vec<(usize, usize)>,
}

impl Model {
    /// Total number of vertices over every primitive of every skinned instance.
    #[must_use]
    pub fn skinned_vertex_count(&self) -> usize {
        self.instances
            .iter()
            .map(|inst| self.meshes[inst.mesh].primitives.iter().map(|p| p.positions.len()).sum::<usize>())
            .sum()
    }

    /// The joint sets the vertices use now, over every skin: (distinct non-empty sets, non-trivial
    /// ones: more than one joint, and not two joints that are parent and child — SBS paper,
    /// Table 2). Set tables only grow (undo stays bit-exact), so sets no vertex uses any more
    /// after painting or a bind are not counted.
    #[must_use]
    pub fn joint_set_counts(&self) -> (usize, usize) {
        let (mut distinct, mut nontrivial) = (0, 0);
        for (k, skin) in self.skins.iter().enumerate() {
            let mut used = vec![false; skin.sets.len()];
            for inst in self.instances.iter().filter(|i| i.skin == k) {
                for inf in self.meshes[inst.mesh].primitives.iter().filter_map(|p| p.influences.as_ref()) {
                    for v in 0..inf.len() {
                        if let Some(u) = used.get_mut(inf.set_of(v) as usize) {
                            *u = true;
                        }
                    }
                }
            }
            for (id, _) in used.iter().enumerate().filter(|(id, u)| **u && *id > 0) {
                let joints = skin.sets.joints(id as u32);
                distinct += 1;
                let trivial =
                    joints.len() == 1 || (joints.len() == 2 && skin.adjacent(&self.nodes, joints[0], joints[1]));
                nontrivial += usize::from(!trivial);
            }
        }
        (distinct, nontrivial)
    }

    /// Makes skin `skin`'s joint-set table hold at least `slots` joints per set (rounded up to a
    /// power of two, at most 16), re-padding the influences of every primitive of every mesh drawn
    /// with that skin; set ids are kept. Returns whether anything changed (a prepared
    /// `skinning::Deformer` must then be prepared again).
    pub fn grow_skin_slots(&mut self, skin: usize, slots: usize) -> bool {
        let Some(table) = self.skins.get_mut(skin).map(|s| &mut s.sets) else {
            return false;
        };
        let before = table.slots();
        table.grow_slots(slots);
        let after = table.slots();
        if after == before {
            return false;
        }
        let mut meshes: Vec<usize> = self.instances.iter().filter(|i| i.skin == skin).map(|i| i.mesh).collect();
        meshes.sort_unstable();
        meshes.dedup();
        for m in meshes {
            if let Some(mesh) = self.meshes.get_mut(m) {
                for inf in mesh.primitives.iter_mut().filter_map(|p| p.influences.as_mut()) {
                    inf.grow_slots(after);
                }
            }
        }
        true
    }

    /// Each clip's key for messages and [`Model::find_clip`]: its name, or `#N` when it has none.
    #[must_use]
    pub fn clip_keys(&self) -> Vec<String> {
        self.clips.iter().enumerate().map(|(i, c)| c.name.clone().unwrap_or_else(|| format!("#{i}"))).collect()
    }

    /// The morph targets of `node`'s mesh, when it has a mesh with any.
    #[must_use]
    pub fn morphs_of(&self, node: usize) -> Option<&MeshMorphs> {
        let mesh = self.nodes.nodes.get(node)?.mesh?;
        self.meshes.get(mesh).map(|m| &m.morphs).filter(|m| !m.is_empty())
    }

    /// The mesh nodes whose meshes have morph targets, skinned or not, in increasing node index.
    #[must_use]
    pub fn morphed_nodes(&self) -> Vec<usize> {
        let mut nodes: Vec<usize> = self
            .instances
            .iter()
            .map(|i| i.node)
            .chain(self.rigid_instances.iter().map(|r| r.0))
            .filter(|&n| self.morphs_of(n).is_some())
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// Finds a clip by name or `#N` index key.
    pub fn find_clip(&self, key: &str) -> Option<usize> {
        if let Some(idx) = key.strip_prefix('#').and_then(|n| n.parse::<usize>().ok()) {
            return (idx < self.clips.len()).then_some(idx);
        }
        self.clips.iter().position(|c| c.name.as_deref() == Some(key))
    }

    /// Axis-aligned bounds (min, max) of the rest positions of every skinned primitive, or of
    /// every mesh when there are none.
    #[must_use]
    pub fn rest_bounds(&self) -> (glam::Vec3, glam::Vec3) {
        let mut lo = glam::Vec3::splat(f32::INFINITY);
        let mut hi = glam::Vec3::splat(f32::NEG_INFINITY);
        for mesh in &self.meshes {
            for p in mesh.primitives.iter().flat_map(|p| p.positions.iter()) {
                lo = lo.min(*p);
                hi = hi.max(*p);
            }
        }
        if lo.x > hi.x {
            (glam::Vec3::ZERO, glam::Vec3::ZERO)
        } else {
            (lo, hi)
        }
    }
}
