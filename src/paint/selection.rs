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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    selected: Vec<bool>,
    hidden: Vec<bool>,
}

impl Selection {
    /// Nothing selected or hidden on a surface of `len` vertices.
    #[must_use]
    pub fn new(len: usize) -> Self {
        Self { selected: vec![false; len], hidden: vec![false; len] }
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
        (0..self.len() as u32).filter(|&g| adj.rep(g) == g && self.selected[g as usize]).collect()
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

    #[test]
    fn the_projection_maps_ndc_corners_to_pixel_corners() {
        let p = ScreenProjection { view_proj: Mat4::IDENTITY, size: Vec2::new(200.0, 100.0) };
        assert_eq!(p.to_screen(Vec3::new(-1.0, 1.0, 0.0)), Some(Vec2::ZERO));
        assert_eq!(p.to_screen(Vec3::new(1.0, -1.0, 0.0)), Some(Vec2::new(200.0, 100.0)));
        let behind = ScreenProjection { view_proj: Mat4::from_cols_array(&[-1.0; 16]), ..p };
        assert_eq!(behind.to_screen(Vec3::ONE), None);
    }
}
