//! Writes the seed corpus: `seeds OUT_DIR [MODELS_DIR]` fills OUT_DIR/{gltf,pose,weights,paint,recovery,obj,pose_library,fbx}
//! with the built-in demo arm, the small shared models (≤ 64 KiB, read from MODELS_DIR, by default
//! ../shared/models; never committed), a pose file and a weights file of the demo arm, and paint
//! byte streams, and the FBX files of `tests/data/ufbx`. Nothing here is fuzzed; see fuzz/README.md.

use std::fs;
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let out = PathBuf::from(args.next().ok_or("usage: seeds OUT_DIR [MODELS_DIR]")?);
    let models = args.next().map_or_else(|| PathBuf::from("../shared/models"), PathBuf::from);
    let dir = |name: &str| -> std::io::Result<PathBuf> {
        let d = out.join(name);
        fs::create_dir_all(&d)?;
        Ok(d)
    };
    let gltf = dir("gltf")?;
    let demo = skinlab::demo::demo_glb();
    fs::write(gltf.join("demo_arm.glb"), &demo)?;
    for entry in fs::read_dir(&models)? {
        let path = entry?.path();
        let small = fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= 64 * 1024);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if small && (ext == "glb" || ext == "gltf") {
            if let Some(name) = path.file_name() {
                fs::copy(&path, gltf.join(name))?;
            }
        }
    }
    let (model, _) = skinlab::io::load_document_from_bytes(&demo, Path::new("demo_arm.glb"))?;
    let mut pose = skinlab::rig::Pose::rest();
    for node in 0..model.nodes.len() {
        pose.set_rotation(node, glam::DQuat::from_rotation_z(0.3 * node as f64));
        pose.set_scale(node, glam::DVec3::new(1.0, 1.5, 1.0));
    }
    fs::write(dir("pose")?.join("demo_pose.json"), skinlab::io::pose_file::pose_to_json(&pose, &model.nodes))?;
    let (weights, _) = skinlab::io::weights_file::weights_to_json(&model, None);
    let wdir = dir("weights")?;
    fs::write(wdir.join("demo_all.json"), &weights)?;
    let short: String = weights.lines().take(12).collect::<Vec<_>>().join("\n") + "\n]}]}\n";
    fs::write(wdir.join("demo_few.json"), short)?;
    let pdir = dir("paint")?;
    fs::write(pdir.join("dabs"), [0u8, 0, 0, 200, 2, 1, 0, 0, 1, 128, 5, 1, 100, 0, 10, 60, 1, 0, 1, 1, 90, 30])?;
    fs::write(
        pdir.join("tools"),
        [1u8, 5, 0, 5, 1, 5, 2, 60, 5, 3, 128, 2, 6, 7, 1, 1, 2, 3, 250, 0, 40, 2, 0, 0, 0, 200, 99],
    )?;
    fs::write(
        pdir.join("mirror_undo"),
        [2u8, 2, 3, 255, 1, 255, 1, 1, 1, 2, 200, 40, 6, 6, 4, 4, 128, 0, 128, 1, 0, 0, 0, 77, 9],
    )?;
    // A recovery file of the demo arm: its clips, the pose above and a few vertices' weights.
    let mut sections = std::collections::BTreeMap::new();
    let clips = skinlab::io::clips_json::clips_to_json(&model.clips, &model.nodes);
    sections.insert(skinlab::io::recovery::CLIPS.to_owned(), clips);
    let pose_text = skinlab::io::pose_file::pose_to_json(&pose, &model.nodes);
    sections.insert(skinlab::io::recovery::POSE.to_owned(), serde_json::from_str(&pose_text)?);
    // Three vertices painted: the weights section lists only what differs from the file.
    let mut painted = model.clone();
    let (meshes, skins) = (&mut painted.meshes, &mut painted.skins);
    if let (Some(inf), Some(skin)) = (meshes[0].primitives[0].influences.as_mut(), skins.first_mut()) {
        for v in 0..3 {
            inf.set_vertex_pairs(v, &[(0, 0.25), (1, 0.75)], &mut skin.sets)?;
        }
    }
    let (changed, _) = skinlab::io::weights_file::weights_to_json(&painted, Some(&model));
    sections.insert(skinlab::io::recovery::WEIGHTS.to_owned(), serde_json::from_str(&changed)?);
    let file = skinlab::io::recovery::RecoveryFile {
        model: None,
        model_name: "demo_arm.glb".into(),
        saved_unix_secs: 1_700_000_000,
        pid: 1,
        strokes: 2,
        sections,
    };
    fs::write(dir("recovery")?.join("demo.json"), file.to_json())?;
    // OBJ: a quad, a concave polygon with normals and texture coordinates in two objects.
    let odir = dir("obj")?;
    fs::write(odir.join("quad.obj"), "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n")?;
    fs::write(
        odir.join("objects.obj"),
        "o a\nv 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nvn 0 0 1\nvt 0 0\n\
         f 1/1/1 2/1/1 3/1/1 4/1/1 5/1/1 6/1/1\ng g2\no b\nf -3 -2 -1\n",
    )?;
    // A pose library of the demo arm: one pose with a small thumbnail.
    let thumbnail_png = skinlab::thumbnail::encode_png(&[200u8; 4 * 4 * 4], 4, 4)?;
    let library = skinlab::io::pose_library::PoseLibrary {
        poses: vec![skinlab::io::pose_library::LibraryPose { name: "Bent".into(), pose: pose.clone(), thumbnail_png }],
    };
    fs::write(dir("pose_library")?.join("demo.json"), library.to_json(&model.nodes))?;
    // FBX: the DCC files committed with the tests (binary and ASCII, skins, blend shapes).
    let fdir = dir("fbx")?;
    for entry in fs::read_dir("../tests/data/ufbx")? {
        let path = entry?.path();
        if let (Some(name), true) = (path.file_name(), path.extension().is_some_and(|e| e == "fbx")) {
            fs::copy(&path, fdir.join(name))?;
        }
    }
    Ok(())
}
