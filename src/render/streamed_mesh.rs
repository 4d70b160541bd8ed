//! A triangle mesh whose vertex buffers skinlab owns, drawn through three-d's programs and
//! materials: three-d 0.19 keeps its buffers' GL names private, so a deformation could only reach
//! them through `glBufferSubData`, which NVIDIA's driver runs at 3–5 GB/s on one thread (a 1M
//! split view's 48 MB took 10–16 ms a frame; BENCHMARKS.md, "The editor on a GPU"). Here a buffer
//! refilled whole (a new pose) is written into the mapped buffer instead, by the deformation's
//! rayon threads in parallel: `glMapBufferRange` with the whole buffer invalidated, so the driver
//! hands out fresh storage and never waits for the GPU's last draw from the old one. Parts of a
//! buffer (a brush dab's vertices) still go by `glBufferSubData`, which the driver queues: mapping
//! a range of a buffer the GPU may still be reading would wait for it.
//!
//! The vertex shader is three-d's own mesh shader (taken from a throwaway three-d mesh with the
//! same attributes), so the materials, lights and render states are three-d's as before.

use std::cell::RefCell;

use rayon::prelude::*;
use three_d::context::{self as gl, HasContext};
use three_d::{
    AxisAlignedBoundingBox, Context, CpuMesh, Geometry, GeometryId, Mat4, Matrix, Positions, Program, SquareMatrix,
};

use super::gl_convert::LinearColour;

/// How large ranges of vertex data reach the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum UploadMethod {
    /// A buffer refilled whole, of at least [`MAPPED_FROM_BYTES`], is copied into the mapped
    /// buffer by every rayon thread; parts of buffers and smaller ones go by `glBufferSubData`.
    #[default]
    Mapped,
    /// Every range goes by `glBufferSubData`, in calls of at most [`SUB_DATA_CHUNK_BYTES`] (the
    /// path before the buffers were skinlab's; kept to compare drivers and as a fallback).
    SubData,
}

/// Buffers smaller than this go by `glBufferSubData` even with [`UploadMethod::Mapped`]: a map and
/// unmap cost a round trip through the driver that a few kilobytes do not repay.
pub const MAPPED_FROM_BYTES: usize = 64 << 10;

/// The most bytes one `glBufferSubData` call sends. For a 1M-vertex split view's 48 MB a frame,
/// NVIDIA's driver (H200, 580.159) took 12.6-15.9 ms in one call per buffer and 10.1-13.2 ms in
/// 1 MB calls, in the same runs; llvmpipe takes the same either way (BENCHMARKS.md, "The editor
/// on a GPU").
pub const SUB_DATA_CHUNK_BYTES: usize = 1 << 20;

/// Bytes each rayon task copies into a mapped buffer.
const COPY_CHUNK_BYTES: usize = 256 << 10;

/// Vertex data that can be sent to a buffer as raw bytes: `#[repr(C)]` structs of one component
/// type, without padding (every bit pattern valid).
pub trait VertexData: Copy + Send + Sync {
    /// Components per vertex.
    const COMPONENTS: i32;
    /// The components' GL type.
    const GL_TYPE: u32 = gl::FLOAT;
    /// Bytes per component.
    const COMPONENT_BYTES: usize = 4;
    /// Whether integer components reach the shader as 0..=1 (normalised).
    const NORMALIZED: bool = false;
}

impl VertexData for glam::Vec3 {
    const COMPONENTS: i32 = 3;
}

impl VertexData for LinearColour {
    const COMPONENTS: i32 = 4;
    const GL_TYPE: u32 = gl::UNSIGNED_SHORT;
    const COMPONENT_BYTES: usize = 2;
    const NORMALIZED: bool = true;
}

impl VertexData for three_d::Vec2 {
    const COMPONENTS: i32 = 2;
}

