//! The viewport's 3D content, drawn the same way by the editor's paint callback and by the
//! headless `skinlab render`: one [`SkinnedMeshes`] per panel (each panel can show a different
//! method), the shared skeleton and ground grid, and a camera-relative key/fill light rig.

use glam::{DMat4, Vec3};
use three_d::{
    AmbientLight, ClearState, ColorMaterial, Context, CpuMaterial, CpuTexture, DepthTest, DirectionalLight, Gm,
    HasContext as _, Mesh, Object, RenderTarget, ScissorBox, Srgba, Texture2DRef, TextureData,
};

use super::camera::OrbitCamera;
use super::overlays::{self, Bones};
use super::skinned_mesh::{LookTextures, SkinnedMeshes};
use super::streamed_mesh::UploadMethod;
use crate::io::materials::Looks;
use crate::model::Model;
use crate::skinning::rigid_morphs::RigidMorphs;

/// The viewport background (sRGB).
pub const BACKGROUND: [u8; 3] = [46, 49, 56];

/// What to draw besides the skin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// Draw the mesh's edges over its shading.
    pub wireframe: bool,
    /// Draw the skeleton.
    pub bones: bool,
    /// Draw the skeleton through the mesh (otherwise the mesh hides the bones behind it).
    pub xray_bones: bool,
    /// Draw the ground grid.
    pub grid: bool,
    /// Draw the materials' base colours and textures (where the scene has them and no overlay
    /// colours are shown).
    pub materials: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        Self { wireframe: false, bones: true, xray_bones: true, grid: true, materials: true }
    }
}

/// The wireframe's colour (sRGB), multiplied with the surface colour under it.
const WIRE_COLOUR: Srgba = Srgba { r: 40, g: 40, b: 48, a: 255 };

/// What a scene's surface meshes are built from besides the meshes' own geometry: which mesh
/// each skinned instance and each rigid node draws. Skeleton and weight edits keep it (the
/// scene keeps its GPU meshes and rebuilds only its bones); binding a rigid mesh, or a deleted
/// joint that renumbers the nodes, changes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MeshLayout {
    /// `(node, mesh)` per skinned instance, in order.
    skinned: Vec<(usize, usize)>,
    /// `(node, mesh)` per rigid instance, in order.
    rigid: Vec<(usize, usize)>,
}

impl MeshLayout {
    /// The layout of `model`'s drawn instances.
    #[must_use]
    pub fn of(model: &Model) -> Self {
        Self {
            skinned: model.instances.iter().map(|i| (i.node, i.mesh)).collect(),
            rigid: model.rigid_instances.clone(),
        }
    }
}

/// GPU state for drawing one model in one or more panels.
pub struct Scene {
    ctx: Context,
    panels: Vec<SkinnedMeshes>,
    bones: Bones,
    grid: Gm<Mesh, ColorMaterial>,
    joint_scale: f32,
    has_looks: bool,
}

