#!/usr/bin/env bash
# Regenerates the demo model and every picture in screenshots/ (README). Needs Mesa's EGL for
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
