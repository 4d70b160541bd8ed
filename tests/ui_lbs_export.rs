//! File ▸ Export for LBS runtimes in the editor, through egui_kittest: the fit runs on its thread
//! with a progress bar and Cancel, ends in the split view with the export "as exported" (LBS of
//! the fitted model) on the left beside its target and the difference overlay, that left panel
//! follows the target far closer than plain LBS does, the file written holds the helpers, a
//! cancelled fit leaves nothing, and closing the window forgets the fit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/ui_harness.rs"]
#[allow(dead_code)]
mod ui_harness;

use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use skinlab::app::command::Command;
use skinlab::app::state::EditorState;
use skinlab::app::SkinlabApp;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
use ui_harness::{harness_with, Scripted};

fn arm_in(dir: &Path) -> (PathBuf, EditorState) {
    let path = dir.join("arm.glb");
    std::fs::write(&path, skinlab::demo::demo_glb()).unwrap();
    let (model, source) = skinlab::io::load_document(&path).unwrap();
    let mut s = EditorState::with_document(model, source, "arm.glb");
    s.files.model_path = Some(path.clone());
    (path, s)
}

fn open_window(h: &mut Harness<'_, SkinlabApp>) {
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Export for LBS runtimes…").click();
    h.run();
}

/// Runs frames until the fit has finished (the thread's answer taken).
fn wait_for_fit(h: &mut Harness<'_, SkinlabApp>) {
    for _ in 0..6000 {
        if h.state().state.lbs_export.job.is_none() {
            h.run();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    panic!("the fit did not finish");
}

fn rms(a: &[Vec<DeformedPrimitive>], b: &[Vec<DeformedPrimitive>]) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for (x, y) in a.iter().flatten().zip(b.iter().flatten()) {
        for (p, q) in x.positions.iter().zip(&y.positions) {
            sum += f64::from(p.distance_squared(*q));
            n += 1;
        }
    }
    (sum / n.max(1) as f64).sqrt()
}

#[test]
fn the_fit_previews_the_export_beside_its_target_and_writes_the_helpers() {
    let dir = tempfile::tempdir().unwrap();
    let (_, state) = arm_in(dir.path());
    let dialogs = Scripted::default();
    let out = dir.path().join("arm_lbs.glb");
    *dialogs.export.lock().unwrap() = Some(out.clone());
    let mut h = harness_with(state, dialogs);
    open_window(&mut h);
    h.get_by_label("twist").click();
    h.run();
    h.get_by_label("Fit and preview").click();
    h.step();
    assert!(h.state().state.lbs_export.job.is_some(), "no fit started");
    wait_for_fit(&mut h);
    let s = &h.state().state;
    let fitted = s.lbs_export.fitted.as_ref().expect("no fit");
    assert_eq!(fitted.emulation.clips.len(), 1, "only the ticked clip is fitted");
    assert!(!fitted.emulation.helper_nodes.is_empty());
    assert!(s.view.split && s.view.difference && s.view.compare == SkinningMethod::Sbs);
    assert!(s.shows_export());
    assert!(s.panel_labels()[0].starts_with("As exported: LBS + "), "{:?}", s.panel_labels());
    assert!(h.query_by_label("as exported").is_some(), "no per-clip table");

    // At the twisted frame of the fitted clip, the left panel (what an LBS runtime draws) is near
    // the target on the right; plain LBS is far from it.
    let twist = s.doc.model.find_clip("twist").unwrap();
    h.state_mut().state.apply(Command::SelectClip(Some(twist)));
    h.state_mut().state.apply(Command::SetTime(1.0));
    h.run();
    let s = &h.state().state;
    let [left, right] = &s.frame.deformed;
    let mut plain = Vec::new();
    Deformer::new().deform_all(&s.doc.model, &s.doc.pose, SkinningMethod::Lbs, &mut plain);
    let (shown, lbs) = (rms(left, right), rms(&plain, right));
    assert!(lbs > 0.0 && shown < 0.35 * lbs, "as exported {shown}, plain LBS {lbs} from SBS");

    // The preview off: the left panel is the chosen method again.
    h.get_by_label("Preview: as exported (left) beside the target (right)").click();
    h.run();
    assert!(!h.state().state.shows_export());
    assert_eq!(rms(&h.state().state.frame.deformed[0], &plain), 0.0, "the left panel is not plain LBS");

    h.get_by_label("Export to…").click();
    h.run();
    assert!(out.exists(), "{:?}", h.state().state.message);
    let written = skinlab::io::load_model(&out).unwrap();
    let helpers: Vec<String> =
        (0..written.nodes.len()).map(|n| written.nodes.key(n)).filter(|k| k.contains(".sbs")).collect();
    let fitted = h.state().state.lbs_export.fitted.as_ref().unwrap();
    assert_eq!(helpers.len(), fitted.emulation.helper_nodes.len(), "{helpers:?}");
    assert!(written.nodes.nodes.iter().filter(|n| n.driver.is_some()).count() == helpers.len());
    let message = h.state().state.message.clone().unwrap();
    assert!(!message.is_error && message.text.contains("exported"), "{message:?}");

    // Closing forgets the fit.
    h.get_by_label("Close").click();
    h.run();
    assert!(h.state().state.lbs_export.fitted.is_none());
    assert!(h.query_by_label("Fit and preview").is_none());
}

#[test]
fn a_cancelled_fit_leaves_nothing_and_an_edit_makes_a_fit_stale() {
    let dir = tempfile::tempdir().unwrap();
    let (_, state) = arm_in(dir.path());
    let mut h = harness_with(state, Scripted::default());
    open_window(&mut h);
    h.get_by_label("Fit and preview").click();
    h.step();
    h.step();
    assert!(h.query_by_label("Cancel").is_some(), "no Cancel while fitting");
    h.get_by_label("Cancel").click();
    h.step();
    wait_for_fit(&mut h);
    let s = &h.state().state;
    assert!(s.lbs_export.fitted.is_none() && !s.shows_export());
    assert_eq!(s.message.as_ref().map(|m| m.text.as_str()), Some("the fit was cancelled"));

    // A fit, then a weight edit: the fit no longer matches the model and is not shown.
    h.get_by_label("Fit and preview").click();
    h.step();
    wait_for_fit(&mut h);
    assert!(h.state().state.shows_export());
    h.state_mut().state.apply(Command::Tool(skinlab::app::command::WeightTool::SmoothAll));
    h.run();
    assert!(!h.state().state.shows_export(), "a stale fit is still shown");
    assert!(h.query_by_label_contains("The model changed since the fit").is_some());
}
