#!/usr/bin/env bash
# Installs, or checks for, what the test suite needs beyond Rust:
#   - Mesa's software OpenGL/EGL, Xvfb and xdotool (headless rendering, the editor smoke test and
#     the scripted recovery session),
#   - Node.js with the Khronos glTF-Validator (validating exported files), under target/tools.
# As root with apt-get it installs what is missing; otherwise it names what to install and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(xvfb xauth xdotool libegl1 libegl-mesa0 libgl1 libglx-mesa0 libgl1-mesa-dri
              libx11-6 libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon0 libxkbcommon-x11-0
              nodejs npm)
VALIDATOR_VERSION=2.0.0-dev.3.10

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

validator=target/tools/node_modules/gltf-validator/package.json
if [[ ! -f $validator ]] || ! grep -q "\"version\": \"$VALIDATOR_VERSION\"" "$validator"; then
  echo "setup: installing gltf-validator $VALIDATOR_VERSION from the npm registry into target/tools"
  mkdir -p target/tools
  npm install --silent --no-audit --no-fund --prefix target/tools "gltf-validator@$VALIDATOR_VERSION" >/dev/null 2>&1 || {
    echo "setup: could not install gltf-validator (npm install --prefix target/tools gltf-validator@$VALIDATOR_VERSION failed)" >&2
    exit 1
  }
fi
echo "setup: system packages and gltf-validator are in place"
