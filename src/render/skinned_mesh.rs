//! The GPU side of one copy of a model: one mesh per drawable primitive, created once from the
//! rest geometry and refilled every frame from the CPU deformation (positions, normals and, for
//! the difference overlay, vertex colours) without reallocating any buffer. With the model's
//! looks (`io::materials`), each primitive also gets its material's base colour and texture,
//! drawn instead of the plain surface while no overlay colours are shown.
//!
//! Only what changed is sent (see [`super::gpu_changes`]): after a brush dab, the byte ranges of
//! the touched vertices. The buffers are skinlab's own ([`super::streamed_mesh`]): buffers refilled
//! whole are written into the mapped buffers by every thread, parts go by `glBufferSubData`
//! ([`UploadMethod`]; the headless test `partial_upload_lands_on_its_vertices` in
//! `tests/render.rs` checks a range in the middle by drawing it, both ways).

use glam::{DMat4, Vec3};
use three_d::{Context, CpuMaterial, Gm, PhysicalMaterial, RenderTarget, ScissorBox, Srgba, Texture2DRef};

use super::gl_convert::{linear_into, LinearColour};
use super::gpu_changes::Changed;
use super::streamed_mesh::{MeshData, StreamedMesh, UploadMethod};
use crate::io::materials::{Looks, PrimitiveLook};
use crate::model::mesh::vertex_normals;
use crate::model::{Model, Primitive, Topology};
use crate::skinning::rigid_morphs::RigidMorphs;
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
    /// The mesh of the primitive (for matching changed vertices).
    mesh: usize,
    /// The primitive within its mesh.
    prim: usize,
    gm: Gm<StreamedMesh, PhysicalMaterial>,
    /// The material's base colour and texture (white vertex colours under it).
    look: Option<PhysicalMaterial>,
    vertices: usize,
    triangles: Vec<[u32; 3]>,
}

/// What the vertex colours hold now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fill {
    /// The plain surface colour.
    Base,
    /// White, under the materials' colours.
    White,
    /// Overlay colours (weights, differences).
    Given,
}

/// The model's looks and their images uploaded once (shared by the panels).
pub struct LookTextures<'a> {
    /// Per mesh and primitive.
    pub looks: &'a Looks,
    /// One texture per image of `looks`.
    pub textures: &'a [Option<Texture2DRef>],
}

/// GPU meshes for every triangle primitive of a model (skinned and rigid).
pub struct SkinnedMeshes {
    parts: Vec<Part>,
    computed_normals: Vec<Vec3>,
    colours: Vec<LinearColour>,
    fill: Fill,
    /// Bytes sent to the GPU by uploads and colour changes so far.
    uploaded_bytes: u64,
    /// How large ranges are sent.
    method: UploadMethod,
    /// Primitives whose GPU buffers could not be made (a lost context): not drawn.
    undrawable: usize,
}

/// A primitive's material: the plain one with its base colour (sRGB-encoded for three-d) and
/// texture.
fn look_material(
    plain: &PhysicalMaterial,
    look: &PrimitiveLook,
    textures: &[Option<Texture2DRef>],
) -> PhysicalMaterial {
    let srgb = |c: f32| {
        let c = c.clamp(0.0, 1.0);
        let e = if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
        (e * 255.0).round() as u8
    };
    let [r, g, b, _] = look.base_colour;
    let mut m = plain.clone();
    m.albedo = Srgba::new(srgb(r), srgb(g), srgb(b), 255);
    m.albedo_texture = look.uvs.as_ref().and(look.image).and_then(|i| textures.get(i).cloned().flatten());
    m
}

