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

/// What an accessor's components are decoded into: every component is first its exact f64 value
/// (floats as they are, integers normalised when asked), then converted with `as`, so every
/// output type gives the same numbers the f64 reading does, rounded once.
pub trait Decoded: Copy + Default {
    /// The component's f64 value in this type.
    fn from_f64(v: f64) -> Self;
}

impl Decoded for f64 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Decoded for f32 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl Decoded for u32 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as u32
    }
}

/// Where an accessor's elements lie in its view: elements of `cols` columns of `col_len`
/// components, `stride` bytes apart from `offset`, each column `col_stride` bytes.
#[derive(Clone, Copy)]
struct Layout {
    offset: usize,
    stride: usize,
    cols: usize,
    col_len: usize,
    col_stride: usize,
}

impl Layout {
    fn comps(&self) -> usize {
        self.cols * self.col_len
    }
}

/// Decodes every element of `layout` from `data` into `out` (already sized), one component type
/// per instantiation: `value` turns a component's `N` little-endian bytes into its f64 value.
/// The type dispatch happens once per accessor, not once per component.
#[inline]
fn decode<T: Decoded, const N: usize>(data: &[u8], layout: Layout, out: &mut [T], value: impl Fn([u8; N]) -> f64) {
    let comps = layout.comps();
    let elem = layout.col_stride * (layout.cols - 1) + layout.col_len * N;
    for (i, dst) in out.chunks_exact_mut(comps).enumerate() {
        let e = &data[layout.offset + i * layout.stride..][..elem];
        for c in 0..layout.cols {
            let col = &e[c * layout.col_stride..][..layout.col_len * N];
            for (r, bytes) in col.chunks_exact(N).enumerate() {
                let mut b = [0u8; N];
                b.copy_from_slice(bytes);
                dst[c * layout.col_len + r] = T::from_f64(value(b));
            }
        }
    }
}

/// Decodes `layout` of component type `t` into `out` (glTF's rules: floats as they are, unsigned
/// integers normalised as c / max, signed as max(c / max, -1)).
fn decode_any<T: Decoded>(data: &[u8], layout: Layout, t: DataType, normalized: bool, out: &mut [T]) {
    match (t, normalized) {
        (DataType::F32, _) => decode(data, layout, out, |b| f64::from(f32::from_le_bytes(b))),
        (DataType::U32, _) => decode(data, layout, out, |b| f64::from(u32::from_le_bytes(b))),
        (DataType::U8, false) => decode(data, layout, out, |b: [u8; 1]| f64::from(b[0])),
        (DataType::U8, true) => decode(data, layout, out, |b: [u8; 1]| f64::from(b[0]) / 255.0),
        (DataType::I8, false) => decode(data, layout, out, |b: [u8; 1]| f64::from(b[0] as i8)),
        (DataType::I8, true) => decode(data, layout, out, |b: [u8; 1]| (f64::from(b[0] as i8) / 127.0).max(-1.0)),
        (DataType::U16, false) => decode(data, layout, out, |b| f64::from(u16::from_le_bytes(b))),
        (DataType::U16, true) => decode(data, layout, out, |b| f64::from(u16::from_le_bytes(b)) / 65535.0),
        (DataType::I16, false) => decode(data, layout, out, |b| f64::from(i16::from_le_bytes(b))),
        (DataType::I16, true) => {
            decode(data, layout, out, |b| (f64::from(i16::from_le_bytes(b)) / 32767.0).max(-1.0));
        }
    }
}

/// Reads `count` elements of type `dims` from a buffer view slice, appended to `out`.
#[allow(clippy::too_many_arguments)]
fn read_view<T: Decoded>(
    what: &str,
    buffers: &Buffers<'_>,
    view: &gltf::buffer::View<'_>,
    offset: usize,
    count: usize,
    dims: Dimensions,
    t: DataType,
    normalized: bool,
    out: &mut Vec<T>,
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
    // Charged as f64 values whatever `T` is, so that the budget does not depend on the reader.
    buffers.charge(what, (count as u64).saturating_mul(comps as u64).saturating_mul(8))?;
    let start = out.len();
    out.resize(start + count * comps, T::default());
    let layout = Layout { offset, stride, cols, col_len, col_stride };
    decode_any(data, layout, t, normalized, &mut out[start..]);
    Ok(())
}

