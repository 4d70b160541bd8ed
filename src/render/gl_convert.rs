//! Conversions from the core's glam types to three-d's cgmath types (the only place that knows
//! both).

use three_d::{vec3, vec4, Srgba};

/// A glam vector as a three-d vector.
#[must_use]
pub fn v3(v: glam::Vec3) -> three_d::Vec3 {
    vec3(v.x, v.y, v.z)
}

/// glam vectors as three-d vectors, into a reused buffer.
pub fn v3_into(src: &[glam::Vec3], out: &mut Vec<three_d::Vec3>) {
    out.clear();
    out.extend(src.iter().map(|p| vec3(p.x, p.y, p.z)));
}

/// An sRGB colour as the linear RGBA value three-d's vertex colour buffers hold.
#[must_use]
pub fn linear(c: [u8; 4]) -> three_d::Vec4 {
    let l = Srgba::new(c[0], c[1], c[2], c[3]).to_linear_srgb();
    vec4(l.x, l.y, l.z, l.w)
}