impl Scene {
    /// Uploads `model` once per panel (at least one); `bounds` (model space, posed) place the
    /// ground grid under the model and size the joints; `looks` (from the model's document) give
    /// the surfaces their materials.
    #[must_use]
    pub fn new(ctx: &Context, model: &Model, panels: usize, bounds: (Vec3, Vec3), looks: Option<&Looks>) -> Self {
        let (lo, hi) = bounds;
        let size = (hi - lo).length().max(1e-3);
        // Each image is uploaded once, whatever the number of panels and primitives using it.
        let textures: Vec<Option<Texture2DRef>> = looks
            .map(|l| {
                l.images
                    .iter()
                    .map(|image| {
                        image.as_ref().map(|i| {
                            let cpu = CpuTexture {
                                data: TextureData::RgbaU8(i.pixels.clone()),
                                width: i.width,
                                height: i.height,
                                ..CpuTexture::default()
                            };
                            Texture2DRef::from_cpu_texture(ctx, &cpu)
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let with = looks.map(|looks| LookTextures { looks, textures: &textures });
        Self {
            ctx: ctx.clone(),
            panels: (0..panels.max(1)).map(|_| SkinnedMeshes::new(ctx, model, with.as_ref())).collect(),
            bones: Bones::new(ctx, model),
            grid: overlays::grid(ctx, lo, hi),
            joint_scale: size * 0.012,
            has_looks: looks.is_some(),
        }
    }

    /// Chooses how every panel sends large ranges of vertex data from now on.
    pub fn set_upload_method(&mut self, method: UploadMethod) {
        for panel in &mut self.panels {
            panel.set_upload_method(method);
        }
    }

    /// Whether the scene was made with the model's looks (materials can be drawn).
    #[must_use]
    pub fn has_looks(&self) -> bool {
        self.has_looks
    }

    /// Number of panels.
    #[must_use]
    pub fn panel_count(&self) -> usize {
        self.panels.len()
    }

    /// The meshes of panel `i`, if it exists.
    #[must_use]
    pub fn panel(&self, i: usize) -> Option<&SkinnedMeshes> {
        self.panels.get(i)
    }

    /// The meshes of panel `i` (to upload into), if it exists.
    pub fn panel_mut(&mut self, i: usize) -> Option<&mut SkinnedMeshes> {
        self.panels.get_mut(i)
    }

    /// Rebuilds the skeleton's overlay from `model` after a skeleton edit, keeping the surface
    /// meshes (the model's [`MeshLayout`] and geometry must be the ones the scene was made from).
    pub fn rebuild_bones(&mut self, model: &Model) {
        self.bones = Bones::new(&self.ctx, model);
    }

    /// Moves the skeleton to a pose (`model_from_node` per node) and highlights `selected`.
    pub fn update_bones(&mut self, model_from_node: &[DMat4], selected: Option<usize>) {
        self.bones.update(model_from_node, self.joint_scale, selected);
    }

    /// Draws panel `panel` into `scissor` of `target`, seen through `camera`.
    pub fn draw(
        &self,
        target: &RenderTarget<'_>,
        scissor: ScissorBox,
        camera: &OrbitCamera,
        panel: usize,
        opts: &ViewOptions,
    ) {
        let Some(meshes) = self.panels.get(panel) else { return };
        let viewport = three_d::Viewport {
            x: scissor.x,
            y: scissor.y,
            width: scissor.width.max(1),
            height: scissor.height.max(1),
        };
        let cam = camera.to_three_d(viewport);
        target.clear_partially(scissor, ClearState::depth(1.0));
        let (right, up) = camera.right_up();
        let back = camera.back();
        let key_dir = -(back * 0.6 + up * 0.9 + right * 0.8);
        let fill_dir = -(back * 0.5 - up * 0.3 - right * 1.0);
        let v = super::gl_convert::v3;
        let ambient = AmbientLight::new(&self.ctx, 0.25, Srgba::WHITE);
        let key = DirectionalLight::new(&self.ctx, 2.0, Srgba::WHITE, v(key_dir));
        let fill = DirectionalLight::new(&self.ctx, 0.7, Srgba::new(190, 205, 255, 255), v(fill_dir));
        let lights: [&dyn three_d::Light; 3] = [&ambient, &key, &fill];
        if opts.grid {
            target.render_partially(scissor, &cam, [&self.grid], &[]);
        }
        if opts.wireframe {
            // The shading is pushed back a little so that the edges drawn at the same depth win.
            // SAFETY: plain GL state calls on the current context; reset right after drawing.
            unsafe {
                self.ctx.enable(three_d::context::POLYGON_OFFSET_FILL);
                self.ctx.polygon_offset(1.0, 1.0);
            }
        }
        meshes.render(target, scissor, &cam, &lights);
        if opts.wireframe {
            let mut wire = ColorMaterial::new_opaque(&self.ctx, &CpuMaterial::default());
            wire.color = WIRE_COLOUR;
            wire.render_states.depth_test = DepthTest::LessOrEqual;
            // SAFETY: as above.
            unsafe {
                self.ctx.disable(three_d::context::POLYGON_OFFSET_FILL);
                self.ctx.polygon_mode(three_d::context::FRONT_AND_BACK, three_d::context::LINE);
            }
            target.render_partially_with_material(scissor, &wire, &cam, meshes.objects().map(|o| &o.geometry), &[]);
            // SAFETY: as above.
            unsafe { self.ctx.polygon_mode(three_d::context::FRONT_AND_BACK, three_d::context::FILL) };
        }
        if opts.bones {
            if let Some(bones) = self.bones.object() {
                if opts.xray_bones {
                    target.render_partially(scissor, &cam, [bones as &dyn Object], &[]);
                } else {
                    let mut material = bones.material.clone();
                    material.render_states.depth_test = DepthTest::LessOrEqual;
                    target.render_partially_with_material(scissor, &material, &cam, [&bones.geometry], &[]);
                }
            }
        }
    }
}

/// The box around everything a frame draws: every vertex of a deformation
/// (`deformed[instance][primitive]`) and every unskinned mesh placed at its node
/// (`model_from_node`), morphed where `rigid` holds its surface; the model's rest bounds when
/// nothing is finite.
#[must_use]
pub fn drawn_bounds(
    model: &Model,
    deformed: &[Vec<crate::skinning::DeformedPrimitive>],
    model_from_node: &[DMat4],
    rigid: &RigidMorphs,
) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let mut add = |p: Vec3| {
        if p.is_finite() {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    };
    deformed.iter().flatten().flat_map(|d| d.positions.iter()).for_each(|&p| add(p));
    for &(node, mesh) in &model.rigid_instances {
        let (Some(m), Some(mesh)) = (model_from_node.get(node), model.meshes.get(mesh)) else { continue };
        let m = m.as_mat4();
        for (k, p) in mesh.primitives.iter().enumerate() {
            let positions = rigid.surface(node, k).map_or(p.positions.as_slice(), |s| s.positions.as_slice());
            positions.iter().for_each(|&q| add(m.transform_point3(q)));
        }
    }
    if lo.x > hi.x {
        model.rest_bounds()
    } else {
        (lo, hi)
    }
}
