#!/usr/bin/env bash
# Reproduces the figures of BENCHMARKS.md: the synthetic rig (64 joints, 4 influences per vertex)
# at 100k and 1M vertices on 1 and 2 threads, LBS, DQS and SBS interleaved frame by frame, with
# the memory-bandwidth bound measured on the same threads. Prints the load average before and
# after each run: figures taken while other work loads the machine are disturbed.
# Usage: scripts/bench.sh [FRAMES_100K] [FRAMES_1M]
set -euo pipefail
cd "$(dirname "$0")/.."
frames_small="${1:-300}"
frames_large="${2:-60}"
cargo build --release --quiet
bin=target/release/skinlab
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for n in 100000 1000000; do
  frames="$frames_small"
  [ "$n" -ge 1000000 ] && frames="$frames_large"
  for t in 1 2; do
    cmd=("$bin" bench --synthetic "$n" --joints 64 --influences 4 --frames "$frames" --threads "$t" --bandwidth)
    echo
    echo "\$ ${cmd[*]}"
    echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    "${cmd[@]}" 2>/dev/null
    echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
