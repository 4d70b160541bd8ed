//! Rigid binding of small loose parts far from every bone (an eye, a sword, a button): each such
//! connected part of the welded surface follows one joint, the one whose bone segment is nearest
//! its centre, instead of a heat blend that would stretch it.
//!
//! A part qualifies when it holds at most [`SMALL_PART`] of the surface's vertices and no bone
//! segment comes within its bounding sphere (centre of its box, half its diagonal).

use glam::DVec3;

use super::segments::Segment;
use super::surface::Surface;

/// The largest share of the surface's vertices a part may hold to be bound rigidly.
pub const SMALL_PART: f64 = 0.1;

/// Per surface vertex, the joint its part is bound to rigidly (`None`: weights by heat). `parts`
/// labels each vertex's connected part; only the `solved` joints are candidates.
#[must_use]
pub fn rigid_joints(surface: &Surface, parts: &[u32], segments: &[Segment], solved: &[u16]) -> Vec<Option<u16>> {
    let count = parts.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut size = vec![0_usize; count];
    let mut lo = vec![DVec3::splat(f64::INFINITY); count];
    let mut hi = vec![DVec3::splat(f64::NEG_INFINITY); count];
    for (i, &p) in parts.iter().enumerate() {
        let (p, v) = (p as usize, surface.positions[i]);
        size[p] += 1;
        lo[p] = lo[p].min(v);
        hi[p] = hi[p].max(v);
    }
    let small = (SMALL_PART * surface.len() as f64).floor() as usize;
    let joint_of_part: Vec<Option<u16>> = (0..count)
        .map(|p| {
            if size[p] > small {
                return None;
            }
            let centre = (lo[p] + hi[p]) * 0.5;
            let radius = (hi[p] - lo[p]).length() * 0.5;
            let distance = |j: u16| segments.get(usize::from(j)).map_or(f64::INFINITY, |s| s.distance(centre));
            let nearest = solved.iter().copied().min_by(|&a, &b| distance(a).total_cmp(&distance(b)))?;
            (distance(nearest) > radius).then_some(nearest)
        })
        .collect();
    parts.iter().map(|&p| joint_of_part[p as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetra(at: DVec3, s: f64, base: u32, positions: &mut Vec<DVec3>, triangles: &mut Vec<[u32; 3]>) {
        positions.extend([at, at + DVec3::X * s, at + DVec3::Y * s, at + DVec3::Z * s]);
        triangles.extend([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]].map(|t| t.map(|i| i + base)));
    }

    #[test]
    fn a_small_part_away_from_the_bones_follows_the_nearest_joint_alone() {
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        // A large body around the bones: 25 tetrahedra along x.
        for k in 0..25 {
            tetra(
                DVec3::new(f64::from(k) * 0.1, -0.05, -0.05),
                0.1,
                positions.len() as u32,
                &mut positions,
                &mut triangles,
            );
        }
        // A small part far above the second bone.
        tetra(DVec3::new(2.0, 1.0, 0.0), 0.05, positions.len() as u32, &mut positions, &mut triangles);
        let surface = Surface { positions, triangles, diagonal: 3.0, ..Surface::default() };
        let parts = super::super::heat::connected_parts(&surface);
        let segments = vec![
            Segment { head: DVec3::ZERO, tail: DVec3::new(1.2, 0.0, 0.0) },
            Segment { head: DVec3::new(1.2, 0.0, 0.0), tail: DVec3::new(2.5, 0.0, 0.0) },
        ];
        let rigid = rigid_joints(&surface, &parts, &segments, &[0, 1]);
        let n = rigid.len();
        assert!(rigid[n - 4..].iter().all(|&j| j == Some(1)), "{rigid:?}");
        // The body's tetrahedra each are small, but every one has a bone through its sphere.
        assert!(rigid[..n - 4].iter().all(Option::is_none));
    }
}
