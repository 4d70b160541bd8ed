//! An OpenGL context with no window and no display server, for `skinlab render` and the render
//! tests: EGL on the device platform (EGL_EXT_platform_device), preferring Mesa's software device
//! so every machine draws the same picture, made current without a surface and handed to three-d.
//! Pictures are drawn into an offscreen colour + depth texture and read back top-down.

use std::ffi::CStr;
use std::num::NonZeroU32;
use std::sync::Arc;

use glutin::api::egl::context::PossiblyCurrentContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::prelude::*;
use three_d::{ClearState, Context, DepthTexture2D, Interpolation, RenderTarget, Texture2D, Wrapping};

/// A headless OpenGL context (keep it alive while drawing; it is not `Send`).
pub struct Headless {
    // Field order is drop order: three-d's context before the EGL context and display.
    ctx: Context,
    gl: Arc<three_d::context::Context>,
    _current: PossiblyCurrentContext,
    _display: Display,
}

/// Why no headless context could be made (one line).
#[derive(Debug, thiserror::Error)]
#[error("headless OpenGL: {0} (install Mesa's EGL: libegl1 libegl-mesa0 libgl1-mesa-dri)")]
pub struct HeadlessError(String);

impl Headless {
    /// Creates a surfaceless OpenGL 3.3 core context on an EGL device.
    pub fn new() -> Result<Self, HeadlessError> {
        let err = |what: &str, e: &dyn std::fmt::Display| HeadlessError(format!("{what}: {e}"));
        let devices: Vec<Device> = Device::query_devices().map_err(|e| err("no EGL devices", &e))?.collect();
        let device = devices
            .iter()
            .find(|d| d.extensions().contains("EGL_MESA_device_software"))
            .or_else(|| devices.first())
            .ok_or_else(|| HeadlessError("no EGL device found".into()))?;
        // SAFETY: the device comes from query_devices and outlives this call; no native display.
        let display = unsafe { Display::with_device(device, None) }.map_err(|e| err("EGL display", &e))?;
        let template = ConfigTemplateBuilder::new().with_surface_type(ConfigSurfaceTypes::empty()).build();
        // SAFETY: the display is valid for the duration of the call.
        let config = unsafe { display.find_configs(template) }
            .map_err(|e| err("EGL configs", &e))?
            .next()
            .ok_or_else(|| HeadlessError("no surfaceless EGL config".into()))?;
        let attrs = ContextAttributesBuilder::new()
            .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
            .with_profile(GlProfile::Core)
            .build(None);
        // SAFETY: config belongs to display; no raw window handle is involved.
        let not_current = unsafe { display.create_context(&config, &attrs) }.map_err(|e| err("EGL context", &e))?;
        let current = not_current.make_current_surfaceless().map_err(|e| err("make current", &e))?;
        // SAFETY: the context is current on this thread and stays alive as long as `Self`.
        let gl = unsafe {
            three_d::context::Context::from_loader_function_cstr(|s: &CStr| display.get_proc_address(s).cast())
        };
        let gl = Arc::new(gl);
        let ctx = Context::from_gl_context(Arc::clone(&gl)).map_err(|e| err("three-d", &e))?;
        Ok(Self { ctx, gl, _current: current, _display: display })
    }

    /// The three-d context.
    #[must_use]
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The raw GL context (glow), as eframe hands it to the editor.
    #[must_use]
    pub fn gl(&self) -> &Arc<three_d::context::Context> {
        &self.gl
    }

    /// Draws into a fresh `width` × `height` offscreen target cleared to `background` (sRGB) and
    /// returns its RGBA pixels, rows top-down.
    pub fn draw(&self, width: u32, height: u32, background: [u8; 3], draw: impl FnOnce(&RenderTarget<'_>)) -> Vec<u8> {
        let (w, h) =
            (NonZeroU32::new(width).map_or(1, NonZeroU32::get), NonZeroU32::new(height).map_or(1, NonZeroU32::get));
        let colour = Texture2D::new_empty::<[u8; 4]>(
            &self.ctx,
            w,
            h,
            Interpolation::Nearest,
            Interpolation::Nearest,
            None,
            Wrapping::ClampToEdge,
            Wrapping::ClampToEdge,
        );
        let depth = DepthTexture2D::new::<f32>(&self.ctx, w, h, Wrapping::ClampToEdge, Wrapping::ClampToEdge);
        let target = RenderTarget::new(colour.as_color_target(None), depth.as_depth_target());
        let [r, g, b] = background.map(|c| f32::from(c) / 255.0);
        target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        draw(&target);
        target.read_color::<[u8; 4]>().into_iter().flatten().collect()
    }
}
