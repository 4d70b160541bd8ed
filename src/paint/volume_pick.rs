//! Where a new joint goes under the cursor: the middle of the mesh's volume along a ray (the
//! midpoint of the ray's first entry into the mesh and the exit that follows), as riggers place
//! joints inside a limb from a single view. Surfaces are given in model space, so the caller
//! passes the deformed skinned primitives and the rigid meshes alike.

use glam::Vec3;

use super::pick::{each_crossing, Ray};
use super::pick_boxes::PickBoxes;

/// One surface a joint can be placed in: model-space positions, triangles, and, for a large one,
/// its pick boxes fitted to those positions (the crossings are then found through them).
#[derive(Clone, Copy, Debug)]
pub struct VolumeSurface<'a> {
    /// Model-space positions.
    pub positions: &'a [Vec3],
    /// Triangles (indices into `positions`).
    pub triangles: &'a [[u32; 3]],
    /// Boxes fitted to `positions`, if any.
    pub boxes: Option<&'a PickBoxes>,
}

impl<'a> VolumeSurface<'a> {
    /// A surface without boxes (every triangle is tested).
    #[must_use]
    pub fn new(positions: &'a [Vec3], triangles: &'a [[u32; 3]]) -> Self {
        Self { positions, triangles, boxes: None }
    }
}

/// One crossing of the ray with a triangle: the ray parameter and whether the triangle faces
/// the ray (counter-clockwise winding seen from the ray's origin: the ray enters there).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Crossing {
    t: f32,
    enters: bool,
    surface: usize,
}

/// The midpoint of the ray's first entry into the volume bounded by `surfaces` and the exit that
/// follows it. Crossings closer than
/// `merge` (model units) are one crossing (a shared edge, a seam of duplicate vertices). The exit
/// is the first later crossing of a triangle facing away from the ray; on meshes without
/// consistent winding, the next distinct crossing. A ray that crosses the surface only once
/// (an open sheet) gives that crossing; `None` when it misses. Also returns the index of the
/// surface the ray enters first.
#[must_use]
pub fn volume_midpoint(ray: &Ray, surfaces: &[VolumeSurface<'_>], merge: f32) -> Option<(Vec3, usize)> {
    let mut crossings = Vec::new();
    for (surface, s) in surfaces.iter().enumerate() {
        // A crossing's triangle has its corners in range.
        let mut found = |i: usize, t: f32| {
            let [a, b, c] = s.triangles[i].map(|k| s.positions[k as usize]);
            let enters = (b - a).cross(c - a).dot(ray.direction) < 0.0;
            crossings.push(Crossing { t, enters, surface });
        };
        match s.boxes {
            Some(boxes) => boxes.crossings(ray, s.positions, s.triangles, found),
            None => each_crossing(ray, s.positions, s.triangles, 0, |i, t, _, _| found(i, t)),
        }
    }
    crossings.sort_by(|x, y| x.t.total_cmp(&y.t));
    let first = *crossings.first()?;
    let step = merge / ray.direction.length().max(f32::MIN_POSITIVE);
    let later = crossings.iter().filter(|c| c.t > first.t + step);
    let exit = later.clone().find(|c| c.enters != first.enters).or_else(|| later.clone().next());
    let t = exit.map_or(first.t, |e| 0.5 * (first.t + e.t));
    Some((ray.origin + ray.direction * t, first.surface))
}

/// Where `ray` meets the plane through `point` facing the camera (normal `towards_eye`), if it
/// does in front of the eye.
#[must_use]
pub fn on_view_plane(ray: &Ray, point: Vec3, towards_eye: Vec3) -> Option<Vec3> {
    let denom = ray.direction.dot(towards_eye);
    if denom.abs() < 1e-12 {
        return None;
    }
    let t = (point - ray.origin).dot(towards_eye) / denom;
    (t > 0.0 && t.is_finite()).then(|| ray.origin + ray.direction * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed axis-aligned box from `lo` to `hi`, wound counter-clockwise seen from outside.
    fn cube(lo: Vec3, hi: Vec3) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let p = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { lo.x } else { hi.x },
                    if i & 2 == 0 { lo.y } else { hi.y },
                    if i & 4 == 0 { lo.z } else { hi.z },
                )
            })
            .collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let t = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
        (p, t)
    }

    #[test]
    fn the_midpoint_lies_between_entry_and_exit_of_the_first_part_hit() {
        let (a, ta) = cube(Vec3::new(-1.0, -1.0, -1.0), Vec3::new(1.0, 1.0, 1.0));
        let (b, tb) = cube(Vec3::new(-1.0, -1.0, -10.0), Vec3::new(1.0, 1.0, -6.0));
        let ray = Ray { origin: Vec3::new(0.3, 0.2, 5.0), direction: Vec3::new(0.0, 0.0, -2.0) };
        let (m, part) =
            volume_midpoint(&ray, &[VolumeSurface::new(&b, &tb), VolumeSurface::new(&a, &ta)], 1e-5).unwrap();
        assert!((m - Vec3::new(0.3, 0.2, 0.0)).length() < 1e-5, "{m}");
        assert_eq!(part, 1);
        // Seen from inside the second box's far side, the first crossing is that box.
        let ray = Ray { origin: Vec3::new(0.0, 0.0, -20.0), direction: Vec3::Z };
        let (m, part) =
            volume_midpoint(&ray, &[VolumeSurface::new(&a, &ta), VolumeSurface::new(&b, &tb)], 1e-5).unwrap();
        assert!((m.z + 8.0).abs() < 1e-5, "{m}");
        assert_eq!(part, 1);
    }

    #[test]
    fn an_edge_between_two_triangles_counts_once_and_a_miss_gives_none() {
        let (a, ta) = cube(Vec3::splat(-1.0), Vec3::splat(1.0));
        // Through the diagonal edges of the front and back faces.
        let ray = Ray { origin: Vec3::new(0.0, 0.0, 5.0), direction: Vec3::NEG_Z };
        let (m, _) = volume_midpoint(&ray, &[VolumeSurface::new(&a, &ta)], 1e-5).unwrap();
        assert!(m.length() < 1e-5, "{m}");
        let ray = Ray { origin: Vec3::new(3.0, 0.0, 5.0), direction: Vec3::NEG_Z };
        assert_eq!(volume_midpoint(&ray, &[VolumeSurface::new(&a, &ta)], 1e-5), None);
    }

    #[test]
    fn the_view_plane_through_a_point_is_met_at_its_depth() {
        let ray = Ray { origin: Vec3::new(0.0, 0.0, 5.0), direction: Vec3::new(0.1, 0.0, -1.0) };
        let p = on_view_plane(&ray, Vec3::new(7.0, 3.0, 1.0), Vec3::Z).unwrap();
        assert!((p.z - 1.0).abs() < 1e-6 && (p.x - 0.4).abs() < 1e-6, "{p}");
        assert_eq!(on_view_plane(&ray, Vec3::new(0.0, 0.0, 9.0), Vec3::Z), None);
    }
}
