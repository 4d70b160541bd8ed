//! The contract's Wavefront OBJ output: per skinned instance of the default scene (increasing node
//! index) and per primitive, `o <node key>/<primitive>`, `v` lines with 9 significant digits,
//! `vn` lines when the primitive has normals, and 1-based triangle faces counted over the file.

use std::io::{self, Write};

use crate::model::Model;
use crate::skinning::DeformedPrimitive;

/// Formats a number with 9 significant digits, without exponent where that stays readable.
#[must_use]
pub fn format_number(v: f32) -> String {
    let v = f64::from(v);
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor() as i32;
    if (-5..10).contains(&magnitude) {
        let decimals = (8 - magnitude).max(0) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.8e}")
    }
}

/// Refuses a deformation with a position or normal that is not finite (a pose or node transform
/// that overflows 32-bit floats): no writer writes NaN or infinity. The error names the first
/// such vertex by node, primitive and the file's vertex index.
pub fn check_finite(model: &Model, deformed: &[Vec<DeformedPrimitive>]) -> Result<(), String> {
    for (inst, prims) in model.instances.iter().zip(deformed) {
        for (p, (prim, out)) in model.meshes[inst.mesh].primitives.iter().zip(prims).enumerate() {
            let bad = out.positions.iter().chain(&out.normals).position(|v| !v.is_finite());
            if let Some(i) = bad {
                let vertex = prim.order.file_index(i % out.positions.len().max(1));
                return Err(format!(
                    "node {} primitive {p}: vertex {vertex} is not finite in this pose (an overflowing rotation, \
                     scale or translation in the pose or the model?); nothing was written",
                    model.nodes.key(inst.node)
                ));
            }
        }
    }
    Ok(())
}

/// Writes every deformed primitive (`deformed[instance][primitive]`) as the contract's OBJ.
pub fn write_obj(w: &mut dyn Write, model: &Model, deformed: &[Vec<DeformedPrimitive>]) -> io::Result<()> {
    let mut base = 1usize;
    for (inst, prims) in model.instances.iter().zip(deformed) {
        let key = model.nodes.key(inst.node);
        for (p, (prim, out)) in model.meshes[inst.mesh].primitives.iter().zip(prims).enumerate() {
            writeln!(w, "o {key}/{p}")?;
            // Vertices in accessor order (the model's may differ: `model::vertex_order`).
            for f in 0..out.positions.len() {
                let v = out.positions[prim.order.model_index(f)];
                writeln!(w, "v {} {} {}", format_number(v.x), format_number(v.y), format_number(v.z))?;
            }
            let with_normals = !out.normals.is_empty();
            for f in 0..out.normals.len() {
                let n = out.normals[prim.order.model_index(f)];
                writeln!(w, "vn {} {} {}", format_number(n.x), format_number(n.y), format_number(n.z))?;
            }
            for t in &prim.file_triangles() {
                let [a, b, c] = t.map(|i| i as usize + base);
                if with_normals {
                    writeln!(w, "f {a}//{a} {b}//{b} {c}//{c}")?;
                } else {
                    writeln!(w, "f {a} {b} {c}")?;
                }
            }
            base += out.positions.len();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::format_number;

    #[test]
    fn nine_significant_digits() {
        assert_eq!(format_number(1.5), "1.50000000");
        assert_eq!(format_number(-123.456), "-123.456001");
        assert_eq!(format_number(0.0), "0");
        let tiny = format_number(1.2345678e-7);
        assert!(tiny.contains('e'), "{tiny}");
        for v in [1.0e-3f32, 1.234_567_9, -7.5e8, 6.02e23] {
            let parsed: f64 = format_number(v).parse().unwrap();
            assert!(((parsed - f64::from(v)) / f64::from(v)).abs() < 1e-8);
        }
    }
}
