#!/usr/bin/env bash
# Blender 3.4's automatic weights (bone heat) on a glTF model, written back in the model's vertex order:
#   scripts/blender_autoweights.sh IN.glb OUT.glb [TEMPERANCE|BLENDER]
# Needs Debian's `blender` and `python3-numpy` (apt-get install -y blender python3-numpy). Prints
# Blender's log, then one line `skinlab-blender: {json}` (meshes where bone heat failed, vertices left
# without weight, seconds in parent_set). Compare with `skinlab weights compare IN.glb OUT.glb`.
set -euo pipefail
if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: $0 IN.glb OUT.glb [TEMPERANCE|BLENDER]" >&2
    exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
exec blender -b --factory-startup --python "$here/blender_autoweights.py" -- "$1" "$2" --heuristic "${3:-TEMPERANCE}"
