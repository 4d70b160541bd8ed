//! The editor's weight tools beyond brushes (Paint mode): the vertex selection mask (box, lasso,
//! all/none/invert, grow/shrink, hide/reveal) and "restrict to selection", the gradient fill,
//! the weight table's operations and weight transfer. Each edit is one undo step through the
//! paint history; the core work is in `paint::{selection, gradient, weight_table, transfer}`.

use glam::Vec2;

use super::EditorState;
use crate::app::command::{PaintTool, TransferSource, WeightToolCommand};
use crate::model::StrokeRecord;
use crate::paint::transfer::{apply_transfer, plan_transfer, TransferOptions, TransferReport};
use crate::paint::{apply_table_op, gradient_fill, ModelSurface, Ray, ScreenProjection, Selection, SurfacePoint};

/// The weight tools' settings and the selection.
#[derive(Clone, Debug)]
pub struct WeightToolsState {
    /// What a left drag does.
    pub tool: PaintTool,
    /// The vertex selection mask (surface vertices).
    pub selection: Selection,
    /// Dabs and tools change only the selection.
    pub restrict: bool,
    /// Gradient weight at the drag's start.
    pub gradient_start: f32,
    /// Gradient weight at the drag's end.
    pub gradient_end: f32,
    /// Copied weights (surface joints), for Paste.
    pub clipboard: Option<Vec<(u16, f32)>>,
    /// The table's Set value.
    pub set_value: f32,
    /// The table's Scale factor.
    pub scale_factor: f32,
    /// Transfer thresholds.
    pub transfer: TransferOptions,
    /// The last transfer's report.
    pub last_transfer: Option<TransferReport>,
    /// What the panel shows of the selection, kept while the selection and the surface stay.
    summary: SelectionSummary,
}

/// What the weight tools panel shows of the selection. Each figure is a pass over every surface
/// vertex (0.8 ms a frame at 1M vertices), so it is computed again only when the selection's
/// stamp or the surface changed.
#[derive(Clone, Debug, Default)]
pub struct SelectionSummary {
    /// Selected weld groups.
    pub selected: usize,
    /// The first of them (representatives, ascending), as many as asked for.
    pub first: Vec<u32>,
    /// Hidden surface vertices.
    pub hidden: usize,
    /// The selection's stamp, the surface's length and the rows it was computed for.
    key: Option<(u64, usize, usize)>,
}

impl Default for WeightToolsState {
    fn default() -> Self {
        Self {
            tool: PaintTool::Brush,
            selection: Selection::default(),
            restrict: false,
            gradient_start: 1.0,
            gradient_end: 0.0,
            clipboard: None,
            set_value: 0.5,
            scale_factor: 0.5,
            transfer: TransferOptions::default(),
            last_transfer: None,
            summary: SelectionSummary::default(),
        }
    }
}

impl EditorState {
    /// The selection, resized (cleared) when the surface changed.
    pub(super) fn selection_mut(&mut self) -> &mut Selection {
        let n = self.painting.topology.surface.len();
        if self.painting.weight_tools.selection.len() != n {
            self.painting.weight_tools.selection = Selection::new(n);
        }
        &mut self.painting.weight_tools.selection
    }

    /// The vertices dabs and tools may change (`None`: all).
    #[must_use]
    pub fn editable_mask(&self) -> Option<Vec<bool>> {
        let s = &self.painting.weight_tools.selection;
        if s.len() != self.painting.topology.surface.len() {
            return None;
        }
        s.editable_mask(self.painting.weight_tools.restrict)
    }

    /// How many weld groups are selected, the first `rows` of them, and how many surface
    /// vertices are hidden: [`EditorState::selected_groups`]'s length and first entries, computed
    /// again only when the selection or the surface changed.
    pub fn selection_summary(&mut self, rows: usize) -> &SelectionSummary {
        let surface = &self.painting.topology.surface;
        let s = &self.painting.weight_tools.selection;
        let key = Some((s.stamp(), surface.len(), rows));
        if self.painting.weight_tools.summary.key != key {
            let (selected, first) =
                if s.len() == surface.len() { s.selected_summary(surface.adjacency(), rows) } else { (0, Vec::new()) };
            self.painting.weight_tools.summary = SelectionSummary { selected, first, hidden: s.hidden_count(), key };
        }
        &self.painting.weight_tools.summary
    }

    /// The selected weld groups (representatives).
    #[must_use]
    pub fn selected_groups(&self) -> Vec<u32> {
        let s = &self.painting.weight_tools.selection;
        if s.len() != self.painting.topology.surface.len() {
            return Vec::new();
        }
        s.selected_groups(self.painting.topology.surface.adjacency())
    }

