#!/usr/bin/env bash
# Installs, or checks for, what the test suite needs beyond Rust:
#   - Mesa's software OpenGL/EGL, Xvfb and xdotool (headless rendering, the editor smoke test and
#     the scripted recovery session),
#   - Node.js with the Khronos glTF-Validator (validating exported files) and three.js (loading them
#     with GLTFLoader, as a web page would), both pinned, under target/tools.
# As root with apt-get it installs what is missing; otherwise it names what to install and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(xvfb xauth xdotool libegl1 libegl-mesa0 libgl1 libglx-mesa0 libgl1-mesa-dri
              libx11-6 libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon0 libxkbcommon-x11-0
              nodejs npm)
VALIDATOR_VERSION=2.0.0-dev.3.10
THREE_VERSION=0.187.0

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A node/npm from outside Debian counts as present.
if command -v node >/dev/null && command -v npm >/dev/null; then
  kept=(); for p in "${missing[@]}"; do [[ "$p" == nodejs || "$p" == npm ]] || kept+=("$p"); done
  missing=("${kept[@]+"${kept[@]}"}")
fi
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "setup: installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing system packages: ${missing[*]}" >&2
    echo "setup: install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

# npm_install PACKAGE VERSION: installs the pinned version into target/tools unless it is there.
npm_install() {
  local manifest="target/tools/node_modules/$1/package.json"
  if [[ -f $manifest ]] && grep -q "\"version\": \"$2\"" "$manifest"; then
    return
  fi
  echo "setup: installing $1 $2 from the npm registry into target/tools"
  mkdir -p target/tools
  npm install --silent --no-audit --no-fund --save-exact --prefix target/tools "$1@$2" >/dev/null 2>&1 || {
    echo "setup: could not install $1 (npm install --prefix target/tools $1@$2 failed)" >&2
    exit 1
  }
}
npm_install gltf-validator "$VALIDATOR_VERSION"
npm_install three "$THREE_VERSION"
echo "setup: system packages, gltf-validator and three.js are in place"