/// Reads an accessor as f64 components (`count × components`), with sparse values substituted.
pub fn read(what: &str, buffers: &Buffers<'_>, acc: &gltf::Accessor<'_>) -> Result<Vec<f64>, String> {
    read_as(what, buffers, acc)
}

/// Reads an accessor as components of type `T` (`count × components`), with sparse values
/// substituted: exactly [`read`]'s values converted with `as`, without the f64 array in between.
pub fn read_as<T: Decoded>(what: &str, buffers: &Buffers<'_>, acc: &gltf::Accessor<'_>) -> Result<Vec<T>, String> {
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
            out.resize(count * comps, T::default());
        }
    }
    if let Some(sparse) = acc.sparse() {
        let n = sparse.count();
        let mut idx: Vec<u32> = Vec::new();
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
    read_expect_as(what, buffers, acc, dims, types)
}

/// [`read_expect`] into components of type `T` (see [`read_as`]).
pub fn read_expect_as<T: Decoded>(
    what: &str,
    buffers: &Buffers<'_>,
    acc: &gltf::Accessor<'_>,
    dims: &[Dimensions],
    types: &[DataType],
) -> Result<Vec<T>, String> {
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
    read_as(what, buffers, acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader before typed decoding: one component at a time through f64, the type matched
    /// per component (kept here as the reference the typed readers must equal bit for bit).
    fn component(bytes: &[u8], at: usize, t: DataType, normalized: bool) -> f64 {
        let b = |n: usize| -> [u8; 4] {
            let mut out = [0u8; 4];
            out[..n].copy_from_slice(&bytes[at..at + n]);
            out
        };
        let v = match t {
            DataType::F32 => return f64::from(f32::from_le_bytes(b(4))),
            DataType::U32 => return f64::from(u32::from_le_bytes(b(4))),
            DataType::U8 => f64::from(bytes[at]),
            DataType::I8 => f64::from(bytes[at] as i8),
            DataType::U16 => f64::from(u16::from_le_bytes([bytes[at], bytes[at + 1]])),
            DataType::I16 => f64::from(i16::from_le_bytes([bytes[at], bytes[at + 1]])),
        };
        match (t, normalized) {
            (_, false) => v,
            (DataType::U8, true) => v / 255.0,
            (DataType::U16, true) => v / 65535.0,
            (DataType::I8, true) => (v / 127.0).max(-1.0),
            (_, true) => (v / 32767.0).max(-1.0),
        }
    }

    /// `count` elements from a view at byte `start` of `bytes`, the old way.
    #[allow(clippy::too_many_arguments)]
    fn reference_view(
        bytes: &[u8],
        start: usize,
        stride: Option<usize>,
        count: usize,
        dims: Dimensions,
        t: DataType,
        normalized: bool,
    ) -> Vec<f64> {
        let csize = component_size(t);
        let (col_len, cols) = match dims {
            Dimensions::Mat2 => (2, 2),
            Dimensions::Mat3 => (3, 3),
            Dimensions::Mat4 => (4, 4),
            d => (components(d), 1),
        };
        let col_stride = if cols > 1 { (col_len * csize).next_multiple_of(4) } else { col_len * csize };
        let stride = stride.unwrap_or(col_stride * cols);
        let mut out = Vec::new();
        for i in 0..count {
            for c in 0..cols {
                for r in 0..col_len {
                    out.push(component(bytes, start + i * stride + c * col_stride + r * csize, t, normalized));
                }
            }
        }
        out
    }

    fn reference(bytes: &[u8], acc: &gltf::Accessor<'_>) -> Vec<f64> {
        let comps = components(acc.dimensions());
        let mut out = match acc.view() {
            Some(v) => reference_view(
                bytes,
                v.offset() + acc.offset(),
                v.stride(),
                acc.count(),
                acc.dimensions(),
                acc.data_type(),
                acc.normalized(),
            ),
            None => vec![0.0; acc.count() * comps],
        };
        if let Some(sparse) = acc.sparse() {
            let (it, vt) = (sparse.indices(), sparse.values());
            let idx_type = match it.index_type() {
                gltf::accessor::sparse::IndexType::U8 => DataType::U8,
                gltf::accessor::sparse::IndexType::U16 => DataType::U16,
                gltf::accessor::sparse::IndexType::U32 => DataType::U32,
            };
            let n = sparse.count();
            let idx =
                reference_view(bytes, it.view().offset() + it.offset(), None, n, Dimensions::Scalar, idx_type, false);
            let vals = reference_view(
                bytes,
                vt.view().offset() + vt.offset(),
                None,
                n,
                acc.dimensions(),
                acc.data_type(),
                acc.normalized(),
            );
            for (k, &i) in idx.iter().enumerate() {
                let i = i as usize;
                out[i * comps..(i + 1) * comps].copy_from_slice(&vals[k * comps..(k + 1) * comps]);
            }
        }
        out
    }

    /// Every component type (normalised or not), every element type, tight and strided views,
    /// offsets, and sparse accessors with and without a base view and with each index type.
    #[test]
    fn typed_readers_equal_the_per_component_reference() {
        let bytes: Vec<u8> = (0..8192u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let types = [(5120, true), (5121, true), (5122, true), (5123, true), (5125, false), (5126, false)];
        let dims = ["SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"];
        // View 0: tight over the whole buffer; view 1: strided (68 bytes, ≥ any element) from 12.
        let mut accessors = Vec::new();
        for &(ty, may_normalize) in &types {
            for normalized in [false, true] {
                if normalized && !may_normalize {
                    continue;
                }
                for d in dims {
                    for (view, offset) in [(0, 0), (0, 8), (1, 0), (1, 4)] {
                        accessors.push(serde_json::json!({
                            "bufferView": view, "byteOffset": offset, "componentType": ty,
                            "normalized": normalized, "count": 20, "type": d
                        }));
                    }
                }
                // Sparse: 5 substituted elements out of 30, indices of each type, with and
                // without a base view.
                for (i, idx_type) in [5121, 5123, 5125].into_iter().enumerate() {
                    let mut acc = serde_json::json!({
                        "componentType": ty, "normalized": normalized, "count": 30, "type": "VEC3",
                        "sparse": {
                            "count": 5,
                            "indices": {"bufferView": 2 + i, "componentType": idx_type},
                            "values": {"bufferView": 0, "byteOffset": 100}
                        }
                    });
                    if i != 1 {
                        acc["bufferView"] = serde_json::json!(0);
                    }
                    accessors.push(acc);
                }
            }
        }
        // Sparse index views: ascending indices below 30 written into the buffer below.
        let mut buffer = bytes.clone();
        let index_views = [(7000usize, 1usize), (7100, 2), (7200, 4)];
        for &(at, size) in &index_views {
            for (k, i) in [1u32, 4, 9, 22, 29].into_iter().enumerate() {
                buffer[at + k * size..at + (k + 1) * size].copy_from_slice(&i.to_le_bytes()[..size]);
            }
        }
        let json = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": buffer.len()}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 6000},
                {"buffer": 0, "byteOffset": 12, "byteLength": 2000, "byteStride": 68},
                {"buffer": 0, "byteOffset": 7000, "byteLength": 5},
                {"buffer": 0, "byteOffset": 7100, "byteLength": 10},
                {"buffer": 0, "byteOffset": 7200, "byteLength": 20}
            ],
            "accessors": accessors
        });
        let root: gltf::json::Root = serde_json::from_value(json).unwrap();
        let doc = gltf::Document::from_json_without_validation(root);
        let data = [buffer.clone()];
        let buffers = Buffers::new(&data, 1 << 20);
        let mut checked = 0;
        for acc in doc.accessors() {
            let expected = reference(&buffer, &acc);
            let f64s = read("test", &buffers, &acc).unwrap();
            let f32s: Vec<f32> = read_as("test", &buffers, &acc).unwrap();
            assert_eq!(f64s.len(), expected.len());
            for ((e, a), b) in expected.iter().zip(&f64s).zip(&f32s) {
                assert_eq!(e.to_bits(), a.to_bits(), "accessor {} as f64", acc.index());
                assert_eq!((*e as f32).to_bits(), b.to_bits(), "accessor {} as f32", acc.index());
            }
            if acc.data_type() != DataType::F32 && !acc.normalized() {
                let u32s: Vec<u32> = read_as("test", &buffers, &acc).unwrap();
                assert_eq!(u32s, expected.iter().map(|&e| e as u32).collect::<Vec<_>>(), "accessor {}", acc.index());
            }
            checked += 1;
        }
        assert_eq!(checked, 10 * (dims.len() * 4 + 3));
    }
}
