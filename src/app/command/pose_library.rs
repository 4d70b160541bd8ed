//! Pose-library commands: add, apply (flipped or not), rename and delete poses.

/// A pose-library operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoseLibraryCommand {
    /// Add the current pose under `name` (replacing a pose of that name): the selected joint and
    /// those below it (`selected_only`), or every joint.
    Add {
        /// The new pose's name.
        name: String,
        /// Only the selected limb (the whole pose when nothing is selected).
        selected_only: bool,
    },
    /// Apply pose `index` (one undo step); `flipped` applies it across the symmetry plane.
    Apply {
        /// The pose's position in the library.
        index: usize,
        /// Onto the mirror partners, reflected.
        flipped: bool,
    },
    /// Rename pose `index`.
    Rename {
        /// The pose's position in the library.
        index: usize,
        /// Its new name.
        name: String,
    },
    /// Delete pose `index`.
    Delete(usize),
    /// Start an empty library in place of a file that could not be read (it is overwritten by
    /// the next change).
    ReplaceBroken,
}