fn bytes_of<T: VertexData>(data: &[T]) -> &[u8] {
    debug_assert_eq!(std::mem::size_of::<T>(), T::COMPONENT_BYTES * T::COMPONENTS as usize);
    // SAFETY: `VertexData` types are plain structs of one component type without padding
    // (checked above in debug builds), so their bytes are initialised; the lifetime is carried
    // over.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

/// One vertex attribute's buffer.
struct Attribute {
    buffer: gl::Buffer,
    /// The attribute's name in three-d's mesh shader.
    name: &'static str,
    /// Components per vertex, their GL type and whether they are normalised.
    components: i32,
    gl_type: u32,
    normalized: bool,
}

/// A triangle mesh with positions, normals and vertex colours (and texture coordinates when
/// given) in buffers skinlab owns; see the module's doc.
pub struct StreamedMesh {
    context: Context,
    vao: gl::VertexArray,
    positions: Attribute,
    normals: Attribute,
    colours: Attribute,
    uvs: Option<Attribute>,
    elements: gl::Buffer,
    index_count: i32,
    vertices: usize,
    /// The rest geometry's bounds (what three-d's meshes cull by).
    aabb: AxisAlignedBoundingBox,
    transformation: Mat4,
    /// three-d's mesh shader for these attributes.
    shader: String,
    /// Attribute locations per program (GL name), looked up on first use.
    locations: RefCell<Vec<(u32, [Option<u32>; 4])>>,
}

/// The rest geometry of a [`StreamedMesh`].
pub struct MeshData<'a> {
    /// Vertex positions.
    pub positions: &'a [glam::Vec3],
    /// Vertex normals, one per position.
    pub normals: &'a [glam::Vec3],
    /// The colour of every vertex at first.
    pub colour: LinearColour,
    /// Texture coordinates as glTF stores them (v down), one per position, if any.
    pub uvs: Option<&'a [[f32; 2]]>,
    /// Triangles (vertex indices).
    pub triangles: &'a [[u32; 3]],
}

impl StreamedMesh {
    /// Uploads `data`. `None` when a buffer cannot be created (the context is lost) or the
    /// normals or texture coordinates do not match the positions.
    #[must_use]
    pub fn new(context: &Context, data: &MeshData<'_>) -> Option<Self> {
        let n = data.positions.len();
        if data.normals.len() != n || data.uvs.is_some_and(|u| u.len() != n) {
            return None;
        }
        let aabb = AxisAlignedBoundingBox::new_with_positions(crate::render::gl_convert::as_three_d(data.positions));
        // three-d's own mesh shader, with the same #defines as a three-d mesh of these attributes.
        let sample = CpuMesh {
            positions: Positions::F32(vec![three_d::Vec3::unit_x(); 3]),
            indices: three_d::Indices::U32(vec![0, 1, 2]),
            normals: Some(vec![three_d::Vec3::unit_z(); 3]),
            colors: Some(vec![three_d::Srgba::WHITE; 3]),
            uvs: data.uvs.map(|_| vec![three_d::Vec2::new(0.0, 0.0); 3]),
            ..Default::default()
        };
        let shader = three_d::Mesh::new(context, &sample).vertex_shader_source();
        // three-d's shaders read v up (as three-d's meshes upload them).
        let uvs: Option<Vec<three_d::Vec2>> =
            data.uvs.map(|u| u.iter().map(|c| three_d::Vec2::new(c[0], 1.0 - c[1])).collect());
        let colours = vec![data.colour; n];
        // SAFETY: plain GL calls on the current context; every object is created here, bound only
        // for the calls that fill it and unbound after.
        unsafe {
            fn attribute<T: VertexData>(
                context: &Context,
                name: &'static str,
                data: &[T],
                usage: u32,
            ) -> Option<Attribute> {
                // SAFETY: as above.
                unsafe {
                    let buffer = context.create_buffer().ok()?;
                    context.bind_buffer(gl::ARRAY_BUFFER, Some(buffer));
                    context.buffer_data_u8_slice(gl::ARRAY_BUFFER, bytes_of(data), usage);
                    context.bind_buffer(gl::ARRAY_BUFFER, None);
                    Some(Attribute {
                        buffer,
                        name,
                        components: T::COMPONENTS,
                        gl_type: T::GL_TYPE,
                        normalized: T::NORMALIZED,
                    })
                }
            }
            let positions = attribute(context, "position", data.positions, gl::DYNAMIC_DRAW)?;
            let normals = attribute(context, "normal", data.normals, gl::DYNAMIC_DRAW)?;
            let colours = attribute(context, "color", &colours, gl::DYNAMIC_DRAW)?;
            let uvs = match &uvs {
                Some(uvs) => Some(attribute(context, "uv_coordinates", uvs, gl::STATIC_DRAW)?),
                None => None,
            };
            let vao = context.create_vertex_array().ok()?;
            let elements = context.create_buffer().ok()?;
            // The element buffer's binding is the vertex array's state.
            context.bind_vertex_array(Some(vao));
            context.bind_buffer(gl::ELEMENT_ARRAY_BUFFER, Some(elements));
            let index_bytes =
                std::slice::from_raw_parts(data.triangles.as_ptr().cast::<u8>(), std::mem::size_of_val(data.triangles));
            context.buffer_data_u8_slice(gl::ELEMENT_ARRAY_BUFFER, index_bytes, gl::STATIC_DRAW);
            context.bind_vertex_array(None);
            context.bind_buffer(gl::ELEMENT_ARRAY_BUFFER, None);
            Some(Self {
                context: context.clone(),
                vao,
                positions,
                normals,
                colours,
                uvs,
                elements,
                index_count: i32::try_from(data.triangles.len() * 3).ok()?,
                vertices: n,
                aabb,
                transformation: Mat4::identity(),
                shader,
                locations: RefCell::new(Vec::new()),
            })
        }
    }

