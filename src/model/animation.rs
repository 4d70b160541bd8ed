//! Animation clips as imported: keyframe channels targeting a node's translation, rotation or scale,
//! and channels of a node's morph-target weights.

/// Which local component a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelPath {
    /// Translation (3 values per key).
    Translation,
    /// Rotation quaternion `[x, y, z, w]` (4 values per key).
    Rotation,
    /// Scale (3 values per key).
    Scale,
}

impl ChannelPath {
    /// Values per key (per element for cubic splines).
    #[must_use]
    pub fn width(self) -> usize {
        match self {
            Self::Rotation => 4,
            _ => 3,
        }
    }
}

/// glTF sampler interpolation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the previous key.
    Step,
    /// Linear (shortest-path slerp for rotations).
    Linear,
    /// Cubic Hermite spline with in- and out-tangents.
    CubicSpline,
}

/// One channel with its sampler.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// Target node.
    pub node: usize,
    /// Target component.
    pub path: ChannelPath,
    /// Interpolation mode.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing.
    pub times: Vec<f64>,
    /// Key values, `path.width()` per element; cubic splines store
    /// `[in-tangent, value, out-tangent]` per key.
    pub values: Vec<f64>,
    /// Per key, how the curve goes on from that key to the next where the keys differ (an
    /// animator's per-key interpolation); empty when every key follows `interpolation`. When not
    /// empty it holds one entry per key, not all equal, and `interpolation` is `CubicSpline` (the
    /// values keep tangents for every key). glTF has one interpolation per sampler: the exporter
    /// writes such a channel as an equivalent cubic spline (`rig::key_interpolation`).
    pub key_interpolation: Vec<Interpolation>,
}

impl Channel {
    /// How the curve goes from key `k` to the next: the key's own interpolation where keys differ,
    /// else the channel's.
    #[must_use]
    pub fn interpolation_after(&self, k: usize) -> Interpolation {
        self.key_interpolation.get(k).copied().unwrap_or(self.interpolation)
    }

    /// Makes per-key interpolation that became uniform the channel's own again: when every key
    /// has the same interpolation, `key_interpolation` empties and the tangents go unless it is
    /// `CubicSpline`. Sampling is unchanged.
    pub fn settle_interpolation(&mut self) {
        let Some(&first) = self.key_interpolation.first() else { return };
        if self.key_interpolation.iter().any(|&m| m != first) {
            return;
        }
        self.key_interpolation.clear();
        if first != Interpolation::CubicSpline && self.interpolation == Interpolation::CubicSpline {
            let w = self.path.width();
            self.values = self.values.chunks_exact(3 * w).flat_map(|e| e[w..2 * w].to_vec()).collect();
        }
        self.interpolation = first;
    }

    /// Checks what sampling relies on: at least one key, finite non-decreasing times, one value of
    /// `path.width()` numbers per key (three for cubic splines: in-tangent, value, out-tangent),
    /// finite values, no zero quaternion as a rotation key. The error is one line.
    pub fn check(&self) -> Result<(), String> {
        let (times, values) = (&self.times, &self.values);
        check_times(times)?;
        let w = self.path.width();
        let per_key = if self.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        if values.len() != times.len() * per_key * w {
            return Err(format!(
                "{} output values for {} keys (expected {})",
                values.len() / w,
                times.len(),
                times.len() * per_key
            ));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err("output holds a non-finite number".into());
        }
        if !self.key_interpolation.is_empty()
            && (self.key_interpolation.len() != times.len() || self.interpolation != Interpolation::CubicSpline)
        {
            return Err("per-key interpolation needs one entry per key over cubic-spline values".into());
        }
        if self.path == ChannelPath::Rotation {
            // Key values only: cubic-spline tangents may well be zero.
            let (stride, offset) = (4 * per_key, if per_key == 3 { 4 } else { 0 });
            if let Some(k) = (0..times.len()).find(|k| values[k * stride + offset..][..4].iter().all(|&c| c == 0.0)) {
                return Err(format!("key {k} is a zero quaternion"));
            }
        }
        Ok(())
    }
}

/// A sampler's key times: at least one, finite and non-decreasing.
fn check_times(times: &[f64]) -> Result<(), String> {
    if times.is_empty() {
        return Err("sampler has no keys".into());
    }
    if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] < w[0]) {
        return Err("key times are not finite and increasing".into());
    }
    Ok(())
}

/// One channel of a node's morph-target weights (glTF path `weights`).
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsChannel {
    /// Target node (the node whose mesh has the targets).
    pub node: usize,
    /// Interpolation mode.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing.
    pub times: Vec<f64>,
    /// Per key, one weight per target; cubic splines store `[in-tangents, values, out-tangents]`.
    pub values: Vec<f64>,
    /// The number of targets (weights per key).
    pub targets: usize,
}

impl WeightsChannel {
    /// Checks what sampling relies on, as [`Channel::check`] does: keys, finite increasing times,
    /// `targets` values per key (three times that for cubic splines), finite values.
    pub fn check(&self) -> Result<(), String> {
        let (times, values) = (&self.times, &self.values);
        check_times(times)?;
        let per_key = if self.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        if self.targets == 0 || values.len() != times.len() * per_key * self.targets {
            return Err(format!("{} weights for {} keys of {} targets", values.len(), times.len(), self.targets));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err("output holds a non-finite number".into());
        }
        Ok(())
    }
}

/// A named animation.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// The clip's name, if any.
    pub name: Option<String>,
    /// Translation, rotation and scale channels, in file order (later wins on conflicts).
    pub channels: Vec<Channel>,
    /// Morph-target weight channels, in file order (later wins on conflicts).
    pub weights: Vec<WeightsChannel>,
}

impl Clip {
    /// The clip's time range: smallest first key to largest last key (0..0 with no channels).
    #[must_use]
    pub fn range(&self) -> (f64, f64) {
        let firsts = self
            .channels
            .iter()
            .filter_map(|c| c.times.first())
            .chain(self.weights.iter().filter_map(|c| c.times.first()));
        let lasts = self
            .channels
            .iter()
            .filter_map(|c| c.times.last())
            .chain(self.weights.iter().filter_map(|c| c.times.last()));
        let start = firsts.copied().fold(f64::INFINITY, f64::min);
        let end = lasts.copied().fold(f64::NEG_INFINITY, f64::max);
        if start.is_finite() && end.is_finite() {
            (start, end)
        } else {
            (0.0, 0.0)
        }
    }
}
