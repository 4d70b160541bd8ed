#!/usr/bin/env bash
# What CI checks, and what to run before committing: formatting, clippy with every warning an
# error (the lints are configured in Cargo.toml's [lints] and clippy.toml), then the whole test
# suite exactly as CI runs it (scripts/test.sh, which installs or checks its system packages
# first). Stops at the first failure. A cold release build takes minutes on a small machine.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "check: cargo fmt --check"
cargo fmt --check

echo "check: cargo clippy --all-targets --release --locked -- -D warnings"
cargo clippy --all-targets --release --locked -- -D warnings

echo "check: bash scripts/test.sh"
bash scripts/test.sh
