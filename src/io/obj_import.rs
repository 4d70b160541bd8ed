//! Wavefront OBJ import into an unskinned [`Model`] that the editor can rig: `v` (extra colour
//! values ignored), `vn`, `vt` (checked, then dropped: the model keeps no texture coordinates,
//! which also welds UV seams for binding), `f` with `v`, `v/vt`, `v//vn`, `v/vt/vn` corners and
//! negative (relative) indices, polygons triangulated by earcut in their own plane (a fan when
//! that fails). `o` starts a new mesh (one node each, identity transform), `g` a new
//! primitive in it. Corners with the same position and normal share one vertex. Other statements
//! (`s`, `usemtl`, `mtllib`, `l`, `p`, ...) are ignored.
//!
//! Hostile or broken files end in one `error: <file>: line N: <problem>` line, never a panic:
//! malformed numbers, non-finite values, index 0, indices out of range, faces with fewer than
//! three corners, and size caps ([`MAX_FILE_BYTES`], [`MAX_FACE_CORNERS`], [`MAX_VERTICES`]).

use std::collections::HashMap;
use std::path::Path;

use glam::Vec3;

use super::LoadError;
use crate::model::{Mesh, Model, Node, NodeTree, Primitive, Topology};

/// The largest OBJ file read (bytes).
pub const MAX_FILE_BYTES: u64 = 1 << 30;
/// The most corners one face may have.
pub const MAX_FACE_CORNERS: usize = 4096;
/// The most vertices (after sharing) one primitive may have.
pub const MAX_VERTICES: usize = 1 << 28;

/// A face corner: position index, normal index (0-based, resolved).
type Corner = (usize, Option<usize>);

#[derive(Default)]
struct Group {
    faces: Vec<(usize, Vec<Corner>)>,
}

struct Object {
    name: Option<String>,
    groups: Vec<Group>,
}

/// Whether `path` names an OBJ file (by extension).
#[must_use]
pub fn is_obj(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("obj"))
}

/// Reads and imports an OBJ file.
pub fn load_obj(path: &Path) -> Result<Model, LoadError> {
    let bytes = super::read_input(path, MAX_FILE_BYTES).map_err(|problem| LoadError::new(path, problem))?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    parse_obj(&bytes, stem.as_deref()).map_err(|problem| LoadError::new(path, problem))
}

fn number(token: Option<&str>, line: usize, what: &str) -> Result<f32, String> {
    let t = token.ok_or_else(|| format!("line {line}: {what} has too few numbers"))?;
    let v: f32 = t.parse().map_err(|_| format!("line {line}: {what}: {t:?} is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("line {line}: {what}: {t:?} is not finite"))
    }
}

fn vec3(tokens: &mut std::str::SplitWhitespace<'_>, line: usize, what: &str) -> Result<Vec3, String> {
    Ok(Vec3::new(
        number(tokens.next(), line, what)?,
        number(tokens.next(), line, what)?,
        number(tokens.next(), line, what)?,
    ))
}

/// Resolves a 1-based (or negative, relative) OBJ index against `count` elements so far.
fn resolve(token: &str, count: usize, line: usize, what: &str) -> Result<usize, String> {
    let i: i64 = token.parse().map_err(|_| format!("line {line}: {what} index {token:?} is not a whole number"))?;
    match i {
        0 => Err(format!("line {line}: {what} index 0 (OBJ indices start at 1)")),
        i if i > 0 => Ok(i as usize - 1),
        i => {
            let back = i.unsigned_abs() as usize;
            if back > count {
                Err(format!("line {line}: relative {what} index {i} reaches before the first of {count}"))
            } else {
                Ok(count - back)
            }
        }
    }
}

/// Parses OBJ text into an unskinned model; `name` names an object that has no `o` line.
pub fn parse_obj(bytes: &[u8], name: Option<&str>) -> Result<Model, String> {
    let text = String::from_utf8_lossy(bytes);
    let mut positions: Vec<Vec3> = Vec::new();
    let mut normals: Vec<Vec3> = Vec::new();
    let mut texcoords = 0usize;
    let mut objects = vec![Object { name: name.map(str::to_owned), groups: vec![Group::default()] }];
    let mut pending = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        // A trailing backslash continues the statement on the next line.
        if let Some(head) = raw.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        let joined;
        let stmt = if pending.is_empty() {
            raw
        } else {
            pending.push_str(raw);
            joined = std::mem::take(&mut pending);
            joined.as_str()
        };
        let stmt = stmt.split('#').next().unwrap_or("");
        let mut tokens = stmt.split_whitespace();
        let Some(keyword) = tokens.next() else { continue };
        match keyword {
            "v" => positions.push(vec3(&mut tokens, line, "vertex")?),
            "vn" => normals.push(vec3(&mut tokens, line, "normal")?),
            "vt" => {
                number(tokens.next(), line, "texture coordinate")?;
                for t in tokens {
                    number(Some(t), line, "texture coordinate")?;
                }
                texcoords += 1;
            }
            "f" => {
                let mut corners = Vec::new();
                for t in tokens {
                    if corners.len() == MAX_FACE_CORNERS {
                        return Err(format!("line {line}: a face has more than {MAX_FACE_CORNERS} corners"));
                    }
                    let mut parts = t.split('/');
                    let v = resolve(parts.next().unwrap_or(""), positions.len(), line, "vertex")?;
                    if v >= positions.len() {
                        // OBJ references only what came before: no forward references.
                        return Err(format!(
                            "line {line}: vertex {} does not exist ({} so far)",
                            v + 1,
                            positions.len()
                        ));
                    }
                    if let Some(vt) = parts.next().filter(|s| !s.is_empty()) {
                        let vt = resolve(vt, texcoords, line, "texture coordinate")?;
                        if vt >= texcoords {
                            return Err(format!(
                                "line {line}: texture coordinate {} does not exist ({texcoords} so far)",
                                vt + 1
                            ));
                        }
                    }
                    let vn = match parts.next().filter(|s| !s.is_empty()) {
                        Some(vn) => {
                            let vn = resolve(vn, normals.len(), line, "normal")?;
                            if vn >= normals.len() {
                                return Err(format!(
                                    "line {line}: normal {} does not exist ({} so far)",
                                    vn + 1,
                                    normals.len()
                                ));
                            }
                            Some(vn)
                        }
                        None => None,
                    };
                    if parts.next().is_some() {
                        return Err(format!("line {line}: face corner {t:?} has more than three indices"));
                    }
                    corners.push((v, vn));
                }
                if corners.len() < 3 {
                    return Err(format!(
                        "line {line}: a face needs at least three corners, this one has {}",
                        corners.len()
                    ));
                }
                let obj = objects.last_mut().ok_or("no object")?;
                obj.groups.last_mut().ok_or("no group")?.faces.push((line, corners));
            }
            "o" => {
                let name = tokens.collect::<Vec<_>>().join(" ");
                objects.push(Object { name: (!name.is_empty()).then_some(name), groups: vec![Group::default()] });
            }
            "g" => {
                if let Some(obj) = objects.last_mut() {
                    if obj.groups.last().is_some_and(|g| !g.faces.is_empty()) {
                        obj.groups.push(Group::default());
                    }
                }
            }
            _ => {}
        }
    }
    if !pending.is_empty() {
        return Err("the file ends inside a statement continued by a trailing backslash".into());
    }
    build_model(objects, &positions, &normals)
}

