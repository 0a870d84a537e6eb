#!/usr/bin/env bash
# Instruction counts (deterministic, unlike wall times on a shared machine) of each R
# kernel's array-style version against its loop version, compiled (see
# bench/src/bin/vr-bench-rvec.rs): callgrind counts inside run_loops and run_vector only.
# Usage: scripts/rvec-insns.sh [KERNEL...]   (default: all; SCALE=S divides the sizes, 10 by default)
# Needs valgrind and a release build of vr-bench-rvec (cargo build --release -p velociraptor-bench;
# BIN=PATH measures another build). VR_PASSES applies as usual.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/release/vr-bench-rvec}
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  kernels=(arc_distance rosen_der black_scholes stencil5 matmul_loops nbody1d pi_sum)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| kernel | loops insns | array style insns | ratio |\n| --- | ---: | ---: | ---: |\n'
for k in "${kernels[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/$k.out" \
    --toggle-collect='*run_loops*' --toggle-collect='*run_vector*' \
    "$bin" --kernel "$k" --reps 1 --scale "${SCALE:-10}" >/dev/null 2>"$tmp/$k.err"
  callgrind_annotate --inclusive=yes "$tmp/$k.out" 2>/dev/null >"$tmp/$k.txt"
  l=$(grep -E 'run_loops' "$tmp/$k.txt" | head -1 | awk '{gsub(",","",$1); print $1}')
  v=$(grep -E 'run_vector' "$tmp/$k.txt" | head -1 | awk '{gsub(",","",$1); print $1}')
  awk -v k="$k" -v l="$l" -v v="$v" 'BEGIN { printf "| %s | %d | %d | %.2f |\n", k, l, v, v / l }'
done
