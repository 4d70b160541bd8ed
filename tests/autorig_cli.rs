//! `skinlab autorig` through the binary: an OBJ of several objects becomes a bound glTF rig with
//! every object skinned (props held in the hands named as set aside, and bound); bad templates,
//! markers and stances end in one line with status 2.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/capsule_people.rs"]
mod capsule_people;
#[path = "common/capsules.rs"]
mod capsules;
#[path = "common/cli_run.rs"]
mod cli_run;

use cli_run::{assert_one_error_line, skinlab};

#[test]
fn an_obj_of_several_objects_is_rigged_and_bound() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("body.obj");
    std::fs::write(&obj, capsule_people::humanoid_obj(true)).unwrap();
    let out = dir.path().join("body.glb");
    let run = skinlab(["autorig", obj.to_str().unwrap(), "--out", out.to_str().unwrap(), "--fingers"]);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(text.contains("to 6 meshes") && text.contains("bound 6 meshes"), "{text}");
    let model = skinlab::io::load_model(&out).unwrap();
    assert_eq!(model.instances.len(), 6);
    for name in ["hips", "upperarm.L", "hand.R", "toe.L", "index.03.L", "thumb.01.R"] {
        assert!(model.nodes.find(name).is_ok(), "no joint {name}");
    }
}

#[test]
fn bad_input_ends_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("body.obj");
    std::fs::write(&obj, capsule_people::humanoid_obj(false)).unwrap();
    let out = dir.path().join("out.glb");
    let run = |extra: &[&str]| {
        let mut args = vec!["autorig", obj.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        skinlab(args)
    };
    assert_one_error_line(&run(&["--template", "octopus"]), &["unknown template", "octopus"]);
    assert_one_error_line(&run(&["--markers", "nose=1,2,3"]), &["--markers", "unknown marker"]);
    assert_one_error_line(&run(&["--markers", "chin=1,2"]), &["three numbers"]);
    assert_one_error_line(&run(&["--markers", "wrist.L=5,5,0"]), &["wrist.L", "off the character"]);
    let tube = dir.path().join("tube.obj");
    std::fs::write(
        &tube,
        capsules::obj_text(
            &[capsules::Capsule { a: glam::DVec3::ZERO, b: glam::DVec3::Y, radius: 0.2, object: 0 }],
            &["t"],
            8,
        ),
    )
    .unwrap();
    let r = skinlab(["autorig", tube.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_one_error_line(&r, &["could not find", "leg"]);
    assert!(!out.exists());
}

#[test]
fn props_held_in_the_hands_are_named_and_bound() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("knight.obj");
    let (text, _, _) = capsule_people::humanoid_with_props(true);
    std::fs::write(&obj, text).unwrap();
    let out = dir.path().join("knight.glb");
    let run = skinlab(["autorig", obj.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(text.contains("set aside: sword, shield") && text.contains("bound 3 meshes"), "{text}");
    assert_eq!(skinlab::io::load_model(&out).unwrap().instances.len(), 3);
}
