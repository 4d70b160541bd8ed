#!/usr/bin/env bash
# Automatic rigging measured on the shared models (BENCHMARKS.md, "Automatic rigging"): every
# humanoid stripped to its meshes in the rest pose and rigged without markers and with markers
# taken from the artist's joints (landmark errors as a share of the height, CD-J2J in a unit box),
# the quadrupeds without markers, each humanoid rigged and bound from its OBJ with the elbows and
# knees bent 90° (the sweep's collapse and volume change per method), then the time from a
# 25k-vertex OBJ to a bound rig.
# Usage: bash scripts/autorig_quality.sh [MODELS_DIR]   (builds the release binary first)
set -euo pipefail
cd "$(dirname "$0")/.."
models="${1:-../shared/models}"
[ -d "$models" ] || models=/work/shared/models
cargo build --release --quiet
bin=target/release/skinlab
for m in RiggedFigure CesiumMan Knight Character_HumanoidRig; do
  "$bin" bench --autorig humanoid "$models/$m.glb" || true
done
for m in Fox Stegosaurus; do
  "$bin" bench --autorig quadruped "$models/$m.glb" || true
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for m in RiggedFigure CesiumMan Knight Character_HumanoidRig; do
  echo "== $m: rigged from its OBJ, elbows and knees bent 90°"
  "$bin" deform "$models/$m.glb" --out "$tmp/$m.obj" > /dev/null
  if "$bin" autorig "$tmp/$m.obj" --out "$tmp/$m.glb" > /dev/null; then
    "$bin" sweep "$tmp/$m.glb" --joints forearm.L,forearm.R,shin.L,shin.R --motion bend --max-angle 90 --steps 2 \
      --method lbs,dqs,sbs --out "$tmp/$m.json"
  fi
done
"$bin" densify "$models/CesiumMan.glb" --vertices 25000 --out "$tmp/dense.glb" > /dev/null
"$bin" deform "$tmp/dense.glb" --out "$tmp/dense.obj" > /dev/null
"$bin" bench --autorig humanoid "$tmp/dense.obj"
"$bin" densify "$models/CesiumMan.glb" --vertices 250000 --out "$tmp/dense250.glb" > /dev/null
"$bin" deform "$tmp/dense250.glb" --out "$tmp/dense250.obj" > /dev/null
"$bin" bench --autorig humanoid "$tmp/dense250.obj"
