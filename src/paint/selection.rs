//! The vertex selection mask over the model surface (Blender's weight-paint vertex selection):
//! box and lasso select of vertices by their deformed positions projected to the screen, with
//! replace / add / subtract (Blender's plain, Shift and Ctrl drags), select all / none / invert,
//! grow and shrink by one ring of the welded adjacency, hide and reveal. With "restrict to
//! selection" on, dabs and tools change only selected vertices ([`Selection::editable_mask`]);
//! hidden vertices are never selected and never painted.
//!
//! Invariant: a weld group (coincident copies across primitives and seams) is selected and hidden
//! as one: every member holds the same flags after every operation.
//!
//! Box and lasso select every vertex inside the region that lies in front of the camera, whether
//! or not another part of the mesh covers it (Blender's behaviour with X-ray on): weight painters
//! select through the mesh to reach the inner side of a limb.

use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Mat4, Vec2, Vec3};

use super::adjacency::Adjacency;

/// How a region select combines with the current selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SelectOp {
    /// The region becomes the selection (a plain drag).
    #[default]
    Replace,
    /// The region is added (Shift).
    Add,
    /// The region is removed (Ctrl).
    Subtract,
}

/// The camera's view-projection and the viewport size: model points to screen pixels (origin at
/// the top-left corner, y down, as egui and the mouse count).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenProjection {
    /// Projection × view (clip space from model space).
    pub view_proj: Mat4,
    /// Viewport size in pixels.
    pub size: Vec2,
}

impl ScreenProjection {
    /// The pixel position of `p`, or `None` when it is behind the camera (or not finite).
    #[must_use]
    pub fn to_screen(&self, p: Vec3) -> Option<Vec2> {
        let c = self.view_proj * p.extend(1.0);
        if c.w <= 0.0 || !c.is_finite() {
            return None;
        }
        let ndc = Vec2::new(c.x / c.w, c.y / c.w);
        Some(Vec2::new((ndc.x + 1.0) * 0.5 * self.size.x, (1.0 - ndc.y) * 0.5 * self.size.y))
    }
}

