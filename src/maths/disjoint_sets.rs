//! Disjoint sets (union–find with path halving): the connected parts of a graph given edge by
//! edge (a surface's triangles, welded pieces of an object).

/// Elements `0..len` in disjoint sets, each named by its root.
#[derive(Clone, Debug, Default)]
pub struct DisjointSets {
    parent: Vec<u32>,
}

impl DisjointSets {
    /// `n` elements, each alone.
    #[must_use]
    pub fn new(n: usize) -> Self {
        Self { parent: (0..n as u32).collect() }
    }

    /// Adds an element alone in its set and returns it.
    pub fn push(&mut self) -> u32 {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        id
    }

    /// The root of `x`'s set (halving the path on the way).
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            self.parent[x as usize] = self.parent[self.parent[x as usize] as usize];
            x = self.parent[x as usize];
        }
        x
    }

    /// Joins the sets of `a` and `b` (the smaller root stays the root).
    pub fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }

    /// A label per element, `0..count`, numbered in the order each set's first element comes.
    #[must_use]
    pub fn labels(&mut self) -> Vec<u32> {
        let n = self.parent.len();
        let mut label = vec![u32::MAX; n];
        let mut count = 0;
        (0..n as u32)
            .map(|i| {
                let r = self.find(i) as usize;
                if label[r] == u32::MAX {
                    label[r] = count;
                    count += 1;
                }
                label[r]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unions_join_sets_and_labels_follow_first_elements() {
        let mut s = DisjointSets::new(5);
        s.union(3, 1);
        s.union(4, 3);
        assert_eq!(s.find(4), s.find(1));
        assert_ne!(s.find(0), s.find(1));
        let e = s.push();
        s.union(e, 0);
        assert_eq!(s.labels(), vec![0, 1, 2, 1, 1, 0]);
    }
}
