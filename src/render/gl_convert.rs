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

/// The same vectors seen as three-d's type, without copying: glam's `Vec3` and three-d's
/// (cgmath's) `Vector3<f32>` are both `#[repr(C)]` structs of three `f32`.
#[must_use]
pub fn as_three_d(src: &[glam::Vec3]) -> &[three_d::Vec3] {
    const _: () = assert!(std::mem::size_of::<glam::Vec3>() == std::mem::size_of::<three_d::Vec3>());
    const _: () = assert!(std::mem::align_of::<glam::Vec3>() == std::mem::align_of::<three_d::Vec3>());
    // SAFETY: both types are #[repr(C)] { x: f32, y: f32, z: f32 } (sizes and alignments checked
    // above), every bit pattern is valid for both, and the lifetime is carried over.
    unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<three_d::Vec3>(), src.len()) }
}

/// sRGB colours as linear RGBA (exactly [`linear`], through a table), into a reused buffer.
pub fn linear_into(src: &[[u8; 4]], out: &mut Vec<three_d::Vec4>) {
    static TABLE: std::sync::OnceLock<[(f32, f32); 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        std::array::from_fn(|v| {
            let l = linear([v as u8; 4]);
            (l.x, l.w)
        })
    });
    use rayon::prelude::*;
    out.clear();
    out.resize(src.len(), vec4(0.0, 0.0, 0.0, 0.0));
    out.par_chunks_mut(16 * 1024).zip(src.par_chunks(16 * 1024)).for_each(|(o, s)| {
        for (o, c) in o.iter_mut().zip(s) {
            let f = |i: usize| table[c[i] as usize].0;
            *o = vec4(f(0), f(1), f(2), table[c[3] as usize].1);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_colours_equal_the_direct_conversion() {
        let src: Vec<[u8; 4]> = (0..=255u8).map(|v| [v, 255 - v, v / 3, v ^ 0x5a]).collect();
        let mut out = Vec::new();
        linear_into(&src, &mut out);
        for (c, l) in src.iter().zip(&out) {
            assert_eq!(*l, linear(*c));
        }
        let v = [glam::Vec3::new(1.0, 2.0, 3.0), glam::Vec3::new(-4.0, 5.5, 6.0)];
        let t = as_three_d(&v);
        assert_eq!((t[1].x, t[1].y, t[1].z), (-4.0, 5.5, 6.0));
    }
}
