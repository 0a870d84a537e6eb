#!/usr/bin/env bash
# Every test: the cargo tests of the workspace (unit, conformance, CLI, property tests),
# then the conformance suite through `vr test`, the way a user runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR=never RUST_BACKTRACE=1

cargo test --workspace --locked --no-fail-fast

cargo build --locked --quiet -p velociraptor --bin vr
if [ -d tests/vrir ]; then
  target/debug/vr test tests/vrir --backend interp
  target/debug/vr test tests/vrir --backend cpu
  target/debug/vr test tests/vrir --backend cpu-par
else
  echo "note: tests/vrir does not exist yet"
fi
# the benchmark kernels are conformance files too
target/debug/vr test bench/kernels --backend interp
target/debug/vr test bench/kernels --backend cpu
# the optimizer switched off through the environment (cargo test covers each pass off)
VR_PASSES=none target/debug/vr test tests/vrir/opt bench/kernels --backend cpu
target/debug/vr test bench/kernels --backend cpu-par
