//! Colours for the dominant-joint display that keep neighbouring joints apart: golden-ratio hues
//! alone gave Head and Body the same green on real rigs. Each joint of a skin, in order, takes
//! from a fixed set of candidates (twelve hues at two lightnesses) the colour farthest from those
//! of its neighbours coloured before it (parent, grandparent, children, siblings), preferring the
//! least-used colour on ties; the result depends only on the skeleton, so a joint keeps its
//! colour while the skeleton stays as it is.

use crate::model::{Model, Skin};

/// Candidate hues (of twelve around the wheel).
const HUES: usize = 12;

fn candidate(k: usize) -> [f32; 3] {
    let h = (k % HUES) as f32 / HUES as f32 * 6.0;
    let x = 1.0 - ((h % 2.0) - 1.0).abs();
    let (r, g, b) = match h as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    // The second round of hues is darker, so 24 colours stay apart.
    let (lo, span) = if k < HUES { (0.15, 0.85) } else { (0.05, 0.5) };
    [lo + span * r, lo + span * g, lo + span * b]
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The parent of each joint of `skin` as a joint index of the same skin (the nearest ancestor
/// node that is one of its joints).
#[must_use]
pub fn skin_parents(model: &Model, skin: &Skin) -> Vec<Option<usize>> {
    skin.joints
        .iter()
        .map(|&node| {
            let mut up = model.nodes.nodes.get(node).and_then(|n| n.parent);
            while let Some(p) = up {
                if let Some(j) = skin.joints.iter().position(|&q| q == p) {
                    return Some(j);
                }
                up = model.nodes.nodes.get(p).and_then(|n| n.parent);
            }
            None
        })
        .collect()
}

/// A colour (linear RGB) per joint of a skeleton whose parents are `parents` (joint indices).
#[must_use]
pub fn joint_palette(parents: &[Option<usize>]) -> Vec<[f32; 3]> {
    let n = parents.len();
    let parent = |j: usize| parents.get(j).copied().flatten().filter(|&p| p < n && p != j);
    let mut colours: Vec<Option<usize>> = vec![None; n];
    let mut used = [0usize; 2 * HUES];
    for j in 0..n {
        let p = parent(j);
        let neighbours: Vec<usize> = (0..n)
            .filter(|&k| {
                k != j
                    && (Some(k) == p
                        || parent(k) == Some(j)
                        || (p.is_some() && parent(k) == p)
                        || p.and_then(parent) == Some(k))
            })
            .filter_map(|k| colours[k])
            .collect();
        let best = (0..2 * HUES)
            .map(|c| {
                let near = neighbours.iter().map(|&o| distance(candidate(c), candidate(o))).fold(f32::MAX, f32::min);
                (c, near)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(used[b.0].cmp(&used[a.0])).then(b.0.cmp(&a.0)))
            .map_or(0, |(c, _)| c);
        used[best] += 1;
        colours[j] = Some(best);
    }
    colours.into_iter().map(|c| candidate(c.unwrap_or(0))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_get_colours_far_apart() {
        // A spine of six with two arms of three and a head.
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(3),
            Some(6),
            Some(7),
            Some(3),
            Some(9),
            Some(10),
            Some(5),
        ];
        let c = joint_palette(&parents);
        for (j, p) in parents.iter().enumerate() {
            for k in 0..parents.len() {
                let related = Some(k) == *p || parents[k] == Some(j) || (p.is_some() && parents[k] == *p && k != j);
                if related {
                    assert!(distance(c[j], c[k]) > 0.5, "{j} and {k}: {:?} {:?}", c[j], c[k]);
                }
            }
        }
        assert_eq!(c, joint_palette(&parents), "deterministic");
    }
}
