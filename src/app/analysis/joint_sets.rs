//! The joint-sets view's state: the set table of the current pose (`analysis::joint_sets`, recomputed
//! only when the deformation's revision changes, never on idle frames), its sort order, the set
//! chosen in the table, the set under the pointer, and the per-vertex colours by joint set.
//!
//! Colours. A set of two or more joints gets a hue from its id by the golden-ratio sequence
//! (consecutive ids far apart on the colour wheel; the same set keeps its colour while the model is
//! open, since set ids only grow); one-joint sets are grey (they need no centre and are not in the
//! table); vertices without influences are dark. While a set is chosen, every other vertex is dimmed.

use std::cmp::Ordering;

use eframe::egui;

use crate::analysis::joint_sets::{joint_set_table, SetRow, SkinSets};
use crate::model::{Model, EMPTY_SET};
use crate::rig::Pose;

/// Colour of vertices in one-joint sets (sRGB).
pub const SINGLE_JOINT: [u8; 4] = [150, 150, 158, 255];
/// Colour of vertices without influences (sRGB).
pub const NO_INFLUENCE: [u8; 4] = [60, 60, 66, 255];

/// A column of the set table (each sorts the rows when its header is clicked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SetColumn {
    /// The set id (its colour swatch beside it).
    #[default]
    Set,
    /// The member joints (by count, then names).
    Members,
    /// Vertices using the set.
    Vertices,
    /// The centre system's condition number (infinite largest).
    Condition,
    /// The centre's distance in skin extents.
    Centre,
    /// Whether the far-centre f64 path evaluates the set.
    FarPath,
    /// The warning mark (near-singular), then the condition number.
    Warning,
}

impl SetColumn {
    /// Every column, left to right.
    pub const ALL: [Self; 7] =
        [Self::Set, Self::Members, Self::Vertices, Self::Condition, Self::Centre, Self::FarPath, Self::Warning];

    /// The header's text.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Set => "Set",
            Self::Members => "Members",
            Self::Vertices => "Vertices",
            Self::Condition => "Condition",
            Self::Centre => "Centre (extents)",
            Self::FarPath => "f64 path",
            Self::Warning => "Warning",
        }
    }

    /// The column's width, points.
    #[must_use]
    pub fn width(self) -> f32 {
        match self {
            Self::Set => 58.0,
            Self::Members => 190.0,
            Self::Vertices => 64.0,
            Self::Condition => 76.0,
            Self::Centre => 104.0,
            Self::FarPath => 58.0,
            Self::Warning => 64.0,
        }
    }

    fn compare(self, a: &SetRow, b: &SetRow) -> Ordering {
        let condition = |r: &SetRow| r.condition.unwrap_or(f64::INFINITY);
        match self {
            Self::Set => a.set.cmp(&b.set),
            Self::Members => a.members.len().cmp(&b.members.len()).then_with(|| a.members.cmp(&b.members)),
            Self::Vertices => a.vertices.cmp(&b.vertices),
            Self::Condition => condition(a).total_cmp(&condition(b)),
            Self::Centre => a.centre_distance.total_cmp(&b.centre_distance),
            Self::FarPath => a.far_path.cmp(&b.far_path),
            Self::Warning => {
                a.warning.is_some().cmp(&b.warning.is_some()).then_with(|| condition(a).total_cmp(&condition(b)))
            }
        }
    }
}

/// The set under the pointer in the viewport.
#[derive(Clone, Debug, PartialEq)]
pub struct SetHover {
    /// The skin of the vertex.
    pub skin: usize,
    /// Its set id.
    pub set: u32,
    /// The pointer (screen points).
    pub pointer: egui::Pos2,
}

/// View ▸ Joint sets.
#[derive(Default)]
pub struct JointSetsView {
    /// The view is on (centres, colours, the table's window).
    pub on: bool,
    /// The skin whose sets are listed and drawn.
    pub skin: usize,
    /// The sort column.
    pub sort: SetColumn,
    /// Sort largest first.
    pub descending: bool,
    /// The set chosen in the table (an id of `skin`'s set table).
    pub chosen: Option<u32>,
    /// The set under the pointer.
    pub hover: Option<SetHover>,
    tables: Vec<SkinSets>,
    order: Vec<usize>,
    table_key: Option<(u64, u64)>,
    /// Vertex colours by set, `[instance][primitive][vertex]` (sRGB).
    pub colours: Vec<Vec<Vec<[u8; 4]>>>,
    colours_key: Option<(u64, u64, usize, Option<u32>)>,
    /// Bumped whenever `colours` change (the viewport uploads them then).
    pub colour_rev: u64,
    /// How many times the table was computed (it must not be on idle frames).
    pub computed: u64,
    model_rev: u64,
}

/// The colour of set `set` of skin `skin` whose joints number `members` (sRGB).
#[must_use]
pub fn set_colour(skin: usize, set: u32, members: usize) -> [u8; 4] {
    if members < 2 {
        return if members == 0 { NO_INFLUENCE } else { SINGLE_JOINT };
    }
    let hue = (f64::from(set) * 0.618_033_988_749_895 + skin as f64 * 0.377).fract() as f32;
    let c = egui::ecolor::Hsva::new(hue, 0.62, 0.92, 1.0).to_srgba_unmultiplied();
    [c[0], c[1], c[2], 255]
}

