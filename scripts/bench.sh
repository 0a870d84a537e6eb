#!/usr/bin/env bash
# Benchmarks: builds vr-bench in release and runs it (arguments pass through, e.g.
# --quick or --kernel matmul_loops). Prints the table that bench/RESULTS.md records.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked --quiet -p velociraptor-bench --bin vr-bench
exec target/release/vr-bench "$@"
