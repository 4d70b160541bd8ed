//! The per-frame entry point: pose → `model_from_node` → per-skin [`SkinFrame`] → per-primitive
//! skinning into caller-owned buffers. Holds its scratch so that frames after the first allocate
//! nothing. Morph targets are applied first (glTF: morph, then skin): the kernels read each morphed
//! primitive's rest surface with the targets added as they read it, or, while the weights stay,
//! a morphed surface held here (`deformer/morphed.rs`).

mod morphed;
mod partial;
mod work;

use std::sync::Arc;
use std::time::Instant;

use glam::{DMat4, Vec3};
use rayon::prelude::*;

use super::shading::ShadingNormals;
use super::Rest;
use super::{DeformedPrimitive, SkinFrame, SkinningMethod};
use crate::model::{Model, Primitive, SkinnedInstance};
use crate::rig::{fk, Pose};
use morphed::PrimitiveMorph;
pub use work::{PassSplit, WorkEstimate, PARALLEL_FRAME_SECS, TASK_SECS};

/// What the last [`Deformer::prepare`] and deformation cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// SBS centres solved (one per distinct set of two or more joints per skin).
    pub centre_solves: usize,
    /// Seconds spent solving centres.
    pub centre_secs: f64,
    /// Seconds spent in FK and joint/set preparation (centres included).
    pub prepare_secs: f64,
    /// Seconds of forward kinematics (every node's `model_from_node`).
    pub fk_secs: f64,
    /// Seconds spent on `model_from_bind` and the joint parts, every skin.
    pub parts_secs: f64,
    /// Seconds spent on per-set flags and member tables, every skin.
    pub tables_secs: f64,
    /// Joint parts computed, every skin (parts copied from a skin with the same joints not counted).
    pub joint_parts: usize,
    /// Joint sets in the skins' tables, every skin.
    pub sets: usize,
    /// Joint sets whose tables (and SBS centres) were computed, every skin; the others were kept
    /// from the previous pose (their joints did not move).
    pub sets_computed: usize,
    /// How the last [`Deformer::deform_all`]'s per-vertex pass was (or the next will be) spread
    /// over threads.
    pub split: PassSplit,
    /// Seconds of the last [`Deformer::deform_all`]'s per-vertex pass (every primitive).
    pub pass_secs: f64,
    /// Skinned vertices of the model (every instance's primitives with influences).
    pub vertices: usize,
}
/// Reusable deformation state for one model.
#[derive(Clone, Debug, Default)]
pub struct Deformer {
    model_from_node: Vec<DMat4>,
    frames: Vec<SkinFrame>,
    method: Option<SkinningMethod>,
    /// Recompute every joint and set every pose (see [`Deformer::disable_reuse`]).
    no_reuse: bool,
    /// Each method's measured cost per vertex (decides the threads).
    work: WorkEstimate,
    /// Rest normals deformed for the primitives that carry none (see
    /// [`Deformer::set_shading_normals`]).
    shading: Option<Arc<ShadingNormals>>,
    /// Per instance and primitive, its morph state.
    morphed: Vec<Vec<PrimitiveMorph>>,
    /// Costs of the last preparation.
    pub stats: FrameStats,
}

impl Deformer {
    /// An empty deformer; buffers grow on first use.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs FK for `pose` and prepares every skin for `method`. Skins with the same joints and
    /// inverse bind matrices as an earlier skin share its joint parts.
    pub fn prepare(&mut self, model: &Model, pose: &Pose, method: SkinningMethod) {
        let started = Instant::now();
        fk::model_from_node(&model.nodes, pose, &mut self.model_from_node);
        let fk_done = Instant::now();
        self.frames.resize_with(model.skins.len(), SkinFrame::default);
        let mut stats = FrameStats { fk_secs: (fk_done - started).as_secs_f64(), ..FrameStats::default() };
        for (s, skin) in model.skins.iter().enumerate() {
            let (done, rest) = self.frames.split_at_mut(s);
            let twin = model.skins[..s]
                .iter()
                .position(|other| other.joints == skin.joints && other.joint_from_bind == skin.joint_from_bind);
            let frame = &mut rest[0];
            frame.disable_reuse(self.no_reuse);
            frame.prepare_sharing(skin, &self.model_from_node, method, twin.map(|t| &done[t]));
            stats.centre_solves += frame.centre_solves;
            stats.centre_secs += frame.centre_secs;
            stats.parts_secs += frame.parts_secs;
            stats.tables_secs += frame.tables_secs;
            stats.joint_parts += frame.parts_computed;
            stats.sets += skin.sets.len();
            stats.sets_computed += frame.sets_computed;
        }
        stats.vertices = skinned_vertices(model);
        stats.split = self.work.plan(method, stats.vertices, rayon::current_num_threads());
        for frame in &mut self.frames {
            frame.set_task_vertices(stats.split.task_vertices);
            frame.set_frame_vertices(stats.vertices);
        }
        self.morph(model, pose);
        stats.prepare_secs = started.elapsed().as_secs_f64();
        self.stats = stats;
        self.method = Some(method);
    }