    /// Places the mesh in the model (a rigid mesh node's transform).
    pub fn set_transformation(&mut self, m: Mat4) {
        self.transformation = m;
    }

    /// Writes positions from vertex `first` on; returns the bytes sent.
    pub fn write_positions(&self, first: usize, data: &[glam::Vec3], method: UploadMethod) -> u64 {
        self.write(&self.positions, first, data, method)
    }

    /// Writes normals from vertex `first` on; returns the bytes sent.
    pub fn write_normals(&self, first: usize, data: &[glam::Vec3], method: UploadMethod) -> u64 {
        self.write(&self.normals, first, data, method)
    }

    /// Writes vertex colours from vertex `first` on; returns the bytes sent.
    pub fn write_colours(&self, first: usize, data: &[LinearColour], method: UploadMethod) -> u64 {
        self.write(&self.colours, first, data, method)
    }

    /// Writes `data` into `attribute`'s buffer from vertex `first` on (clipped to the buffer).
    fn write<T: VertexData>(&self, attribute: &Attribute, first: usize, data: &[T], method: UploadMethod) -> u64 {
        let n = data.len().min(self.vertices.saturating_sub(first));
        let bytes = bytes_of(&data[..n]);
        if bytes.is_empty() {
            return 0;
        }
        let size = std::mem::size_of::<T>();
        let offset = first * size;
        let whole = offset == 0 && n == self.vertices;
        // SAFETY: the buffer is ours and holds `self.vertices` elements of `T`, so the range is
        // inside it; the mapped pointer is written only within `bytes.len()` and unmapped before
        // the buffer is unbound.
        unsafe {
            let gl = &self.context;
            gl.bind_buffer(gl::ARRAY_BUFFER, Some(attribute.buffer));
            let mapped = method == UploadMethod::Mapped && whole && bytes.len() >= MAPPED_FROM_BYTES && {
                let ptr = gl.map_buffer_range(
                    gl::ARRAY_BUFFER,
                    0,
                    bytes.len() as i32,
                    gl::MAP_WRITE_BIT | gl::MAP_INVALIDATE_BUFFER_BIT,
                );
                if ptr.is_null() {
                    false
                } else {
                    let target = std::slice::from_raw_parts_mut(ptr, bytes.len());
                    target
                        .par_chunks_mut(COPY_CHUNK_BYTES)
                        .zip(bytes.par_chunks(COPY_CHUNK_BYTES))
                        .for_each(|(to, from)| to.copy_from_slice(from));
                    gl.unmap_buffer(gl::ARRAY_BUFFER);
                    true
                }
            };
            if !mapped {
                for (i, part) in bytes.chunks(SUB_DATA_CHUNK_BYTES).enumerate() {
                    gl.buffer_sub_data_u8_slice(gl::ARRAY_BUFFER, (offset + i * SUB_DATA_CHUNK_BYTES) as i32, part);
                }
            }
            gl.bind_buffer(gl::ARRAY_BUFFER, None);
        }
        bytes.len() as u64
    }

