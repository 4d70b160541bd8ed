//! Markers: points the user puts on the character's front view (Mixamo's chin, wrists, elbows,
//! knees, groin). A marker stands for the front view's ray through it (its depth is ignored: the
//! joint's depth comes from the mesh). A side given alone is mirrored to the other.

use glam::DVec3;

use super::AutorigError;

/// The marker names, in the order the front view lists them.
pub const MARKER_NAMES: [&str; 8] = ["chin", "wrist.L", "wrist.R", "elbow.L", "elbow.R", "knee.L", "knee.R", "groin"];

/// Marker positions (bind space), each optional.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Markers {
    /// `(name, position)` in [`MARKER_NAMES`] order, only those given.
    points: Vec<(&'static str, DVec3)>,
}

impl Markers {
    /// Reads `name=X,Y,Z;name=X,Y,Z;...` (names of [`MARKER_NAMES`], each at most once).
    pub fn parse(text: &str) -> Result<Self, AutorigError> {
        let mut markers = Self::default();
        for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = |why: &str| AutorigError::BadMarker(format!("{item:?}: {why}"));
            let (name, value) = item.split_once('=').ok_or_else(|| bad("expected NAME=X,Y,Z"))?;
            let name = name.trim();
            let known = MARKER_NAMES
                .iter()
                .find(|n| n.eq_ignore_ascii_case(name))
                .ok_or_else(|| bad(&format!("unknown marker (known: {})", MARKER_NAMES.join(", "))))?;
            let nums: Vec<f64> = value.split(',').filter_map(|v| v.trim().parse::<f64>().ok()).collect();
            let [x, y, z] = nums.as_slice() else {
                return Err(bad("the position must be three numbers X,Y,Z"));
            };
            let p = DVec3::new(*x, *y, *z);
            if !p.is_finite() || value.split(',').count() != 3 {
                return Err(bad("the position must be three finite numbers X,Y,Z"));
            }
            markers.set(known, p).map_err(|()| bad("given twice"))?;
        }
        Ok(markers)
    }

    /// Sets marker `name` (one of [`MARKER_NAMES`]); `Err` when it is already set.
    #[allow(clippy::result_unit_err)]
    pub fn set(&mut self, name: &'static str, p: DVec3) -> Result<(), ()> {
        if self.get(name).is_some() {
            return Err(());
        }
        self.points.push((name, p));
        let order = |n: &str| MARKER_NAMES.iter().position(|m| *m == n).unwrap_or(usize::MAX);
        self.points.sort_by_key(|(n, _)| order(n));
        Ok(())
    }

    /// Marker `name`, if given.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<DVec3> {
        self.points.iter().find(|(n, _)| *n == name).map(|p| p.1)
    }

    /// Whether no marker is given.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Every marker given, in [`MARKER_NAMES`] order.
    #[must_use]
    pub fn all(&self) -> &[(&'static str, DVec3)] {
        &self.points
    }

    /// Marker `name` (a `.L` or `.R` one), or its partner mirrored across the plane x = `centre`.
    #[must_use]
    pub fn side(&self, name: &str, centre: f64) -> Option<DVec3> {
        self.get(name).or_else(|| {
            let other = crate::rig::symmetry::mirror_name(name)?;
            self.get(&other).map(|p| DVec3::new(2.0 * centre - p.x, p.y, p.z))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_parse_mirror_and_refuse_nonsense() {
        let m = Markers::parse("chin=0,1.6,0.1; wrist.L=0.7,1.4,0 ;groin=0,0.9,0").unwrap();
        assert_eq!(m.get("chin"), Some(DVec3::new(0.0, 1.6, 0.1)));
        assert_eq!(m.side("wrist.R", 0.0), Some(DVec3::new(-0.7, 1.4, 0.0)));
        assert_eq!(m.side("knee.L", 0.0), None);
        for (bad, why) in [
            ("nose=1,2,3", "unknown marker"),
            ("chin=1,2", "three numbers"),
            ("chin=1,2,x", "three numbers"),
            ("chin=1,2,inf", "finite"),
            ("chin=1,2,3;chin=1,2,3", "twice"),
            ("chin", "NAME=X,Y,Z"),
        ] {
            let e = Markers::parse(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
