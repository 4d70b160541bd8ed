#!/usr/bin/env bash
# The whole test suite: system packages first (scripts/setup.sh), then every test in release mode
# (the numerics are heavy and one release build serves the CLI, library and GUI tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --release --locked "$@"