impl SkinnedMeshes {
    /// Uploads the rest geometry of every triangle primitive of `model` (with `looks`, their
    /// texture coordinates and materials too).
    #[must_use]
    pub fn new(ctx: &Context, model: &Model, looks: Option<&LookTextures<'_>>) -> Self {
        let material = PhysicalMaterial::new_opaque(
            ctx,
            &CpuMaterial { albedo: Srgba::WHITE, roughness: 0.65, metallic: 0.0, ..Default::default() },
        );
        let mut parts = Vec::new();
        let mut undrawable = 0;
        let mut add = |source: Source, p: &Primitive, mesh: usize, prim: usize| {
            if p.topology != Topology::Triangles || p.triangles.is_empty() || p.positions.is_empty() {
                return;
            }
            let found = looks.and_then(|l| Some((l.looks.meshes.get(mesh)?.get(prim)?, l.textures)));
            let uvs = found.and_then(|(look, _)| look.uvs.as_deref());
            let mut normals = Vec::new();
            let normals = match &p.normals {
                Some(n) if n.len() == p.positions.len() => n.as_slice(),
                _ => {
                    vertex_normals(&p.positions, &p.triangles, Vec3::Y, &mut normals);
                    normals.as_slice()
                }
            };
            let data = MeshData {
                positions: &p.positions,
                normals,
                colour: LinearColour::of(BASE_COLOUR),
                uvs: uvs.filter(|u| u.len() == p.positions.len()),
                triangles: &p.triangles,
            };
            let Some(geometry) = StreamedMesh::new(ctx, &data) else {
                undrawable += 1;
                return;
            };
            let gm = Gm::new(geometry, material.clone());
            let look = found
                .filter(|(look, _)| look.material.is_some())
                .map(|(look, textures)| look_material(&material, look, textures));
            let vertices = p.positions.len();
            parts.push(Part { source, mesh, prim, gm, look, vertices, triangles: p.triangles.clone() });
        };
        for (i, inst) in model.instances.iter().enumerate() {
            for (j, p) in model.meshes[inst.mesh].primitives.iter().enumerate() {
                add(Source::Skinned { instance: i, primitive: j }, p, inst.mesh, j);
            }
        }
        for &(node, mesh) in &model.rigid_instances {
            for (j, p) in model.meshes[mesh].primitives.iter().enumerate() {
                add(Source::Rigid { node }, p, mesh, j);
            }
        }
        Self {
            parts,
            undrawable,
            computed_normals: Vec::new(),
            colours: Vec::new(),
            fill: Fill::Base,
            uploaded_bytes: 0,
            method: UploadMethod::default(),
        }
    }

    /// Primitives that are not drawn because OpenGL could not make their buffers.
    #[must_use]
    pub fn undrawable(&self) -> usize {
        self.undrawable
    }

    /// Chooses how large ranges reach the GPU from now on.
    pub fn set_upload_method(&mut self, method: UploadMethod) {
        self.method = method;
    }

    /// Bytes sent to the GPU so far (positions, normals, colours).
    #[must_use]
    pub fn uploaded_bytes(&self) -> u64 {
        self.uploaded_bytes
    }

    /// Refills the vertex buffers from a deformation (`deformed[instance][primitive]`) and moves
    /// rigid parts to their nodes (`model_from_node`, one matrix per node).
    pub fn upload(&mut self, deformed: &[Vec<DeformedPrimitive>], model_from_node: &[DMat4]) {
        self.upload_changes(deformed, model_from_node, &Changed::All);
    }

