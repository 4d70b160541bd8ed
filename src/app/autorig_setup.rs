//! Rig ▸ Auto-rig's choices while its window is open: the template (or detect it from the
//! shape), fingers, a free chain's joint count, and the markers clicked onto the character
//! (model space, as drawn), with the marker the next click places. [`AutorigSetup::work`] is the
//! background job: fit (`rig::autorig`), build the skeleton over every mesh, bind it.

use std::sync::atomic::{AtomicBool, Ordering};

use glam::{DMat4, DVec3};

use super::bind_job::{bind_all_skins, BindWork};
use crate::model::Model;
use crate::rig::autorig::build::{build_rig, source, Source};
use crate::rig::autorig::chain::fit_chain;
use crate::rig::autorig::{FitOptions, Markers, Plan, Template, MARKER_NAMES};

/// The template the window offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TemplateChoice {
    /// Humanoid or quadruped, from the character's proportions (`Template::detect`).
    #[default]
    Detect,
    /// Hips, spine, head, arms, legs (markers optional).
    Humanoid,
    /// Spine, neck, head, tail, four legs.
    Quadruped,
    /// N joints between a start and an end marker (a tail, a tentacle).
    Chain,
}

impl TemplateChoice {
    /// Every choice, in the window's order.
    pub const ALL: [Self; 4] = [Self::Detect, Self::Humanoid, Self::Quadruped, Self::Chain];

    /// The radio button's label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Detect => "Detect",
            Self::Humanoid => "Humanoid",
            Self::Quadruped => "Quadruped",
            Self::Chain => "Chain",
        }
    }

    /// The markers this template takes, in the order the window lists them.
    #[must_use]
    pub fn markers(self) -> &'static [&'static str] {
        match self {
            Self::Humanoid => &MARKER_NAMES,
            Self::Chain => &CHAIN_MARKERS,
            Self::Detect | Self::Quadruped => &[],
        }
    }
}

/// The free chain's two markers.
pub const CHAIN_MARKERS: [&str; 2] = ["start", "end"];

/// The Auto-rig window's choices.
#[derive(Clone, Debug, PartialEq)]
pub struct AutorigSetup {
    /// The template.
    pub template: TemplateChoice,
    /// Three joints per finger (humanoid).
    pub fingers: bool,
    /// Joints of a free chain.
    pub chain_joints: usize,
    /// Markers placed, model space (as drawn in the rest pose).
    pub markers: Vec<(&'static str, DVec3)>,
    /// The marker the next click on the character places.
    pub active: Option<&'static str>,
}

impl Default for AutorigSetup {
    fn default() -> Self {
        Self { template: TemplateChoice::Detect, fingers: false, chain_joints: 6, markers: Vec::new(), active: None }
    }
}

impl AutorigSetup {
    /// Marker `name`, if placed.
    #[must_use]
    pub fn marker(&self, name: &str) -> Option<DVec3> {
        self.markers.iter().find(|(n, _)| *n == name).map(|m| m.1)
    }

    /// Places the active marker at `p` (model space) and makes the next unplaced marker of the
    /// template active; returns the name placed.
    pub fn place(&mut self, p: DVec3) -> Option<&'static str> {
        let name = self.active?;
        self.markers.retain(|(n, _)| *n != name);
        self.markers.push((name, p));
        let names = self.template.markers();
        let at = names.iter().position(|n| *n == name).unwrap_or(0);
        self.active = names.iter().cycle().skip(at + 1).take(names.len()).copied().find(|n| self.marker(n).is_none());
        Some(name)
    }

    /// Drops the markers the current template does not take.
    pub fn keep_template_markers(&mut self) {
        let names = self.template.markers();
        self.markers.retain(|(n, _)| names.contains(n));
        self.active = self.active.filter(|a| names.contains(a)).or_else(|| names.first().copied());
    }