    /// The attributes' locations in `program` (the current program's GL name), cached.
    fn locations(&self, program: u32) -> [Option<u32>; 4] {
        let mut cache = self.locations.borrow_mut();
        if let Some((_, l)) = cache.iter().find(|(p, _)| *p == program) {
            return *l;
        }
        let name = std::num::NonZeroU32::new(program).map(gl::NativeProgram);
        let attributes = [Some(&self.positions), Some(&self.normals), Some(&self.colours), self.uvs.as_ref()];
        // SAFETY: a query on the current context about a linked program.
        let l = attributes.map(|a| Some(unsafe { self.context.get_attrib_location(name?, a?.name) }).flatten());
        cache.push((program, l));
        l
    }
}

impl Drop for StreamedMesh {
    fn drop(&mut self) {
        // SAFETY: the objects are ours and no longer used.
        unsafe {
            for a in [Some(&self.positions), Some(&self.normals), Some(&self.colours), self.uvs.as_ref()]
                .into_iter()
                .flatten()
            {
                self.context.delete_buffer(a.buffer);
            }
            self.context.delete_buffer(self.elements);
            self.context.delete_vertex_array(self.vao);
        }
    }
}

/// Geometry ids in three-d's public range: one per shader variant (with or without texture
/// coordinates).
const GEOMETRY_ID: u16 = 0x0510;

impl Geometry for StreamedMesh {
    fn draw(&self, viewer: &dyn three_d::Viewer, program: &Program, render_states: three_d::RenderStates) {
        let Some(inverse) = self.transformation.invert() else { return };
        program.use_uniform_if_required("normalMatrix", inverse.transpose());
        program.use_uniform("viewProjection", viewer.projection() * viewer.view());
        program.use_uniform("modelMatrix", self.transformation);
        program.draw_with(render_states, viewer.viewport(), || {
            // SAFETY: plain GL calls on the current context, inside three-d's draw (the program is
            // in use); three-d disables the program's attributes and unbinds the vertex array after.
            unsafe {
                let gl = &self.context;
                let current = u32::try_from(gl.get_parameter_i32(gl::CURRENT_PROGRAM)).unwrap_or(0);
                let locations = self.locations(current);
                gl.bind_vertex_array(Some(self.vao));
                let attributes = [Some(&self.positions), Some(&self.normals), Some(&self.colours), self.uvs.as_ref()];
                for (a, loc) in attributes.into_iter().zip(locations) {
                    let (Some(a), Some(loc)) = (a, loc) else { continue };
                    gl.bind_buffer(gl::ARRAY_BUFFER, Some(a.buffer));
                    gl.enable_vertex_attrib_array(loc);
                    gl.vertex_attrib_pointer_f32(loc, a.components, a.gl_type, a.normalized, 0, 0);
                    gl.vertex_attrib_divisor(loc, 0);
                }
                gl.bind_buffer(gl::ARRAY_BUFFER, None);
                gl.draw_elements(gl::TRIANGLES, self.index_count, gl::UNSIGNED_INT, 0);
            }
        });
    }

    fn vertex_shader_source(&self) -> String {
        self.shader.clone()
    }

    fn id(&self) -> GeometryId {
        GeometryId(GEOMETRY_ID | u16::from(self.uvs.is_some()))
    }

    fn render_with_material(
        &self,
        material: &dyn three_d::Material,
        viewer: &dyn three_d::Viewer,
        lights: &[&dyn three_d::Light],
    ) {
        if let Err(e) = three_d::render_with_material(&self.context, viewer, self, material, lights) {
            log_once(&e.to_string());
        }
    }

    fn render_with_effect(
        &self,
        effect: &dyn three_d::Effect,
        viewer: &dyn three_d::Viewer,
        lights: &[&dyn three_d::Light],
        color_texture: Option<three_d::ColorTexture>,
        depth_texture: Option<three_d::DepthTexture>,
    ) {
        if let Err(e) =
            three_d::render_with_effect(&self.context, viewer, self, effect, lights, color_texture, depth_texture)
        {
            log_once(&e.to_string());
        }
    }

    fn aabb(&self) -> AxisAlignedBoundingBox {
        self.aabb.transformed(self.transformation)
    }
}

/// A shader that does not build is reported once on stderr, not once a frame (three-d's own
/// meshes panic there).
fn log_once(message: &str) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| eprintln!("skinlab: the mesh shader failed: {message}"));
}
