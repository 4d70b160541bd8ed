//! Which vertices the deformer's eight-lane path takes together. Per window of [`WINDOW`]
//! consecutive vertices of a primitive, the window's vertices are ordered so that groups of eight
//! sharing one packed set word (set and pivot) come first, then the others in file order. Vertex
//! data and every file keep the file's order: the per-vertex pass gathers a group's eight vertices,
//! deforms them in the lanes of one register and scatters the results, all within the window (a few
//! tens of kilobytes, in cache), so memory is still streamed front to back.
//!
//! The order depends on the packed set words only. It is built for a window the first time a pass
//! reads it after one of its vertices changed (see `Influences::lane_window`), so a dab rebuilds
//! only the windows it touched, and a frame without changes allocates nothing.

/// Vertices per window (a divisor of the pass's parallel chunk; offsets fit in `u16`).
pub const WINDOW: usize = 2048;
/// Vertices per lane group.
pub const GROUP: usize = 8;

/// The lane order of one window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowOrder {
    /// Offsets in the window: `groups` groups of eight that share a packed set word (ascending
    /// within each group), then the remaining vertices ascending.
    order: [u16; WINDOW],
    /// Vertices in the window.
    len: u16,
    /// Groups of eight at the front of `order`.
    groups: u16,
}

impl WindowOrder {
    /// The order of a window whose vertices have the packed set words `words` (at most
    /// [`WINDOW`]).
    #[must_use]
    pub fn new(words: &[u32]) -> Self {
        let n = words.len().min(WINDOW);
        let mut keys = [0u64; WINDOW];
        for (k, (i, &w)) in keys.iter_mut().zip(words.iter().enumerate()) {
            *k = (u64::from(w) << 16) | i as u64;
        }
        keys[..n].sort_unstable();
        let mut order = [0u16; WINDOW];
        let mut rest = [0u16; WINDOW];
        let (mut grouped, mut left) = (0, 0);
        let mut i = 0;
        while i < n {
            let word = keys[i] >> 16;
            let mut j = i + 1;
            while j < n && keys[j] >> 16 == word {
                j += 1;
            }
            let full = (j - i) / GROUP * GROUP;
            for &k in &keys[i..i + full] {
                order[grouped] = k as u16;
                grouped += 1;
            }
            for &k in &keys[i + full..j] {
                rest[left] = k as u16;
                left += 1;
            }
            i = j;
        }
        rest[..left].sort_unstable();
        order[grouped..grouped + left].copy_from_slice(&rest[..left]);
        Self { order, len: n as u16, groups: (grouped / GROUP) as u16 }
    }

    /// The groups of eight offsets that share a packed set word.
    pub fn groups(&self) -> impl Iterator<Item = &[u16; GROUP]> {
        self.order[..self.groups as usize * GROUP].chunks_exact(GROUP).filter_map(|g| g.try_into().ok())
    }

    /// The offsets outside every group, ascending.
    #[must_use]
    pub fn rest(&self) -> &[u16] {
        &self.order[self.groups as usize * GROUP..self.len as usize]
    }

    /// Vertices in groups of eight.
    #[must_use]
    pub fn grouped(&self) -> usize {
        self.groups as usize * GROUP
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_words_are_grouped_and_the_rest_kept_in_order() {
        // 20 vertices alternating between words 5 and 9, then 3 of word 7.
        let mut words: Vec<u32> = (0..20).map(|i| if i % 2 == 0 { 5 } else { 9 }).collect();
        words.extend([7, 7, 7]);
        let w = WindowOrder::new(&words);
        let groups: Vec<&[u16; 8]> = w.groups().collect();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0], &[0, 2, 4, 6, 8, 10, 12, 14]);
        assert_eq!(groups[1], &[1, 3, 5, 7, 9, 11, 13, 15]);
        assert_eq!(w.rest(), &[16, 17, 18, 19, 20, 21, 22]);
        assert_eq!(w.grouped(), 16);
        let mut all: Vec<u16> = groups.iter().flat_map(|g| g.iter().copied()).chain(w.rest().iter().copied()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..23).collect::<Vec<u16>>(), "every vertex exactly once");
    }
}
