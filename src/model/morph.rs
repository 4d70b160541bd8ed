//! Morph targets (glTF) and blend shapes (FBX): each mesh's target names and default weights, each
//! primitive's targets as sparse displacements, and the morphed rest surface that skinning then
//! deforms (glTF: morph first, then skin). Displacements name vertices by their index in the
//! file (`VertexOrder::model_index` finds them in the model), so reordering the model's vertices
//! never touches them and the exporter writes them as read.

use glam::Vec3;

use super::vertex_order::VertexOrder;

/// One target of one primitive: the vertices it moves and by how much.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// File indices of the vertices with a non-zero displacement, increasing.
    pub vertices: Vec<u32>,
    /// Position displacement per listed vertex.
    pub positions: Vec<Vec3>,
    /// Normal displacement per listed vertex (empty: the target moves no normal).
    pub normals: Vec<Vec3>,
}

impl MorphTarget {
    /// A target from dense per-vertex displacements in the file's order (`normals` empty or as long
    /// as `positions`): only the vertices with a non-zero displacement are kept.
    #[must_use]
    pub fn from_dense(positions: &[Vec3], normals: &[Vec3]) -> Self {
        let mut target = Self::default();
        for (v, &d) in positions.iter().enumerate() {
            let n = normals.get(v).copied().unwrap_or(Vec3::ZERO);
            if d != Vec3::ZERO || n != Vec3::ZERO {
                target.vertices.push(v as u32);
                target.positions.push(d);
                if !normals.is_empty() {
                    target.normals.push(n);
                }
            }
        }
        target
    }

    /// Dense position displacements of `count` file vertices.
    #[must_use]
    pub fn dense_positions(&self, count: usize) -> Vec<Vec3> {
        dense(&self.vertices, &self.positions, count)
    }

    /// Dense normal displacements of `count` file vertices (`None` when the target moves none).
    #[must_use]
    pub fn dense_normals(&self, count: usize) -> Option<Vec<Vec3>> {
        (!self.normals.is_empty()).then(|| dense(&self.vertices, &self.normals, count))
    }
}

fn dense(vertices: &[u32], values: &[Vec3], count: usize) -> Vec<Vec3> {
    let mut out = vec![Vec3::ZERO; count];
    for (&v, &d) in vertices.iter().zip(values) {
        if let Some(o) = out.get_mut(v as usize) {
            *o = d;
        }
    }
    out
}

/// A mesh's morph targets (the same number in every primitive, as glTF requires).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshMorphs {
    /// Each target's name (glTF `extras.targetNames`, FBX channel names).
    pub names: Vec<Option<String>>,
    /// The weights used where no pose or clip gives any (glTF `mesh.weights`; zero by default).
    pub default_weights: Vec<f32>,
    /// Per primitive, its targets (`names.len()` of them, or none for a primitive without).
    pub primitives: Vec<Vec<MorphTarget>>,
}

impl MeshMorphs {
    /// The number of targets.
    #[must_use]
    pub fn len(&self) -> usize {
        self.default_weights.len()
    }

    /// Whether the mesh has no morph targets.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.default_weights.is_empty()
    }

    /// Target `t`'s name for the user: its own, or `target N`.
    #[must_use]
    pub fn label(&self, t: usize) -> String {
        self.names.get(t).cloned().flatten().unwrap_or_else(|| format!("target {t}"))
    }
}

/// Vertices per task of the morph pass (a range of model indices).
const CHUNK: usize = 1 << 15;

/// One target's displacements by model index, sorted (position, normal).
type Sorted = Vec<(u32, Vec3, Vec3)>;

/// The morphed rest surface of one primitive, kept between poses: only the vertices some target
/// moves are written again when the weights change, in ranges of model indices over rayon's
/// threads.
#[derive(Clone, Debug, Default)]
pub struct MorphedRest {
    /// Morphed rest positions in model order.
    pub positions: Vec<Vec3>,
    /// Morphed rest normals in model order (empty when the primitive is skinned without normals).
    pub normals: Vec<Vec3>,
    /// Model indices of every vertex some target moves (sorted, distinct).
    support: Vec<u32>,
    /// Each target's displacements by model index, sorted.
    sorted: Vec<Sorted>,
    /// The weights the buffers hold.
    weights: Vec<f32>,
    /// Address and length of the rest positions the buffers were made from.
    source: (usize, usize),
}

