//! Bounds-checked reading of glTF accessors (strided views, every component type, normalised
//! integers, sparse substitution) from loaded buffers. Every size and offset from the file is
//! checked before use: a hostile file gets an error, never a panic.

use std::cell::Cell;

use gltf::accessor::{DataType, Dimensions};

// Sizes and offsets from the file are u64 in glTF; on a 64-bit target `usize` holds every one of
// them without truncation (the `gltf` crate converts with `as usize`): refuse to build elsewhere.
const _: () = assert!(usize::BITS >= 64, "skinlab's glTF reader needs a 64-bit target");

/// Decoded accessor data (f64 values) a load may allocate regardless of the file's size.
const BUDGET_FLOOR: u64 = 64 << 20;
/// Decoded bytes a load may allocate per byte of the file and its buffers (f64 values of u8
/// components, read once for geometry and once per skin using it, fit with room to spare).
const BUDGET_PER_SOURCE_BYTE: u64 = 32;
/// Decoded bytes no load may exceed, whatever its size.
const BUDGET_CAP: u64 = 8 << 30;

/// The loaded buffers and what a load may still allocate for decoded data: the limit grows with
/// the file's own size (with a floor) up to an absolute cap, so a small file that declares huge
/// accessors (many elements without a buffer view, or many accessors over one view) gets an error
/// naming the accessor and the size instead of exhausting memory.
#[derive(Debug)]
pub struct Buffers<'a> {
    data: &'a [Vec<u8>],
    used: Cell<u64>,
    limit: u64,
}

impl<'a> Buffers<'a> {
    /// `data` loaded from a file of `file_bytes` bytes (its external buffers included in `data`).
    #[must_use]
    pub fn new(data: &'a [Vec<u8>], file_bytes: u64) -> Self {
        let source = data.iter().fold(file_bytes, |n, b| n.saturating_add(b.len() as u64));
        let limit = source.saturating_mul(BUDGET_PER_SOURCE_BYTE).saturating_add(BUDGET_FLOOR).min(BUDGET_CAP);
        Self { data, used: Cell::new(0), limit }
    }

    /// Counts `bytes` that `what` is about to allocate against the limit.
    pub fn charge(&self, what: &str, bytes: u64) -> Result<(), String> {
        let used = self.used.get().saturating_add(bytes);
        if used > self.limit {
            return Err(format!(
                "{what} needs {bytes} bytes of memory, more than a file of this size may make skinlab allocate \
                 ({} bytes in all)",
                self.limit
            ));
        }
        self.used.set(used);
        Ok(())
    }
}

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
    buffers: &Buffers<'_>,
    view: &gltf::buffer::View<'_>,
    offset: usize,
    count: usize,
    dims: Dimensions,
    t: DataType,
    normalized: bool,
    out: &mut Vec<f64>,
) -> Result<(), String> {
    let buffer = buffers
        .data
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
    buffers.charge(what, (count as u64).saturating_mul(comps as u64).saturating_mul(8))?;
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
pub fn read(what: &str, buffers: &Buffers<'_>, acc: &gltf::Accessor<'_>) -> Result<Vec<f64>, String> {
    let what = format!("{what} (accessor {})", acc.index());
    let comps = components(acc.dimensions());
    let count = acc.count();
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
        // Without a view the size is not bounded by the file's data, only by the budget.
        None => {
            let bytes = (count as u64).saturating_mul(comps as u64).saturating_mul(8);
            buffers.charge(&format!("{what}: {count} elements without a buffer view"), bytes)?;
            out.resize(count * comps, 0.0);
        }
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
    buffers: &Buffers<'_>,
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
