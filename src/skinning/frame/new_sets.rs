//! Incremental preparation: when weight painting appends joint sets to a skin's table, only the
//! new sets get their flags, member tables and SBS centres; the sets already prepared keep theirs
//! (a set's parts depend only on its joints and the pose, never on the weights).

use std::time::Instant;

use glam::{DVec3, Mat3, Vec3A, Vec4};

use super::{SkinFrame, SET_LBS_FALLBACK, SET_STRETCH};
use crate::maths;
use crate::model::Skin;
use crate::skinning::SkinningMethod;

impl SkinFrame {
    /// Number of sets this frame has prepared.
    #[must_use]
    pub fn prepared_sets(&self) -> usize {
        self.flags.len()
    }

    /// Prepares the sets that `skin`'s table gained since the last [`SkinFrame::prepare`] (same
    /// pose, same `method`), solving SBS centres for those sets only. Returns how many sets were
    /// added. The table's slot count must not have changed (re-padding needs a full prepare).
    pub fn prepare_new_sets(&mut self, skin: &Skin, method: SkinningMethod) -> usize {
        let table = &skin.sets;
        let k = table.slots();
        let first = self.flags.len();
        let n_sets = table.len();
        if n_sets <= first || k != self.slots || self.joints.len() != skin.joints.len() {
            return 0;
        }
        let members = n_sets * k;
        self.flags.resize(n_sets, 0);
        self.centres.resize(n_sets, Vec3A::ZERO);
        self.rows.resize(members, [Vec4::ZERO; 3]);
        self.quats.resize(members, Vec4::W);
        self.duals.resize(members, Vec4::ZERO);
        self.points.resize(members, Vec3A::ZERO);
        self.stretches.resize(members, Mat3::IDENTITY);
        let started = Instant::now();
        let mut rotations = Vec::with_capacity(k);
        let mut translations = Vec::with_capacity(k);
        for set in first..n_sets {
            let joints = table.joints(set as u32);
            let mut flag = 0;
            for &j in joints {
                let part = &self.joints[j as usize];
                if part.degenerate {
                    flag |= SET_LBS_FALLBACK;
                }
                if part.has_stretch {
                    flag |= SET_STRETCH;
                }
            }
            self.flags[set] = flag;
            let padded = table.padded(set as u32);
            for (slot, &j) in padded.iter().enumerate() {
                let m = set * k + slot;
                let part = &self.joints[j as usize];
                self.rows[m] = part.rows;
                if method != SkinningMethod::Lbs {
                    self.quats[m] = part.quat;
                    self.stretches[m] = part.stretch;
                }
                if method == SkinningMethod::Dqs {
                    self.duals[m] = part.dual;
                }
            }
            if method == SkinningMethod::Sbs {
                let centre = if joints.len() < 2 || flag & SET_LBS_FALLBACK != 0 {
                    DVec3::ZERO
                } else {
                    rotations.clear();
                    translations.clear();
                    for &j in joints {
                        rotations.push(self.joints[j as usize].rotation);
                        translations.push(self.joints[j as usize].translation);
                    }
                    self.centre_solves += 1;
                    maths::least_squares_centre(&rotations, &translations)
                };
                self.centres[set] = centre.as_vec3().into();
                for (slot, &j) in padded.iter().enumerate() {
                    let part = &self.joints[j as usize];
                    self.points[set * k + slot] = (part.rotation * centre + part.translation).as_vec3().into();
                }
            }
        }
        self.centre_secs += started.elapsed().as_secs_f64();
        n_sets - first
    }
}
