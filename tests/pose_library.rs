//! The pose library file (`io::pose_library`): the file name beside the model, a round trip of
//! names, poses (bit for bit) and thumbnails, and one clear line for each kind of broken file.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

use glam::{DQuat, DVec3};
use skinlab::io::pose_library::{held_pose, library_path, LibraryPose, PoseLibrary};
use skinlab::rig::Pose;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot really a picture but a PNG signature";

fn library() -> (skinlab::model::Model, PoseLibrary) {
    let model = skinlab::demo::demo_model().unwrap();
    let mut pose = Pose::rest();
    pose.set_rotation(2, DQuat::from_rotation_z(0.1 + 0.2).normalize());
    pose.set_translation(3, DVec3::new(1.0, 1e-17, -0.3));
    let bent = held_pose(&model.nodes, &pose, &[1, 2, 3]);
    assert_eq!(bent.overrides.len(), 3, "a joint at rest is held too");
    assert_eq!(bent.overrides[&1].rotation, Some(model.nodes.nodes[1].rest.to_trs().rotation));
    let lib = PoseLibrary {
        poses: vec![
            LibraryPose { name: "Bent".into(), pose: bent, thumbnail_png: PNG.to_vec() },
            LibraryPose {
                name: "Elbow only ✓".into(),
                pose: held_pose(&model.nodes, &pose, &[2]),
                thumbnail_png: PNG.to_vec(),
            },
        ],
    };
    (model, lib)
}

#[test]
fn the_library_lives_beside_the_model_under_its_whole_file_name() {
    assert_eq!(library_path(Path::new("/m/arm.glb")), Path::new("/m/arm.glb.poses.json"));
    assert_eq!(library_path(Path::new("rel/CesiumMan.gltf")), Path::new("rel/CesiumMan.gltf.poses.json"));
}

#[test]
fn round_trip_through_a_file_is_exact() {
    let (model, lib) = library();
    let dir = tempfile::tempdir().unwrap();
    let path = library_path(&dir.path().join("arm.glb"));
    lib.write(&path, &model.nodes).unwrap();
    let back = PoseLibrary::read(&path, &model.nodes).unwrap().unwrap();
    assert_eq!(back, lib);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"format\": \"skinlab-pose-library\"") && text.contains("\"skinlab-pose\""), "{text}");
    assert_eq!(PoseLibrary::read(&dir.path().join("none.poses.json"), &model.nodes).unwrap(), None);
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn broken_files_give_one_line_naming_the_file_and_the_problem() {
    let (model, lib) = library();
    let good: serde_json::Value = serde_json::from_str(&lib.to_json(&model.nodes)).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = good.clone();
        f(&mut v);
        v.to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        ("{\"format\": \"skinlab-pose-library\", \"vers".into(), "not valid JSON"),
        (edit(&|v| v["format"] = "skinlab-pose".into()), "\"format\""),
        (edit(&|v| v["version"] = 2.into()), "\"version\""),
        (edit(&|v| v["poses"] = 3.into()), "\"poses\" must be an array"),
        (edit(&|v| v["poses"][1]["name"] = "Bent".into()), "used twice"),
        (edit(&|v| v["poses"][0]["name"] = " ".into()), "non-empty"),
        (edit(&|v| v["poses"][0]["thumbnail"] = "***".into()), "not base64"),
        (edit(&|v| v["poses"][0]["thumbnail"] = "aGVsbG8=".into()), "not a PNG"),
        (
            edit(&|v| v["poses"][0]["pose"]["joints"]["wristy"] = serde_json::json!({"rotation": [0, 0, 0, 1]})),
            "wristy",
        ),
        (edit(&|v| v["poses"][0]["extra"] = 1.into()), "unknown field \"extra\""),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (text, expected) in cases {
        let path = dir.path().join("arm.glb.poses.json");
        std::fs::write(&path, &text).unwrap();
        let e = PoseLibrary::read(&path, &model.nodes).unwrap_err();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        assert!(e.contains(expected), "{e} should mention {expected}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    let folder = dir.path().join("folder.poses.json");
    std::fs::create_dir(&folder).unwrap();
    let e = PoseLibrary::read(&folder, &model.nodes).unwrap_err();
    assert!(e.contains("not a regular file"), "{e}");
}
