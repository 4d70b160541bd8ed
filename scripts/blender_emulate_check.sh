#!/usr/bin/env bash
# Blender (3.4, `apt-get install blender python3-numpy`; not part of CI) imports every shared
# model's emulated export (`skinlab export --emulate METHOD`, default sbs) and plays its clips:
# scripts/blender_import_check.py per file, one summary line per model (bones, helper joints,
# actions played, the status). Needs a release build.
# Usage: bash scripts/blender_emulate_check.sh [METHOD] [MODEL ...]
set -euo pipefail
cd "$(dirname "$0")/.."
method=${1:-sbs}
shift || true
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(../shared/models/*.glb ../shared/models/*.gltf)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for model in "${models[@]}"; do
  name=$(basename "${model%.*}")
  out="$work/$name.glb"
  target/release/skinlab export "$model" --out "$out" --emulate "$method" 2>/dev/null
  log="$work/$name.log"
  rc=0
  blender -b --factory-startup --python scripts/blender_import_check.py -- "$out" >"$log" 2>&1 || rc=$?
  bones=$(grep -o '^ARMATURE .*: [0-9]* bones' "$log" | grep -o '[0-9]* bones' | paste -sd+ - || true)
  helpers=$(grep -o '^HELPERS [0-9]*' "$log" | grep -o '[0-9]*' || echo 0)
  actions=$(grep -c '^ACTION ' "$log" || true)
  still=$(grep '^ACTION ' "$log" | grep -c 'to middle 0.0000' || true)
  echo "$name: ${bones:-0 bones}, $helpers helper joints, $actions actions played ($still without motion at their middle frame), exit $rc"
  [ "$rc" -eq 0 ] || status=1
done
exit "$status"
