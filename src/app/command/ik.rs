//! Inverse-kinematics commands: dragging a joint with its chain following, pins, the chain's
//! length and the pole of a two-bone chain.

use glam::DVec3;

/// The longest chain the chain-length field offers.
pub const MAX_CHAIN: usize = 32;

/// An IK operation (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IkCommand {
    /// Turn IK dragging on or off.
    SetEnabled(bool),
    /// Bones that follow the dragged joint (1 to [`MAX_CHAIN`]).
    SetChain(usize),
    /// Pin or unpin a joint (pinned joints keep their model-space position during IK drags).
    TogglePin(usize),
    /// Forget every pin.
    ClearPins,
    /// Move `end` to `target` (model space); the chain follows. Consecutive drags of the same
    /// joint solve from the pose at the first one, until [`IkCommand::End`].
    Drag {
        /// The dragged end joint.
        end: usize,
        /// Where it goes, model space.
        target: DVec3,
    },
    /// Bend the two-bone chain ending at `end` toward `pole` (model space), the end kept in place.
    Pole {
        /// The chain's end joint.
        end: usize,
        /// The pole point the middle joint turns toward.
        pole: DVec3,
    },
    /// Finish the drag: one undo step when the pose changed.
    End,
    /// Abandon the drag: the pose at its start comes back.
    Cancel,
}
