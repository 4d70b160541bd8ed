#!/usr/bin/env bash
# Regenerates the demo model and every picture in screenshots/ (README.md and docs/). Needs Mesa's EGL for
# `skinlab render` and xvfb-run for the editor window (bash scripts/setup.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
bin=target/release/skinlab
# Fresh data and config folders: no recovery prompt or recent files from earlier sessions.
XDG_DATA_HOME=$(mktemp -d) XDG_CONFIG_HOME=$(mktemp -d)
export XDG_DATA_HOME XDG_CONFIG_HOME
trap 'rm -rf "$XDG_DATA_HOME" "$XDG_CONFIG_HOME"' EXIT
models=../shared/models
mkdir -p screenshots
$bin demo --out assets/demo_arm.glb
# The demo's twisted forearm and bent elbow: LBS collapses (candy wrapper), SBS keeps the volume.
$bin render assets/demo_arm.glb --animation twist_bend --time 1.7 --method lbs,sbs --camera three-quarter \
  --out screenshots/demo_lbs_vs_sbs.png
$bin render assets/demo_arm.glb --animation twist --time 2 --method lbs,sbs --diff --camera three-quarter \
  --out screenshots/demo_twist_difference.png
# A real model (CesiumMan, CC-BY 4.0, Cesium; see ../shared/models/MODELS.md) in a bent pose.
$bin render $models/CesiumMan.glb --pose assets/poses/cesiumman_bent.json --method lbs,sbs --camera three-quarter \
  --out screenshots/cesiumman_bent.png
$bin render $models/CesiumMan.glb --pose assets/poses/cesiumman_bent.json --method lbs,sbs --diff \
  --camera three-quarter --out screenshots/cesiumman_bent_difference.png
# The editor window itself, under Xvfb.
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" $bin open --animation twist_bend --time 1.7 --compare sbs \
  --select wrist --screenshot-after-frames 5 screenshots/editor.png
# The editor in paint mode: the elbow's weights as a colour ramp with its legend and the brush circle.
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" $bin open --animation twist_bend --time 1.0 --select elbow \
  --paint --screenshot-after-frames 5 screenshots/paint.png
# View ▸ Joint sets on CesiumMan (CC-BY 4.0, Cesium) bent: SBS centres, vertices by set, the set table.
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" $bin open $models/CesiumMan.glb \
  --pose assets/poses/cesiumman_bent.json --joint-sets --screenshot-after-frames 10 screenshots/joint_sets.png
# The sweep panel on Fox's left leg (CC0 mesh; rig CC-BY 4.0 @tomkranis; glTF CC-BY 4.0 AsoboStudio, scurest).
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" $bin open $models/Fox.glb --select b_LeftLeg01_015 \
  --sweep twist --compare sbs --screenshot-after-frames 60 screenshots/sweep.png
# File ▸ Export for LBS runtimes on Fox running: the fitted export under LBS beside SBS (the fit runs first).
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" $bin open $models/Fox.glb --animation Run --time 0.35 \
  --lbs-export sbs --screenshot-after-frames 5 screenshots/lbs_export.png
# A plain OBJ tube (made here, no normals) given three joints by `skinlab rig`, the edits three
# Ctrl+clicks make in Rig mode; then bound by bone heat and its middle joint bent 70° (LBS | SBS).
tube=$(mktemp -d)
awk 'BEGIN { pi = 3.14159265358979; rings = 40; sides = 24; r = 0.22; len = 2.4; print "o tube"
  for (i = 0; i <= rings; i++) for (j = 0; j < sides; j++)
    printf "v %.6f %.6f %.6f\n", len * i / rings, r * cos(2 * pi * j / sides), r * sin(2 * pi * j / sides)
  printf "v 0 0 0\nv %.6f 0 0\n", len
  for (i = 0; i < rings; i++) for (j = 0; j < sides; j++) {
    a = i * sides + j + 1; b = i * sides + (j + 1) % sides + 1
    printf "f %d %d %d\nf %d %d %d\n", a, a + sides, b, b, a + sides, b + sides }
  c0 = (rings + 1) * sides + 1
  for (j = 0; j < sides; j++) {
    printf "f %d %d %d\n", c0, j + 1, (j + 1) % sides + 1
    printf "f %d %d %d\n", c0 + 1, rings * sides + (j + 1) % sides + 1, rings * sides + j + 1 } }' > "$tube/tube.obj"
joints=(--edit "create-skin #0 root 0.2,0,0" --edit "add joint root 1.2,0,0" --edit "add joint.001 joint 2.2,0,0")
$bin rig "$tube/tube.obj" "${joints[@]}" --out "$tube/tube_joints.glb"
$bin rig "$tube/tube.obj" "${joints[@]}" --edit bind --out "$tube/tube_bound.glb"
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" $bin open "$tube/tube_joints.glb" --rig --select joint \
  --screenshot-after-frames 5 screenshots/rig.png
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" $bin open "$tube/tube_bound.glb" --pose assets/poses/tube_bent.json \
  --compare sbs --select joint --screenshot-after-frames 5 screenshots/rig_bound_bent.png
rm -rf "$tube"
# Morph targets: the Blender cube with two shape keys (FBX from ufbx's test data, tests/data/ufbx)
# given a two-joint skin by `skinlab rig`; its own clip animates the weights shown on the sliders.
shapes=$(mktemp -d)
$bin rig tests/data/ufbx/blender440_shape_weight_anim_7400_binary.fbx --edit "create-skin Cube Root 0,-1,0" \
  --edit "add Top Root 0,1,0" --edit bind --out "$shapes/shapes.glb"
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" $bin open "$shapes/shapes.glb" --animation '#0' --time 0.8 \
  --screenshot-after-frames 5 screenshots/morph_sliders.png
rm -rf "$shapes"
