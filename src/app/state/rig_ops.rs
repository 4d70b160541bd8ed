//! The editor's Rig mode: skeleton edits (through `crate::rig::skeleton_edit`), made on the model
//! in place, each one undo step holding its [`SkeletonRecord`]; a joint dragged with the translate
//! gizmo or a coordinate field is one step from press to release (its moves chained with
//! [`SkeletonRecord::then`]); joint placement under the cursor (the middle of the volume); and
//! automatic weights on a background thread ([`BindJob`]) applied as one step ([`ModelEdit`])
//! when they arrive.

use std::borrow::Cow;
use std::sync::Arc;

use glam::{DMat4, DVec3, Vec3};

use super::rigging::OpenEdit;
use super::{EditorState, Mode};
use crate::app::bind_job::BindJob;
use crate::app::command::Command;
use crate::model::{Model, ModelEdit};
use crate::paint::volume_pick::{on_view_plane, volume_midpoint, VolumeSurface};
use crate::paint::{ModelTopology, Ray};
use crate::render::overlays::SkeletonLayout;
use crate::rig::skeleton_edit::{self, SkeletonEditError, SkeletonRecord};
use crate::rig::{fk, Pose};

/// A surface a joint can be placed in: positions (the deformed skinned ones borrowed, a rigid
/// mesh's moved to its node), triangles, the skinned instance and primitive, or the rigid node.
type Surface<'a> = (Cow<'a, [Vec3]>, &'a [[u32; 3]], Placed);

/// Where a placement surface comes from.
#[derive(Clone, Copy, Debug)]
enum Placed {
    Skinned { instance: usize, prim: usize },
    Rigid(usize),
}

/// What a finished skeleton edit tells its command: where each old node went and the new nodes.
struct Done {
    node_map: Vec<Option<usize>>,
    created: Vec<usize>,
}

