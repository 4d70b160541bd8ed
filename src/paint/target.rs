//! The primitive a dab paints (or a pick hits): an instance and one of its mesh's primitives.

/// Which primitive a dab paints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DabTarget {
    /// Index into `Model::instances`.
    pub instance: usize,
    /// Primitive index within the instance's mesh.
    pub prim: usize,
}
