//! Moving a primitive's vertices into joint-set order at import ([`VertexOrder`] keeps where each
//! one sat in the file), into another load's order, and the triangles as the file lists them.

use super::vertex_order::{by_joint_set, pick, VertexOrder};
use super::{Model, Primitive};

impl Primitive {
    /// Orders the vertices by joint set ([`by_joint_set`]): positions, normals, influences and
    /// the triangles' indices move together and [`Primitive::order`] keeps the file's
    /// order. A primitive without influences, or already in that order, is left as it is.
    pub fn order_by_joint_set(&mut self) {
        let Some(inf) = &self.influences else { return };
        if let Some(moved) = by_joint_set(inf) {
            self.move_vertices(&moved);
        }
    }

    /// Moves the vertices so that the primitive's order becomes `target` (another load of the
    /// same file, e.g. an edited copy whose weights ordered it differently): model vertex `i` is
    /// then the same file vertex as in the primitive `target` belongs to.
    pub fn take_order(&mut self, target: &VertexOrder) {
        let n = self.positions.len();
        let moved: Vec<u32> = (0..n).map(|j| self.order.model_index(target.file_index(j)) as u32).collect();
        if moved.iter().enumerate().any(|(j, &v)| v as usize != j) {
            self.move_vertices(&moved);
        }
    }

    /// Moves model vertex `moved[i]` to `i` (`moved` a permutation of the vertices): positions,
    /// normals, influences and the triangles' indices together, the order kept.
    fn move_vertices(&mut self, moved: &[u32]) {
        let n = self.positions.len();
        let sized = |len: usize| len == n;
        if !sized(moved.len())
            || self.influences.as_ref().is_some_and(|i| !sized(i.len()))
            || self.normals.as_ref().is_some_and(|v| !sized(v.len()))
            || moved.iter().any(|&v| v as usize >= n)
        {
            return;
        }
        if let Some(inf) = &self.influences {
            self.influences = Some(inf.gather(moved));
        }
        let at = |i: usize| moved[i] as usize;
        self.positions = pick(&self.positions, at);
        if let Some(n) = &mut self.normals {
            *n = pick(n, at);
        }
        let mut new_of = vec![0u32; moved.len()];
        for (i, &v) in moved.iter().enumerate() {
            new_of[v as usize] = i as u32;
        }
        for t in &mut self.triangles {
            for k in t.iter_mut() {
                *k = new_of[*k as usize];
            }
        }
        self.order = self.order.after_move(moved);
    }

    /// The triangles with file indices (as the file lists them).
    #[must_use]
    pub fn file_triangles(&self) -> Vec<[u32; 3]> {
        if self.order.is_file_order() {
            return self.triangles.clone();
        }
        self.triangles.iter().map(|t| t.map(|k| self.order.file_index(k as usize) as u32)).collect()
    }
}

impl Model {
    /// Orders every skinned primitive's vertices by joint set
    /// ([`Primitive::order_by_joint_set`]), primitives in parallel.
    pub fn order_by_joint_set(&mut self) {
        use rayon::prelude::*;
        self.meshes.par_iter_mut().flat_map(|m| m.primitives.par_iter_mut()).for_each(Primitive::order_by_joint_set);
    }
}
