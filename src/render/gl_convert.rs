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

/// A linear RGBA colour as the skinned meshes' colour buffers hold it: four 16-bit normalised
/// integers, 8 bytes a vertex instead of 16 as `f32`. The step, 1/65535 in linear light, is a
/// twentieth of the darkest 8-bit sRGB step (1/255/12.92), so every sRGB colour keeps a value of
/// its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct LinearColour(pub [u16; 4]);

/// `x` in 0..=1 as a 16-bit normalised integer, rounded.
fn unorm16(x: f32) -> u16 {
    (x.clamp(0.0, 1.0) * 65535.0 + 0.5) as u16
}

impl LinearColour {
    /// The sRGB colour `c` as [`linear`] gives it, rounded to 16 bits a channel.
    #[must_use]
    pub fn of(c: [u8; 4]) -> Self {
        let l = linear(c);
        Self([unorm16(l.x), unorm16(l.y), unorm16(l.z), unorm16(l.w)])
    }
}

/// sRGB colours as linear RGBA ([`LinearColour::of`], through a table), into a reused buffer,
/// on every thread.
pub fn linear_into(src: &[[u8; 4]], out: &mut Vec<LinearColour>) {
    use rayon::prelude::*;
    static TABLE: std::sync::OnceLock<[(u16, u16); 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        std::array::from_fn(|v| {
            let l = LinearColour::of([v as u8; 4]);
            (l.0[0], l.0[3])
        })
    });
    out.clear();
    out.resize(src.len(), LinearColour::default());
    out.par_chunks_mut(16 * 1024).zip(src.par_chunks(16 * 1024)).for_each(|(o, s)| {
        for (o, c) in o.iter_mut().zip(s) {
            let f = |i: usize| table[c[i] as usize].0;
            *o = LinearColour([f(0), f(1), f(2), table[c[3] as usize].1]);
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
            assert_eq!(*l, LinearColour::of(*c));
            let direct = linear(*c);
            for (q, x) in l.0.iter().zip([direct.x, direct.y, direct.z, direct.w]) {
                assert!((f32::from(*q) / 65535.0 - x).abs() <= 0.5 / 65535.0 + 1e-7, "{c:?}: {q} for {x}");
            }
        }
        // Every 8-bit sRGB level keeps a 16-bit linear value of its own.
        let levels: Vec<u16> = (0..=255u8).map(|v| LinearColour::of([v; 4]).0[0]).collect();
        assert!(levels.windows(2).all(|w| w[0] < w[1]), "{levels:?}");
        assert_eq!((levels[0], levels[255]), (0, 65535));
        let v = [glam::Vec3::new(1.0, 2.0, 3.0), glam::Vec3::new(-4.0, 5.5, 6.0)];
        let t = as_three_d(&v);
        assert_eq!((t[1].x, t[1].y, t[1].z), (-4.0, 5.5, 6.0));
    }
}
