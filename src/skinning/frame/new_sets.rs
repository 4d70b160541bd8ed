//! Incremental preparation: when weight painting appends joint sets to a skin's table, only the
//! new sets get their flags, member tables and SBS centres (and the joints they read for the first
//! time their parts); the sets already prepared keep theirs
//! (a set's parts depend only on its joints and the pose, never on the weights).

use super::SkinFrame;
use crate::model::Skin;
use crate::skinning::SkinningMethod;

impl SkinFrame {
    /// Number of sets this frame has prepared.
    #[must_use]
    pub fn prepared_sets(&self) -> usize {
        self.flags.len()
    }

    /// Prepares the sets that `skin`'s table gained since the last [`SkinFrame::prepare`] (same
    /// pose, same `method`), solving SBS centres for those sets only. Returns how many sets were
    /// added. The table's slot count must not have changed (re-padding needs a full prepare).
    pub fn prepare_new_sets(&mut self, skin: &Skin, method: SkinningMethod) -> usize {
        let table = &skin.sets;
        let first = self.flags.len();
        let n_sets = table.len();
        if n_sets <= first || table.slots() != self.slots || self.joints.len() != skin.joints.len() {
            return 0;
        }
        self.prepare_new_joints(skin, first);
        self.resize_tables(n_sets, method);
        self.fill_sets(skin, first..n_sets, first);
        if self.kept.members.len() == first * self.slots {
            self.kept.members.extend_from_slice(&table.all_padded()[first * self.slots..]);
        }
        n_sets - first
    }
}
