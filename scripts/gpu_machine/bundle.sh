#!/usr/bin/env bash
# Prepares, on this (Debian, x86-64) machine, what the editor needs on a lent GPU machine that has
# NVIDIA's driver but no X server and no network: Xvfb, Mesa (for Xvfb's own GLX) and the X client
# libraries, unpacked from Debian packages into one archive; the release binary; the shared models.
# Everything lands in .dev/ (git-ignored through .git/info/exclude), about 50 MB:
#
#   bash scripts/gpu_machine/bundle.sh
#   # then, with the device tool: carry [".gl", ".dev"], command: bash scripts/gpu_machine/editor_on_gpu.sh
#
# libLLVM (needed by Mesa's swrast) links libz3 and libxml2, 60 MB more that Mesa never calls:
# both are replaced by stubs with the same names and symbol versions, built here with gcc.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || printf '/.dev/\n/.gl/\n' >> .git/info/exclude
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
apt_opts=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists="$work/lists")
mkdir -p "$work/lists/partial" "$work/debs" "$work/fbdebs" .gl .dev/models
apt-get "${apt_opts[@]}" update >/dev/null
# The GL loaders (unpacked into / there, as the device notes say).
(cd .gl && apt-get "${apt_opts[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
# Xvfb, Mesa and the X libraries (unpacked under /tmp/xr there).
(cd "$work/debs" && apt-get "${apt_opts[@]}" download xvfb libxfont2 libfontenc1 libpixman-1-0 libxshmfence1 \
  libaudit1 libaudit-common libcap-ng0 libbsd0 libmd0 libunwind8 xserver-common x11-xkb-utils xkb-data \
  libxkbfile1 libgl1-mesa-dri libglapi-mesa libglx-mesa0 libllvm15 libdrm2 libdrm-common libdrm-amdgpu1 \
  libdrm-intel1 libdrm-nouveau2 libdrm-radeon1 libpciaccess0 libsensors5 libelf1 libedit2 libxcb-dri2-0 \
  libxcb-dri3-0 libxcb-glx0 libxcb-present0 libxcb-randr0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb1 \
  libx11-6 libx11-data libx11-xcb1 libxau6 libxdmcp6 libxext6 libxfixes3 libxrandr2 libxrender1 libxxf86vm1 \
  libxcursor1 libxi6 libxkbcommon0 libxkbcommon-x11-0 libxcb-xkb1 libxaw7 libxmu6 libxt6 libsm6 libice6 \
  libxpm4 libfreetype6 libpng16-16 libbrotli1 libelogind0 >/dev/null)
# Common libraries the machine's image may lack (kept there only where it has none; under /tmp/fb).
(cd "$work/fbdebs" && apt-get "${apt_opts[@]}" download libsystemd0 libgcrypt20 libgpg-error0 libselinux1 \
  libpcre2-8-0 libffi8 libtinfo6 libexpat1 libzstd1 liblz4-1 libcap2 zlib1g libstdc++6 >/dev/null)
mkdir -p "$work/xr" "$work/fb"
for f in "$work"/debs/*.deb; do dpkg -x "$f" "$work/xr"; done
for f in "$work"/fbdebs/*.deb; do dpkg -x "$f" "$work/fb"; done
lib=$work/xr/usr/lib/x86_64-linux-gnu
rm -rf "$work"/xr/usr/share/{doc,man,lintian,locale,bug} "$work/xr/usr/include" "$work/xr/usr/share/X11/locale"
find "$lib/dri" -name '*_dri.so' ! -name swrast_dri.so -delete
# Stubs for libLLVM's unused dependencies: every symbol it takes from them, aborting if called.
llvm=$lib/libLLVM-15.so.1
mkdir -p "$work/xr/stubs"
{ echo '#include <stdlib.h>'; nm -D --undefined-only "$llvm" | grep -o 'Z3_[A-Za-z0-9_]*' | sort -u |
    sed 's/.*/void &(void){abort();}/'; } > "$work/z3.c"
gcc -shared -fPIC -o "$work/xr/stubs/libz3.so.4" -Wl,-soname,libz3.so.4 "$work/z3.c"
{ echo '#include <stdlib.h>'; echo 'void *xmlFree = 0;';
  nm -D --undefined-only "$llvm" | grep -o 'xml[A-Za-z]*@' | tr -d @ | grep -vx xmlFree | sort -u |
    sed 's/.*/void &(void){abort();}/'; } > "$work/xml.c"
{ echo 'LIBXML2_2.4.30 { global:'; nm -D --undefined-only "$llvm" | grep -o 'xml[A-Za-z]*@LIBXML2_2.4.30' |
    sed 's/@.*/;/'; echo '};'; echo 'LIBXML2_2.6.0 { global: xmlReadMemory; } LIBXML2_2.4.30;'; } > "$work/xml.map"
gcc -shared -fPIC -o "$work/xr/stubs/libxml2.so.2" -Wl,-soname,libxml2.so.2 -Wl,--version-script="$work/xml.map" \
  "$work/xml.c"
tar cf - -C "$work" xr fb | xz -9 -T0 > .dev/xfb.tar.xz
cargo build --release --locked --quiet
strip -o "$work/skinlab" target/release/skinlab
gzip -9 -c "$work/skinlab" > .dev/skinlab.gz
cp ../shared/models/{CesiumMan,Fox}.glb .dev/models/
du -sh .gl .dev
