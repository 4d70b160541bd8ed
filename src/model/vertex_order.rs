//! Where a primitive's vertices sit in its file. The importer orders each skinned primitive's
//! vertices by joint set (set id, then pivot: the packed set word), so that consecutive vertices
//! share one set's tables and the deformer's eight-lane runs take nearly all of them instead of
//! blending every vertex's tables alone (densified Stegosaurus at 1M: 67 % of the vertices in
//! such runs in the file's order, 99.7 % ordered). The order is fixed at import: painting and
//! binding change set words but never move a vertex.
//!
//! Everything the editor reads or writes by vertex outside the model keeps the file's order
//! through this map: glTF accessors on export, the OBJ output, weights files, texture
//! coordinates read from the file, and vertex numbers in messages.

use super::Influences;

/// The map between a primitive's model order and its file order.
///
/// Model vertex `v` is file vertex `file_index(v)`. The map covers a prefix: vertices at or
/// beyond it (those appended by `model::densify`) keep their index, so a densified primitive's
/// new vertices follow the original ones in both orders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VertexOrder {
    /// `file_of[v]`: the file index of model vertex `v` (empty: the file's own order).
    file_of: Vec<u32>,
    /// The inverse: `model_of[f]`, the model index of file vertex `f`.
    model_of: Vec<u32>,
}

impl VertexOrder {
    /// Whether model and file order agree.
    #[must_use]
    pub fn is_file_order(&self) -> bool {
        self.file_of.is_empty()
    }

    /// The file index of model vertex `v`.
    #[inline]
    #[must_use]
    pub fn file_index(&self, v: usize) -> usize {
        self.file_of.get(v).map_or(v, |&f| f as usize)
    }

    /// The model index of file vertex `f`.
    #[inline]
    #[must_use]
    pub fn model_index(&self, f: usize) -> usize {
        self.model_of.get(f).map_or(f, |&v| v as usize)
    }

    /// Per-vertex `data` (one value per model vertex) in the file's order.
    #[must_use]
    pub fn to_file<T: Copy>(&self, data: &[T]) -> Vec<T> {
        debug_assert!(self.is_file_order() || data.len() >= self.file_of.len());
        pick(data, |f| self.model_index(f))
    }

    /// Per-vertex `data` in the file's order (one value per file vertex) in model order.
    #[must_use]
    pub fn from_file<T: Copy>(&self, data: &[T]) -> Vec<T> {
        debug_assert!(self.is_file_order() || data.len() >= self.file_of.len());
        pick(data, |v| self.file_index(v))
    }

    /// The order after the model's vertices moved so that model vertex `i` is now what was model
    /// vertex `moved[i]` (`moved` a permutation of `0..moved.len()`).
    pub(super) fn after_move(&self, moved: &[u32]) -> Self {
        let file_of: Vec<u32> = moved.iter().map(|&v| self.file_index(v as usize) as u32).collect();
        if file_of.iter().enumerate().all(|(v, &f)| f as usize == v) {
            return Self::default();
        }
        let mut model_of = vec![0u32; file_of.len()];
        for (v, &f) in file_of.iter().enumerate() {
            model_of[f as usize] = v as u32;
        }
        Self { file_of, model_of }
    }
}

/// `data[at(i)]` for every `i` in `0..data.len()`.
pub(super) fn pick<T: Copy>(data: &[T], at: impl Fn(usize) -> usize) -> Vec<T> {
    (0..data.len()).map(|i| data[at(i)]).collect()
}

/// The sort key of a packed set word: set id, then pivot.
fn key(word: u32) -> u64 {
    let (id, pivot) = Influences::unpack(word);
    (u64::from(id) << 8) | pivot as u64
}

/// Whether the vertices of `inf` are in joint-set order (as [`by_joint_set`] orders them).
#[must_use]
pub fn in_joint_set_order(inf: &Influences) -> bool {
    inf.packed_sets().windows(2).all(|p| key(p[0]) <= key(p[1]))
}

