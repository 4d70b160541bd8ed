//! Each morphed primitive's state across poses: while its weights change, the pass adds the
//! targets as it reads the rest surface ([`Morph`]); once a pose repeats the last pose's weights,
//! the morphed surface is written once and held, so that frames whose weights stay cost nothing
//! extra until they change again. (Holding a surface and writing again only the vertices sparse
//! targets move cost about as much as deforming those vertices: a target on 30 % of a 1M rig
//! added 32 % a frame, against 15 % for the streamed morph of every vertex.)

use glam::Vec3;

use crate::model::{MorphTarget, VertexOrder};
use crate::skinning::{Morph, MorphDeltas, Rest};

/// How the pass reads a primitive's rest surface in this pose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Mode {
    /// No target is active: the model's rest surface.
    #[default]
    Off,
    /// The model's rest surface with the targets added as it is read.
    Streamed,
    /// The held morphed surface.
    Held,
}

/// One primitive's morph state, kept by the deformer.
#[derive(Clone, Debug, Default)]
pub(super) struct PrimitiveMorph {
    deltas: MorphDeltas,
    /// This pose's weights.
    weights: Vec<f32>,
    /// The last pose's weights.
    previous: Vec<f32>,
    mode: Mode,
    /// Address and length of the rest positions of this pose's mode.
    source: (usize, usize),
    /// The held morphed rest positions, and normals (empty where no target moves normals).
    held: (Vec<Vec3>, Vec<Vec3>),
    /// The weights and the rest normals' address and length `held` was made from (no weights:
    /// nothing held).
    held_for: (Vec<f32>, usize, usize),
}

impl PrimitiveMorph {
    /// Brings the state to `weights` for a primitive with rest positions `rest`, vertex order
    /// `order`, the rest normals skinning reads (`normals`) and morph targets `targets`.
    pub(super) fn update(
        &mut self,
        rest: &[Vec3],
        order: &VertexOrder,
        normals: Option<&[Vec3]>,
        targets: &[MorphTarget],
        weights: &[f32],
    ) {
        std::mem::swap(&mut self.previous, &mut self.weights);
        self.weights.clear();
        self.weights.extend_from_slice(weights);
        self.source = (rest.as_ptr() as usize, rest.len());
        self.mode = Mode::Off;
        if targets.is_empty() {
            return;
        }
        if !self.deltas.prepared_for(rest, targets) {
            self.deltas.prepare(rest, order, targets);
            self.held_for.0.clear();
        }
        let Some(morph) = Morph::new(&self.deltas, &self.weights) else { return };
        let normals_key = normals.map_or((0, 0), |n| (n.as_ptr() as usize, n.len()));
        let held = (self.held_for.1, self.held_for.2) == normals_key && self.held.0.len() == rest.len();
        if held && self.held_for.0 == self.weights {
            self.mode = Mode::Held;
            return;
        }
        if self.previous != self.weights {
            self.mode = Mode::Streamed;
            return;
        }
        // The weights stay: write the morphed surface once and hold it.
        self.held.0.resize(rest.len(), Vec3::ZERO);
        morph.surface::<false>(rest, &mut self.held.0);
        // The held normals, where an active target moves normals and skinning reads them.
        match normals.filter(|_| morph.moves_normals()) {
            Some(n) => {
                self.held.1.resize(n.len(), Vec3::ZERO);
                morph.surface::<true>(n, &mut self.held.1);
            }
            None => self.held.1.clear(),
        }
        self.held_for = (self.weights.clone(), normals_key.0, normals_key.1);
        self.mode = Mode::Held;
    }

    /// The rest surface the pass reads for this primitive (rest positions `positions`, rest normals
    /// `normals`): the model's where no target is active or the state was made for another
    /// primitive, else the held morphed surface or the model's with the morph added as read.
    pub(super) fn rest<'a>(&'a self, positions: &'a [Vec3], normals: Option<&'a [Vec3]>) -> Rest<'a> {
        let plain = Rest { positions, normals, morph: None };
        if self.source != (positions.as_ptr() as usize, positions.len()) {
            return plain;
        }
        match self.mode {
            Mode::Off => plain,
            Mode::Streamed => Rest { morph: Morph::new(&self.deltas, &self.weights), ..plain },
            Mode::Held => Rest {
                positions: &self.held.0,
                normals: normals.map(|n| if self.held.1.is_empty() { n } else { self.held.1.as_slice() }),
                morph: None,
            },
        }
    }
}
