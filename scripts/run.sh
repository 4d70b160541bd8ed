#!/usr/bin/env bash
# Opens the skinlab editor on the built-in demo model (extra arguments go to `skinlab`, e.g.
# `bash scripts/run.sh open model.glb`). Checks for the runtime libraries the window needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null; then
  echo "run: cargo is missing: install Rust from https://rustup.rs (or your distribution's rustup package)" >&2
  exit 1
fi
missing=()
for lib in libGL.so.1 libEGL.so.1 libxkbcommon.so.0 libX11.so.6 libXcursor.so.1 libXi.so.6; do
  ldconfig -p 2>/dev/null | grep -q "$lib" || missing+=("$lib")
done
if ((${#missing[@]})) && [[ -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run: missing runtime libraries: ${missing[*]}" >&2
  echo "run: on Debian/Ubuntu: sudo apt-get install libgl1 libegl1 libxkbcommon0 libx11-6 libxcursor1 libxi6" >&2
  exit 1
fi
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run: no display (DISPLAY / WAYLAND_DISPLAY unset): start it from a desktop session, or use xvfb-run" >&2
  exit 1
fi
# Built together with one integration test, so that the binary has the test build's features (the
# dev-dependencies turn on a few more features of shared crates): after `bash scripts/test.sh` this
# build is already done, and after this one the test command does not rebuild the dependencies.
if [[ ! -x target/release/skinlab ]]; then
  echo "run: building skinlab in release mode: the first build takes about 10 minutes on 2 cores, later starts take seconds" >&2
fi
cargo build --release --locked --bin skinlab --test tidy
exec target/release/skinlab "$@"
