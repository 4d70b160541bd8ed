//! Stress sweeps (`skinlab sweep`, the editor's sweep panel): each chosen joint alone is turned from
//! the bind pose through `steps` angles up to `max_angle`, by a twist about its bone or a bend about
//! an axis perpendicular to it (the axes of `analysis::poses`), and at every step and for every
//! method the artifact metrics of [`region`] are measured on the vertices the joint influences:
//! collapse, volume change, bulge and flip. The `weight` motion instead measures, per method, how
//! far a vertex jumps when the joint's weight on it goes from ε to 0 (`weight_jump`).

mod clip;
mod csv;
pub mod region;
mod weight_jump;

use std::fmt;
use std::str::FromStr;

use glam::DVec3;
use serde::Serialize;

pub use clip::sweep_clip;
pub use csv::write_csv;
use region::Region;

use super::deformation::deform_held;
use super::poses::{bend, bind_globals, bind_placements, bind_pose, bone, perpendicular};
use super::volume::model_volume;
use crate::model::Model;
use crate::rig::Pose;
use crate::skinning::{DeformedPrimitive, Deformer, SkinningMethod};

/// How a joint is moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Motion {
    /// About its own bone axis.
    Twist,
    /// About an axis perpendicular to its bone.
    Bend,
    /// The joint's weight on each vertex goes from ε to 0 (in a fixed random pose).
    Weight,
}

impl Motion {
    /// Every motion, in report order.
    pub const ALL: [Self; 3] = [Self::Twist, Self::Bend, Self::Weight];

    /// The lower-case name used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Twist => "twist",
            Self::Bend => "bend",
            Self::Weight => "weight",
        }
    }
}

impl fmt::Display for Motion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Motion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "twist" => Ok(Self::Twist),
            "bend" => Ok(Self::Bend),
            "weight" => Ok(Self::Weight),
            _ => Err(format!("unknown motion {s:?} (expected twist, bend or weight)")),
        }
    }
}

/// What to sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRequest {
    /// Joint nodes, each swept alone.
    pub joints: Vec<usize>,
    /// Methods compared.
    pub methods: Vec<SkinningMethod>,
    /// Motions, each swept separately.
    pub motions: Vec<Motion>,
    /// The last step's angle, radians.
    pub max_angle_rad: f64,
    /// Steps from 0 to the largest angle, both included (≥ 2).
    pub steps: usize,
}

/// The metrics of one step (see [`region`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StepMetrics {
    /// The joint's turn, degrees.
    pub angle_deg: f64,
    /// Smallest cross-section radius along the bone, share of the bind pose's (1 keeps it).
    pub collapse: f64,
    /// Enclosed volume of the whole skinned surface against the bind pose's, minus 1.
    pub volume_change: f64,
    /// Largest growth of a vertex's distance from its bone, share of the region's bind radius.
    pub bulge: f64,
    /// Largest vertex displacement since the previous step over the expected arc (0 at step 0).
    pub flip: f64,
    /// The clip time of the step, seconds (sweeps driven by a clip only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_secs: Option<f64>,
}

/// One step of the `weight` motion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WeightStep {
    /// ε: the joint's weight on each of its vertices (the others keep their proportions).
    pub weight: f64,
    /// The largest distance between a vertex at weight ε and at weight 0, share of the bind-pose
    /// bounding-box diagonal.
    pub jump: f64,
}

/// One method's curve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MethodCurve {
    /// The method.
    pub method: SkinningMethod,
    /// One entry per step (twist and bend).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepMetrics>,
    /// One entry per step (the `weight` motion).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub weight_steps: Vec<WeightStep>,
}

/// One joint under one motion.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointSweep {
    /// The joint's node key.
    pub joint: String,
    /// The joint's node index.
    pub node: usize,
    /// The motion.
    pub motion: Motion,
    /// The rotation axis in model space (unit), through the joint's bind-pose head.
    pub axis: [f64; 3],
    /// Vertices the joint influences (the metrics' region).
    pub influenced_vertices: usize,
    /// RMS bind-pose distance of those vertices from their bones (model units).
    pub rest_radius: f64,
    /// One curve per method.
    pub curves: Vec<MethodCurve>,
}

/// Two curves closer than this (absolute, plus the same relative to the value) in every metric
/// at every step coincide: one is drawn exactly over the other.
pub const COINCIDE: f64 = 1e-6;

impl MethodCurve {
    /// Every metric value of the curve, step by step.
    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        let steps = self.steps.iter().flat_map(|m| [m.collapse, m.volume_change, m.bulge, m.flip]);
        steps.chain(self.weight_steps.iter().map(|w| w.jump))
    }

    /// Whether `other` coincides with this curve ([`COINCIDE`]) in every metric at every step.
    #[must_use]
    pub fn coincides_with(&self, other: &Self) -> bool {
        self.steps.len() == other.steps.len()
            && self.weight_steps.len() == other.weight_steps.len()
            && self.values().zip(other.values()).all(|(a, b)| (a - b).abs() <= COINCIDE * (1.0 + a.abs().max(b.abs())))
    }
}

