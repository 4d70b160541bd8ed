#!/usr/bin/env bash
# Runs on a lent GPU machine (see bundle.sh): the editor under Xvfb with NVIDIA's OpenGL
# (`__GLX_VENDOR_LIBRARY_NAME=nvidia`), `open --bench-frames` on CesiumMan and Fox densified to
# 1M vertices, split view LBS | SBS, each with both upload methods; the output and a screenshot
# go to $OUT.
set -u
cd "$(dirname "$0")/../.."
exec > >(tee -a "$OUT/log.txt") 2>&1
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
bin=/tmp/skinlab
gunzip -c .dev/skinlab.gz > $bin && chmod +x $bin
tar xJf .dev/xfb.tar.xz -C /tmp
# Fallback libraries only where the image has none of that name.
for d in /tmp/fb/lib/x86_64-linux-gnu /tmp/fb/usr/lib/x86_64-linux-gnu; do
  for f in "$d"/*.so.*; do ldconfig -p | grep -qF "	$(basename "$f") (" && rm -f "$f"; done
done
[ -x /usr/bin/xkbcomp ] || cp /tmp/xr/usr/bin/xkbcomp /usr/bin/xkbcomp
nv=$(dirname "$(ldconfig -p | grep -m1 libGLX_nvidia | sed 's/.*=> //')")
export LD_LIBRARY_PATH=/tmp/xr/stubs:/tmp/xr/usr/lib/x86_64-linux-gnu:/tmp/xr/lib/x86_64-linux-gnu:/tmp/fb/lib/x86_64-linux-gnu:/tmp/fb/usr/lib/x86_64-linux-gnu:$nv
export LIBGL_DRIVERS_PATH=/tmp/xr/usr/lib/x86_64-linux-gnu/dri
/tmp/xr/usr/bin/Xvfb :91 -screen 0 1280x800x24 -nolisten tcp -xkbdir /tmp/xr/usr/share/X11/xkb > "$OUT/xvfb.log" 2>&1 &
sleep 3
export DISPLAY=:91 XDG_DATA_HOME=/tmp/xdg XKB_CONFIG_ROOT=/tmp/xr/usr/share/X11/xkb __GLX_VENDOR_LIBRARY_NAME=nvidia
$bin densify .dev/models/CesiumMan.glb --vertices 1000000 --out /tmp/c1m.glb
$bin densify .dev/models/Fox.glb --vertices 1000000 --out /tmp/f1m.glb
# Both upload methods, alternately, on the same machine (mapped buffers against glBufferSubData).
for run in "/tmp/c1m.glb" "/tmp/c1m.glb --rig --select Skeleton_torso_joint_1" "/tmp/f1m.glb" \
  "/tmp/f1m.glb --rig --select b_Hip_01"; do
  for upload in mapped sub-data; do
    echo "== open $run --compare sbs --bench-frames 60 --upload $upload"
    # shellcheck disable=SC2086
    timeout 90 $bin open $run --compare sbs --bench-frames 60 --upload $upload
  done
done
timeout 90 $bin open /tmp/c1m.glb --compare sbs --animation '#0' --time 0.6 --screenshot-after-frames 5 "$OUT/gpu_posed.png"
