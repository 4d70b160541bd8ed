//! A skinned primitive's JOINTS_n/WEIGHTS_n, read as flat slot arrays (no per-vertex allocation)
//! and put through the weight rules by [`SlotInfluences::from_slots`].

use gltf::accessor::{DataType, Dimensions};
use gltf::Semantic;

use crate::io::accessor::{read_expect_as, Buffers};
use crate::model::SlotInfluences;

/// Reads JOINTS_n/WEIGHTS_n (every set present, in order) and applies the weight rules; `None`
/// when the primitive has none.
pub(super) fn import_influences(
    mesh: &gltf::Mesh<'_>,
    prim: &gltf::Primitive<'_>,
    buffers: &Buffers<'_>,
    joint_count: usize,
) -> Result<Option<SlotInfluences>, String> {
    let what = format!("mesh {} primitive {}", mesh.index(), prim.index());
    let n = prim.get(&Semantic::Positions).map_or(0, |a| a.count());
    let mut joints: Vec<Vec<u32>> = Vec::new();
    let mut weights: Vec<Vec<f32>> = Vec::new();
    for set in 0.. {
        let (j, w) = (prim.get(&Semantic::Joints(set)), prim.get(&Semantic::Weights(set)));
        let (j, w) = match (j, w) {
            (None, None) => break,
            (Some(j), Some(w)) => (j, w),
            (Some(_), None) => return Err(format!("{what} has JOINTS_{set} but no WEIGHTS_{set}")),
            (None, Some(_)) => return Err(format!("{what} has WEIGHTS_{set} but no JOINTS_{set}")),
        };
        let jv = read_expect_as(
            &format!("{what} JOINTS_{set}"),
            buffers,
            &j,
            &[Dimensions::Vec4],
            &[DataType::U8, DataType::U16],
        )?;
        let wv = read_expect_as(
            &format!("{what} WEIGHTS_{set}"),
            buffers,
            &w,
            &[Dimensions::Vec4],
            &[DataType::F32, DataType::U8, DataType::U16],
        )?;
        if (w.data_type() != DataType::F32) && !w.normalized() {
            return Err(format!("{what} WEIGHTS_{set} (accessor {}) is an integer type but not normalized", w.index()));
        }
        if jv.len() != n * 4 || wv.len() != n * 4 {
            return Err(format!("{what} JOINTS_{set}/WEIGHTS_{set} do not have one element per vertex ({n})"));
        }
        joints.push(jv);
        weights.push(wv);
    }
    if joints.is_empty() {
        return Ok(None);
    }
    let width = joints.len() * 4;
    let (joints, weights) = if joints.len() == 1 {
        (joints.swap_remove(0), weights.swap_remove(0))
    } else {
        (interleave(&joints, n), interleave(&weights, n))
    };
    SlotInfluences::from_slots(width, &joints, &weights, joint_count).map(Some).map_err(|e| format!("{what}: {e}"))
}

/// Each vertex's four slots of every set in turn: set `s` of vertex `v` at `v · 4 · sets + 4 · s`.
fn interleave<T: Copy>(sets: &[Vec<T>], n: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(n * 4 * sets.len());
    for v in 0..n {
        for set in sets {
            out.extend_from_slice(&set[v * 4..v * 4 + 4]);
        }
    }
    out
}
