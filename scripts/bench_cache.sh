#!/usr/bin/env bash
# First-process compile vs second-process load through the on-disk code cache: the
# benchmark kernels compiled through the C API by bench/cache/cache_timing.c, three
# times in separate processes: without the disk cache (MCJIT), with an empty cache
# (compile, store, link the object), and again (load the stored machine code).
# Prints a markdown table for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
PROFILE=${PROFILE:-release}
cargo build --locked --quiet -p velociraptor-capi $([ "$PROFILE" = release ] && echo --release)
gcc -O2 -Wall -Icapi/include bench/cache/cache_timing.c -Ltarget/$PROFILE -lvelociraptor_capi \
  -Wl,-rpath,"$PWD/target/$PROFILE" -o target/cache_timing
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
kernels=(bench/kernels/*.vrir)
target/cache_timing off "${kernels[@]}" >"$dir/none"
target/cache_timing "$dir/cache" "${kernels[@]}" >"$dir/first"
target/cache_timing "$dir/cache" "${kernels[@]}" >"$dir/second"
echo "| kernel | no disk cache ms | first process ms (compiles) | second process ms (disk hits) | first/second |"
echo "| --- | ---: | ---: | ---: | ---: |"
paste -d' ' "$dir/none" "$dir/first" "$dir/second" | while read -r f t0 _ _ _ t1 c1 _ _ t2 _ h2; do
  printf "| %s | %s | %s (%s) | %s (%s) | %.1f |\n" "$(basename "$f" .vrir)" "$t0" "$t1" "$c1" "$t2" "$h2" \
    "$(echo "$t1 / $t2" | bc -l)"
done
