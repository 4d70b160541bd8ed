#!/usr/bin/env bash
# Builds the harnesses, writes the seed corpus, and fuzzes one harness on one core:
#   bash fuzz/run.sh HARNESS [SECONDS]     (HARNESS: gltf, pose, weights, paint, recovery, obj, pose_library or fbx; default 1200 s)
# Findings land in fuzz/out/HARNESS/default/{crashes,hangs}; the figures in fuzzer_stats.
set -euo pipefail
cd "$(dirname "$0")"
harness=${1:?usage: run.sh gltf|pose|weights|paint|recovery|obj|pose_library|fbx [SECONDS]}
seconds=${2:-1200}
cargo afl build --release
[ -d "corpus/$harness" ] || ./target/release/seeds corpus ../../shared/models
export RAYON_NUM_THREADS=1 AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
dict=gltf.dict
[ "$harness" = fbx ] && dict=fbx.dict
timeout --signal=INT "$seconds" cargo afl fuzz -i "corpus/$harness" -o "out/$harness" -x "$dict" \
    -- "target/release/$harness" || true
grep -E 'run_time|execs_done|execs_per_sec|edges_found|total_edges|saved_crashes|saved_hangs' \
    "out/$harness/default/fuzzer_stats"
