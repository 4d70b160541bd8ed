//! The GPU side of one copy of a model: one three-d mesh per drawable primitive, created once
//! from the rest geometry and refilled every frame from the CPU deformation (positions, normals
//! and, for the difference overlay, vertex colours) without reallocating any buffer.
//!
//! three-d 0.19's `Mesh::set_positions` compares against the index count on indexed meshes, so
//! uploads go through `set_positions_partially(0, ..)` / `set_normals_partially(0, ..)`.

use glam::{DMat4, Vec3};
use three_d::{Context, CpuMaterial, CpuMesh, Gm, Indices, Mesh, PhysicalMaterial, Positions, Srgba};

use super::gl_convert::{linear, v3_into};
use crate::model::{Model, Primitive, Topology};
use crate::skinning::DeformedPrimitive;

/// The colour of the skin surface when no overlay is shown (sRGB).
pub const BASE_COLOUR: [u8; 4] = [196, 160, 130, 255];

/// Where a drawn part's vertices come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// `deformed[instance][primitive]`.
    Skinned { instance: usize, primitive: usize },
    /// A rigid mesh node: rest geometry moved by the node's transform.
    Rigid { node: usize },
}

struct Part {
    source: Source,
    gm: Gm<Mesh, PhysicalMaterial>,
    vertices: usize,
    triangles: Vec<[u32; 3]>,
}

/// GPU meshes for every triangle primitive of a model (skinned and rigid).
pub struct SkinnedMeshes {
    parts: Vec<Part>,
    positions: Vec<three_d::Vec3>,
    normals: Vec<three_d::Vec3>,
    computed_normals: Vec<Vec3>,
    colours: Vec<three_d::Vec4>,
    overlay_shown: bool,
}

/// Area-weighted vertex normals of a triangle mesh, into `out`.
pub fn vertex_normals(positions: &[Vec3], triangles: &[[u32; 3]], out: &mut Vec<Vec3>) {
    out.clear();
    out.resize(positions.len(), Vec3::ZERO);
    for t in triangles {
        let [a, b, c] = t.map(|i| i as usize);
        let (Some(pa), Some(pb), Some(pc)) = (positions.get(a), positions.get(b), positions.get(c)) else {
            continue;
        };
        let n = (*pb - *pa).cross(*pc - *pa);
        out[a] += n;
        out[b] += n;
        out[c] += n;
    }
    for n in out.iter_mut() {
        *n = n.try_normalize().unwrap_or(Vec3::Y);
    }
}

fn cpu_mesh(p: &Primitive) -> CpuMesh {
    let mut normals = Vec::new();
    match &p.normals {
        Some(n) => normals.clone_from(n),
        None => vertex_normals(&p.positions, &p.triangles, &mut normals),
    }
    let conv = |v: &[Vec3]| v.iter().map(|q| three_d::vec3(q.x, q.y, q.z)).collect::<Vec<_>>();
    CpuMesh {
        positions: Positions::F32(conv(&p.positions)),
        indices: Indices::U32(p.triangles.iter().flatten().copied().collect()),
        normals: Some(conv(&normals)),
        colors: Some(vec![Srgba::new(BASE_COLOUR[0], BASE_COLOUR[1], BASE_COLOUR[2], 255); p.positions.len()]),
        ..Default::default()
    }
}

impl SkinnedMeshes {
    /// Uploads the rest geometry of every triangle primitive of `model`.
    #[must_use]
    pub fn new(ctx: &Context, model: &Model) -> Self {
        let material = PhysicalMaterial::new_opaque(
            ctx,
            &CpuMaterial { albedo: Srgba::WHITE, roughness: 0.65, metallic: 0.0, ..Default::default() },
        );
        let mut parts = Vec::new();
        let mut add = |source: Source, p: &Primitive| {
            if p.topology != Topology::Triangles || p.triangles.is_empty() || p.positions.is_empty() {
                return;
            }
            let gm = Gm::new(Mesh::new(ctx, &cpu_mesh(p)), material.clone());
            parts.push(Part { source, gm, vertices: p.positions.len(), triangles: p.triangles.clone() });
        };
        for (i, inst) in model.instances.iter().enumerate() {
            for (j, p) in model.meshes[inst.mesh].primitives.iter().enumerate() {
                add(Source::Skinned { instance: i, primitive: j }, p);
            }
        }
        for &(node, mesh) in &model.rigid_instances {
            for p in &model.meshes[mesh].primitives {
                add(Source::Rigid { node }, p);
            }
        }
        Self {
            parts,
            positions: Vec::new(),
            normals: Vec::new(),
            computed_normals: Vec::new(),
            colours: Vec::new(),
            overlay_shown: false,
        }
    }

    /// Refills the vertex buffers from a deformation (`deformed[instance][primitive]`) and moves
    /// rigid parts to their nodes (`model_from_node`, one matrix per node).
    pub fn upload(&mut self, deformed: &[Vec<DeformedPrimitive>], model_from_node: &[DMat4]) {
        for part in &mut self.parts {
            match part.source {
                Source::Skinned { instance, primitive } => {
                    let Some(d) = deformed.get(instance).and_then(|v| v.get(primitive)) else { continue };
                    if d.positions.len() != part.vertices {
                        continue;
                    }
                    v3_into(&d.positions, &mut self.positions);
                    let normals: &[Vec3] = if d.normals.len() == part.vertices {
                        &d.normals
                    } else {
                        vertex_normals(&d.positions, &part.triangles, &mut self.computed_normals);
                        &self.computed_normals
                    };
                    v3_into(normals, &mut self.normals);
                    // Lengths were checked above, so these cannot fail.
                    let _ = part.gm.geometry.set_positions_partially(0, &self.positions);
                    let _ = part.gm.geometry.set_normals_partially(0, &self.normals);
                }
                Source::Rigid { node } => {
                    if let Some(m) = model_from_node.get(node) {
                        let c = m.as_mat4().to_cols_array();
                        let m = three_d::Mat4::new(
                            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13],
                            c[14], c[15],
                        );
                        part.gm.geometry.set_transformation(m);
                    }
                }
            }
        }
    }

    /// Shows per-vertex colours (`colours[instance][primitive][vertex]`, sRGB) on the skinned
    /// parts, or the plain surface colour with `None`.
    pub fn set_colours(&mut self, colours: Option<&[Vec<Vec<[u8; 4]>>]>) {
        if colours.is_none() && !self.overlay_shown {
            return;
        }
        let base = linear(BASE_COLOUR);
        for part in &mut self.parts {
            self.colours.clear();
            let given = match (colours, part.source) {
                (Some(c), Source::Skinned { instance, primitive }) => c.get(instance).and_then(|v| v.get(primitive)),
                _ => None,
            };
            match given {
                Some(c) if c.len() == part.vertices => self.colours.extend(c.iter().map(|&c| linear(c))),
                _ => self.colours.resize(part.vertices, base),
            }
            let _ = part.gm.geometry.set_colors_partially(0, &self.colours);
        }
        self.overlay_shown = colours.is_some();
    }

    /// The drawable objects.
    pub fn objects(&self) -> impl Iterator<Item = &Gm<Mesh, PhysicalMaterial>> {
        self.parts.iter().map(|p| &p.gm)
    }
}