    /// Carries out a weight-tool command.
    pub(super) fn apply_weight_tools(&mut self, cmd: WeightToolCommand) {
        self.end_stroke();
        match cmd {
            WeightToolCommand::SetTool(t) => self.painting.weight_tools.tool = t,
            WeightToolCommand::SetRestrict(on) => self.painting.weight_tools.restrict = on,
            WeightToolCommand::SelectBox { a, b, size, op, panel } => {
                self.region_select(size, panel, |sel, adj, pos, proj| sel.select_box(adj, pos, proj, a, b, op));
            }
            WeightToolCommand::SelectLasso { points, size, op, panel } => {
                self.region_select(size, panel, |sel, adj, pos, proj| sel.select_lasso(adj, pos, proj, &points, op));
            }
            WeightToolCommand::SelectAll
            | WeightToolCommand::SelectNone
            | WeightToolCommand::Invert
            | WeightToolCommand::Grow
            | WeightToolCommand::Shrink
            | WeightToolCommand::Hide { .. }
            | WeightToolCommand::Reveal => self.select_op(&cmd),
            WeightToolCommand::Gradient { start, end, panel } => self.gradient(&start, &end, panel),
            WeightToolCommand::Table { op, group } => {
                let groups = group.map_or_else(|| self.selected_groups(), |g| vec![g]);
                if groups.is_empty() {
                    self.set_error(format!("{}: select vertices first (B, or the Select tool)", op.label()));
                    return;
                }
                let label = op.label();
                let rules = self.surface_rules();
                let model = super::refresh::edit_model(&mut self.doc.model, &mut self.doc.model_edits);
                let mut record = StrokeRecord::new(label);
                let out = apply_table_op(model, &self.painting.topology.surface, &rules, &groups, &op, &mut record);
                match out {
                    Ok(o) => {
                        let moved = if o.moved_to_fallback > 0 {
                            format!(
                                "; {} vertices gave their only free weight to the nearest joint",
                                o.moved_to_fallback
                            )
                        } else {
                            String::new()
                        };
                        self.finish_weight_edit(record, format!("{label}: {} vertices changed{moved}", o.tool.changed));
                    }
                    Err(e) => self.fail_weight_edit(record, format!("{label}: {e}")),
                }
            }
            WeightToolCommand::Copy(g) => {
                let w = self.painting.topology.surface.weights(&self.doc.model, g);
                if w.is_empty() {
                    self.set_error("copy: that vertex has no weights".into());
                } else {
                    let shown = self.painting.topology.surface.file_number(&self.doc.model, g);
                    self.set_info(format!("copied the weights of vertex {shown} ({} joints)", w.len()));
                    self.painting.weight_tools.clipboard = Some(w);
                }
            }
            WeightToolCommand::Transfer(source) => self.transfer(&source),
        }
    }

    /// Records a finished weight edit as one undo step and reports it.
    fn finish_weight_edit(&mut self, record: StrokeRecord, info: String) {
        self.painting.edited.note(&record);
        self.doc.history.record_paint(record);
        self.frame.dirty = true;
        self.recount_welds();
        self.set_info(info);
    }

    /// Puts back what a failed edit changed and reports the failure.
    fn fail_weight_edit(&mut self, record: StrokeRecord, error: String) {
        record.undo(super::refresh::edit_model(&mut self.doc.model, &mut self.doc.model_edits));
        self.frame.dirty = true;
        self.set_error(error);
    }

    fn region_select(
        &mut self,
        size: Vec2,
        panel: usize,
        f: impl FnOnce(&mut Selection, &crate::paint::Adjacency, &[glam::Vec3], &ScreenProjection),
    ) {
        self.refresh();
        let panel = self.view.deformation_of_panel(panel);
        let projection = ScreenProjection {
            view_proj: self.view.camera.projection(size.x / size.y.max(1.0)) * self.view.camera.view(),
            size,
        };
        let mut positions = Vec::new();
        let mut normals = Vec::new();
        self.painting.topology.surface.gather_deformed(&self.frame.deformed[panel], &mut positions, &mut normals);
        self.selection_mut();
        let sel = &mut self.painting.weight_tools.selection;
        f(sel, self.painting.topology.surface.adjacency(), &positions, &projection);
        self.selection_changed();
    }

