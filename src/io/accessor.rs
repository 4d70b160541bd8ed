//! Bounds-checked reading of glTF accessors (strided views, every component type, normalised
//! integers, sparse substitution) from loaded buffers. Every size and offset from the file is
//! checked before use: a hostile file gets an error, never a panic.

use gltf::accessor::{DataType, Dimensions};

/// The most values an accessor without a buffer view (all zeros plus sparse substitutions) may hold.
const MAX_VIEWLESS_VALUES: usize = 1 << 26;

/// Components per element of an accessor type.
#[must_use]
pub fn components(d: Dimensions) -> usize {
    match d {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 | Dimensions::Mat2 => 4,
        Dimensions::Mat3 => 9,
        Dimensions::Mat4 => 16,
    }
}

fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// Reads one component at `at` as f64: floats as they are, integers normalised when asked
/// (glTF's rules: unsigned / max, signed max(c / max, -1)).
fn component(bytes: &[u8], at: usize, t: DataType, normalized: bool) -> f64 {
    let b = |n: usize| -> [u8; 4] {
        let mut out = [0u8; 4];
        out[..n].copy_from_slice(&bytes[at..at + n]);
        out
    };
    match t {
        DataType::F32 => f64::from(f32::from_le_bytes(b(4))),
        DataType::U32 => f64::from(u32::from_le_bytes(b(4))),
        DataType::U8 => {
            let v = f64::from(bytes[at]);
            if normalized {
                v / 255.0
            } else {
                v
            }
        }
        DataType::I8 => {
            let v = f64::from(bytes[at] as i8);
            if normalized {
                (v / 127.0).max(-1.0)
            } else {
                v
            }
        }
        DataType::U16 => {
            let v = f64::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
            if normalized {
                v / 65535.0
            } else {
                v
            }
        }
        DataType::I16 => {
            let v = f64::from(i16::from_le_bytes([bytes[at], bytes[at + 1]]));
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
    }
}

/// Reads `count` elements of type `dims` from a buffer view slice.
#[allow(clippy::too_many_arguments)]
fn read_view(
    what: &str,
    buffers: &[Vec<u8>],
    view: &gltf::buffer::View<'_>,
    offset: usize,
    count: usize,
    dims: Dimensions,
    t: DataType,
    normalized: bool,
    out: &mut Vec<f64>,
) -> Result<(), String> {
    let buffer = buffers
        .get(view.buffer().index())
        .ok_or_else(|| format!("{what}: buffer {} is missing", view.buffer().index()))?;
    let view_end = view.offset().checked_add(view.length());
    if view_end.is_none_or(|end| end > buffer.len()) {
        return Err(format!(
            "{what}: buffer view {} (offset {}, length {}) runs past the end of buffer {} ({} bytes)",
            view.index(),
            view.offset(),
            view.length(),
            view.buffer().index(),
            buffer.len()
        ));
    }
    let data = &buffer[view.offset()..view.offset() + view.length()];
    let csize = component_size(t);
    let comps = components(dims);
    // Matrix columns start on 4-byte boundaries (padding for 1- and 2-byte components).
    let (col_len, cols) = match dims {
        Dimensions::Mat2 => (2, 2),
        Dimensions::Mat3 => (3, 3),
        Dimensions::Mat4 => (4, 4),
        _ => (comps, 1),
    };
    let col_stride = if cols > 1 { (col_len * csize).next_multiple_of(4) } else { col_len * csize };
    let elem = col_stride * cols;
    let stride = view.stride().unwrap_or(elem);
    if count == 0 {
        return Ok(());
    }
    let last = (count - 1).checked_mul(stride).and_then(|x| x.checked_add(offset)).and_then(|x| x.checked_add(elem));
    if last.is_none_or(|end| end > data.len()) {
        return Err(format!(
            "{what}: {count} elements of {elem} bytes (stride {stride}, offset {offset}) run past the end of buffer view {} ({} bytes)",
            view.index(),
            data.len()
        ));
    }
    out.reserve(count * comps);
    for i in 0..count {
        let base = offset + i * stride;
        for c in 0..cols {
            for r in 0..col_len {
                out.push(component(data, base + c * col_stride + r * csize, t, normalized));
            }
        }
    }
    Ok(())
}

/// Reads an accessor as f64 components (`count × components`), with sparse values substituted.
pub fn read(what: &str, buffers: &[Vec<u8>], acc: &gltf::Accessor<'_>) -> Result<Vec<f64>, String> {
    let what = format!("{what} (accessor {})", acc.index());
    let comps = components(acc.dimensions());
    let count = acc.count();
    if count > 1 << 28 {
        return Err(format!("{what}: count {count} is too large"));
    }
    let mut out = Vec::new();
    match acc.view() {
        Some(view) => read_view(
            &what,
            buffers,
            &view,
            acc.offset(),
            count,
            acc.dimensions(),
            acc.data_type(),
            acc.normalized(),
            &mut out,
        )?,
        // Without a view the size is not bounded by the file's data: cap it.
        None if count * comps > MAX_VIEWLESS_VALUES => {
            return Err(format!(
                "{what}: {count} elements without a buffer view (at most {} values are supported)",
                MAX_VIEWLESS_VALUES
            ));
        }
        None => out.resize(count * comps, 0.0),
    }
    if let Some(sparse) = acc.sparse() {
        let n = sparse.count();
        let mut idx = Vec::new();
        let it = sparse.indices();
        let idx_type = match it.index_type() {
            gltf::accessor::sparse::IndexType::U8 => DataType::U8,
            gltf::accessor::sparse::IndexType::U16 => DataType::U16,
            gltf::accessor::sparse::IndexType::U32 => DataType::U32,
        };
        read_view(
            &format!("{what} sparse indices"),
            buffers,
            &it.view(),
            it.offset(),
            n,
            Dimensions::Scalar,
            idx_type,
            false,
            &mut idx,
        )?;
        let mut vals = Vec::new();
        let vt = sparse.values();
        read_view(
            &format!("{what} sparse values"),
            buffers,
            &vt.view(),
            vt.offset(),
            n,
            acc.dimensions(),
            acc.data_type(),
            acc.normalized(),
            &mut vals,
        )?;
        for (k, &i) in idx.iter().enumerate() {
            let i = i as usize;
            if i >= count {
                return Err(format!("{what}: sparse index {i} is beyond the accessor's {count} elements"));
            }
            out[i * comps..(i + 1) * comps].copy_from_slice(&vals[k * comps..(k + 1) * comps]);
        }
    }
    Ok(out)
}

/// Reads an accessor that must have the given type, with a message naming what was expected.
pub fn read_expect(
    what: &str,
    buffers: &[Vec<u8>],
    acc: &gltf::Accessor<'_>,
    dims: &[Dimensions],
    types: &[DataType],
) -> Result<Vec<f64>, String> {
    if !dims.contains(&acc.dimensions()) || !types.contains(&acc.data_type()) {
        return Err(format!(
            "{what} (accessor {}) is {:?} of {:?}, expected {:?} of {:?}",
            acc.index(),
            acc.dimensions(),
            acc.data_type(),
            dims,
            types
        ));
    }
    read(what, buffers, acc)
}