    /// The background work: fit the template to every unskinned mesh of the model, build the
    /// skeleton (one skin), bind it with automatic weights (at most `limit` influences, loose
    /// parts rigid). Stops between stages when cancelled.
    #[must_use]
    pub fn work(&self, limit: usize) -> BindWork {
        let setup = self.clone();
        Box::new(move |m: &mut Model, progress: &mut dyn FnMut(f32), cancel: &AtomicBool| {
            let stopped = || cancel.load(Ordering::Relaxed);
            let src = source(m).map_err(|e| e.to_string())?;
            progress(0.02);
            let mut globals = Vec::new();
            crate::rig::fk::model_from_node(&m.nodes, &crate::rig::Pose::rest(), &mut globals);
            let space = src.mesh_nodes.iter().min().and_then(|&n| globals.get(n)).copied().unwrap_or(DMat4::IDENTITY);
            let to_bind = space.inverse();
            let (plan, what) = setup.fit(&src, &|p| to_bind.transform_point3(p))?;
            if stopped() {
                return Err("cancelled".into());
            }
            progress(0.1);
            build_rig(m, &plan, &src.mesh_nodes).map_err(|e| e.to_string())?;
            if stopped() {
                return Err("cancelled".into());
            }
            progress(0.15);
            let bound = bind_all_skins(m, None, &[], limit, true, &mut |f| progress(0.15 + 0.85 * f))?;
            let mut done = format!("{} joints ({what}), {bound}", plan.joints.len());
            for note in &plan.notes {
                done += &format!("; {note}");
            }
            Ok(done)
        })
    }

    /// The fitted plan and what was fitted ("humanoid, detected"), markers taken to bind space
    /// through `to_bind`.
    fn fit(&self, src: &Source, to_bind: &dyn Fn(DVec3) -> DVec3) -> Result<(Plan, String), String> {
        let (positions, triangles) = (&src.positions, &src.triangles);
        let template = match self.template {
            TemplateChoice::Chain => {
                let (Some(from), Some(to)) = (self.marker("start"), self.marker("end")) else {
                    return Err("place the chain's start and end markers on the model first".into());
                };
                let plan = fit_chain(positions, triangles, to_bind(from), to_bind(to), self.chain_joints, "chain")
                    .map_err(|e| e.to_string())?;
                return Ok((plan, "chain".into()));
            }
            TemplateChoice::Humanoid => Template::Humanoid,
            TemplateChoice::Quadruped => Template::Quadruped,
            TemplateChoice::Detect => Template::detect(positions).ok_or("the model has no vertices")?,
        };
        let mut markers = Markers::default();
        if template == Template::Humanoid {
            for &(name, p) in self.markers.iter().filter(|(n, _)| MARKER_NAMES.contains(n)) {
                markers.set(name, to_bind(p)).map_err(|()| format!("marker {name} is given twice"))?;
            }
        }
        let options = FitOptions { template, markers, fingers: self.fingers && template == Template::Humanoid };
        let plan = src.fit(&options).map_err(|e| e.to_string())?;
        let detected = if self.template == TemplateChoice::Detect { ", detected" } else { "" };
        Ok((plan, format!("{}{detected}", template.name())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placing_a_marker_moves_on_to_the_next_unplaced_one() {
        let mut s = AutorigSetup { template: TemplateChoice::Humanoid, ..AutorigSetup::default() };
        s.keep_template_markers();
        assert_eq!(s.active, Some("chin"));
        assert_eq!(s.place(DVec3::Y), Some("chin"));
        assert_eq!(s.active, Some("wrist.L"));
        s.active = Some("groin");
        s.place(DVec3::ZERO);
        assert_eq!(s.active, Some("wrist.L"), "wraps around to the first unplaced");
        s.active = Some("chin");
        s.place(DVec3::X);
        assert_eq!(s.marker("chin"), Some(DVec3::X), "placed again, replaced");
        assert_eq!(s.markers.len(), 2);
        s.template = TemplateChoice::Chain;
        s.keep_template_markers();
        assert!(s.markers.is_empty());
        assert_eq!(s.active, Some("start"));
    }
}