fn build_model(objects: Vec<Object>, positions: &[Vec3], normals: &[Vec3]) -> Result<Model, String> {
    let mut nodes = Vec::new();
    let mut meshes = Vec::new();
    for obj in objects {
        let mut prims = Vec::new();
        for group in obj.groups.into_iter().filter(|g| !g.faces.is_empty()) {
            prims.push(build_primitive(&group, positions, normals)?);
        }
        if prims.is_empty() {
            continue;
        }
        let index = nodes.len();
        nodes.push(Node { name: obj.name.clone(), mesh: Some(meshes.len()), source: Some(index), ..Node::default() });
        meshes.push(Mesh { name: obj.name, primitives: prims, ..Mesh::default() });
    }
    if meshes.is_empty() {
        return Err("no faces (an OBJ mesh needs `f` lines)".into());
    }
    let roots: Vec<usize> = (0..nodes.len()).collect();
    let rigid_instances = (0..nodes.len()).map(|i| (i, i)).collect();
    Ok(Model { nodes: NodeTree::new(nodes, roots), meshes, rigid_instances, ..Model::default() })
}

fn build_primitive(group: &Group, positions: &[Vec3], normals: &[Vec3]) -> Result<Primitive, String> {
    let with_normals = group.faces.iter().all(|(_, f)| f.iter().all(|c| c.1.is_some()));
    let mut shared: HashMap<Corner, u32> = HashMap::new();
    let mut out_pos = Vec::new();
    let mut out_nrm = Vec::new();
    let mut triangles = Vec::new();
    for (line, corners) in &group.faces {
        let mut ids = Vec::with_capacity(corners.len());
        for &(v, vn) in corners {
            let p = *positions.get(v).ok_or_else(|| {
                format!("line {line}: vertex {} does not exist ({} in the file)", v + 1, positions.len())
            })?;
            let n = match vn {
                Some(n) => Some(*normals.get(n).ok_or_else(|| {
                    format!("line {line}: normal {} does not exist ({} in the file)", n + 1, normals.len())
                })?),
                None => None,
            };
            let key = (v, if with_normals { vn } else { None });
            let id = match shared.get(&key) {
                Some(&id) => id,
                None => {
                    if out_pos.len() >= MAX_VERTICES {
                        return Err(format!("line {line}: more than {MAX_VERTICES} vertices in one group"));
                    }
                    let id = out_pos.len() as u32;
                    out_pos.push(p);
                    if with_normals {
                        out_nrm.push(n.map_or(Vec3::Y, |n| n.normalize_or(Vec3::Y)));
                    }
                    shared.insert(key, id);
                    id
                }
            };
            ids.push(id);
        }
        let polygon: Vec<Vec3> = corners.iter().map(|&(v, _)| positions[v]).collect();
        for [a, b, c] in triangulate(&polygon) {
            triangles.push([ids[a], ids[b], ids[c]]);
        }
    }
    Ok(Primitive {
        positions: out_pos,
        normals: with_normals.then_some(out_nrm),
        triangles,
        topology: Topology::Triangles,
        influences: None,
        order: crate::model::VertexOrder::default(),
    })
}

