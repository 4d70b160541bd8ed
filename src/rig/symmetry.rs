//! The two sides of a rig: a joint's mirrored name (Left/Right, .L/.R, _l/_r, L_/R_ ...), joints
//! paired by name, and the axis across whose origin plane a model is symmetric.

use glam::Vec3;

use crate::maths::point_grid::{relative_tolerance, PointGrid};

/// Default mirror tolerance as a fraction of the bounding-box diagonal.
pub const MIRROR_FRACTION: f32 = 1e-3;

const WORDS: [(&str, &str); 3] = [("Left", "Right"), ("left", "right"), ("LEFT", "RIGHT")];

fn is_separator(c: char) -> bool {
    matches!(c, '.' | '_' | '-' | ' ' | ':' | '|')
}

fn swap_side(c: char) -> Option<char> {
    match c {
        'L' => Some('R'),
        'R' => Some('L'),
        'l' => Some('r'),
        'r' => Some('l'),
        _ => None,
    }
}

/// The name of the joint on the other side, or `None` when the name has no side marker. Whole
/// words Left/Right (any of three casings, anywhere in the name) are swapped first; otherwise a
/// single L/R/l/r standing between separators (`.`, `_`, `-`, space, `:`, `|`), the start, the end
/// or digits, the last such one (so `hand.L.001`, `arm_l`, `L_foot`, `Bip01 L Thigh` all work).
#[must_use]
pub fn mirror_name(name: &str) -> Option<String> {
    let mut best: Option<(usize, &str, &str)> = None;
    for (a, b) in WORDS {
        for (from, to) in [(a, b), (b, a)] {
            if let Some(i) = name.find(from) {
                if best.is_none_or(|(j, _, _)| i < j) {
                    best = Some((i, from, to));
                }
            }
        }
    }
    if let Some((i, from, to)) = best {
        return Some(format!("{}{}{}", &name[..i], to, &name[i + from.len()..]));
    }
    let chars: Vec<(usize, char)> = name.char_indices().collect();
    for k in (0..chars.len()).rev() {
        let (i, c) = chars[k];
        let Some(other) = swap_side(c) else { continue };
        let before_ok = k == 0 || is_separator(chars[k - 1].1);
        let after_ok = k + 1 == chars.len() || is_separator(chars[k + 1].1) || chars[k + 1].1.is_ascii_digit();
        // A lone letter with no separator at all (the name "L") is not a side marker.
        let bounded = (k > 0 && is_separator(chars[k - 1].1)) || (k + 1 < chars.len() && is_separator(chars[k + 1].1));
        if before_ok && after_ok && bounded {
            return Some(format!("{}{}{}", &name[..i], other, &name[i + c.len_utf8()..]));
        }
    }
    None
}

/// `name` without a trailing `_<digits>` / `.<digits>` / `-<digits>` group (exporters such as
/// FBX2glTF append a per-joint index: `b_LeftLeg01_015`).
fn without_index(name: &str) -> &str {
    let digits = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if digits.len() < name.len() {
        if let Some(stem) = digits.strip_suffix(['_', '.', '-']) {
            if !stem.is_empty() {
                return stem;
            }
        }
    }
    name
}

/// For each joint, the index of its mirror joint by name (itself when it has no side marker or
/// its mirror name is not among `names`; unnamed joints map to themselves). When the exact mirror
/// name is missing, a unique joint whose name matches once a trailing index is ignored is taken
/// (`b_LeftLeg01_015` ↔ `b_RightLeg01_019`).
#[must_use]
pub fn joint_mirror_map(names: &[Option<&str>]) -> Vec<u16> {
    let mut map: Vec<u16> = (0..names.len() as u16).collect();
    for (j, name) in names.iter().enumerate() {
        let Some(mirrored) = name.and_then(mirror_name) else { continue };
        if let Some(k) = names.iter().position(|n| *n == Some(mirrored.as_str())) {
            map[j] = k as u16;
            continue;
        }
        let stem = without_index(&mirrored);
        let mut found = names
            .iter()
            .enumerate()
            .filter(|(k, n)| *k != j && n.is_some_and(|n| without_index(n) == stem))
            .map(|(k, _)| k);
        if let (Some(k), None) = (found.next(), found.next()) {
            map[j] = k as u16;
        }
    }
    map
}

