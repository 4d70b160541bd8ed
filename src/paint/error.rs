//! Why a dab or tool could not run.

use crate::model::InfluenceError;

/// Why a dab or tool could not run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PaintError {
    /// The instance index is out of range.
    #[error("no skinned instance {0}")]
    NoInstance(usize),
    /// The primitive index is out of range.
    #[error("mesh {mesh} has no primitive {prim}")]
    NoPrimitive {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        prim: usize,
    },
    /// The primitive has no influences (see [`super::writable::ensure_all_influences`]).
    #[error("primitive {prim} of mesh {mesh} has no skin weights")]
    NoInfluences {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        prim: usize,
    },
    /// The painted joint is not in the skin.
    #[error("joint {joint} is beyond the skin's {joints} joints")]
    JointOutOfRange {
        /// The joint index.
        joint: u16,
        /// Joints in the skin.
        joints: usize,
    },
    /// The topology cache does not match the model.
    #[error("no brush topology for primitive {prim} of mesh {mesh}")]
    NoTopology {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        prim: usize,
    },
    /// The tool writes a locked joint.
    #[error("joint {0} is locked")]
    JointLocked(u16),
    /// Writing a vertex failed.
    #[error(transparent)]
    Influence(#[from] InfluenceError),
}
