#!/usr/bin/env bash
# The whole test suite: system packages first (scripts/setup.sh), then every test in release mode
# (the numerics are heavy and one release build serves the CLI, library and GUI tests). Ends with
# one summary line over all test binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --release --locked "$@" 2>&1 | tee "$log" || status=$?
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
     END { printf "skinlab: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
