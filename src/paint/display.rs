//! What the weight display needs, as plain functions: the colour ramps (rainbow with its legend
//! stops, greyscale) and per-vertex lookups for hovering and the sample-weight picker (the
//! dominant-joint colours are `joint_palette.rs`'s).

use crate::model::{Influences, JointSetTable};

use super::pick::Hit;

/// The ramp's stops: weight → linear RGB (blue 0, cyan, green, yellow, red 1), for the legend.
pub const RAMP_STOPS: [(f32, [f32; 3]); 5] = [
    (0.0, [0.0, 0.0, 1.0]),
    (0.25, [0.0, 1.0, 1.0]),
    (0.5, [0.0, 1.0, 0.0]),
    (0.75, [1.0, 1.0, 0.0]),
    (1.0, [1.0, 0.0, 0.0]),
];

/// The ramp colour of a weight (clamped to [0, 1]; NaN shows as 0).
#[must_use]
pub fn weight_colour(w: f32) -> [f32; 3] {
    let w = if w.is_nan() { 0.0 } else { w.clamp(0.0, 1.0) };
    for pair in RAMP_STOPS.windows(2) {
        let ((a, ca), (b, cb)) = (pair[0], pair[1]);
        if w <= b {
            let t = (w - a) / (b - a);
            return [ca[0] + (cb[0] - ca[0]) * t, ca[1] + (cb[1] - ca[1]) * t, ca[2] + (cb[2] - ca[2]) * t];
        }
    }
    RAMP_STOPS[4].1
}

/// The ramp the painted joint's weight is shown on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightRamp {
    /// Blue 0, cyan, green, yellow, red 1 ([`RAMP_STOPS`]).
    #[default]
    Rainbow,
    /// Black 0 to white 1.
    Greyscale,
}

impl WeightRamp {
    /// Every ramp, in menu order.
    pub const ALL: [Self; 2] = [Self::Rainbow, Self::Greyscale];

    /// The menu label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Rainbow => "Rainbow",
            Self::Greyscale => "Greyscale",
        }
    }

    /// The colour of weight `w` (clamped to [0, 1]; NaN shows as 0), linear RGB.
    #[must_use]
    pub fn colour(self, w: f32) -> [f32; 3] {
        match self {
            Self::Rainbow => weight_colour(w),
            Self::Greyscale => [if w.is_nan() { 0.0 } else { w.clamp(0.0, 1.0) }; 3],
        }
    }
}

/// The weight of `joint` on vertex `v` (0 when it has none).
#[must_use]
pub fn joint_weight(inf: &Influences, table: &JointSetTable, v: usize, joint: u16) -> f32 {
    inf.vertex(v, table).find(|p| p.0 == joint).map_or(0.0, |p| p.1)
}

/// Every vertex's weight for `joint`, into `out` (for the ramp display).
pub fn joint_weights(inf: &Influences, table: &JointSetTable, joint: u16, out: &mut Vec<f32>) {
    out.clear();
    out.extend((0..inf.len()).map(|v| joint_weight(inf, table, v, joint)));
}

/// The joint with the largest weight on vertex `v` (its pivot), or `None` without influence.
#[must_use]
pub fn dominant_joint(inf: &Influences, table: &JointSetTable, v: usize) -> Option<u16> {
    let (set, pivot) = Influences::unpack(inf.packed_sets()[v]);
    table.joints(set).get(pivot).copied()
}

/// The influences of vertex `v` for the hover read-out, largest weight first; joints of its set
/// whose weight is 0 (painted away, kept by a lock rule) are not listed.
#[must_use]
pub fn hover_influences(inf: &Influences, table: &JointSetTable, v: usize) -> Vec<(u16, f32)> {
    let mut pairs: Vec<(u16, f32)> = inf.vertex(v, table).filter(|p| p.1 > 0.0).collect();
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    pairs
}

/// The sample-weight picker: the weight of `joint` at a hit point, interpolated over the hit
/// triangle's corners by barycentric weights.
#[must_use]
pub fn sample_weight(inf: &Influences, table: &JointSetTable, triangles: &[[u32; 3]], hit: &Hit, joint: u16) -> f32 {
    let Some(tri) = triangles.get(hit.triangle) else { return 0.0 };
    if tri.iter().any(|&k| k as usize >= inf.len()) {
        return 0.0;
    }
    let w: f32 = tri.iter().zip(hit.barycentric).map(|(&k, b)| b * joint_weight(inf, table, k as usize, joint)).sum();
    w.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::influences::VertexInfluences;

    #[test]
    fn ramp_and_lookups() {
        assert_eq!(weight_colour(0.0), [0.0, 0.0, 1.0]);
        assert_eq!(weight_colour(1.0), [1.0, 0.0, 0.0]);
        assert_eq!(weight_colour(0.5), [0.0, 1.0, 0.0]);
        assert_eq!(weight_colour(f32::NAN), [0.0, 0.0, 1.0]);
        assert_eq!(WeightRamp::Greyscale.colour(0.25), [0.25; 3]);
        assert_eq!(WeightRamp::Rainbow.colour(0.5), weight_colour(0.5));
        let mut table = JointSetTable::new(4);
        let verts = [VertexInfluences { pairs: vec![(3, 0.25), (1, 0.75)] }, VertexInfluences::default()];
        let inf = Influences::from_vertices(&verts, &mut table).unwrap();
        assert_eq!(joint_weight(&inf, &table, 0, 3), 0.25);
        assert_eq!(joint_weight(&inf, &table, 0, 2), 0.0);
        assert_eq!(dominant_joint(&inf, &table, 0), Some(1));
        assert_eq!(dominant_joint(&inf, &table, 1), None);
        assert_eq!(hover_influences(&inf, &table, 0), vec![(1, 0.75), (3, 0.25)]);
        let zero = [VertexInfluences { pairs: vec![(2, 0.0), (1, 1.0)] }];
        let inf_zero = Influences::from_vertices(&zero, &mut table).unwrap();
        assert_eq!(inf_zero.vertex(0, &table).count(), 2, "the set keeps the joint painted to 0");
        assert_eq!(hover_influences(&inf_zero, &table, 0), vec![(1, 1.0)], "the read-out hides it");
        let hit = Hit { point: glam::Vec3::ZERO, triangle: 0, vertex: 0, barycentric: [0.5, 0.5, 0.0], t: 1.0 };
        assert_eq!(sample_weight(&inf, &table, &[[0, 1, 0]], &hit, 1), 0.375);
    }
}
