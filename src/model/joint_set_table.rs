//! The distinct joint sets of one skin: each set's joints sorted ascending and padded to the
//! table's slot count, interned so that every vertex with the same joints gets the same id (set 0
//! is the empty set). The per-vertex layout that refers to them is `model::influences`.

use std::collections::HashMap;

/// The id of the empty joint set (a vertex with no influence).
pub const EMPTY_SET: u32 = 0;
/// The largest number of influences one vertex may keep, hence members per set (a vertex's
/// pivot slot must fit in the 4 bits `model::influences` packs it in).
pub const MAX_SLOTS: usize = 16;

/// The distinct joint sets of one skin, each padded to `slots` members.
#[derive(Clone, Debug)]
pub struct JointSetTable {
    slots: usize,
    members: Vec<u16>,
    lens: Vec<u8>,
    index: HashMap<Vec<u16>, u32>,
    /// The id [`JointSetTable::intern`] returned last: neighbouring vertices mostly share a set,
    /// and comparing one row is cheaper than hashing. Always the id the index gives.
    last: u32,
}

impl Default for JointSetTable {
    fn default() -> Self {
        Self::new(1)
    }
}

impl JointSetTable {
    /// A table whose sets hold up to `slots` joints (rounded up to a power of two, at most
    /// [`MAX_SLOTS`]), containing only the empty set (id 0).
    #[must_use]
    pub fn new(slots: usize) -> Self {
        let slots = slots.clamp(1, MAX_SLOTS).next_power_of_two();
        let mut index = HashMap::new();
        index.insert(Vec::new(), EMPTY_SET);
        Self { slots, members: vec![0; slots], lens: vec![0], index, last: EMPTY_SET }
    }

    /// Members per set, padding included (the `k` of the influence layout).
    #[must_use]
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Number of distinct sets, the empty set included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether the table holds only the empty set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lens.len() <= 1
    }

    /// The joints of set `id`, ascending.
    #[must_use]
    pub fn joints(&self, id: u32) -> &[u16] {
        let start = id as usize * self.slots;
        &self.members[start..start + self.lens[id as usize] as usize]
    }

    /// The joints of set `id` padded to `slots` entries (padding repeats the first joint).
    #[must_use]
    pub fn padded(&self, id: u32) -> &[u16] {
        let start = id as usize * self.slots;
        &self.members[start..start + self.slots]
    }

    /// All padded members, `slots` per set.
    #[must_use]
    pub fn all_padded(&self) -> &[u16] {
        &self.members
    }

    /// The id of the set with these ascending joints, adding it if new. `None` when the set has
    /// more joints than the table's `slots`.
    pub fn intern(&mut self, sorted: &[u16]) -> Option<u32> {
        if self.joints(self.last) == sorted {
            return Some(self.last);
        }
        if let Some(&id) = self.index.get(sorted) {
            self.last = id;
            return Some(id);
        }
        if sorted.len() > self.slots {
            return None;
        }
        let id = self.lens.len() as u32;
        self.members.extend_from_slice(sorted);
        let pad = sorted.first().copied().unwrap_or(0);
        self.members.extend(std::iter::repeat_n(pad, self.slots - sorted.len()));
        self.lens.push(sorted.len() as u8);
        self.index.insert(sorted.to_vec(), id);
        self.last = id;
        Some(id)
    }

    /// Re-pads every set to hold up to `slots` joints (rounded up to a power of two, at most
    /// [`MAX_SLOTS`]), keeping every set id. Does nothing when the table already has that many.
    /// The influences of every primitive using this table must be re-padded the same way
    /// ([`Influences::grow_slots`](crate::model::Influences::grow_slots)).
    pub fn grow_slots(&mut self, slots: usize) {
        let slots = slots.clamp(1, MAX_SLOTS).next_power_of_two();
        if slots <= self.slots {
            return;
        }
        let mut members = Vec::with_capacity(self.lens.len() * slots);
        for row in self.members.chunks_exact(self.slots) {
            members.extend_from_slice(row);
            members.extend(std::iter::repeat_n(row[0], slots - self.slots));
        }
        self.members = members;
        self.slots = slots;
    }

    /// Renumbers every set after joint `removed` left the skin's joint list: members above it
    /// move down by one, and `removed` itself becomes `replacement` (given in the new numbering;
    /// `None` drops it). Rows stay sorted and distinct and every set id is kept, so the stored
    /// words of vertices that did not use `removed` stay valid; vertices that did must be laid out
    /// again ([`Influences::set_vertex`](crate::model::Influences::set_vertex)). Where two rows end up equal, lookups find the first.
    pub fn remove_joint(&mut self, removed: u16, replacement: Option<u16>) {
        let mut index = HashMap::with_capacity(self.index.len());
        for (id, row) in self.members.chunks_exact_mut(self.slots).enumerate() {
            let len = self.lens[id] as usize;
            let mut joints: Vec<u16> = row[..len]
                .iter()
                .filter_map(|&j| match j.cmp(&removed) {
                    std::cmp::Ordering::Less => Some(j),
                    std::cmp::Ordering::Equal => replacement,
                    std::cmp::Ordering::Greater => Some(j - 1),
                })
                .collect();
            joints.sort_unstable();
            joints.dedup();
            let pad = joints.first().copied().unwrap_or(0);
            row.fill(pad);
            row[..joints.len()].copy_from_slice(&joints);
            self.lens[id] = joints.len() as u8;
            index.entry(joints).or_insert(id as u32);
        }
        self.index = index;
        // Rows may have become equal: only the index knows which id lookups give.
        self.last = EMPTY_SET;
    }

    /// Counts of sets by kind: (non-empty distinct sets, non-trivial sets). A set is trivial when
    /// it has one joint or two joints that are parent and child (SBS paper, Table 2).
    #[must_use]
    pub fn counts(&self, adjacent: impl Fn(u16, u16) -> bool) -> (usize, usize) {
        let mut distinct = 0;
        let mut nontrivial = 0;
        for id in 1..self.len() as u32 {
            let joints = self.joints(id);
            distinct += 1;
            let trivial = joints.len() == 1 || (joints.len() == 2 && adjacent(joints[0], joints[1]));
            if !trivial {
                nontrivial += 1;
            }
        }
        (distinct, nontrivial)
    }
}
