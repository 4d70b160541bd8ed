//! skinlab: a rigging and weight-painting editor that compares linear blend, dual quaternion and
//! spherical blend skinning. This library is the GUI-free core (model, rig, skinning, io) plus
//! the command line; see ARCHITECTURE.md for the map.

pub mod analysis;
#[cfg(feature = "gui")]
pub mod app;
pub mod bandwidth;
pub mod bind;
pub mod cli;
pub mod demo;
pub mod emulate;
pub mod error_line;
pub mod io;
pub mod json_header;
pub mod maths;
pub mod model;
pub mod paint;
pub mod plot;
pub mod prefetch;
#[cfg(feature = "gui")]
pub mod render;
pub mod rig;
pub mod skinning;
pub mod synthetic;
pub mod thumbnail;