impl MorphedRest {
    /// Brings the buffers to `rest + Σ weights[t] · target t` for a primitive with rest positions
    /// `rest` and vertex order `order` (`normals`: the rest normals skinning reads, if any). Returns whether any weight is non-zero, i.e. whether
    /// the buffers differ from the rest surface. Work is proportional to the vertices the targets
    /// move, except the first time (or for another primitive), which copies the rest surface.
    pub fn update(
        &mut self,
        rest: &[Vec3],
        order: &VertexOrder,
        normals: Option<&[Vec3]>,
        targets: &[MorphTarget],
        weights: &[f32],
    ) -> bool {
        use rayon::prelude::*;
        let active = weights.iter().zip(targets).any(|(&w, _)| w != 0.0);
        let source = (rest.as_ptr() as usize, rest.len());
        let normals = normals.filter(|n| n.len() == rest.len());
        let fresh = self.source != source || self.normals.len() != normals.map_or(0, <[Vec3]>::len);
        if fresh {
            if !active {
                self.source = (0, 0);
                return false;
            }
            self.positions.clear();
            self.positions.extend_from_slice(rest);
            self.normals.clear();
            if let Some(n) = normals {
                self.normals.extend_from_slice(n);
            }
            self.sorted = targets.iter().map(|t| by_model_index(rest.len(), order, t)).collect();
            self.support = self.sorted.iter().flatten().map(|e| e.0).collect();
            self.support.par_sort_unstable();
            self.support.dedup();
            self.weights.clear();
            self.source = source;
        } else if self.weights.as_slice() == weights {
            return active;
        }
        let (support, sorted) = (&self.support, &self.sorted);
        let with_normals = normals.is_some();
        let mut normal_chunks: Vec<&mut [Vec3]> =
            if with_normals { self.normals.chunks_mut(CHUNK).collect() } else { Vec::new() };
        normal_chunks.resize_with(self.positions.len().div_ceil(CHUNK), Default::default);
        self.positions.par_chunks_mut(CHUNK).zip(normal_chunks.into_par_iter()).enumerate().for_each(
            |(c, (pos, nrm))| {
                let (lo, hi) = ((c * CHUNK) as u32, (c * CHUNK + pos.len()) as u32);
                let s0 = support.partition_point(|&v| v < lo);
                let s1 = support.partition_point(|&v| v < hi);
                for &v in &support[s0..s1] {
                    let k = (v - lo) as usize;
                    pos[k] = rest[v as usize];
                    if let (Some(n), Some(out)) = (normals, nrm.get_mut(k)) {
                        *out = n[v as usize];
                    }
                }
                for (entries, &w) in sorted.iter().zip(weights).filter(|(_, &w)| w != 0.0) {
                    let e0 = entries.partition_point(|e| e.0 < lo);
                    let e1 = entries.partition_point(|e| e.0 < hi);
                    for &(v, d, dn) in &entries[e0..e1] {
                        let k = (v - lo) as usize;
                        pos[k] += w * d;
                        if let Some(out) = nrm.get_mut(k) {
                            *out += w * dn;
                        }
                    }
                }
            },
        );
        self.weights.clear();
        self.weights.extend_from_slice(weights);
        active
    }
}

/// `target`'s displacements by model index (vertices beyond the primitive dropped), sorted.
fn by_model_index(n: usize, order: &VertexOrder, target: &MorphTarget) -> Sorted {
    let mut out: Sorted = target
        .vertices
        .iter()
        .zip(&target.positions)
        .enumerate()
        .map(|(k, (&f, &d))| (order.model_index(f as usize), d, target.normals.get(k).copied().unwrap_or(Vec3::ZERO)))
        .filter(|e| e.0 < n)
        .map(|(v, d, dn)| (v as u32, d, dn))
        .collect();
    out.sort_unstable_by_key(|e| e.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morphed_rest_follows_the_weights_and_returns_to_rest() {
        let rest = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        let order = VertexOrder::default();
        let a = MorphTarget::from_dense(&[Vec3::ZERO, Vec3::Z, Vec3::ZERO], &[]);
        let b = MorphTarget::from_dense(&[Vec3::ZERO, Vec3::X, Vec3::Y], &[]);
        assert_eq!(a.vertices, vec![1]);
        let targets = [a, b];
        let mut m = MorphedRest::default();
        assert!(!m.update(&rest, &order, None, &targets, &[0.0, 0.0]));
        assert!(m.update(&rest, &order, None, &targets, &[0.5, 0.25]));
        assert_eq!(m.positions, vec![Vec3::ZERO, Vec3::new(1.25, 0.0, 0.5), Vec3::new(0.0, 1.25, 0.0)]);
        assert!(m.update(&rest, &order, None, &targets, &[0.0, 1.0]));
        assert_eq!(m.positions, vec![Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)]);
        assert!(!m.update(&rest, &order, None, &targets, &[0.0, 0.0]));
        assert_eq!(m.positions, rest);
    }
}
