//! Primitives without normals are shaded in the editor by their rest mesh's vertex normals,
//! deformed by the skinning with the positions: the deformer fills their normals exactly as for a
//! primitive that carried those normals in its file (every method, full passes and partial
//! re-skins alike), leaves them out unless asked, and the editor's state asks.
#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use glam::{DVec3, Vec3};
use skinlab::app::state::EditorState;
use skinlab::model::mesh::vertex_normals;
use skinlab::rig::Pose;
use skinlab::skinning::shading::ShadingNormals;
use skinlab::skinning::{Deformer, SkinningMethod};
use std::sync::Arc;

fn bits(v: &[Vec3]) -> Vec<[u32; 3]> {
    v.iter().map(|n| n.to_array().map(f32::to_bits)).collect()
}

#[test]
fn rest_normals_are_deformed_like_a_files_normals() {
    let mut bare = common::rigs::two_bone_cylinder(12, 16);
    bare.meshes[0].primitives[0].normals = None;
    let shading = Arc::new(ShadingNormals::of(&bare));
    let prim = &bare.meshes[0].primitives[0];
    let rest = shading.get(0, 0, prim.positions.len()).unwrap().to_vec();
    let mut want = Vec::new();
    vertex_normals(&prim.positions, &prim.triangles, Vec3::Y, &mut want);
    assert_eq!(bits(&rest), bits(&want));
    assert!(rest.iter().all(|n| n.is_normalized()));
    // The same mesh carrying those normals in its file.
    let mut carried = bare.clone();
    carried.meshes[0].primitives[0].normals = Some(rest.clone());
    let mut pose = Pose::rest();
    common::rigs::rotate(&mut pose, 1, DVec3::new(0.2, 0.3, 1.0), 1.1);
    for method in SkinningMethod::MENU {
        let (mut shaded, mut plain, mut reference) = (Deformer::new(), Deformer::new(), Deformer::new());
        shaded.set_shading_normals(Some(Arc::clone(&shading)));
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        shaded.deform_all(&bare, &pose, method, &mut a);
        plain.deform_all(&bare, &pose, method, &mut b);
        reference.deform_all(&carried, &pose, method, &mut c);
        let (a, b, c) = (&a[0][0], &b[0][0], &c[0][0]);
        assert!(b.normals.is_empty(), "{method}: no normals unless asked");
        assert_eq!(bits(&a.positions), bits(&b.positions), "{method}: positions unchanged");
        assert_eq!(bits(&a.normals), bits(&c.normals), "{method}: as if the file carried them");
        assert_ne!(bits(&a.normals), bits(&rest), "{method}: the bend turns them");
        // A partial re-skin fills the same normals.
        let mut partial = a.clone();
        partial.normals.iter_mut().for_each(|n| *n = Vec3::NAN);
        let some: Vec<u32> = (0..partial.positions.len() as u32).collect();
        assert!(shaded.deform_vertices(&bare, &bare.instances[0], 0, &some, &mut partial));
        assert_eq!(bits(&partial.normals), bits(&a.normals), "{method}: partial");
    }
    // A model whose primitive carries normals gets none from the shading.
    assert!(ShadingNormals::of(&carried).get(0, 0, rest.len()).is_none());
    assert!(shading.get(0, 0, rest.len() + 1).is_none(), "sized for the primitive");
}

#[test]
fn the_editor_shades_a_primitive_without_normals_from_its_deformation() {
    let mut bare = common::rigs::two_bone_cylinder(12, 16);
    bare.meshes[0].primitives[0].normals = None;
    let n = bare.meshes[0].primitives[0].positions.len();
    let mut s = EditorState::new(bare, "bare");
    s.refresh();
    let deformed = &s.frame.deformed[0][0][0];
    assert_eq!((deformed.positions.len(), deformed.normals.len()), (n, n));
    assert!(deformed.normals.iter().all(|v| v.is_normalized()));
}
