//! The analysis views' side of the state: bringing the joint-sets table and colours up to date
//! with the pose and weights shown, the sweep panel's scrub (posing the swept joint, or the model
//! as the driving clip does at a key, without an undo entry, and putting the earlier pose back),
//! and adding the range-of-motion clip.

use glam::DVec3;

use super::{EditorState, Mode};
use crate::analysis::poses::{bind_globals, bind_pose};
use crate::analysis::rom::{rom_clip, sample_on_bind, RomRequest};
use crate::analysis::sweep::{step_angle, step_pose, Motion};
use crate::app::analysis::Scrub;
use crate::app::command::Command;
use crate::rig::Pose;

impl EditorState {
    /// Brings the analysis views up to date (cheap when nothing they show changed).
    pub fn refresh_analysis(&mut self) {
        let rest = Pose::rest();
        // Rig mode shows the bind pose, as `refresh` deforms it.
        let pose = if self.mode == Mode::Rig { &rest } else { &self.doc.pose };
        self.analysis.sets.refresh(
            &self.doc.model,
            pose,
            (self.doc.model_rev, self.frame.frame_rev),
            (self.doc.model_rev, self.doc.history.revision()),
        );
        if self.analysis.sweep.model_changed(self.doc.model_rev) {
            // The scrubbed pose belonged to the previous model.
            self.analysis.sweep.scrub = None;
        }
    }

    /// Poses the swept joint at step `step` of the sweep panel's result in every panel (for a
    /// clip-driven sweep, the model as the clip poses it at that key, on the bind pose as the sweep
    /// measured it), with no undo entry; `None` puts back the pose shown before scrubbing, unless
    /// the user posed since.
    pub fn scrub_sweep(&mut self, step: Option<usize>) {
        let Some(step) = step else {
            if let Some(scrub) = self.analysis.sweep.scrub.take() {
                if self.doc.pose == scrub.shown {
                    self.doc.pose = scrub.saved;
                    self.frame.dirty = true;
                }
            }
            return;
        };
        let Some(result) = &self.analysis.sweep.result else { return };
        if result.sweep.motion == Motion::Weight || result.sweep.node >= self.doc.model.nodes.len() {
            return;
        }
        let step = step.min(result.steps.max(1) - 1);
        let pose = match result.clip {
            Some(c) => {
                // A clip removed since leaves nothing to show.
                let (Some(clip), Some(time)) = (self.doc.model.clips.get(c), result.step_time(step)) else { return };
                sample_on_bind(&self.doc.model, clip, time)
            }
            None => {
                let angle = step_angle(step, result.steps, result.max_angle_deg.to_radians());
                let (base, globals) = (bind_pose(&self.doc.model), bind_globals(&self.doc.model));
                let axis = DVec3::from_array(result.sweep.axis);
                step_pose(&self.doc.model, &base, &globals, result.sweep.node, axis, angle)
            }
        };
        let saved = match self.analysis.sweep.scrub.take() {
            Some(s) if s.shown == self.doc.pose => s.saved,
            _ => self.doc.pose.clone(),
        };
        self.doc.pose = pose.clone();
        self.posing.playing = false;
        self.frame.dirty = true;
        self.analysis.sweep.scrub = Some(Scrub { step, saved, shown: pose });
    }

    /// Adds the range-of-motion clip of `joints` as one undo step and shows it on the timeline.
    pub(super) fn add_rom_clip(&mut self, joints: Vec<usize>, max_angle_rad: f64, seconds_per_motion: f64) {
        let joints: Vec<usize> = joints.into_iter().filter(|&n| n < self.doc.model.nodes.len()).collect();
        if joints.is_empty() {
            self.set_error("no joint to move: select a joint or choose one in the sweep panel".into());
            return;
        }
        self.scrub_sweep(None);
        let rom = rom_clip(&self.doc.model, &RomRequest { joints, max_angle_rad, seconds_per_motion });
        let name = rom.clip.name.clone().unwrap_or_default();
        let (_, end) = rom.clip.range();
        let motions = rom.segments.len();
        let at = self.doc.model.clips.len();
        if self.edit_clips("Add ROM Clip", |clips| {
            clips.push(rom.clip);
            true
        }) {
            self.posing.clip = Some(at);
            self.posing.playing = false;
            self.apply(Command::SetTime(0.0));
            self.set_info(format!("added clip {name:?}: {motions} motions, {end:.2} s"));
        }
    }
}