    /// Sends the `changed` vertices of a deformation (`deformed[instance][primitive]`) to the
    /// vertex buffers and moves rigid parts to their nodes. A primitive without normals gets
    /// normals computed from its triangles, always whole.
    pub fn upload_changes(
        &mut self,
        deformed: &[Vec<DeformedPrimitive>],
        model_from_node: &[DMat4],
        changed: &Changed,
    ) {
        for part in &mut self.parts {
            match part.source {
                Source::Skinned { instance, primitive } => {
                    let Some(d) = deformed.get(instance).and_then(|v| v.get(primitive)) else { continue };
                    if d.positions.len() != part.vertices {
                        continue;
                    }
                    let mut ranges = changed.ranges(part.mesh, part.prim, part.vertices as u32);
                    let computed = d.normals.len() != part.vertices;
                    if computed && !ranges.is_empty() {
                        // Computed normals depend on the neighbours: the whole primitive.
                        vertex_normals(&d.positions, &part.triangles, Vec3::Y, &mut self.computed_normals);
                        ranges = std::iter::once(0..part.vertices as u32).collect();
                    }
                    let normals: &[Vec3] = if computed { &self.computed_normals } else { &d.normals };
                    let mesh = &part.gm.geometry;
                    for r in ranges {
                        let (a, b) = (r.start as usize, r.end as usize);
                        self.uploaded_bytes += mesh.write_positions(a, &d.positions[a..b], self.method);
                        self.uploaded_bytes += mesh.write_normals(a, &normals[a..b], self.method);
                    }
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

    /// Sends the morphed surfaces of unskinned mesh nodes (`morphs`) to their parts' vertex
    /// buffers; a primitive without normals gets them computed from its triangles.
    pub fn upload_rigid_morphs(&mut self, morphs: &RigidMorphs) {
        for part in &mut self.parts {
            let Source::Rigid { node } = part.source else { continue };
            let Some(surface) = morphs.surface(node, part.prim) else { continue };
            if surface.positions.len() != part.vertices {
                continue;
            }
            let normals: &[Vec3] = if surface.normals.len() == part.vertices {
                &surface.normals
            } else {
                vertex_normals(&surface.positions, &part.triangles, Vec3::Y, &mut self.computed_normals);
                &self.computed_normals
            };
            let mesh = &part.gm.geometry;
            self.uploaded_bytes += mesh.write_positions(0, &surface.positions, self.method);
            self.uploaded_bytes += mesh.write_normals(0, normals, self.method);
        }
    }

    /// Shows per-vertex colours (`colours[instance][primitive][vertex]`, sRGB) on the skinned
    /// parts, or with `None` the plain surface colour (white under the materials when `looks`).
    pub fn set_colours(&mut self, colours: Option<&[Vec<Vec<[u8; 4]>>]>, looks: bool) {
        self.set_colours_changes(colours, looks, &Changed::All);
    }

    /// Like [`SkinnedMeshes::set_colours`], sending only the `changed` vertices while the kind
    /// of colouring stays the same (switching between overlay, plain and materials sends all).
    pub fn set_colours_changes(&mut self, colours: Option<&[Vec<Vec<[u8; 4]>>]>, looks: bool, changed: &Changed) {
        let fill = match (colours, looks) {
            (Some(_), _) => Fill::Given,
            (None, true) => Fill::White,
            (None, false) => Fill::Base,
        };
        let all = fill != self.fill;
        if !all && (fill != Fill::Given || !changed.any()) {
            return;
        }
        for part in &mut self.parts {
            // White under a material; a part without one keeps the plain surface colour.
            let white = fill == Fill::White && part.look.is_some();
            let plain = LinearColour::of(if white { [255; 4] } else { BASE_COLOUR });
            let given = match (colours, part.source) {
                (Some(c), Source::Skinned { instance, primitive }) => c.get(instance).and_then(|v| v.get(primitive)),
                _ => None,
            };
            let n = part.vertices as u32;
            let ranges = if all { std::iter::once(0..n).collect() } else { changed.ranges(part.mesh, part.prim, n) };
            for r in ranges {
                match given {
                    Some(c) if c.len() == part.vertices => {
                        linear_into(&c[r.start as usize..r.end as usize], &mut self.colours)
                    }
                    _ => {
                        self.colours.clear();
                        self.colours.resize(r.len(), plain);
                    }
                }
                self.uploaded_bytes += part.gm.geometry.write_colours(r.start as usize, &self.colours, self.method);
            }
        }
        self.fill = fill;
    }

    /// Draws every part: with its material's look when the colours are white for it (see
    /// [`SkinnedMeshes::set_colours`]), else plain.
    pub fn render(
        &self,
        target: &RenderTarget<'_>,
        scissor: ScissorBox,
        camera: &three_d::Camera,
        lights: &[&dyn three_d::Light],
    ) {
        if self.fill != Fill::White {
            target.render_partially(scissor, camera, self.objects(), lights);
            return;
        }
        for part in &self.parts {
            let material = part.look.as_ref().unwrap_or(&part.gm.material);
            target.render_partially_with_material(scissor, material, camera, [&part.gm.geometry], lights);
        }
    }

    /// The drawable objects.
    pub fn objects(&self) -> impl Iterator<Item = &Gm<StreamedMesh, PhysicalMaterial>> {
        self.parts.iter().map(|p| &p.gm)
    }
}
