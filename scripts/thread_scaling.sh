#!/usr/bin/env bash
# Thread scaling of whole deformation frames (FK, preparation, the per-vertex pass): one table of
# median milliseconds per frame for LBS, DQS and SBS at each thread count, on shared models
# densified in memory and on the synthetic rig, with the speed-up over one thread.
#
#   scripts/thread_scaling.sh                      # 1 2 4 8 16 threads, 25k and 1M vertices
#   THREADS="1 2 3 4" SIZES=25000 scripts/thread_scaling.sh
#   MODELS="../shared/models/Fox.glb" scripts/thread_scaling.sh
#   BIN=/tmp/skinlab scripts/thread_scaling.sh     # a binary built elsewhere (no cargo there)
#
# Each model and size is one run: `skinlab bench --threads 1,2,4,8,16` keeps one pool per thread
# count and deforms every frame on each pool in turn, the three methods interleaved too, so the
# speed-ups come from the same minutes of the machine; record `uptime` beside the table anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  cargo build --release --locked --quiet
  bin=target/release/skinlab
fi
models=${MODELS:-"../shared/models/CesiumMan.glb ../shared/models/Character_HumanoidRig.glb ../shared/models/Stegosaurus.glb synthetic"}
sizes=${SIZES:-"25000 1000000"}
threads=${THREADS:-"1 2 4 8 16"}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| %s | %s | %s | %s | %s | %s | %s |\n' model vertices threads "LBS ms" "DQS ms" "SBS ms" "LBS / DQS / SBS speed-up over 1 thread"
printf '|---|---|---|---|---|---|---|\n'
list=$(echo $threads | tr ' ' ',')
for model in $models; do
  for n in $sizes; do
    frames=300
    [ "$n" -ge 500000 ] && frames=30
    if [ "$model" = synthetic ]; then
      args=(--synthetic "$n")
    else
      args=("$model" --densify "$n")
    fi
    # The rows of the table start with the thread count: "T lbs dqs sbs / speed-ups".
    "$bin" bench "${args[@]}" --method lbs,dqs,sbs --threads "$list" --frames "$frames" 2>/dev/null |
      awk -v m="$(basename "$model")" -v n="$n" '
        /^ *[0-9]+ / { printf "| %s | %s | %s | %s | %s | %s | %s |\n", m, n, $1, $2, $3, $4, $5 " " $6 " " $7 " " $8 " " $9 }
        /^slower with more threads/ { note = note "\n" m " " n ": " $0 }
        END { if (note != "") printf "%s\n", note > "/dev/stderr" }'
  done
done