    fn select_op(&mut self, cmd: &WeightToolCommand) {
        self.selection_mut();
        let adj = self.painting.topology.surface.adjacency();
        let sel = &mut self.painting.weight_tools.selection;
        match cmd {
            WeightToolCommand::SelectAll => sel.select_all(adj),
            WeightToolCommand::SelectNone => sel.select_none(),
            WeightToolCommand::Invert => sel.invert(adj),
            WeightToolCommand::Grow => sel.grow(adj),
            WeightToolCommand::Shrink => sel.shrink(adj),
            WeightToolCommand::Hide { unselected } => sel.hide(adj, *unselected),
            WeightToolCommand::Reveal => sel.reveal(),
            _ => {}
        }
        self.selection_changed();
    }

    /// Reports the selection and redraws its marks.
    fn selection_changed(&mut self) {
        let s = &self.painting.weight_tools.selection;
        let n = s.selected_groups(self.painting.topology.surface.adjacency()).len();
        let hidden = s.hidden_count();
        let hidden = if hidden > 0 { format!(", {hidden} hidden") } else { String::new() };
        self.set_info(format!("{n} vertices selected{hidden}"));
        self.repaint_colours();
    }

    /// The surface point where `ray` meets the mesh deformed in `panel`.
    fn surface_point(&self, ray: &Ray, panel: usize) -> Option<SurfacePoint> {
        let (target, hit) = self.pick_deformed(ray, panel)?;
        let inst = self.doc.model.instances.get(target.instance)?;
        let surface = &self.painting.topology.surface;
        let part = surface.parts()[surface.part_of(inst.mesh, target.prim)?];
        Some(SurfacePoint { triangle: part.first_triangle + hit.triangle as u32, barycentric: hit.barycentric })
    }

    fn gradient(&mut self, start: &Ray, end: &Ray, panel: usize) {
        self.refresh();
        let panel = self.view.deformation_of_panel(panel);
        let Some(joint) = self.selected_surface_joint() else {
            self.set_error("gradient: select the joint to fill in the joint tree".into());
            return;
        };
        let (Some(a), Some(b)) = (self.surface_point(start, panel), self.surface_point(end, panel)) else {
            self.set_error("gradient: drag from one point of the mesh to another".into());
            return;
        };
        let w = &self.painting.weight_tools;
        let gradient = crate::paint::Gradient {
            joint,
            start: a,
            end: b,
            start_value: w.gradient_start,
            end_value: w.gradient_end,
        };
        let rules = self.surface_rules();
        let model = super::refresh::edit_model(&mut self.doc.model, &mut self.doc.model_edits);
        let mut record = StrokeRecord::new("Gradient");
        match gradient_fill(model, &self.painting.topology.surface, &rules, &gradient, &mut record) {
            Ok(o) => {
                let name = self.surface_joint_name(joint);
                self.finish_weight_edit(record, format!("Gradient of {name}: {} vertices changed", o.tool.changed));
            }
            Err(e) => self.fail_weight_edit(record, format!("gradient: {e}")),
        }
    }

    fn transfer(&mut self, source: &TransferSource) {
        let mut options = self.painting.weight_tools.transfer;
        let rules = self.surface_rules();
        let loaded;
        let (source_model, label) = match source {
            TransferSource::File(path) => match crate::io::load_model(path) {
                Ok(m) => {
                    loaded = m;
                    (&loaded, path.display().to_string())
                }
                Err(e) => return self.set_error(format!("transfer: {e}")),
            },
            TransferSource::Skin { from, to } => {
                let skins = self.doc.model.skins.len();
                if *from >= skins || *to >= skins || from == to {
                    return self.set_error(format!("transfer: choose two different skins of the {skins}"));
                }
                options.source_skin = Some(*from);
                options.target_skin = Some(*to);
                (&*self.doc.model, format!("skin {from} onto skin {to}"))
            }
        };
        let source_surface = match source {
            TransferSource::File(_) => ModelSurface::new(source_model),
            TransferSource::Skin { .. } => self.painting.topology.surface.clone(),
        };
        let plan = plan_transfer(
            source_model,
            &source_surface,
            &self.doc.model,
            &self.painting.topology.surface,
            &rules,
            &options,
        );
        let plan = match plan {
            Ok(p) => p,
            Err(e) => return self.set_error(format!("transfer from {label}: {e}")),
        };
        let model = super::refresh::edit_model(&mut self.doc.model, &mut self.doc.model_edits);
        let mut record = StrokeRecord::new("Transfer Weights");
        match apply_transfer(model, &self.painting.topology.surface, &rules, &plan, &mut record) {
            Ok(report) => {
                let text = format!("Transfer from {label}: {}", report.summary());
                self.painting.weight_tools.last_transfer = Some(report);
                self.finish_weight_edit(record, text);
            }
            Err(e) => self.fail_weight_edit(record, format!("transfer from {label}: {e}")),
        }
    }
}
