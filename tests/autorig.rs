//! Automatic rigging (`rig::autorig`) on synthetic characters with known joints: the humanoid from
//! its shape alone and from markers, as one object and as several; every object skinned after
//! the bind; a quadruped; a free chain; refusals that name the limb or the stance.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/capsules.rs"]
mod capsules;
#[path = "common/capsule_people.rs"]
mod capsule_people;

use capsule_people::{humanoid_landmarks, humanoid_obj, HEIGHT};
use glam::DVec3;
use skinlab::io::obj_import::parse_obj;
use skinlab::rig::autorig::build::{build_rig, source};
use skinlab::rig::autorig::{fit, FitOptions, Markers, Plan};

fn fit_obj(text: &str, options: &FitOptions) -> Result<Plan, String> {
    let model = parse_obj(text.as_bytes(), Some("test")).unwrap();
    let src = source(&model).unwrap();
    fit(&src.positions, &src.triangles, options).map_err(|e| e.to_string())
}

/// The worst landmark error as a share of the height, printing each.
fn worst_error(plan: &Plan) -> f64 {
    let mut worst = 0.0_f64;
    for (name, truth) in humanoid_landmarks() {
        let got = plan.joint(&name).unwrap_or_else(|| panic!("no joint {name}")).head;
        let e = (got - truth).length() / HEIGHT;
        println!("{name:12} {:6.2} %  got ({:.3}, {:.3}, {:.3}) want ({:.3}, {:.3}, {:.3})", e * 100.0, got.x, got.y, got.z, truth.x, truth.y, truth.z);
        worst = worst.max(e);
    }
    worst
}

#[test]
fn the_capsule_humanoid_is_fitted_from_its_shape_alone() {
    for split in [false, true] {
        let plan = fit_obj(&humanoid_obj(split), &FitOptions::default()).unwrap();
        let worst = worst_error(&plan);
        assert!(worst <= 0.02, "split {split}: worst landmark {:.2} % of the height", worst * 100.0);
    }
}
