//! IK posing in the editor (Pose mode with IK on, like Blender's auto-IK): dragging an end joint
//! (a hand, a foot) moves it to a target and the chain of its `chain` ancestors follows, solved
//! by `rig::ik` (two-bone analytic for two bones, FABRIK otherwise); the chain root stays put and
//! pinned joints keep their place (a pinned joint inside the chain becomes its root). A pole
//! handle turns a two-bone chain's bend plane with the end joint kept where it is.
//!
//! Every frame of a drag solves from the pose at the drag's start, so the result depends only on
//! where the pointer is; the whole drag is one undo step, recorded when it ends, and cancelling
//! it (Esc, right-click) puts the start pose back untouched.

use std::collections::BTreeSet;

use glam::{DMat4, DVec3};

use super::EditorState;
use crate::app::command::{IkCommand, MAX_CHAIN};
use crate::rig::ik::{self, IkError, IkGoal, IkSolver};
use crate::rig::{fk, Pose};

/// A drag in progress: the joint and the pose it started from.
#[derive(Clone, Debug, PartialEq)]
struct IkDrag {
    end: usize,
    start: Pose,
    /// The end joint's position at the start (model space): where a pole drag keeps it.
    end_at_start: DVec3,
}

/// IK settings and the drag in progress.
#[derive(Clone, Debug, PartialEq)]
pub struct IkState {
    /// Dragging a joint in the viewport moves it by IK (off: the rotation gizmo alone).
    pub enabled: bool,
    /// Bones that follow the dragged joint (2: upper arm and forearm).
    pub chain: usize,
    /// Pinned joints (node indices).
    pub pinned: BTreeSet<usize>,
    drag: Option<IkDrag>,
}

impl Default for IkState {
    fn default() -> Self {
        Self { enabled: false, chain: 2, pinned: BTreeSet::new(), drag: None }
    }
}

impl IkState {
    /// Whether an IK drag is in progress.
    #[must_use]
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
    }

    /// Sets how many bones follow the dragged joint (1 to [`MAX_CHAIN`]).
    pub fn set_chain(&mut self, bones: usize) {
        self.chain = bones.clamp(1, MAX_CHAIN);
    }

    /// Pins `node`, or unpins it when it is pinned.
    pub fn toggle_pin(&mut self, node: usize) {
        if !self.pinned.remove(&node) {
            self.pinned.insert(node);
        }
    }

    /// Forgets the pins and the drag (another model was loaded); the settings stay.
    pub fn model_replaced(&mut self) {
        self.pinned.clear();
        self.drag = None;
    }
}

impl EditorState {
    /// Carries out one IK command.
    pub(super) fn apply_ik(&mut self, cmd: IkCommand) {
        match cmd {
            IkCommand::SetEnabled(on) => {
                self.end_ik_drag();
                self.posing.ik.enabled = on;
            }
            IkCommand::SetChain(n) => self.posing.ik.set_chain(n),
            IkCommand::TogglePin(node) if node < self.doc.model.nodes.len() => self.posing.ik.toggle_pin(node),
            IkCommand::TogglePin(_) => {}
            IkCommand::ClearPins => self.posing.ik.pinned.clear(),
            IkCommand::Drag { end, target } => self.ik_solve(end, target, None),
            IkCommand::Pole { end, pole } => {
                let target = self.ik_drag_start(end).map(|d| d.end_at_start);
                if let Some(target) = target {
                    self.ik_solve(end, target, Some(pole));
                }
            }
            IkCommand::End => self.end_ik_drag(),
            IkCommand::Cancel => {
                if let Some(d) = self.posing.ik.drag.take() {
                    self.doc.pose = d.start;
                    self.frame.dirty = true;
                }
            }
        }
    }

    /// Records the open IK drag as one undo step (nothing when the pose did not change).
    pub(super) fn end_ik_drag(&mut self) {
        let Some(d) = self.posing.ik.drag.take() else { return };
        if d.start != self.doc.pose {
            self.doc.history.record(&d.start, None);
        }
    }