/// Vertices sampled by [`symmetry_axis`].
const AXIS_SAMPLES: usize = 8192;

/// The axis (0 = x, 1 = y, 2 = z) across whose origin plane the meshes are most symmetric, by the
/// share of sampled vertices that have a mirror partner (default tolerance) anywhere in the meshes:
/// every primitive together, so a model whose left and right halves are separate parts counts as
/// symmetric; x wins ties. glTF models are usually symmetric across x, but some exporters leave
/// them Z-up (CesiumMan is symmetric across y), so the editor's "X-mirror" mirrors across the
/// model's own symmetry plane.
#[must_use]
pub fn symmetry_axis<'a>(primitives: impl IntoIterator<Item = &'a [Vec3]>) -> usize {
    let positions: Vec<Vec3> = primitives.into_iter().flatten().copied().collect();
    if positions.is_empty() {
        return 0;
    }
    let tol = relative_tolerance(&positions, MIRROR_FRACTION);
    let mut grid = PointGrid::new(tol);
    for (i, &p) in positions.iter().enumerate() {
        grid.insert(p, i as u32);
    }
    let mut matched = [0usize; 3];
    let step = positions.len().div_ceil(AXIS_SAMPLES).max(1);
    for p in positions.iter().step_by(step) {
        for (axis, count) in matched.iter_mut().enumerate() {
            let mut q = *p;
            q[axis] = -q[axis];
            *count += usize::from(grid.nearest(&positions, q, tol).is_some());
        }
    }
    let mut best = 0;
    for axis in 1..3 {
        if matched[axis] > matched[best] {
            best = axis;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_mirrored() {
        let cases = [
            ("LeftArm", "RightArm"),
            ("mixamorig:RightHand", "mixamorig:LeftHand"),
            ("upper_arm_left", "upper_arm_right"),
            ("LEFT_LEG", "RIGHT_LEG"),
            ("hand.L", "hand.R"),
            ("hand.R.001", "hand.L.001"),
            ("thigh_l", "thigh_r"),
            ("foot_R", "foot_L"),
            ("L_clavicle", "R_clavicle"),
            ("r_eye", "l_eye"),
            ("Bip01 L Thigh", "Bip01 R Thigh"),
            ("arm-L", "arm-R"),
        ];
        for (a, b) in cases {
            assert_eq!(mirror_name(a).as_deref(), Some(b), "{a}");
            assert_eq!(mirror_name(b).as_deref(), Some(a), "{b}");
        }
        for plain in ["Spine", "Hips", "L", "Lower", "neck_01", "Head_end", "Root"] {
            assert_eq!(mirror_name(plain), None, "{plain}");
        }
    }

    #[test]
    fn joint_map_pairs_sides_and_keeps_centre_joints() {
        let names = [Some("Hips"), Some("arm.L"), Some("arm.R"), None, Some("leg_l")];
        assert_eq!(joint_mirror_map(&names), vec![0, 2, 1, 3, 4]);
        let fox = [Some("b_Hip_01"), Some("b_LeftLeg01_015"), Some("b_RightLeg01_019"), Some("b_Tail01_012")];
        assert_eq!(joint_mirror_map(&fox), vec![0, 2, 1, 3]);
        assert_eq!(without_index("b_Spine01_02"), "b_Spine01");
        assert_eq!(without_index("Bone.001"), "Bone");
        assert_eq!(without_index("_01"), "_01");
        assert_eq!(without_index("neck"), "neck");
    }

    #[test]
    fn the_symmetry_axis_is_the_one_with_most_mirror_partners() {
        let p =
            [Vec3::new(0.3, 1.0, 0.0), Vec3::new(0.3, -1.0, 0.0), Vec3::new(0.7, 2.0, 1.0), Vec3::new(0.7, -2.0, 1.0)];
        assert_eq!(symmetry_axis([&p[..]]), 1);
        assert_eq!(symmetry_axis([&[][..]]), 0);
    }
}
