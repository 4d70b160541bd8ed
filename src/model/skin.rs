//! A skin: its joints (node indices), their inverse bind matrices and the table of distinct joint
//! sets that its vertices use (the SBS paper's cache key).

use glam::DMat4;

use super::influences::JointSetTable;

/// One glTF skin.
#[derive(Clone, Debug, Default)]
pub struct Skin {
    /// The skin's name, if any.
    pub name: Option<String>,
    /// Node index of each joint; influences hold indices into this list.
    pub joints: Vec<usize>,
    /// `joint_from_bind` (the inverse bind matrix) of each joint; identity when the file has none.
    pub joint_from_bind: Vec<DMat4>,
    /// Distinct joint sets of every vertex that uses this skin.
    pub sets: JointSetTable,
}

impl Skin {
    /// Whether two joints of this skin are parent and child in the node tree.
    #[must_use]
    pub fn adjacent(&self, tree: &super::NodeTree, a: u16, b: u16) -> bool {
        let (na, nb) = (self.joints[a as usize], self.joints[b as usize]);
        tree.nodes[na].parent == Some(nb) || tree.nodes[nb].parent == Some(na)
    }
}