impl EditorState {
    /// What is not saved yet ("2 skeleton or animation edits and 3 weight edits (310 vertices)"), if anything.
    #[must_use]
    pub fn unsaved_summary(&self) -> Option<String> {
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let parts: Vec<String> = [
            (self.rig.unsaved > 0)
                .then(|| plural(self.rig.unsaved, "skeleton or animation edit", "skeleton or animation edits")),
            self.painting.edited.is_dirty().then(|| {
                let vertices = plural(self.painting.edited.len(), "vertex", "vertices");
                format!("{} ({vertices})", plural(self.unsaved_strokes(), "weight edit", "weight edits"))
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join(" and "))
    }

    /// Switches between posing, painting and rigging (an open stroke or drag ends first).
    pub(super) fn set_mode(&mut self, mode: Mode) {
        self.end_stroke();
        self.end_gesture();
        if mode == Mode::Rig {
            self.posing.playing = false;
        }
        self.mode = mode;
        self.frame.dirty = true;
    }

    /// Ends any open gesture: a pose drag's step is closed, a joint drag's step is recorded.
    pub fn end_gesture(&mut self) {
        self.doc.history.close_gesture();
        let Some(open) = self.rig.open.take() else { return };
        if let Some(record) = open.record {
            self.doc.history.record_skeleton(record, &open.pose);
            self.rig.unsaved += 1;
        }
    }

    /// Carries out the Rig-mode commands.
    pub(super) fn apply_rig(&mut self, cmd: Command) {
        if let Some(job) = &self.rig.job {
            self.set_error(format!("{} is running: wait for it to finish before editing the skeleton", job.label()));
            return;
        }
        if self.mode != Mode::Rig {
            self.set_error("skeleton edits happen in Rig mode (Tab or the Rig switch)".into());
            return;
        }
        match cmd {
            Command::AddJoint { ray, panel } => self.add_joint(&ray, panel),
            Command::DeleteJoint(node) => {
                let name = self.doc.model.nodes.key(node);
                let parent = self.doc.model.nodes.nodes.get(node).and_then(|n| n.parent);
                if let Some(r) = self.edit("Delete joint", |m| skeleton_edit::delete_joint(m, node)) {
                    self.selected = parent.and_then(|p| r.node_map.get(p).copied().flatten());
                    self.set_info(format!("deleted {name}: its children and weights went to its parent"));
                }
            }
            Command::MoveJoint { node, position, gesture } => self.move_joint(node, position, gesture),
            Command::SetRoll { node, roll, gesture } => self.set_roll(node, roll, gesture),
            Command::ReparentJoint { node, parent } => {
                let done = self.edit("Reparent joint", |m| skeleton_edit::reparent(m, node, Some(parent)));
                if done.is_some() {
                    let (a, b) = (self.doc.model.nodes.key(node), self.doc.model.nodes.key(parent));
                    self.set_info(format!("{a} is now a child of {b}"));
                }
            }
            Command::RenameJoint { node, name } => {
                if self.doc.model.nodes.nodes.get(node).is_some_and(|n| n.name.as_deref() == Some(name.as_str())) {
                    return;
                }
                if self.edit("Rename joint", |m| skeleton_edit::rename_node(m, node, &name)).is_some() {
                    self.set_info(format!("renamed to {name}"));
                }
            }
            Command::Symmetrize(node) => {
                let mut report = None;
                let done = self.edit("Symmetrize", |m| {
                    skeleton_edit::symmetrize(m, node).map(|(record, r)| {
                        report = Some(r);
                        record
                    })
                });
                if let (Some(_), Some(report)) = (done, report) {
                    let from = self.doc.model.nodes.key(node);
                    self.set_info(format!("Symmetrize from {from}: {}", report.summary()));
                }
            }
            Command::OrientJoint(node) => {
                let done = self.edit("Orient joint", |m| skeleton_edit::orient_joint(m, node));
                if done.is_some() {
                    self.set_info(format!("{} now aims at its child", self.doc.model.nodes.key(node)));
                }
            }
            Command::Bind { selected_only } => self.start_bind(selected_only),
            _ => {}
        }
    }

    /// Runs one skeleton edit on the model, in place (its vertex data is copied only while
    /// another holder shares it, such as the brush caches' background build); on success its
    /// record becomes one undo step, on failure the edit has put the model back and the message
    /// is shown.
    fn edit(
        &mut self,
        label: &'static str,
        f: impl FnOnce(&mut Model) -> Result<SkeletonRecord, SkeletonEditError>,
    ) -> Option<Done> {
        self.end_gesture();
        let record = match f(super::refresh::edit_model(&mut self.doc.model, &mut self.doc.model_edits)) {
            Ok(r) => r,
            Err(e) => {
                self.set_error(format!("{label}: {e}"));
                return None;
            }
        };
        let done = Done { node_map: record.node_map().to_vec(), created: record.created().to_vec() };
        self.doc.history.record_skeleton(record, &self.doc.pose);
        self.model_edited();
        Some(done)
    }

    /// The rest (= bind) pose's `model_from_node` of every node.
    fn rest_globals(&self) -> Vec<DMat4> {
        let mut out = Vec::new();
        fk::model_from_node(&self.doc.model.nodes, &Pose::rest(), &mut out);
        out
    }

    /// `p` (model space, as drawn in the bind pose) in the bind space of joint `node`'s first skin
    /// (the mesh's own coordinates), where the skeleton edits take positions.
    fn to_bind(&self, node: usize, p: DVec3) -> DVec3 {
        self.bind_to_model(node).map_or(p, |c| c.inverse().transform_point3(p))
    }

    /// The map from joint `node`'s bind space (its first skin's) to model space in the rest pose.
    fn bind_to_model(&self, node: usize) -> Option<DMat4> {
        let globals = self.rest_globals();
        self.doc.model.skins.iter().find_map(|skin| {
            let j = skin.joints.iter().position(|&n| n == node)?;
            Some(*globals.get(node)? * *skin.joint_from_bind.get(j)?)
        })
    }

    /// The model-space unit direction joint `node`'s roll turns about (its bone, as
    /// `skeleton_edit::set_roll` keeps it), for the roll ring of Rig mode's gizmo.
    #[must_use]
    pub fn roll_axis(&self, node: usize) -> Option<Vec3> {
        let axis = skeleton_edit::roll_axis(&self.doc.model, node)?;
        self.bind_to_model(node).map_or(axis, |c| c.transform_vector3(axis)).try_normalize().map(|a| a.as_vec3())
    }

    fn move_joint(&mut self, node: usize, position: DVec3, gesture: Option<u64>) {
        if !position.is_finite() {
            return;
        }
        let position = self.to_bind(node, position);
        self.gesture_edit("Move joint", gesture, |m| skeleton_edit::move_joint(m, node, position));
    }

    fn set_roll(&mut self, node: usize, roll: f64, gesture: Option<u64>) {
        if self.gesture_edit("Set roll", gesture, |m| skeleton_edit::set_roll(m, node, roll)) {
            let name = self.doc.model.nodes.key(node);
            self.set_info(format!("{name}: roll {:.1}°", roll.to_degrees()));
        }
    }

    /// A skeleton edit that is one undo step, or, within drag `gesture`, one part of the drag's
    /// single step (its records chained with [`SkeletonRecord::then`]). Returns whether it was
    /// made.
    fn gesture_edit(
        &mut self,
        label: &'static str,
        gesture: Option<u64>,
        f: impl FnOnce(&mut Model) -> Result<SkeletonRecord, SkeletonEditError>,
    ) -> bool {
        let Some(g) = gesture else {
            return self.edit(label, f).is_some();
        };
        if self.rig.open.as_ref().is_none_or(|o| o.gesture != g) {
            self.end_gesture();
            self.rig.open = Some(OpenEdit { gesture: g, record: None, pose: self.doc.pose.clone() });
        }
        match f(super::refresh::edit_model(&mut self.doc.model, &mut self.doc.model_edits)) {
            Ok(record) => {
                if let Some(open) = self.rig.open.as_mut() {
                    open.record = Some(match open.record.take() {
                        Some(so_far) => so_far.then(record),
                        None => record,
                    });
                }
                self.model_changed();
                true
            }
            Err(e) => {
                self.set_error(format!("{label}: {e}"));
                false
            }
        }
    }

    /// Every surface a new joint can be placed in, model space: the deformed skinned primitives
    /// of viewport panel `panel` and the rigid meshes at their nodes.
    fn placement_surfaces(&self, panel: usize) -> Vec<Surface<'_>> {
        let mut out = Vec::new();
        for (i, inst) in self.doc.model.instances.iter().enumerate() {
            let Some(mesh) = self.doc.model.meshes.get(inst.mesh) else { continue };
            for (p, prim) in mesh.primitives.iter().enumerate() {
                if let Some(d) = self.frame.deformed[panel].get(i).and_then(|d| d.get(p)) {
                    out.push((
                        Cow::Borrowed(&d.positions[..]),
                        &prim.triangles[..],
                        Placed::Skinned { instance: i, prim: p },
                    ));
                }
            }
        }
        for &(node, mesh) in &self.doc.model.rigid_instances {
            let (Some(m), Some(mesh)) = (self.frame.model_from_node.get(node), self.doc.model.meshes.get(mesh)) else {
                continue;
            };
            let m = m.as_mat4();
            for prim in &mesh.primitives {
                let positions = prim.positions.iter().map(|&p| m.transform_point3(p)).collect();
                out.push((Cow::Owned(positions), &prim.triangles[..], Placed::Rigid(node)));
            }
        }
        out
    }

    /// Where a joint added under `ray` goes (model space): the middle of the volume under the
    /// cursor, else the plane through the selected joint (or the model's centre) facing the
    /// camera; with the rigid mesh node under the cursor, if any.
    #[must_use]
    pub fn placement(&self, ray: &Ray, panel: usize) -> Option<(Vec3, Option<usize>)> {
        let panel = self.view.deformation_of_panel(panel);
        let surfaces = self.placement_surfaces(panel);
        let (lo, hi) = self.doc.model_bounds;
        let merge = (hi - lo).length().max(1e-6) * 1e-5;
        // Large deformed primitives are crossed through the panel's pick boxes.
        // Crossing every triangle costs more than fitting the boxes: fit them at once.
        let found = self.with_pick_boxes(panel, true, |boxes| {
            let views: Vec<VolumeSurface<'_>> = surfaces
                .iter()
                .map(|(p, t, placed)| VolumeSurface {
                    positions: p,
                    triangles: t,
                    boxes: match placed {
                        Placed::Skinned { instance, prim } => boxes.and_then(|b| b.boxes(*instance, *prim)),
                        Placed::Rigid(_) => None,
                    },
                })
                .collect();
            volume_midpoint(ray, &views, merge)
        });
        if let Some((p, k)) = found {
            let rigid = surfaces.get(k).and_then(|s| match s.2 {
                Placed::Rigid(node) => Some(node),
                Placed::Skinned { .. } => None,
            });
            return Some((p, rigid));
        }
        let through = self.selected.and_then(|n| self.node_position(n)).unwrap_or((lo + hi) * 0.5);
        on_view_plane(ray, through, self.view.camera.back()).map(|p| (p, None))
    }

    fn add_joint(&mut self, ray: &Ray, panel: usize) {
        let Some((p, rigid)) = self.placement(ray, panel) else {
            self.set_error("Add joint: the pointer's ray meets neither the mesh nor the view plane".into());
            return;
        };
        let record = if self.doc.model.skins.is_empty() {
            // The root of a new skin for the mesh under the cursor (else the first rigid mesh),
            // placed in that mesh's own coordinates.
            let Some(mesh_node) = rigid.or_else(|| self.doc.model.rigid_instances.first().map(|r| r.0)) else {
                self.set_error("Add joint: the model has no mesh to rig".into());
                return;
            };
            let globals = self.rest_globals();
            let to_mesh = globals.get(mesh_node).map_or(DMat4::IDENTITY, DMat4::inverse);
            let at = to_mesh.transform_point3(p.as_dvec3());
            let name = skeleton_edit::unique_name(&self.doc.model.nodes, "root");
            // Every unskinned mesh placed like it joins the new skin (an OBJ's objects all do).
            let space = globals.get(mesh_node).copied().unwrap_or(DMat4::IDENTITY);
            let (others, _) = skeleton_edit::meshes_in_space(&self.doc.model, space);
            let nodes: Vec<usize> =
                std::iter::once(mesh_node).chain(others.into_iter().filter(|&n| n != mesh_node)).collect();
            self.edit("Add root joint", |m| skeleton_edit::create_skin(m, &nodes, at, &name))
        } else if let Some(parent) = self.selected {
            let at = self.to_bind(parent, p.as_dvec3());
            let name = skeleton_edit::unique_name(&self.doc.model.nodes, "joint");
            self.edit("Add joint", |m| skeleton_edit::add_joint(m, parent, at, &name))
        } else {
            self.set_error("Add joint: select the joint to extrude from first".into());
            return;
        };
        if let Some(&node) = record.as_ref().and_then(|r| r.created.first()) {
            self.selected = Some(node);
            self.set_info(format!("added {} at ({:.3}, {:.3}, {:.3})", self.doc.model.nodes.key(node), p.x, p.y, p.z));
        }
    }

    /// After the model changed (an edit, undo, redo, a bind): new revision (the viewport
    /// re-uploads the scene), skeleton layout and figures; the paint caches follow lazily.
    pub(super) fn model_edited(&mut self) {
        self.rig.unsaved += 1;
        self.model_changed();
    }

    /// After the model changed within an open drag (counted as one edit when the drag ends).
    pub(super) fn model_changed(&mut self) {
        self.doc.model_rev += 1;
        self.doc.skeleton = SkeletonLayout::new(&self.doc.model);
        self.frame.stats.vertices = self.doc.model.skinned_vertex_count();
        self.selected = self.selected.filter(|&n| n < self.doc.model.nodes.len());
        let nodes = self.doc.model.nodes.len();
        self.painting.settings.locked.retain(|&n| n < nodes);
        self.doc.pose.overrides.retain(|&n, _| n < nodes);
        self.painting.topology_stale = true;
        self.frame.dirty = true;
    }

    /// Brings the paint caches up to date after skeleton edits, outside Rig mode: the surface
    /// and vertex mirrors are kept and only the joints taken again (a full rebuild took seconds
    /// at 1M vertices), unless the skinned primitives changed (a first bind). While the caches
    /// are still being built in the background, taking them does this.
    pub(super) fn refresh_topology(&mut self) {
        if self.painting.topology_stale && self.mode != Mode::Rig && self.painting.topology_job.is_none() {
            if !self.painting.topology.rejoint(&self.doc.model) {
                self.painting.topology = ModelTopology::new(&self.doc.model);
            }
            self.painting.topology_stale = false;
        }
    }

    fn start_bind(&mut self, selected_only: bool) {
        self.end_gesture();
        if self.doc.model.skins.is_empty() {
            self.set_error(
                "Bind: the model has no skeleton yet: Ctrl+click on the mesh to place the root joint".into(),
            );
            return;
        }
        let joints = if selected_only {
            let Some(node) = self.selected else {
                self.set_error("Assign Automatic: select a joint first".into());
                return;
            };
            let mut chain = vec![node];
            if self.rig.with_children {
                let mut k = 0;
                while k < chain.len() {
                    chain.extend(self.doc.model.nodes.nodes[chain[k]].children.iter().copied());
                    k += 1;
                }
            }
            Some(chain)
        } else {
            None
        };
        let locked: Vec<usize> = self.painting.settings.locked.iter().copied().collect();
        let limit = self.painting.settings.limit;
        let rigid_parts = self.rig.rigid_parts;
        let label = if selected_only { "Assign Automatic" } else { "Bind" };
        let work = Box::new(move |m: &mut Model, progress: &mut dyn FnMut(f32), _: &std::sync::atomic::AtomicBool| {
            crate::app::bind_job::bind_all_skins(m, joints.as_deref(), &locked, limit, rigid_parts, progress)
        });
        self.rig.job = Some(BindJob::start(label, &self.doc.model, self.doc.model_rev, work));
        self.set_info(format!("{label}: computing automatic weights…"));
    }

    /// Applies a finished automatic-weights job (one undo step) or shows its failure. Called
    /// every frame; returns whether a job is still running (the window keeps redrawing).
    pub fn poll_bind(&mut self) -> bool {
        let Some(job) = &self.rig.job else { return false };
        let Some(result) = job.poll() else { return true };
        let (label, rev) = (job.label().to_owned(), job.model_rev());
        self.rig.job = None;
        match result {
            Ok(_) if rev != self.doc.model_rev => {
                self.set_error(format!("{label}: the model changed while it ran; run it again"));
            }
            Ok((bound, done)) => {
                self.end_gesture();
                let edit = ModelEdit::between(label.clone(), &self.doc.model, &bound);
                self.doc.history.record_model(edit, &self.doc.pose);
                self.doc.model = Arc::new(bound);
                self.model_edited();
                if label == super::autorig_ops::AUTORIG_LABEL {
                    self.close_autorig();
                    self.selected = self.doc.skeleton.joints.first().map(|j| j.0);
                    self.set_info(format!("{label}: {done}"));
                } else {
                    self.set_info(format!("{label}: automatic weights on {done}"));
                }
            }
            Err(e) => self.set_error(format!("{label} failed: {e}")),
        }
        false
    }
}
