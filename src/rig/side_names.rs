//! The side-naming scheme a rig uses (Blender's `.L`/`.R`, `_l`/`_r`, Mixamo's `Left`/`Right`,
//! `l_`/`r_` prefixes), read from the names it already has, and a side added to a name that has
//! none in that scheme: Symmetrize names the joints it mirrors as the user would.

use super::symmetry::mirror_name;

/// How a rig marks the side of a joint's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideScheme {
    /// A suffix after a dot: `hand.L` (`upper`) or `hand.l`.
    Dot {
        /// Capital L/R.
        upper: bool,
    },
    /// A suffix after an underscore: `hand_l` or `hand_L` (`upper`).
    Underscore {
        /// Capital L/R.
        upper: bool,
    },
    /// A prefix: `l_hand` or `L_hand` (`upper`).
    Prefix {
        /// Capital L/R.
        upper: bool,
    },
    /// The word Left/Right before the name, after any `namespace:` (`mixamorig:LeftHand`).
    Word,
}

impl Default for SideScheme {
    /// Blender's `.L`/`.R` (skinlab's templates use it too).
    fn default() -> Self {
        Self::Dot { upper: true }
    }
}

impl SideScheme {
    /// The scheme of one name with a side marker, `None` when it has none or an uncommon one
    /// (`Bip01 L Thigh`).
    #[must_use]
    pub fn of_name(name: &str) -> Option<Self> {
        mirror_name(name)?;
        if ["Left", "Right", "left", "right", "LEFT", "RIGHT"].iter().any(|w| name.contains(w)) {
            return Some(Self::Word);
        }
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit()).trim_end_matches('.');
        let chars: Vec<char> = stem.chars().collect();
        if let [.., sep, side] = chars.as_slice() {
            if matches!(side, 'L' | 'R' | 'l' | 'r') {
                let upper = side.is_ascii_uppercase();
                match sep {
                    '.' => return Some(Self::Dot { upper }),
                    '_' | '-' => return Some(Self::Underscore { upper }),
                    _ => {}
                }
            }
        }
        let chars: Vec<char> = name.chars().collect();
        match chars.as_slice() {
            [side, '_' | '.' | '-', ..] if matches!(side, 'L' | 'R' | 'l' | 'r') => {
                Some(Self::Prefix { upper: side.is_ascii_uppercase() })
            }
            _ => None,
        }
    }

    /// The scheme most of `names` use (Blender's `.L`/`.R` when none has a side, the first seen
    /// on a tie).
    #[must_use]
    pub fn detect<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut counts: Vec<(Self, usize)> = Vec::new();
        for scheme in names.into_iter().filter_map(Self::of_name) {
            match counts.iter_mut().find(|(s, _)| *s == scheme) {
                Some((_, n)) => *n += 1,
                None => counts.push((scheme, 1)),
            }
        }
        let mut best: Option<(Self, usize)> = None;
        for (scheme, n) in counts {
            if best.is_none_or(|(_, m)| n > m) {
                best = Some((scheme, n));
            }
        }
        best.map_or_else(Self::default, |(s, _)| s)
    }

    /// `base` (a name without a side marker) marked as the character's left (`left`) or right
    /// side in this scheme, if the result mirrors to the other side's name (else Blender's
    /// `.L`/`.R` is tried).
    #[must_use]
    pub fn with_side(self, base: &str, left: bool) -> Option<String> {
        let write = |scheme: Self, left: bool| -> String {
            let letter = |upper: bool| match (left, upper) {
                (true, true) => "L",
                (false, true) => "R",
                (true, false) => "l",
                (false, false) => "r",
            };
            match scheme {
                Self::Dot { upper } => format!("{base}.{}", letter(upper)),
                Self::Underscore { upper } => format!("{base}_{}", letter(upper)),
                Self::Prefix { upper } => format!("{}_{base}", letter(upper)),
                Self::Word => {
                    let (space, rest) = base.rsplit_once(':').map_or(("", base), |(a, b)| (a, b));
                    let sep = if space.is_empty() { "" } else { ":" };
                    let mut chars = rest.chars();
                    let rest = chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect());
                    format!("{space}{sep}{}{rest}", if left { "Left" } else { "Right" })
                }
            }
        };
        [self, Self::default()].into_iter().find_map(|scheme| {
            let name = write(scheme, left);
            (mirror_name(&name).as_deref() == Some(write(scheme, !left).as_str())).then_some(name)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_are_read_from_names() {
        let cases = [
            ("hand.L", Some(SideScheme::Dot { upper: true })),
            ("hand.r.001", Some(SideScheme::Dot { upper: false })),
            ("thigh_l", Some(SideScheme::Underscore { upper: false })),
            ("foot_R", Some(SideScheme::Underscore { upper: true })),
            ("L_clavicle", Some(SideScheme::Prefix { upper: true })),
            ("r_eye", Some(SideScheme::Prefix { upper: false })),
            ("mixamorig:LeftArm", Some(SideScheme::Word)),
            ("Bip01 L Thigh", None),
            ("spine", None),
        ];
        for (name, scheme) in cases {
            assert_eq!(SideScheme::of_name(name), scheme, "{name}");
        }
        assert_eq!(SideScheme::detect(["spine", "arm_l", "leg_l", "hand.L"]), SideScheme::Underscore { upper: false });
        assert_eq!(SideScheme::detect(["spine", "neck"]), SideScheme::Dot { upper: true });
    }

    #[test]
    fn sides_are_added_in_the_scheme_and_mirror() {
        let cases = [
            (SideScheme::Dot { upper: true }, "joint.001", "joint.001.L", "joint.001.R"),
            (SideScheme::Underscore { upper: false }, "tail", "tail_l", "tail_r"),
            (SideScheme::Prefix { upper: true }, "ear", "L_ear", "R_ear"),
            (SideScheme::Word, "mixamorig:hand", "mixamorig:LeftHand", "mixamorig:RightHand"),
            (SideScheme::Word, "Toe", "LeftToe", "RightToe"),
        ];
        for (scheme, base, left, right) in cases {
            assert_eq!(scheme.with_side(base, true).as_deref(), Some(left));
            assert_eq!(scheme.with_side(base, false).as_deref(), Some(right));
        }
        // A prefix that would turn a lone letter into a marker falls back to `.L`/`.R`.
        assert_eq!(SideScheme::Prefix { upper: false }.with_side("R", true).as_deref(), Some("R.L"));
    }
}
