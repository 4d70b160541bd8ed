//! The per-vertex pass spread over threads by measured work gives exactly the one-thread result:
//! several instances and primitives deformed in parallel (nested tasks), large primitives split
//! into window ranges, small frames kept on the calling thread.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "common/cli_run.rs"]
mod cli_run;
mod common;

use skinlab::model::Model;
use skinlab::rig::Pose;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
use skinlab::synthetic::{animate, SyntheticRig};

/// Three frames of `method` in a pool of `threads`: the outputs and the last frame's split.
fn frames(model: &Model, method: SkinningMethod, threads: usize) -> (Vec<Vec<Vec<DeformedPrimitive>>>, bool) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut deformer = Deformer::new();
        let mut all = Vec::new();
        let mut parallel = false;
        for frame in 0..3 {
            let mut pose = Pose::rest();
            animate(model, frame, &mut pose);
            let mut out = Vec::new();
            deformer.deform_all(model, &pose, method, &mut out);
            parallel = deformer.stats.split.parallel;
            all.push(out);
        }
        (all, parallel)
    })
}

#[test]
fn threads_split_by_work_give_the_one_thread_result() {
    let mut models = vec![(
        "synthetic 60k".to_string(),
        SyntheticRig { vertices: 60_000, joints: 40, influences: 4 }.build().unwrap(),
    )];
    // Four skinned instances on one skeleton, each primitive below the old 16k-vertex threshold.
    if let Some(m) = common::shared_model("Character_HumanoidRig.glb") {
        let dense = skinlab::model::densify(&m, 60_000).unwrap().model;
        assert!(dense.instances.len() > 1);
        models.push(("Character_HumanoidRig at 60k".to_string(), dense));
    }
    for (name, model) in &models {
        for method in SkinningMethod::MENU {
            let (one, one_parallel) = frames(model, method, 1);
            assert!(!one_parallel, "{name} {method}: one thread never wakes a pool");
            let (four, four_parallel) = frames(model, method, 4);
            assert!(four_parallel, "{name} {method}: 60k vertices are worth several threads");
            assert!(one == four, "{name} {method}: the threads change nothing in the result");
        }
    }
}

#[test]
fn a_small_model_stays_on_the_calling_thread() {
    let model = SyntheticRig { vertices: 2_000, joints: 16, influences: 4 }.build().unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    pool.install(|| {
        let mut deformer = Deformer::new();
        let mut pose = Pose::rest();
        animate(&model, 1, &mut pose);
        let mut out = Vec::new();
        deformer.deform_all(&model, &pose, SkinningMethod::Lbs, &mut out);
        assert!(!deformer.stats.split.parallel, "2,000 LBS vertices: a few µs of work");
        assert_eq!(deformer.stats.vertices, 2_000);
    });
}

#[test]
fn bench_times_several_thread_counts_in_one_interleaved_run() {
    let out = cli_run::skinlab(["bench", "--synthetic", "3000", "--threads", "1,2", "--frames", "3"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("threads: 1, 2 (one pool each"), "{text}");
    // One row per thread count: the count, three medians, three speed-ups over the first row.
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 9 && w[0].parse::<usize>().is_ok())
        .collect();
    assert_eq!(rows.iter().map(|w| w[0]).collect::<Vec<_>>(), ["1", "2"], "{text}");
    assert_eq!(rows[0][4..], ["1.00", "/", "1.00", "/", "1.00"], "{text}");
    for row in &rows {
        assert!(row[1..4].iter().all(|v| v.parse::<f64>().is_ok_and(|ms| ms > 0.0)), "{text}");
    }
    assert!(text.contains("slower with more threads (by over 5 %): "), "{text}");
    let bad: [(&[&str], &str); 2] = [
        (&["bench", "--synthetic", "300", "--threads", "1,0"], "'0' for '--threads"),
        (&["bench", "--synthetic", "300", "--threads", "1,2", "--bandwidth"], "several counts"),
    ];
    for (args, needle) in bad {
        cli_run::assert_one_error_line(&cli_run::skinlab(args), &[needle]);
    }
}
