#!/usr/bin/env bash
# Differential testing at volume (issue 21, item 2), opt-in and long: random well-typed
# VRIR programs on interp vs cpu vs cpu-par vs gpu (generated_programs.rs), optimized vs
# as written (opt_differential.rs, opt_fusion_differential.rs), and random R functions
# against Rscript (frontend_r_random_programs.rs). Prints each part's count and time;
# any mismatch fails the part (proptest shrinks it and prints the program).
#
#   bash scripts/differential-volume.sh [VRIR_PROGRAMS] [R_PROGRAMS]
#
# Defaults: 100000 VRIR programs (half generated_programs, a quarter each optimizer
# test) and 10000 R programs. Run it niced on a shared machine; docs/testing.md has the
# last measured figures. On many cores without Rust, scripts/differential-shards.sh
# runs the VRIR part from prebuilt test binaries, sharded over processes.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"
vrir="${1:-100000}"
r_programs="${2:-10000}"
gen=$((vrir / 2))
opt=$((vrir / 4))
fusion=$((vrir - gen - opt))

total_start=$(date +%s)
log_dir="$(mktemp -d)"
part() {
    local test="$1" count="$2"
    shift 2
    local start rc
    start=$(date +%s)
    set +e
    env "$@" nice -n 19 cargo test -q -p velociraptor --test "$test" -- --nocapture >"$log_dir/$test.log" 2>&1
    rc=$?
    set -e
    grep -E "^(test result|random R programs|time:|mismatches)|FAILED|panicked" "$log_dir/$test.log" || true
    echo "== $test: $count programs, exit $rc, $(($(date +%s) - start)) s (log: $log_dir/$test.log)"
    return "$rc"
}

part generated_programs "$gen" PROPTEST_CASES="$gen"
part opt_differential "$opt" PROPTEST_CASES="$opt"
part opt_fusion_differential "$fusion" PROPTEST_CASES="$fusion"
part frontend_r_random_programs "$r_programs" VR_R_PROGRAMS="$r_programs"
echo "== all: $vrir VRIR programs, $r_programs R programs, $(($(date +%s) - total_start)) s"
