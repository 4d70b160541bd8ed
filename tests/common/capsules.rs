//! Characters built from capsules, written as OBJ text: each capsule is a closed tube with round
//! caps around a segment; capsules can share one `o` object or each have their own.
#![allow(dead_code)]

use glam::DVec3;

/// One capsule: the segment `a`–`b` swept by a sphere of `radius`, in object `object`.
#[derive(Clone, Copy, Debug)]
pub struct Capsule {
    /// One end of the axis.
    pub a: DVec3,
    /// The other end.
    pub b: DVec3,
    /// The radius.
    pub radius: f64,
    /// The `o` object it belongs to (index into the names given to [`obj_text`]).
    pub object: usize,
}

/// Positions and triangles (0-based) of a capsule with `around` vertices per ring.
pub fn capsule_mesh(c: &Capsule, around: usize, cap_rings: usize, body_rings: usize) -> (Vec<DVec3>, Vec<[usize; 3]>) {
    let axis = (c.b - c.a).normalize_or(DVec3::Y);
    let u = axis.any_orthonormal_vector();
    let v = axis.cross(u);
    let len = (c.b - c.a).length();
    // Rings: (offset along the axis from a, radius).
    let mut rings = Vec::new();
    for k in 1..cap_rings {
        let t = std::f64::consts::FRAC_PI_2 * (1.0 - k as f64 / cap_rings as f64);
        rings.push((-c.radius * t.sin(), c.radius * t.cos()));
    }
    for k in 0..=body_rings {
        rings.push((len * k as f64 / body_rings as f64, c.radius));
    }
    for k in 1..cap_rings {
        let t = std::f64::consts::FRAC_PI_2 * (k as f64 / cap_rings as f64);
        rings.push((len + c.radius * t.sin(), c.radius * t.cos()));
    }
    let mut positions = vec![c.a - axis * c.radius];
    for &(h, r) in &rings {
        for i in 0..around {
            let phi = std::f64::consts::TAU * i as f64 / around as f64;
            positions.push(c.a + axis * h + (u * phi.cos() + v * phi.sin()) * r);
        }
    }
    positions.push(c.b + axis * c.radius);
    let top = positions.len() - 1;
    let ring = |k: usize, i: usize| 1 + k * around + i % around;
    let mut triangles = Vec::new();
    for i in 0..around {
        triangles.push([0, ring(0, i + 1), ring(0, i)]);
    }
    for k in 0..rings.len() - 1 {
        for i in 0..around {
            let (a, b, cc, d) = (ring(k, i), ring(k, i + 1), ring(k + 1, i + 1), ring(k + 1, i));
            triangles.push([a, b, cc]);
            triangles.push([a, cc, d]);
        }
    }
    let last = rings.len() - 1;
    for i in 0..around {
        triangles.push([top, ring(last, i), ring(last, i + 1)]);
    }
    (positions, triangles)
}

/// OBJ text of `capsules`, one `o` per name in `objects` (capsules of an object share it).
pub fn obj_text(capsules: &[Capsule], objects: &[&str], around: usize) -> String {
    let mut text = String::new();
    let mut base = 1;
    for (o, name) in objects.iter().enumerate() {
        text += &format!("o {name}\n");
        for c in capsules.iter().filter(|c| c.object == o) {
            let body_rings = ((c.b - c.a).length() / (c.radius * 0.5)).ceil().max(2.0) as usize;
            let (positions, triangles) = capsule_mesh(c, around, 4, body_rings);
            for p in &positions {
                text += &format!("v {:.6} {:.6} {:.6}\n", p.x, p.y, p.z);
            }
            for t in &triangles {
                text += &format!("f {} {} {}\n", t[0] + base, t[1] + base, t[2] + base);
            }
            base += positions.len();
        }
    }
    text
}
