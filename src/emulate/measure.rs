//! How far a runtime's LBS lands from the target: per clip, over every vertex at every sample time
//! (the exported keys) and at every midpoint between two (where the runtime interpolates), the
//! distance between the target method on the source model and LBS on a model (the source as it is,
//! or with helpers keyed or driven by their parents), as a share of the rest pose's bounding-box diagonal.

use rayon::prelude::*;
use serde::Serialize;

use super::subject::{clip_pose, Subject};
use crate::model::Model;
use crate::skinning::{Deformer, SkinningMethod};

/// Mean, RMS and worst vertex distance (shares of the diagonal) over some vertices and times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Distances {
    /// Mean distance.
    pub mean: f64,
    /// Root mean square distance.
    pub rms: f64,
    /// Largest distance.
    pub worst: f64,
}

/// Running sums of distances.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    n: f64,
    sum: f64,
    sq: f64,
    worst: f64,
}

impl Sums {
    fn add(&mut self, d: f64) {
        self.n += 1.0;
        self.sum += d;
        self.sq += d * d;
        self.worst = self.worst.max(d);
    }

    fn merge(&mut self, o: &Self) {
        self.n += o.n;
        self.sum += o.sum;
        self.sq += o.sq;
        self.worst = self.worst.max(o.worst);
    }

    fn distances(&self, diagonal: f64) -> Distances {
        if self.n == 0.0 {
            return Distances::default();
        }
        Distances {
            mean: self.sum / self.n / diagonal,
            rms: (self.sq / self.n).sqrt() / diagonal,
            worst: self.worst / diagonal,
        }
    }
}

/// One clip's distances.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClipDistances {
    /// Plain LBS of the source, at keys and between them.
    pub plain: Distances,
    /// LBS with helpers, at the keys.
    pub emulated_at_keys: Distances,
    /// LBS with helpers, at the midpoints between keys.
    pub emulated_between_keys: Distances,
    /// LBS with helpers, at keys and between them.
    pub emulated: Distances,
    /// LBS with the helpers driven by their parents' rotations (no helper keys: a hand-made pose
    /// or an engine's live rig), at keys and between them.
    pub live: Distances,
}

/// Measures clip `clip` at `times` (and their midpoints): `source` deformed by `method` is the
/// target, `source` and `emulated` deformed by LBS what runtimes show.
#[must_use]
pub fn measure_clip(
    source: &Model,
    emulated: &Model,
    subject: &Subject,
    clip: usize,
    times: &[f64],
    method: SkinningMethod,
    diagonal: f64,
) -> ClipDistances {
    let mut when: Vec<(f64, bool)> = times.iter().map(|&t| (t, true)).collect();
    when.extend(times.windows(2).map(|w| (0.5 * (w[0] + w[1]), false)));
    let parts: Vec<[Sums; 4]> = when
        .par_iter()
        .map_init(
            || (Deformer::new(), Deformer::new(), Vec::new(), Vec::new()),
            |(d_src, d_emu, out_a, out_b), &(t, at_key)| {
                let pose = clip_pose(source, clip, t);
                d_src.deform_all(source, &pose, method, out_a);
                let target = subject.gather(out_a);
                d_src.deform_all(source, &pose, SkinningMethod::Lbs, out_a);
                let plain = subject.gather(out_a);
                // The source's pose sets no helper: they follow their drivers.
                d_emu.deform_all(emulated, &pose, SkinningMethod::Lbs, out_b);
                let live = subject.gather(out_b);
                let pose = clip_pose(emulated, clip, t);
                d_emu.deform_all(emulated, &pose, SkinningMethod::Lbs, out_b);
                let emu = subject.gather(out_b);
                let mut s = [Sums::default(); 4];
                for (((y, p), e), l) in target.iter().zip(&plain).zip(&emu).zip(&live) {
                    s[0].add(f64::from(y.distance(*p)));
                    s[if at_key { 1 } else { 2 }].add(f64::from(y.distance(*e)));
                    s[3].add(f64::from(y.distance(*l)));
                }
                s
            },
        )
        .collect();
    let mut total = [Sums::default(); 4];
    for p in &parts {
        for (t, s) in total.iter_mut().zip(p) {
            t.merge(s);
        }
    }
    let mut both = total[1];
    both.merge(&total[2]);
    ClipDistances {
        plain: total[0].distances(diagonal),
        emulated_at_keys: total[1].distances(diagonal),
        emulated_between_keys: total[2].distances(diagonal),
        emulated: both.distances(diagonal),
        live: total[3].distances(diagonal),
    }
}