/// Triangles (corner indices) covering a polygon: earcut (z-order hashed ear clipping, about
/// O(n log n) on real faces and at worst quadratic, with [`MAX_FACE_CORNERS`] bounding a face) in
/// the plane of its Newell normal, keeping the corners' winding; a fan when the polygon is
/// degenerate or earcut covers it with fewer triangles than a simple polygon has.
#[must_use]
pub fn triangulate(polygon: &[Vec3]) -> Vec<[usize; 3]> {
    let n = polygon.len();
    let fan = || (1..n.saturating_sub(1)).map(|i| [0, i, i + 1]).collect::<Vec<_>>();
    if n <= 3 {
        return fan();
    }
    let mut normal = Vec3::ZERO;
    for i in 0..n {
        let (a, b) = (polygon[i], polygon[(i + 1) % n]);
        normal += Vec3::new((a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y));
    }
    if normal.length_squared() <= f32::MIN_POSITIVE {
        return fan();
    }
    let normal = normal.normalize();
    let u = normal.any_orthonormal_vector();
    let v = normal.cross(u);
    // In (u, v) the polygon winds counter-clockwise (v = normal × u).
    let pts: Vec<[f64; 2]> = polygon.iter().map(|p| [f64::from(p.dot(u)), f64::from(p.dot(v))]).collect();
    let mut indices: Vec<u32> = Vec::with_capacity(3 * (n - 2));
    earcut::Earcut::new().earcut(pts.iter().copied(), &[], &mut indices);
    if indices.len() != 3 * (n - 2) {
        return fan();
    }
    let cross = |t: &[u32]| {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| pts[i as usize]);
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    };
    let flip = indices.chunks_exact(3).map(cross).sum::<f64>() < 0.0;
    indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
            if flip {
                [a, c, b]
            } else {
                [a, b, c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_groups_objects_and_relative_indices() {
        let text = b"# a quad and a triangle\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nvt 0 0\n\
            o plate\nf 1//1 2//1 3//1 4//1\ng second\nf -4/1 -3/1 -1/1\no empty\n";
        let model = parse_obj(text, Some("file")).unwrap();
        assert_eq!(model.meshes.len(), 1, "the empty object is dropped");
        assert_eq!(model.nodes.key(0), "plate");
        let prims = &model.meshes[0].primitives;
        assert_eq!(prims.len(), 2);
        assert_eq!(prims[0].triangles.len(), 2);
        assert_eq!(prims[0].positions.len(), 4);
        assert_eq!(prims[0].normals.as_ref().unwrap()[0], Vec3::Z);
        assert_eq!(prims[1].triangles.len(), 1);
        assert!(prims[1].normals.is_none());
        assert_eq!(model.rigid_instances, vec![(0, 0)]);
    }

    #[test]
    fn concave_polygons_are_ear_clipped() {
        // An L shape: a fan from corner 0 would cover the notch.
        let l =
            [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)].map(|(x, y)| Vec3::new(x, y, 0.0));
        let tris = triangulate(&l);
        assert_eq!(tris.len(), 4);
        let area: f32 = tris.iter().map(|t| (l[t[1]] - l[t[0]]).cross(l[t[2]] - l[t[0]]).z * 0.5).sum();
        assert!((area - 3.0).abs() < 1e-6, "area {area}");
        assert!(tris.iter().all(|t| (l[t[1]] - l[t[0]]).cross(l[t[2]] - l[t[0]]).z > 0.0), "winding kept");
    }

    #[test]
    fn broken_files_give_one_line() {
        for (text, expect) in [
            (&b"v 0 0 0\nf 1 2 3\n"[..], "line 2: vertex 2 does not exist"),
            (b"v 0 0\n", "line 1: vertex has too few numbers"),
            (b"v 0 0 nan\n", "not finite"),
            (b"v 0 0 x\n", "is not a number"),
            (b"v 0 0 0\nf 0 1 1\n", "index 0"),
            (b"v 0 0 0\nf -2 1 1\n", "reaches before the first"),
            (b"v 0 0 0\nv 1 0 0\nf 1 2\n", "at least three corners"),
            (b"v 0 0 0\nf 1/1 1 1\n", "texture coordinate 1 does not exist"),
            (b"v 1 2 3\n", "no faces"),
            (b"\xff\xfe\x00garbage", "no faces"),
            (b"f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", "line 1: vertex 1 does not exist (0 so far)"),
            (b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\nvn 0 0 1\n", "line 4: normal 1 does not exist"),
            (b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 \\", "ends inside a statement"),
        ] {
            let err = parse_obj(text, None).unwrap_err();
            assert!(err.contains(expect), "{err:?} should contain {expect:?}");
            assert_eq!(err.lines().count(), 1);
        }
    }
}
