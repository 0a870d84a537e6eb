#!/usr/bin/env bash
# Benchmarks: builds vr-bench in release and runs it (arguments pass through, e.g.
# --quick or --kernel matmul_loops). Prints the table that bench/RESULTS.md records.
# Then the R benchmark (bench/r/run.R: R vs vr_compile vs C; R vs C only when the
# velociraptor R package is not installed; VR_R_LIB names a private library), and the
# random-number benchmark (bench/r/random.R: R vs compiled code drawing R's stream).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked --quiet -p velociraptor-bench --bin vr-bench
target/release/vr-bench "$@"
quick=""
for a in "$@"; do [ "$a" = "--quick" ] && quick="--quick"; done
Rscript bench/r/run.R $quick
Rscript bench/r/random.R $quick