    /// Brings every instance's morph state to the pose's weights (the node's weights in `pose`,
    /// else its mesh's defaults).
    fn morph(&mut self, model: &Model, pose: &Pose) {
        self.morphed.resize_with(model.instances.len(), Vec::new);
        let shading = self.shading.clone();
        for (inst, slots) in model.instances.iter().zip(self.morphed.iter_mut()) {
            let Some(mesh) = model.meshes.get(inst.mesh) else { continue };
            let morphs = &mesh.morphs;
            slots.resize_with(mesh.primitives.len(), Default::default);
            let weights = pose.morph_weights.get(&inst.node).map_or(morphs.default_weights.as_slice(), Vec::as_slice);
            for (prim, (p, slot)) in mesh.primitives.iter().zip(slots.iter_mut()).enumerate() {
                let targets = morphs.primitives.get(prim).map_or(&[][..], Vec::as_slice);
                let normals =
                    p.normals.as_deref().or_else(|| shading.as_ref()?.get(inst.mesh, prim, p.positions.len()));
                slot.update(&p.positions, &p.order, normals, targets, weights);
            }
        }
    }

    /// The rest surface the kernels read for primitive `prim` of `instance`: the model's, morphed
    /// where the pose morphs it.
    fn rest<'a>(&'a self, model: &Model, instance: &SkinnedInstance, prim: usize, p: &'a Primitive) -> Rest<'a> {
        let normals = self.normals(p, instance.mesh, prim);
        let slot =
            model.instances.iter().position(|i| i.node == instance.node).and_then(|i| self.morphed.get(i)?.get(prim));
        match slot {
            Some(slot) => slot.rest(&p.positions, normals),
            None => Rest { positions: &p.positions, normals, morph: None },
        }
    }

    /// Gives primitives without normals the rest normals in `shading` (built from the model being
    /// deformed), deformed by the method with the positions, so that [`DeformedPrimitive::normals`]
    /// is filled for them too (for display; `None`, the default: such primitives get positions
    /// only, as the contract's output has).
    pub fn set_shading_normals(&mut self, shading: Option<Arc<ShadingNormals>>) {
        self.shading = shading;
    }

    /// Primitive `prim` of mesh `mesh`'s normals: its own, else its shading normals.
    fn normals<'a>(&'a self, p: &'a Primitive, mesh: usize, prim: usize) -> Option<&'a [Vec3]> {
        p.normals.as_deref().or_else(|| self.shading.as_ref()?.get(mesh, prim, p.positions.len()))
    }

    /// The measured cost per vertex of each method (what decides the threads).
    #[must_use]
    pub fn work_estimate(&self) -> &WorkEstimate {
        &self.work
    }

    /// With `disabled`, every pose is prepared from scratch instead of keeping the parts of joints
    /// whose `model_from_bind` did not change and the tables of sets whose joints did not (for
    /// measurements and tests: the results are bit-identical either way).
    pub fn disable_reuse(&mut self, disabled: bool) {
        self.no_reuse = disabled;
    }

    /// Every node's `model_from_node` in the prepared pose.
    #[must_use]
    pub fn model_from_node(&self) -> &[DMat4] {
        &self.model_from_node
    }

    /// The prepared frame of skin `skin`.
    #[must_use]
    pub fn skin_frame(&self, skin: usize) -> &SkinFrame {
        &self.frames[skin]
    }

    /// Deforms primitive `prim` of `instance` by the prepared method into `out`. A primitive
    /// without influences keeps its rest positions and normals.
    pub fn deform_primitive(
        &self,
        model: &Model,
        instance: &SkinnedInstance,
        prim: usize,
        out: &mut DeformedPrimitive,
    ) {
        let p = &model.meshes[instance.mesh].primitives[prim];
        let rest = self.rest(model, instance, prim, p);
        let Some(inf) = &p.influences else {
            super::rest_copy(rest, out);
            return;
        };
        let frame = &self.frames[instance.skin];
        self.method.unwrap_or(SkinningMethod::Lbs).deform_rest(frame, inf, rest, out);
    }

    /// Prepares `pose` and deforms every primitive of every skinned instance into `out`
    /// (`out[instance][primitive]`), reusing its buffers.
    pub fn deform_all(
        &mut self,
        model: &Model,
        pose: &Pose,
        method: SkinningMethod,
        out: &mut Vec<Vec<DeformedPrimitive>>,
    ) {
        self.prepare(model, pose, method);
        out.resize_with(model.instances.len(), Vec::new);
        for (inst, slot) in model.instances.iter().zip(out.iter_mut()) {
            slot.resize_with(model.meshes[inst.mesh].primitives.len(), DeformedPrimitive::default);
        }
        let started = Instant::now();
        let this = &*self;
        if self.stats.split.parallel {
            // Every primitive of every instance is parallel work, and each primitive splits into
            // window ranges of at least `task_vertices`: the threads steal both alike.
            out.par_iter_mut().zip(model.instances.par_iter()).for_each(|(slot, inst)| {
                slot.par_iter_mut().enumerate().for_each(|(i, buf)| this.deform_primitive(model, inst, i, buf));
            });
        } else {
            for (inst, slot) in model.instances.iter().zip(out.iter_mut()) {
                for (i, buf) in slot.iter_mut().enumerate() {
                    this.deform_primitive(model, inst, i, buf);
                }
            }
        }
        let secs = started.elapsed().as_secs_f64();
        self.work.record(method, self.stats.vertices, secs, self.stats.split);
        self.stats.pass_secs = secs;
    }
}

/// Skinned vertices of every instance (primitives with influences): what a frame deforms
/// ([`SkinFrame::frame_vertices`]).
pub fn skinned_vertices(model: &Model) -> usize {
    let mut n = 0;
    for inst in &model.instances {
        if let Some(mesh) = model.meshes.get(inst.mesh) {
            n += mesh.primitives.iter().filter(|p| p.influences.is_some()).map(|p| p.positions.len()).sum::<usize>();
        }
    }
    n
}