/// Whether `p` lies inside the closed polygon `poly` (even-odd rule).
#[must_use]
pub fn inside_polygon(p: Vec2, poly: &[Vec2]) -> bool {
    let mut inside = false;
    let mut j = poly.len().wrapping_sub(1);
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[j]);
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Selected and hidden flags per surface vertex (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Selection {
    selected: Vec<bool>,
    hidden: Vec<bool>,
    /// See [`Selection::stamp`].
    stamp: u64,
}

impl PartialEq for Selection {
    fn eq(&self, other: &Self) -> bool {
        self.selected == other.selected && self.hidden == other.hidden
    }
}

impl Eq for Selection {}

/// The next [`Selection::stamp`] (0 is the empty default's).
static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

impl Selection {
    /// Nothing selected or hidden on a surface of `len` vertices.
    #[must_use]
    pub fn new(len: usize) -> Self {
        Self { selected: vec![false; len], hidden: vec![false; len], stamp: NEXT_STAMP.fetch_add(1, Ordering::Relaxed) }
    }

    /// A number that changes with every edit of the mask and is never given to two masks made
    /// or edited apart: what is computed from a mask (counts, lists) stays right while its stamp
    /// stays (clones share the stamp until one of them is edited).
    #[must_use]
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Called by every method that edits the mask.
    fn edited(&mut self) {
        self.stamp = NEXT_STAMP.fetch_add(1, Ordering::Relaxed);
    }

    /// How many weld groups are selected, and the first `rows` of them (representatives,
    /// ascending).
    #[must_use]
    pub fn selected_summary(&self, adj: &Adjacency, rows: usize) -> (usize, Vec<u32>) {
        let mut first = Vec::new();
        let mut count = 0;
        for g in (0..self.len() as u32).filter(|&g| self.selected[g as usize] && adj.rep(g) == g) {
            if first.len() < rows {
                first.push(g);
            }
            count += 1;
        }
        (count, first)
    }

    /// Number of surface vertices covered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.selected.len()
    }

    /// Whether the mask covers no vertex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.selected.is_empty()
    }

    /// Whether surface vertex `g` is selected.
    #[must_use]
    pub fn is_selected(&self, g: u32) -> bool {
        self.selected.get(g as usize).copied().unwrap_or(false)
    }

    /// Whether surface vertex `g` is hidden.
    #[must_use]
    pub fn is_hidden(&self, g: u32) -> bool {
        self.hidden.get(g as usize).copied().unwrap_or(false)
    }

    /// Selected weld groups (counted once each, by representative).
    #[must_use]
    pub fn selected_groups(&self, adj: &Adjacency) -> Vec<u32> {
        self.selected_summary(adj, usize::MAX).1
    }

    /// Number of hidden surface vertices.
    #[must_use]
    pub fn hidden_count(&self) -> usize {
        self.hidden.iter().filter(|&&h| h).count()
    }

    /// Whether any vertex is hidden.
    #[must_use]
    pub fn any_hidden(&self) -> bool {
        self.hidden.contains(&true)
    }

    /// The vertices dabs and tools may change: the selection when `restrict` is on, else every
    /// vertex that is not hidden; `None` when that is every vertex.
    #[must_use]
    pub fn editable_mask(&self, restrict: bool) -> Option<Vec<bool>> {
        if restrict {
            return Some(self.selected.iter().zip(&self.hidden).map(|(&s, &h)| s && !h).collect());
        }
        self.any_hidden().then(|| self.hidden.iter().map(|&h| !h).collect())
    }

    /// Sets every member of each weld group to `want(group)` where the group is visible, combined
    /// with the current selection by `op`.
    fn apply_groups(&mut self, adj: &Adjacency, op: SelectOp, want: impl Fn(u32) -> bool) {
        self.edited();
        for g in (0..self.len() as u32).filter(|&g| adj.rep(g) == g) {
            let members = adj.welded(g);
            if members.iter().any(|&m| self.hidden[m as usize]) {
                continue;
            }
            let inside = members.iter().any(|&m| want(m));
            let now = self.selected[g as usize];
            let next = match op {
                SelectOp::Replace => inside,
                SelectOp::Add => now || inside,
                SelectOp::Subtract => now && !inside,
            };
            for &m in members {
                self.selected[m as usize] = next;
            }
        }
    }

    /// Selects every visible vertex.
    pub fn select_all(&mut self, adj: &Adjacency) {
        self.apply_groups(adj, SelectOp::Replace, |_| true);
    }

    /// Deselects every vertex.
    pub fn select_none(&mut self) {
        self.edited();
        self.selected.fill(false);
    }

    /// Selects the unselected visible vertices and deselects the selected ones.
    pub fn invert(&mut self, adj: &Adjacency) {
        let before = self.selected.clone();
        self.apply_groups(adj, SelectOp::Replace, |m| !before[m as usize]);
    }

    /// Box select: vertices whose `positions` (deformed, surface numbering) project inside the
    /// pixel rectangle spanned by `a` and `b`.
    pub fn select_box(
        &mut self,
        adj: &Adjacency,
        positions: &[Vec3],
        projection: &ScreenProjection,
        a: Vec2,
        b: Vec2,
        op: SelectOp,
    ) {
        let (lo, hi) = (a.min(b), a.max(b));
        let inside = |m: u32| {
            positions
                .get(m as usize)
                .and_then(|&p| projection.to_screen(p))
                .is_some_and(|s| s.cmpge(lo).all() && s.cmple(hi).all())
        };
        self.apply_groups(adj, op, inside);
    }

    /// Lasso select: vertices whose `positions` project inside the closed pixel polygon `lasso`.
    pub fn select_lasso(
        &mut self,
        adj: &Adjacency,
        positions: &[Vec3],
        projection: &ScreenProjection,
        lasso: &[Vec2],
        op: SelectOp,
    ) {
        if lasso.len() < 3 {
            if op == SelectOp::Replace {
                self.select_none();
            }
            return;
        }
        let inside = |m: u32| {
            positions.get(m as usize).and_then(|&p| projection.to_screen(p)).is_some_and(|s| inside_polygon(s, lasso))
        };
        self.apply_groups(adj, op, inside);
    }

    /// Grows the selection by one ring: every visible group next to a selected group.
    pub fn grow(&mut self, adj: &Adjacency) {
        let before = self.selected.clone();
        self.apply_groups(adj, SelectOp::Add, |m| adj.neighbours(m).iter().any(|&u| before[u as usize]));
    }

    /// Shrinks the selection by one ring: every selected group next to an unselected (or hidden)
    /// group is deselected.
    pub fn shrink(&mut self, adj: &Adjacency) {
        let before = self.selected.clone();
        self.apply_groups(adj, SelectOp::Subtract, |m| adj.neighbours(m).iter().any(|&u| !before[u as usize]));
    }

    /// Hides the selected vertices (or, with `unselected`, the visible unselected ones; Blender's
    /// H and Shift+H); hidden vertices are deselected.
    pub fn hide(&mut self, adj: &Adjacency, unselected: bool) {
        self.edited();
        for g in (0..self.len() as u32).filter(|&g| adj.rep(g) == g) {
            let members = adj.welded(g);
            if members.iter().any(|&m| self.hidden[m as usize]) || self.selected[g as usize] == unselected {
                continue;
            }
            for &m in members {
                self.hidden[m as usize] = true;
                self.selected[m as usize] = false;
            }
        }
    }

    /// Reveals every hidden vertex and selects it (Blender's Alt+H).
    pub fn reveal(&mut self) {
        self.edited();
        for (s, h) in self.selected.iter_mut().zip(self.hidden.iter_mut()) {
            if std::mem::replace(h, false) {
                *s = true;
            }
        }
    }

    /// Selects exactly the weld groups of `vertices` (surface numbering; hidden ones are skipped).
    pub fn select_vertices(&mut self, adj: &Adjacency, vertices: &[u32], op: SelectOp) {
        let mut want = vec![false; self.len()];
        for &v in vertices {
            if let Some(w) = want.get_mut(v as usize) {
                *w = true;
            }
        }
        self.apply_groups(adj, op, |m| want[m as usize]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polygons_contain_their_inside() {
        let square = [Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(4.0, 4.0), Vec2::new(0.0, 4.0)];
        assert!(inside_polygon(Vec2::new(1.0, 2.0), &square));
        assert!(!inside_polygon(Vec2::new(5.0, 2.0), &square));
        // A "C": the notch is outside.
        let c = [
            Vec2::ZERO,
            Vec2::new(4.0, 0.0),
            Vec2::new(4.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 3.0),
            Vec2::new(4.0, 3.0),
            Vec2::new(4.0, 4.0),
            Vec2::new(0.0, 4.0),
        ];
        assert!(!inside_polygon(Vec2::new(3.0, 2.0), &c));
        assert!(inside_polygon(Vec2::new(0.5, 2.0), &c));
    }

    /// The summary counts and lists what `selected_groups` lists; every edit, and every new mask,
    /// has a stamp of its own, and equality ignores stamps.
    #[test]
    fn summaries_follow_the_groups_and_stamps_follow_edits() {
        // A strip of 2 × 6 vertices whose last column is welded to a copy (the seam).
        let mut positions: Vec<Vec3> = (0..12).map(|i| Vec3::new((i % 6) as f32, (i / 6) as f32, 0.0)).collect();
        positions.extend([Vec3::new(5.0, 0.0, 0.0), Vec3::new(5.0, 1.0, 0.0)]);
        let mut triangles: Vec<[u32; 3]> = (0..4).flat_map(|x| [[x, x + 1, x + 7], [x, x + 7, x + 6]]).collect();
        triangles.extend([[4, 12, 13], [4, 13, 10]]);
        let adj = Adjacency::with_default_weld(&positions, &triangles);
        let mut sel = Selection::new(positions.len());
        let (a, b) = (sel.stamp(), Selection::new(positions.len()).stamp());
        assert_ne!(a, b);
        let mut stamps = vec![a, b];
        sel.select_all(&adj);
        stamps.push(sel.stamp());
        let groups = sel.selected_groups(&adj);
        assert_eq!(groups.len(), 12, "the welded copies count once");
        assert_eq!(sel.selected_summary(&adj, 5), (12, groups[..5].to_vec()));
        assert_eq!(sel.selected_summary(&adj, 50), (12, groups.clone()));
        sel.hide(&adj, false);
        stamps.push(sel.stamp());
        assert_eq!(sel.selected_summary(&adj, 5), (0, Vec::new()));
        sel.reveal();
        stamps.push(sel.stamp());
        let copy = sel.clone();
        assert_eq!(copy.stamp(), sel.stamp());
        sel.select_none();
        stamps.push(sel.stamp());
        sel.select_vertices(&adj, &[3, 12], SelectOp::Add);
        stamps.push(sel.stamp());
        assert_eq!(sel.selected_summary(&adj, 1), (2, vec![3]));
        let mut unique = stamps.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), stamps.len(), "{stamps:?}");
        let mut same = Selection::new(positions.len());
        same.select_vertices(&adj, &[3, 12], SelectOp::Add);
        assert_eq!(same, sel, "equal masks are equal whatever their stamps");
    }

    #[test]
    fn the_projection_maps_ndc_corners_to_pixel_corners() {
        let p = ScreenProjection { view_proj: Mat4::IDENTITY, size: Vec2::new(200.0, 100.0) };
        assert_eq!(p.to_screen(Vec3::new(-1.0, 1.0, 0.0)), Some(Vec2::ZERO));
        assert_eq!(p.to_screen(Vec3::new(1.0, -1.0, 0.0)), Some(Vec2::new(200.0, 100.0)));
        let behind = ScreenProjection { view_proj: Mat4::from_cols_array(&[-1.0; 16]), ..p };
        assert_eq!(behind.to_screen(Vec3::ONE), None);
    }
}
