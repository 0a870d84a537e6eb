#!/usr/bin/env bash
# Instruction counts (deterministic, unlike wall times on a shared machine) of each
# parfor kernel compiled for `cpu` and called serially, against `cpu-par` at one thread:
# the outlined body's code quality without parallel noise (see bench/src/bin/vr-bench-par.rs).
# Usage: scripts/par-insns.sh [KERNEL...]   (default: every kernel with a parfor)
# Needs valgrind and a release build of vr-bench-par (cargo build --release -p velociraptor-bench;
# BIN=PATH measures another build of it, e.g. one of an older commit).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/release/vr-bench-par}
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  kernels=(arc_distance julia_set growcut rosen_der stencil5 matmul_loops nbody1d black_scholes)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| kernel | cpu (optimized) insns | cpu-par 1 thread insns | ratio |\n| --- | ---: | ---: | ---: |\n'
for k in "${kernels[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/$k.out" \
    --toggle-collect='*run_serial*' --toggle-collect='*run_par*' \
    "$bin" --kernel "$k" --reps 1 --scale "${SCALE:-1}" >/dev/null 2>"$tmp/$k.err"
  # Inclusive counts of the two callers (each ran once).
  callgrind_annotate --inclusive=yes "$tmp/$k.out" 2>/dev/null >"$tmp/$k.txt"
  s=$(grep -E 'run_serial' "$tmp/$k.txt" | head -1 | awk '{gsub(",","",$1); print $1}')
  p=$(grep -E 'run_par' "$tmp/$k.txt" | head -1 | awk '{gsub(",","",$1); print $1}')
  awk -v k="$k" -v s="$s" -v p="$p" 'BEGIN { printf "| %s | %d | %d | %.2f |\n", k, s, p, p / s }'
done
