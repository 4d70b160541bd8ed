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
# Each run interleaves the three methods frame by frame; runs at different thread counts are
# separate processes, so run it on a quiet machine and record `uptime` beside the table.
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
for model in $models; do
  for n in $sizes; do
    frames=300
    [ "$n" -ge 500000 ] && frames=30
    base=""
    for t in $threads; do
      if [ "$model" = synthetic ]; then
        args=(--synthetic "$n")
      else
        args=("$model" --densify "$n")
      fi
      # The first three lines starting with a method name are the timing table (median column 2).
      read -r lbs dqs sbs < <("$bin" bench "${args[@]}" --method lbs,dqs,sbs --threads "$t" --frames "$frames" 2>/dev/null |
        awk '/^(lbs|dqs|sbs) / && !seen[$1]++ { v[$1] = $2 } END { print v["lbs"], v["dqs"], v["sbs"] }')
      [ -z "$base" ] && base="$lbs $dqs $sbs"
      speedup=$(echo "$base $lbs $dqs $sbs" | awk '{ printf "%.2f / %.2f / %.2f", $1 / $4, $2 / $5, $3 / $6 }')
      printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$(basename "$model")" "$n" "$t" "$lbs" "$dqs" "$sbs" "$speedup"
    done
  done
done