impl JointSweep {
    /// The pairs of methods whose curves coincide (the earlier curve first).
    #[must_use]
    pub fn coinciding(&self) -> Vec<(SkinningMethod, SkinningMethod)> {
        let mut pairs = Vec::new();
        for (i, a) in self.curves.iter().enumerate() {
            for b in &self.curves[i + 1..] {
                if a.coincides_with(b) {
                    pairs.push((a.method, b.method));
                }
            }
        }
        pairs
    }
}

/// A whole sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepReport {
    /// The model's file, as given.
    pub model: String,
    /// The largest angle, degrees.
    pub max_angle_deg: f64,
    /// Steps per sweep.
    pub steps: usize,
    /// One entry per joint and motion, in request order.
    pub sweeps: Vec<JointSweep>,
}

fn sweep_bounds(out: &[Vec<DeformedPrimitive>]) -> DVec3 {
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in out.iter().flatten().flat_map(|d| d.positions.iter()) {
        lo = lo.min(p.as_dvec3());
        hi = hi.max(p.as_dvec3());
    }
    if lo.x <= hi.x {
        (lo + hi) * 0.5
    } else {
        DVec3::ZERO
    }
}

/// What every sweep starts from: the bind pose and its joints, the bind pose's deformation (LBS),
/// centre and enclosed volume; and the buffers its steps are deformed into.
struct Setup {
    base: Pose,
    globals: Vec<glam::DMat4>,
    placements: Vec<glam::DMat4>,
    deformer: Deformer,
    rest: Vec<Vec<DeformedPrimitive>>,
    origin: DVec3,
    rest_volume: f64,
    out: Vec<Vec<DeformedPrimitive>>,
    previous: Vec<Vec<DeformedPrimitive>>,
}

/// One step of a run: the pose, the joint's turn, the turn since the previous step (`None` where
/// a run starts: no flip is measured) and, for sweeps driven by a clip, the key time.
struct Sample {
    pose: Pose,
    angle_rad: f64,
    arc_rad: Option<f64>,
    time_secs: Option<f64>,
}

impl Setup {
    fn new(model: &Model) -> Self {
        let base = bind_pose(model);
        let globals = bind_globals(model);
        let placements = bind_placements(model);
        let mut deformer = Deformer::new();
        let mut rest = Vec::new();
        deform_held(&mut deformer, model, &base, SkinningMethod::Lbs, &placements, &mut rest);
        let origin = sweep_bounds(&rest);
        let rest_volume = model_volume(model, &rest, origin);
        let (out, previous) = (Vec::new(), Vec::new());
        Self { base, globals, placements, deformer, rest, origin, rest_volume, out, previous }
    }

    /// The metrics of one joint × motion run (`what`: node, motion, axis) at `samples`, per method.
    fn measure(
        &mut self,
        model: &Model,
        (node, motion, axis): (usize, Motion, DVec3),
        region: &Region,
        methods: &[SkinningMethod],
        samples: &[Sample],
    ) -> JointSweep {
        let mut curves = Vec::new();
        for &method in methods {
            let mut metrics = Vec::with_capacity(samples.len());
            for sample in samples {
                deform_held(&mut self.deformer, model, &sample.pose, method, &self.placements, &mut self.out);
                let (collapse, bulge) =
                    region.collapse_and_bulge(&self.out, &self.globals, self.deformer.model_from_node());
                let volume = model_volume(model, &self.out, self.origin);
                let volume_change = if self.rest_volume != 0.0 { volume / self.rest_volume - 1.0 } else { 0.0 };
                let flip = sample.arc_rad.map_or(0.0, |arc| region.flip(&self.previous, &self.out, arc));
                metrics.push(StepMetrics {
                    angle_deg: sample.angle_rad.to_degrees(),
                    collapse,
                    volume_change,
                    bulge,
                    flip,
                    time_secs: sample.time_secs,
                });
                std::mem::swap(&mut self.out, &mut self.previous);
            }
            curves.push(MethodCurve { method, steps: metrics, weight_steps: Vec::new() });
        }
        JointSweep {
            joint: model.nodes.key(node),
            node,
            motion,
            axis: axis.to_array(),
            influenced_vertices: region.len(),
            rest_radius: region.rest_radius(),
            curves,
        }
    }
}

/// The angle of step `k` of `steps` up to `max_angle_rad`.
#[must_use]
pub fn step_angle(k: usize, steps: usize, max_angle_rad: f64) -> f64 {
    max_angle_rad * k as f64 / (steps.max(2) - 1) as f64
}