    /// The drag of `end`, started now from the current pose unless it is already open.
    fn ik_drag_start(&mut self, end: usize) -> Option<&IkDrag> {
        if end >= self.doc.model.nodes.len() {
            return None;
        }
        if self.posing.ik.drag.as_ref().is_none_or(|d| d.end != end) {
            self.end_ik_drag();
            self.end_gesture();
            self.posing.playing = false;
            let mut globals = Vec::new();
            fk::model_from_node(&self.doc.model.nodes, &self.doc.pose, &mut globals);
            let end_at_start = globals[end].w_axis.truncate();
            self.posing.ik.drag = Some(IkDrag { end, start: self.doc.pose.clone(), end_at_start });
        }
        self.posing.ik.drag.as_ref()
    }

    fn ik_solve(&mut self, end: usize, target: DVec3, pole: Option<DVec3>) {
        let Some(d) = self.ik_drag_start(end) else { return };
        let mut pose = d.start.clone();
        let chain = match self.ik_chain_length(end) {
            Ok(n) => n,
            Err(e) => {
                self.set_error(format!("IK: {e}"));
                return;
            }
        };
        let goal = IkGoal { end, target, chain, pole, solver: IkSolver::Auto };
        let pinned: Vec<usize> = self.posing.ik.pinned.iter().copied().collect();
        match ik::solve(&self.doc.model.nodes, &mut pose, &goal, &pinned) {
            Ok(_) if pose == self.doc.pose => {}
            Ok(_) => {
                self.doc.pose = pose;
                self.frame.dirty = true;
            }
            Err(e) => self.set_error(format!("IK: {e}")),
        }
    }

    /// The chain length used for `end`: the setting, or fewer bones when the hierarchy above
    /// the joint is shorter (as far as the root).
    fn ik_chain_length(&self, end: usize) -> Result<usize, IkError> {
        match ik::chain_nodes(&self.doc.model.nodes, end, self.posing.ik.chain) {
            Err(IkError::ChainTooLong { available, .. }) if available > 0 => Ok(available),
            Err(e) => Err(e),
            Ok(_) => Ok(self.posing.ik.chain),
        }
    }

    /// The chain an IK drag of `end` moves, root first (pins shorten it), or why there is none.
    pub fn ik_chain(&self, end: usize) -> Result<Vec<usize>, IkError> {
        let mut chain = ik::chain_nodes(&self.doc.model.nodes, end, self.ik_chain_length(end)?)?;
        if self.posing.ik.pinned.contains(&end) {
            return Err(IkError::EndPinned(self.doc.model.nodes.key(end)));
        }
        if let Some(k) = chain.iter().rposition(|n| self.posing.ik.pinned.contains(n)) {
            chain.drain(..k);
        }
        Ok(chain)
    }

    /// The pole handle of a two-bone chain ending at `end`: the middle joint and the handle's
    /// position (model space), in the plane the chain bends in now, one upper-bone length from
    /// the middle joint (a straight chain: along the middle joint's Z axis, where the solver
    /// bends it). `None` when the chain is not two bones long.
    #[must_use]
    pub fn ik_pole_handle(&self, end: usize) -> Option<(DVec3, DVec3)> {
        let chain = self.ik_chain(end).ok()?;
        let [root, mid, end] = chain[..] else { return None };
        let at = |n: usize| self.frame.model_from_node.get(n).map(|m: &DMat4| m.w_axis.truncate());
        let (r, m, e) = (at(root)?, at(mid)?, at(end)?);
        let axis = (e - r).normalize_or_zero();
        let perpendicular = |v: DVec3| v - v.dot(axis) * axis;
        let mut bend = perpendicular(m - r);
        if bend.length() <= 1e-9 * (m - r).length().max(1e-300) {
            bend = perpendicular(self.frame.model_from_node[mid].z_axis.truncate());
        }
        let bend = bend.try_normalize()?;
        Some((m, m + bend * (m - r).length()))
    }
}