/// The model vertices of `inf` ordered by packed set word, set id first, then pivot, and by
/// index within one word; `None` when they are in that order already.
#[must_use]
pub fn by_joint_set(inf: &Influences) -> Option<Vec<u32>> {
    if in_joint_set_order(inf) {
        return None;
    }
    let words = inf.packed_sets();
    // Counting sort over the distinct words (a few hundred in real models), stable by index.
    let mut distinct: Vec<u64> = Vec::new();
    let mut last = None;
    for &w in words {
        if last != Some(w) {
            distinct.push(key(w));
            last = Some(w);
        }
    }
    distinct.sort_unstable();
    distinct.dedup();
    let rank = |w: u32| distinct.binary_search(&key(w)).unwrap_or(0);
    let mut start = vec![0u32; distinct.len() + 1];
    let mut ranks = Vec::with_capacity(words.len());
    let mut cache = (u32::MAX, 0usize);
    for &w in words {
        if cache.0 != w {
            cache = (w, rank(w));
        }
        ranks.push(cache.1 as u32);
        start[cache.1 + 1] += 1;
    }
    for r in 1..start.len() {
        start[r] += start[r - 1];
    }
    let mut order = vec![0u32; words.len()];
    for (v, &r) in ranks.iter().enumerate() {
        let at = &mut start[r as usize];
        order[*at as usize] = v as u32;
        *at += 1;
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::model::influences::VertexInfluences;
    use crate::model::{JointSetTable, Primitive, Topology};

    fn primitive(joints: &[u32]) -> (Primitive, JointSetTable) {
        let mut table = JointSetTable::new(2);
        let verts: Vec<VertexInfluences> = joints
            .iter()
            .enumerate()
            .map(|(v, &j)| VertexInfluences::from_slots(v, &[j, 3], &[0.75, 0.25], 4).unwrap())
            .collect();
        let inf = Influences::from_vertices(&verts, &mut table).unwrap();
        let n = joints.len();
        let prim = Primitive {
            positions: (0..n).map(|v| Vec3::splat(v as f32)).collect(),
            normals: Some((0..n).map(|v| Vec3::new(v as f32, 1.0, 0.0)).collect()),
            triangles: vec![[0, 1, 2], [3, 4, 5]],
            topology: Topology::Triangles,
            influences: Some(inf),
            order: VertexOrder::default(),
        };
        (prim, table)
    }

    #[test]
    fn ordering_groups_sets_and_keeps_every_vertex_reachable_by_its_file_index() {
        let joints = [0, 1, 0, 2, 1, 0];
        let (mut prim, table) = primitive(&joints);
        let before = prim.clone();
        prim.order_by_joint_set();
        assert!(!prim.order.is_file_order());
        let inf = prim.influences.as_ref().unwrap();
        let words = inf.packed_sets();
        assert!(words.windows(2).all(|w| Influences::unpack(w[0]) <= Influences::unpack(w[1])), "{words:?}");
        for v in 0..joints.len() {
            let f = prim.order.file_index(v);
            assert_eq!(prim.order.model_index(f), v);
            assert_eq!(prim.positions[v], before.positions[f]);
            assert_eq!(prim.normals.as_ref().unwrap()[v], before.normals.as_ref().unwrap()[f]);
            let a: Vec<_> = inf.vertex(v, &table).collect();
            let b: Vec<_> = before.influences.as_ref().unwrap().vertex(f, &table).collect();
            assert_eq!(a, b);
        }
        // Same-set vertices keep their file order among themselves.
        assert_eq!((0..6).map(|v| prim.order.file_index(v)).collect::<Vec<_>>(), vec![0, 2, 5, 1, 4, 3]);
        assert_eq!(prim.file_triangles(), before.triangles);
        assert_eq!(prim.order.to_file(&prim.positions), before.positions);
        assert_eq!(prim.order.from_file(&before.positions), prim.positions);
    }

    #[test]
    fn a_second_ordering_composes_with_the_first_and_appended_vertices_keep_their_index() {
        let (mut prim, table) = primitive(&[2, 1, 0, 2, 1, 0]);
        let before = prim.clone();
        prim.order_by_joint_set();
        assert!(by_joint_set(prim.influences.as_ref().unwrap()).is_none(), "already ordered");
        // Repaint vertex 0 (file 2) to set of joint 2, then order again.
        let mut inf = prim.influences.take().unwrap();
        let mut t2 = table.clone();
        inf.set_vertex(0, &VertexInfluences::from_slots(0, &[2, 3], &[0.75, 0.25], 4).unwrap(), &mut t2).unwrap();
        prim.influences = Some(inf);
        prim.order_by_joint_set();
        for v in 0..6 {
            assert_eq!(prim.positions[v], before.positions[prim.order.file_index(v)]);
        }
        assert_eq!(prim.order.file_index(9), 9);
        assert_eq!(prim.order.model_index(9), 9);
    }
}
