//! Criterion benches of whole deformation frames (FK, per-set preparation, the per-vertex pass)
//! for LBS, DQS and SBS on the synthetic rig (64 joints, 4 influences per vertex) at 100k and 1M
//! vertices, poses changing every iteration, on rayon's global pool; plus the memory-bandwidth
//! bound: a pass that streams the same bytes with almost no arithmetic.
//!
//! `cargo bench --bench deform` (all), `cargo bench --bench deform -- 1000000` (one size).

#![allow(missing_docs)] // criterion_group! generates an undocumented pub fn

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use skinlab::rig::Pose;
use skinlab::skinning::{DeformedPrimitive, Deformer, SkinningMethod};
use skinlab::synthetic::{animate, SyntheticRig};

fn deform(c: &mut Criterion) {
    for vertices in [100_000usize, 1_000_000] {
        let model = match (SyntheticRig { vertices, joints: 64, influences: 4 }).build() {
            Ok(m) => m,
            Err(e) => panic!("synthetic rig: {e}"),
        };
        let mut group = c.benchmark_group(format!("deform/{vertices}"));
        group.throughput(Throughput::Elements(vertices as u64));
        group.sample_size(if vertices >= 1_000_000 { 30 } else { 60 });
        for method in SkinningMethod::ALL {
            let mut deformer = Deformer::new();
            let mut out: Vec<Vec<DeformedPrimitive>> = Vec::new();
            let mut pose = Pose::rest();
            let mut frame = 0usize;
            group.bench_function(BenchmarkId::from_parameter(method.name()), |b| {
                b.iter(|| {
                    frame += 1;
                    animate(&model, frame, &mut pose);
                    deformer.deform_all(&model, &pose, method, &mut out);
                });
            });
        }
        group.finish();
    }
}

fn bandwidth(c: &mut Criterion) {
    let mut group = c.benchmark_group("bandwidth");
    group.sample_size(10);
    group.bench_function("null-pass-1M-x10", |b| {
        b.iter(|| skinlab::bandwidth::measure(1_000_000, 4, 10));
    });
    group.finish();
    let bw = skinlab::bandwidth::measure(4_000_000, 4, 5);
    let bytes = skinlab::bandwidth::StreamBytes::with_normals(4);
    eprintln!(
        "bandwidth: {:.1} GB/s read+write on {} threads; bound for 1M vertices x {} B: {:.3} ms",
        bw.bytes_per_sec / 1e9,
        bw.threads,
        bytes.total(),
        bw.bound_secs(1_000_000, bytes) * 1e3
    );
}

criterion_group!(benches, deform, bandwidth);
criterion_main!(benches);
