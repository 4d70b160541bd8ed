//! Automatic weights (bone heat) on a 100k-vertex mesh bound to 60 joints: the whole
//! `bind::bind_skin` (weld, segments, cotangent stiffness, visibility ray casts, one sparse Cholesky
//! factorisation, 60 solves, weight rules) and applying its result. The mesh is the synthetic rig
//! of `src/synthetic.rs` (tubes of radius 0.25 around 59 unit bones). Run with
//! `cargo bench --bench bind`.

#![allow(missing_docs, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use skinlab::bind::{bind_skin, BindOptions};
use skinlab::synthetic::SyntheticRig;

fn bind_100k_60(c: &mut Criterion) {
    let model = SyntheticRig { vertices: 100_000, joints: 60, influences: 4 }.build().expect("synthetic rig");
    let mut group = c.benchmark_group("bind");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(3));
    group.bench_function("bind_100k_60_joints", |b| {
        b.iter(|| black_box(bind_skin(&model, 0, &BindOptions::default(), &mut |_| {}).expect("bind")));
    });
    let one = BindOptions { joints: Some(vec![30]), ..BindOptions::default() };
    group.bench_function("assign_automatic_100k_1_joint", |b| {
        b.iter(|| black_box(bind_skin(&model, 0, &one, &mut |_| {}).expect("bind")));
    });
    group.finish();
}

criterion_group!(benches, bind_100k_60);
criterion_main!(benches);
