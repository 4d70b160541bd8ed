//! Removing what only the changed data used, compacting views that lost an accessor and packing
//! every buffer into one.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::json_refs::{array_len, component_size, element_size, index, overflow, referenced, span, visit, visit_mut};
use super::{Exporter, ACCESSOR_REFS, MESH_REFS, SKIN_REFS, VIEW_REFS};

/// An accessor's use of a buffer view: (accessor, offset field: 0 its own, 1 sparse indices,
/// 2 sparse values, first byte, end byte).
pub(super) type ViewUser = (usize, u8, usize, usize);

impl Exporter<'_> {
    /// Removes `key` objects that were referenced in the source and are not any more; returns the
    /// old-to-new index map.
    pub(super) fn remove_dead(
        &mut self,
        key: &str,
        refs: &[&[&str]],
        before: &BTreeSet<usize>,
    ) -> Option<Vec<Option<usize>>> {
        let now = referenced(&self.json, refs);
        let dead: BTreeSet<usize> = before.difference(&now).copied().collect();
        let len = array_len(&self.json, key);
        if dead.is_empty() || len == 0 {
            return None;
        }
        let mut map = vec![None; len];
        let mut next = 0;
        for (i, slot) in map.iter_mut().enumerate() {
            if !dead.contains(&i) {
                *slot = Some(next);
                next += 1;
            }
        }
        if let Some(items) = self.json.get_mut(key).and_then(Value::as_array_mut) {
            let kept: Vec<Value> = std::mem::take(items)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !dead.contains(i))
                .map(|(_, v)| v)
                .collect();
            *items = kept;
        }
        if array_len(&self.json, key) == 0 {
            if let Some(root) = self.json.as_object_mut() {
                root.shift_remove(key);
            }
        }
        for path in refs {
            visit_mut(&mut self.json, path, &mut |v| {
                if let Some(Some(new)) = index(Some(v)).and_then(|i| map.get(i)) {
                    *v = json!(*new);
                }
            });
        }
        Some(map)
    }

    /// Drops meshes, skins, accessors and buffer views that only the replaced data used.
    pub(super) fn collect_garbage(&mut self) {
        if !self.report.compacted {
            return;
        }
        let before = self.meshes_before.clone();
        self.remove_dead("meshes", MESH_REFS, &before);
        let before = self.skins_before.clone();
        self.remove_dead("skins", SKIN_REFS, &before);
        // Views of accessors about to go are compacted later.
        let now = referenced(&self.json, ACCESSOR_REFS);
        for dead in self.accessors_before.difference(&now) {
            if let Some(acc) = self.json.get("accessors").and_then(|a| a.get(*dead)) {
                for path in
                    [&["bufferView"][..], &["sparse", "indices", "bufferView"], &["sparse", "values", "bufferView"]]
                {
                    visit(acc, path, &mut |v| {
                        if let Some(i) = index(Some(v)) {
                            self.touched_views.insert(i);
                        }
                    });
                }
            }
        }
        let before = self.accessors_before.clone();
        self.remove_dead("accessors", ACCESSOR_REFS, &before);
        let before = self.views_before.clone();
        if let Some(map) = self.remove_dead("bufferViews", VIEW_REFS, &before) {
            let remap = |i: usize| map.get(i).copied().flatten();
            self.new_views =
                std::mem::take(&mut self.new_views).into_iter().filter_map(|(i, d)| remap(i).map(|n| (n, d))).collect();
            self.touched_views = self.touched_views.iter().filter_map(|&i| remap(i)).collect();
        }
    }

    /// Byte ranges that accessors use in view `view` (`view_len` bytes), as (accessor, which
    /// offset field, start, end); `None` when something else (an image, an unknown extension) uses
    /// the whole view. A strided accessor keeps `count × stride` bytes where the view has them:
    /// loaders such as three.js read whole strides, not `(count − 1) × stride + element`.
    pub(super) fn view_users(
        &self,
        view: usize,
        stride: Option<usize>,
        view_len: usize,
    ) -> Result<Option<Vec<ViewUser>>, String> {
        let images = self.json.get("images").and_then(Value::as_array).into_iter().flatten();
        if images.into_iter().any(|im| index(im.get("bufferView")) == Some(view)) {
            return Ok(None);
        }
        let mut users = Vec::new();
        for (a, acc) in self.json.get("accessors").and_then(Value::as_array).into_iter().flatten().enumerate() {
            self.accessor_users(a, acc, view, stride, view_len, &mut users)?;
        }
        Ok(Some(users))
    }

    /// The byte ranges accessor `a` (`acc`) uses in view `view`, pushed to `users` (see
    /// [`Exporter::view_users`]); an error when its count, offset or stride overflow.
    pub(super) fn accessor_users(
        &self,
        a: usize,
        acc: &Value,
        view: usize,
        stride: Option<usize>,
        view_len: usize,
        users: &mut Vec<ViewUser>,
    ) -> Result<(), String> {
        let what = || format!("accessor {a}");
        let ctype = acc.get("componentType").and_then(Value::as_u64).unwrap_or(0);
        let count = index(acc.get("count")).unwrap_or(0);
        let kind = acc.get("type").and_then(Value::as_str).unwrap_or("");
        if index(acc.get("bufferView")) == Some(view) && count > 0 {
            let elem =
                element_size(kind, ctype).ok_or_else(|| format!("{}: unknown type or component type", what()))?;
            let start = index(acc.get("byteOffset")).unwrap_or(0);
            let needed = stride
                .unwrap_or(elem)
                .checked_mul(count - 1)
                .and_then(|n| n.checked_add(start))
                .and_then(|n| n.checked_add(elem))
                .ok_or_else(|| format!("{}: {count} elements from byte {start} overflow 64 bits", what()))?;
            // An interleaved view keeps count × stride bytes (loaders read that much), within
            // the view.
            let end = match stride.and_then(|s| s.checked_mul(count)).and_then(|n| n.checked_add(start)) {
                Some(full) if stride.is_some() => full.min(view_len).max(needed),
                _ => needed,
            };
            users.push((a, 0, start, end));
        }
        if let Some(sparse) = acc.get("sparse") {
            let n = index(sparse.get("count")).unwrap_or(0);
            let idx = sparse.get("indices");
            if index(idx.and_then(|i| i.get("bufferView"))) == Some(view) {
                let size = idx
                    .and_then(|i| i.get("componentType"))
                    .and_then(Value::as_u64)
                    .and_then(component_size)
                    .unwrap_or(4);
                let start = index(idx.and_then(|i| i.get("byteOffset"))).unwrap_or(0);
                users.push((a, 1, start, span(start, n, size).ok_or_else(|| overflow(what()))?));
            }
            let vals = sparse.get("values");
            if index(vals.and_then(|i| i.get("bufferView"))) == Some(view) {
                let elem = element_size(kind, ctype).ok_or_else(|| format!("{}: unknown type", what()))?;
                let start = index(vals.and_then(|i| i.get("byteOffset"))).unwrap_or(0);
                users.push((a, 2, start, span(start, n, elem).ok_or_else(|| overflow(what()))?));
            }
        }
        Ok(())
    }

    /// Keeps only the bytes of `data` (view `view`) that accessors use, moving their offsets.
    pub(super) fn compact_view(
        &mut self,
        view: usize,
        data: Vec<u8>,
        stride: Option<usize>,
    ) -> Result<Vec<u8>, String> {
        let Some(mut users) = self.view_users(view, stride, data.len())? else {
            return Ok(data);
        };
        users.sort_by_key(|u| (u.2, u.3));
        let mut out = Vec::with_capacity(data.len());
        let mut moves: Vec<(usize, u8, usize)> = Vec::new();
        let mut i = 0;
        while i < users.len() {
            let (start, mut end) = (users[i].2, users[i].3);
            let mut j = i + 1;
            while j < users.len() && users[j].2 < end {
                end = end.max(users[j].3);
                j += 1;
            }
            let bytes = data.get(start..end).ok_or_else(|| {
                format!("buffer view {view}: accessor data ({start}..{end}) runs past its {} bytes", data.len())
            })?;
            while out.len() % 4 != start % 4 {
                out.push(0);
            }
            let new_start = out.len();
            out.extend_from_slice(bytes);
            for u in &users[i..j] {
                moves.push((u.0, u.1, new_start + (u.2 - start)));
            }
            i = j;
        }
        for (a, field, offset) in moves {
            let Some(acc) = self.json.get_mut("accessors").and_then(|x| x.get_mut(a)) else { continue };
            let target = match field {
                0 => Some(acc),
                1 => acc.get_mut("sparse").and_then(|s| s.get_mut("indices")),
                _ => acc.get_mut("sparse").and_then(|s| s.get_mut("values")),
            };
            if let Some(Value::Object(m)) = target {
                m.insert("byteOffset".into(), json!(offset));
            }
        }
        Ok(out)
    }

    /// Copies every buffer view into one new buffer (keeping each view's alignment modulo 4) and
    /// points the views at it; returns the buffer.
    pub(super) fn repack(&mut self) -> Result<Vec<u8>, String> {
        let mut bin = Vec::new();
        for i in 0..array_len(&self.json, "bufferViews") {
            let view = &self.json["bufferViews"][i];
            let stride = index(view.get("byteStride"));
            let (data, phase) = match self.new_views.remove(&i) {
                Some(d) => (d, 0),
                None => {
                    let b = index(view.get("buffer")).unwrap_or(0);
                    let offset = index(view.get("byteOffset")).unwrap_or(0);
                    let len = index(view.get("byteLength")).unwrap_or(0);
                    let buffer =
                        self.source.buffers.get(b).ok_or_else(|| format!("buffer view {i}: buffer {b} is missing"))?;
                    let data = buffer
                        .get(offset..offset.saturating_add(len))
                        .ok_or_else(|| format!("buffer view {i} runs past the end of buffer {b}"))?;
                    (data.to_vec(), offset % 4)
                }
            };
            let data = if self.touched_views.contains(&i) { self.compact_view(i, data, stride)? } else { data };
            while bin.len() % 4 != phase {
                bin.push(0);
            }
            if let Some(v) = self.json["bufferViews"][i].as_object_mut() {
                v.insert("buffer".into(), json!(0));
                v.insert("byteOffset".into(), json!(bin.len()));
                v.insert("byteLength".into(), json!(data.len()));
            }
            bin.extend_from_slice(&data);
        }
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        Ok(bin)
    }
}
