//! Morph targets: each primitive's POSITION and NORMAL displacements (dense or sparse accessors),
//! the mesh's default `weights` and `extras.targetNames`, and clips' `weights` channels.

use gltf::accessor::{DataType, Dimensions};

use super::super::accessor::{read_expect, Buffers};
use super::read_directions;
use crate::model::{Interpolation, MeshMorphs, MorphTarget, Primitive, WeightsChannel};

/// The number of morph targets of `mesh` (its first primitive's, which glTF requires of all).
pub(super) fn target_count(mesh: &gltf::Mesh<'_>) -> usize {
    mesh.primitives().next().map_or(0, |p| p.morph_targets().len())
}

/// Reads `mesh`'s morph targets for its imported primitives `prims` (file order).
pub(super) fn import_morphs(
    mesh: &gltf::Mesh<'_>,
    prims: &[Primitive],
    buffers: &Buffers<'_>,
) -> Result<MeshMorphs, String> {
    let count = target_count(mesh);
    if count == 0 {
        return Ok(MeshMorphs::default());
    }
    let m = mesh.index();
    let mut primitives = Vec::with_capacity(prims.len());
    for (prim, imported) in mesh.primitives().zip(prims) {
        let what = format!("mesh {m} primitive {}", prim.index());
        if prim.morph_targets().len() != count {
            return Err(format!("{what} has {} morph targets, its mesh {count}", prim.morph_targets().len()));
        }
        let n = imported.positions.len();
        let mut targets = Vec::with_capacity(count);
        for (t, target) in prim.morph_targets().enumerate() {
            let read = |acc: Option<gltf::Accessor<'_>>, name: &str| -> Result<Vec<glam::Vec3>, String> {
                let Some(acc) = acc else { return Ok(Vec::new()) };
                let what = format!("{what} target {t} {name}");
                read_directions(&what, buffers, &acc, n)
            };
            let positions = read(target.positions(), "POSITION")?;
            let normals = read(target.normals(), "NORMAL")?;
            let normals = if imported.normals.is_some() { normals } else { Vec::new() };
            let positions = if positions.is_empty() { vec![glam::Vec3::ZERO; n] } else { positions };
            targets.push(MorphTarget::from_dense(&positions, &normals));
        }
        primitives.push(targets);
    }
    let default_weights = match mesh.weights() {
        Some(w) if w.len() == count && w.iter().all(|x| x.is_finite()) => w.to_vec(),
        Some(w) => return Err(format!("mesh {m} has {} default weights for {count} morph targets", w.len())),
        None => vec![0.0; count],
    };
    let names = target_names(mesh, count);
    Ok(MeshMorphs { names, default_weights, primitives })
}

/// `extras.targetNames` (the convention of Blender's and three.js's exporters), when it names
/// every target.
fn target_names(mesh: &gltf::Mesh<'_>, count: usize) -> Vec<Option<String>> {
    let names = mesh
        .extras()
        .as_deref()
        .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
        .and_then(|v| v.get("targetNames")?.as_array().cloned())
        .filter(|a| a.len() == count);
    match names {
        Some(a) => a.iter().map(|v| v.as_str().map(str::to_owned)).collect(),
        None => vec![None; count],
    }
}

/// One `weights` channel: its node's mesh must have morph targets (`targets[node]` of them).
pub(super) fn import_weights_channel(
    what: &str,
    channel: &gltf::animation::Channel<'_>,
    buffers: &Buffers<'_>,
    targets: &[usize],
) -> Result<WeightsChannel, String> {
    let node = channel.target().node().index();
    let count = targets.get(node).copied().unwrap_or(0);
    if count == 0 {
        return Err(format!("{what} animates the weights of node {node}, whose mesh has no morph targets"));
    }
    let sampler = channel.sampler();
    let interpolation = match sampler.interpolation() {
        gltf::animation::Interpolation::Step => Interpolation::Step,
        gltf::animation::Interpolation::Linear => Interpolation::Linear,
        gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
    };
    let times =
        read_expect(&format!("{what} input"), buffers, &sampler.input(), &[Dimensions::Scalar], &[DataType::F32])?;
    let values = read_expect(
        &format!("{what} output"),
        buffers,
        &sampler.output(),
        &[Dimensions::Scalar],
        &[DataType::F32, DataType::I8, DataType::U8, DataType::I16, DataType::U16],
    )?;
    let channel = WeightsChannel { node, interpolation, times, values, targets: count };
    channel.check().map_err(|e| format!("{what}: {e}"))?;
    Ok(channel)
}