impl JointSetsView {
    /// The table of the listed skin.
    #[must_use]
    pub fn table(&self) -> Option<&SkinSets> {
        self.tables.get(self.skin)
    }

    /// Every skin's table.
    #[must_use]
    pub fn tables(&self) -> &[SkinSets] {
        &self.tables
    }

    /// The listed skin's rows in display order.
    pub fn sorted_rows(&self) -> impl Iterator<Item = &SetRow> + '_ {
        let rows = self.table().map_or(&[][..], |t| t.rows.as_slice());
        self.order.iter().filter_map(move |&i| rows.get(i))
    }

    /// The row of set `set` of the listed skin.
    #[must_use]
    pub fn row(&self, set: u32) -> Option<&SetRow> {
        self.table()?.rows.iter().find(|r| r.set == set)
    }

    /// Sorts by `column` (a second click on the same column reverses the order).
    pub fn sort_by(&mut self, column: SetColumn) {
        if self.sort == column {
            self.descending = !self.descending;
        } else {
            self.sort = column;
            // Sizes, conditions and distances are most useful largest first.
            self.descending = !matches!(column, SetColumn::Set | SetColumn::Members);
        }
        self.resort();
    }

    fn resort(&mut self) {
        let Some(table) = self.tables.get(self.skin) else {
            self.order.clear();
            return;
        };
        let (column, descending) = (self.sort, self.descending);
        self.order = (0..table.rows.len()).collect();
        self.order.sort_by(|&a, &b| {
            let o = column.compare(&table.rows[a], &table.rows[b]).then(table.rows[a].set.cmp(&table.rows[b].set));
            if descending {
                o.reverse()
            } else {
                o
            }
        });
    }

    /// Lists skin `skin`'s sets (forgetting the chosen set).
    pub fn show_skin(&mut self, skin: usize) {
        if skin != self.skin {
            self.skin = skin;
            self.chosen = None;
            self.resort();
        }
    }

    /// Brings the table and the colours up to date: the table when `deformation_key` (model and
    /// deformation revisions) changed, the colours when `weights_key` (model and history
    /// revisions), the skin or the chosen set changed. Nothing is computed while the view is off.
    pub fn refresh(&mut self, model: &Model, pose: &Pose, deformation_key: (u64, u64), weights_key: (u64, u64)) {
        if !self.on {
            return;
        }
        if self.model_rev != deformation_key.0 {
            self.model_rev = deformation_key.0;
            self.skin = 0;
            self.chosen = None;
            self.hover = None;
        }
        if self.table_key != Some(deformation_key) {
            self.table_key = Some(deformation_key);
            self.tables = joint_set_table(model, pose);
            self.computed += 1;
            if self.skin >= self.tables.len() {
                self.skin = 0;
            }
            self.resort();
        }
        let key = (weights_key.0, weights_key.1, self.skin, self.chosen);
        if self.colours_key != Some(key) {
            self.colours_key = Some(key);
            vertex_colours(model, self.skin, self.chosen, &mut self.colours);
            self.colour_rev += 1;
        }
    }
}

/// Every skinned vertex's colour by joint set, `[instance][primitive][vertex]`: sets of skin
/// `skin` in their colours (all but `chosen` dimmed when one is chosen), other skins' vertices grey.
pub fn vertex_colours(model: &Model, skin: usize, chosen: Option<u32>, out: &mut Vec<Vec<Vec<[u8; 4]>>>) {
    out.clear();
    for inst in &model.instances {
        let Some(mesh) = model.meshes.get(inst.mesh) else {
            out.push(Vec::new());
            continue;
        };
        let table = model.skins.get(inst.skin).map(|s| &s.sets);
        let prims = mesh
            .primitives
            .iter()
            .map(|p| {
                let Some((inf, table)) = p.influences.as_ref().zip(table) else {
                    return vec![NO_INFLUENCE; p.positions.len()];
                };
                (0..p.positions.len())
                    .map(|v| {
                        if v >= inf.len() {
                            return NO_INFLUENCE;
                        }
                        let set = inf.set_of(v);
                        let members = if set == EMPTY_SET { 0 } else { table.joints(set).len() };
                        let c = if inst.skin == skin { set_colour(skin, set, members) } else { SINGLE_JOINT };
                        match chosen {
                            Some(k) if k != set || inst.skin != skin => dim(c),
                            _ => c,
                        }
                    })
                    .collect()
            })
            .collect();
        out.push(prims);
    }
}

fn dim(c: [u8; 4]) -> [u8; 4] {
    let d = |v: u8| (f32::from(v) * 0.3 + 20.0) as u8;
    [d(c[0]), d(c[1]), d(c[2]), 255]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_stable_and_distinct_for_neighbouring_ids() {
        assert_eq!(set_colour(0, 5, 3), set_colour(0, 5, 2));
        assert_eq!(set_colour(0, 5, 1), SINGLE_JOINT);
        assert_eq!(set_colour(0, 5, 0), NO_INFLUENCE);
        for id in 0..64u32 {
            let (a, b) = (set_colour(0, id, 2), set_colour(0, id + 1, 2));
            let d: i32 = (0..3).map(|k| (i32::from(a[k]) - i32::from(b[k])).abs()).sum();
            assert!(d > 60, "sets {id} and {} look alike: {a:?} {b:?}", id + 1);
        }
    }
}
