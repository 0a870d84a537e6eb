#!/usr/bin/env bash
# First-process compile vs second-process load through the on-disk code cache: the
# benchmark kernels compiled through the C API by bench/cache/cache_timing.c in separate
# processes: without the disk cache (MCJIT), with an empty cache (compile, store, link
# the object), and again (load the stored machine code). Prints a markdown table for
# bench/RESULTS.md (the first repetition) and writes every observation as CSV
# (cache.csv, columns of bench/src/record.rs, one row per kernel, mode and repetition)
# into the run's folder.
#
# Usage: scripts/bench_cache.sh [--out DIR] [--reps N]   (default 3 repetitions;
# DIR defaults to $VR_BENCH_OUT, else target/bench-runs/<date>-<commit>)
# VR_CACHE_TIMING=FILE runs a cache_timing built elsewhere (a release bundle's, on a
# machine without cargo) instead of building it here.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
PROFILE=${PROFILE:-release}
reps=3
out=${VR_BENCH_OUT:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "usage: scripts/bench_cache.sh [--out DIR] [--reps N]" >&2; exit 2 ;;
  esac
done
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=${VR_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
out=${out:-target/bench-runs/$(echo "$date" | tr -dc '0-9A-Za-z')-$commit}
machine="$(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores"

timing=${VR_CACHE_TIMING:-target/cache_timing}
if [ -z "${VR_CACHE_TIMING:-}" ]; then
  cargo build --locked --quiet -p velociraptor-capi $([ "$PROFILE" = release ] && echo --release)
  gcc -O2 -Wall -Icapi/include bench/cache/cache_timing.c -Ltarget/$PROFILE -lvelociraptor_capi \
    -Wl,-rpath,"$PWD/target/$PROFILE" -o target/cache_timing
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
kernels=(bench/kernels/*.vrir)
mkdir -p "$out"
csv="$out/cache.csv"
echo "kernel,size,config,threads,median_s,min_s,max_s,reps,machine,date,commit" >"$csv"
for r in $(seq 1 "$reps"); do
  rm -rf "$dir/cache"
  "$timing" off "${kernels[@]}" >"$dir/none.$r"
  "$timing" "$dir/cache" "${kernels[@]}" >"$dir/first.$r"
  "$timing" "$dir/cache" "${kernels[@]}" >"$dir/second.$r"
  for mode in none first second; do
    config=$(case $mode in none) echo no-disk-cache ;; first) echo first-process ;; second) echo disk-hit ;; esac)
    while read -r f ms _ _; do
      s=$(awk -v ms="$ms" 'BEGIN { print ms / 1000 }')
      printf '%s,0,%s,1,%.6f,%.6f,%.6f,1,"%s",%s,%s\n' "$(basename "$f" .vrir)" "$config" "$s" "$s" "$s" "$machine" "$date" "$commit" >>"$csv"
    done <"$dir/$mode.$r"
  done
done
echo "| kernel | no disk cache ms | first process ms (compiles) | second process ms (disk hits) | first/second |"
echo "| --- | ---: | ---: | ---: | ---: |"
paste -d' ' "$dir/none.1" "$dir/first.1" "$dir/second.1" | while read -r f t0 _ _ _ t1 c1 _ _ t2 _ h2; do
  printf "| %s | %s | %s (%s) | %s (%s) | %.1f |\n" "$(basename "$f" .vrir)" "$t0" "$t1" "$c1" "$t2" "$h2" \
    "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print a / b }')"
done
echo "(first of $reps repetitions; every observation in $csv)"