/// The axis of `motion` for joint `node` in the bind pose (`globals` from `bind_globals`); zero for
/// the `weight` motion, which turns nothing.
#[must_use]
pub fn motion_axis(model: &Model, globals: &[glam::DMat4], node: usize, motion: Motion) -> DVec3 {
    let (_, dir) = bone(model, globals, node);
    match motion {
        Motion::Twist => dir,
        Motion::Bend => perpendicular(dir),
        Motion::Weight => DVec3::ZERO,
    }
}

/// The pose of step `k`: the bind pose with `node` turned about `axis` (model space, through its head).
#[must_use]
pub fn step_pose(
    model: &Model,
    base: &Pose,
    globals: &[glam::DMat4],
    node: usize,
    axis: DVec3,
    angle_rad: f64,
) -> Pose {
    bend(model, base, globals, node, axis, angle_rad)
}

/// Runs the sweep. Joints that influence no vertex get no entry.
#[must_use]
pub fn sweep(model: &Model, title: &str, request: &SweepRequest) -> SweepReport {
    let mut setup = Setup::new(model);
    let globals = setup.globals.clone();
    let steps = request.steps.max(2);
    let mut sweeps = Vec::new();
    for &node in &request.joints {
        for &motion in &request.motions {
            if motion == Motion::Weight {
                sweeps.extend(weight_jump::sweep_weight(model, node, request.methods.as_slice(), steps));
                continue;
            }
            let axis = motion_axis(model, &globals, node, motion);
            let Some(region) = Region::new(model, &globals, node, axis, &setup.rest) else { continue };
            let samples: Vec<Sample> = (0..steps)
                .map(|k| {
                    let angle = step_angle(k, steps, request.max_angle_rad);
                    Sample {
                        pose: step_pose(model, &setup.base, &globals, node, axis, angle),
                        angle_rad: angle,
                        arc_rad: k.checked_sub(1).map(|p| angle - step_angle(p, steps, request.max_angle_rad)),
                        time_secs: None,
                    }
                })
                .collect();
            sweeps.push(setup.measure(model, (node, motion, axis), &region, &request.methods, &samples));
        }
    }
    SweepReport { model: title.to_owned(), max_angle_deg: request.max_angle_rad.to_degrees(), steps, sweeps }
}

/// Joint nodes with weight on some vertex, ascending (the default joints of a sweep).
#[must_use]
pub fn weighted_joints(model: &Model) -> Vec<usize> {
    let mut weighted = vec![false; model.nodes.len()];
    for inst in &model.instances {
        let skin = &model.skins[inst.skin];
        for prim in &model.meshes[inst.mesh].primitives {
            let Some(inf) = &prim.influences else { continue };
            for v in 0..inf.len() {
                for (j, w) in inf.vertex(v, &skin.sets) {
                    if let Some(&n) = skin.joints.get(usize::from(j)) {
                        if w > 0.0 && n < weighted.len() {
                            weighted[n] = true;
                        }
                    }
                }
            }
        }
    }
    (0..weighted.len()).filter(|&n| weighted[n]).collect()
}

impl SweepReport {
    /// A short text summary: per joint, motion and method, the worst value of each metric and
    /// the angle where it occurs.
    #[must_use]
    pub fn summary(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<28} {:<6} {:<6} {:>16} {:>16} {:>16} {:>16}",
            "joint", "motion", "method", "collapse(min@deg)", "volume(worst@deg)", "bulge(max@deg)", "flip(max@deg)"
        );
        for sw in &self.sweeps {
            for c in sw.curves.iter().filter(|c| !c.weight_steps.is_empty()) {
                let text: Vec<String> =
                    c.weight_steps.iter().map(|w| format!("{:.0e}:{:.2e}", w.weight, w.jump)).collect();
                let _ = writeln!(
                    s,
                    "{:<28} {:<6} {:<6} jump/diagonal as the weight goes to 0 from {}",
                    sw.joint,
                    sw.motion.name(),
                    c.method.name(),
                    text.join(" ")
                );
            }
            for c in sw.curves.iter().filter(|c| !c.steps.is_empty()) {
                let worst = |key: &dyn Fn(&StepMetrics) -> f64, largest: bool| {
                    c.steps
                        .iter()
                        .map(|m| (key(m), m.angle_deg))
                        .fold(None, |best: Option<(f64, f64)>, x| match best {
                            Some(b) if (largest && b.0 >= x.0) || (!largest && b.0 <= x.0) => Some(b),
                            _ => Some(x),
                        })
                        .map_or(String::from("-"), |(v, a)| format!("{v:.3}@{a:.0}"))
                };
                let _ = writeln!(
                    s,
                    "{:<28} {:<6} {:<6} {:>16} {:>16} {:>16} {:>16}",
                    sw.joint,
                    sw.motion.name(),
                    c.method.name(),
                    worst(&|m| m.collapse, false),
                    worst(&|m| m.volume_change.abs(), true),
                    worst(&|m| m.bulge, true),
                    worst(&|m| m.flip, true)
                );
            }
        }
        s
    }
}
