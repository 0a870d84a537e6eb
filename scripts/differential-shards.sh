#!/usr/bin/env bash
# The random VRIR programs of issue 21 item 2, sharded over processes: for a machine
# with many cores and no Rust, from test binaries built elsewhere (docs/testing.md,
# "Random VRIR programs", says how to build them and what they need).
#
#   bash scripts/differential-shards.sh [-j JOBS] [-s SEED] [-o LOG_DIR] COUNT SHARDS BINARY...
#
# BINARY: the test binaries of generated_programs.rs, opt_differential.rs and
# opt_fusion_differential.rs (any of them, each once; `cargo test --no-run` prints their
# paths). COUNT programs in all, split as scripts/differential-volume.sh splits them:
# generated_programs takes two shares, each optimizer test one. Each binary's share runs
# as SHARDS processes, at most JOBS at a time (default: the cores, nproc). Shard k of
# the run is one proptest run with PROPTEST_RNG_SEED=SEED+k (default SEED 1) and
# PROPTEST_CASES its share, so shards draw different random streams and a run is
# reproducible: the summary prints the command that reruns a failed shard. cpu-par
# uses VR_THREADS threads per process (default 2 here, not every core: JOBS processes
# run at once). The compiled-code cache (VR_CACHE_DIR) and PoCL's kernel cache
# (POCL_CACHE_DIR) go under LOG_DIR/cache unless set: 41 MB for 2,000 programs (2 GB
# or so for 10^5), which would otherwise land in the user's ~/.cache.
#
# A shard that fails stops at its first mismatch, which proptest shrinks and prints
# (the log names it); so mismatches counts failed shards, and a failed shard's programs
# are not counted. Exit status 1 when any shard failed.
set -euo pipefail

jobs=$(nproc)
seed=1
log_dir=""
while getopts "j:s:o:" opt; do
  case $opt in
    j) jobs=$OPTARG ;;
    s) seed=$OPTARG ;;
    o) log_dir=$OPTARG ;;
    *) sed -n '6p' "$0" | sed 's/^# //' >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 3 ]; then
  sed -n '6p' "$0" | sed 's/^# //' >&2
  exit 2
fi
count=$1 shards=$2
shift 2
export VR_THREADS="${VR_THREADS:-2}"
log_dir="${log_dir:-$(mktemp -d "${TMPDIR:-/tmp}/vr-shards.XXXXXX")}"
mkdir -p "$log_dir"
log_dir=$(cd "$log_dir" && pwd)
export VR_CACHE_DIR="${VR_CACHE_DIR:-$log_dir/cache/velociraptor}"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$log_dir/cache/pocl}"

# The proptest test each binary runs (its other tests are not the random programs) and
# its weight in the split.
test_of() {
  case "$(basename "$1")" in
    generated_programs-*) echo "generated_programs_run_deterministically_and_backends_agree 2" ;;
    opt_differential-*) echo "optimized_programs_behave_as_written 1" ;;
    opt_fusion_differential-*) echo "fused_and_reused_programs_behave_as_written 1" ;;
    *) echo "error: $1 is not the test binary of generated_programs, opt_differential or opt_fusion_differential" >&2; exit 2 ;;
  esac
}

weights=0
for bin in "$@"; do
  [ -x "$bin" ] || { echo "error: $bin is not an executable" >&2; exit 2; }
  spec=$(test_of "$bin") || exit 2
  weights=$((weights + ${spec#* }))
done

# One line per shard: binary, test, shard index (the seed's offset), cases.
tasks="$log_dir/tasks"
: >"$tasks"
k=0 left=$count
i=0
for bin in "$@"; do
  spec=$(test_of "$bin")
  name=${spec% *} w=${spec#* }
  i=$((i + 1))
  if [ "$i" -eq $# ]; then share=$left; else share=$((count * w / weights)); fi
  left=$((left - share))
  for s in $(seq 0 $((shards - 1))); do
    cases=$((share / shards + (s < share % shards ? 1 : 0)))
    [ "$cases" -gt 0 ] && echo "$bin $name $k $cases" >>"$tasks"
    k=$((k + 1))
  done
done

# Runs one shard; writes its log and a result line: rc, wall, user and system seconds.
run_shard() {
  local bin=$1 name=$2 k=$3 cases=$4 base=$5 dir=$6
  local log="$dir/shard-$k.log" TIMEFORMAT='%R %U %S' t rc
  set +e
  t=$( { time env PROPTEST_RNG_SEED=$((base + k)) PROPTEST_CASES="$cases" \
      "$bin" "$name" --exact --test-threads=1 >"$log" 2>&1; } 2>&1)
  rc=$?
  set -e
  echo "$rc $t" >"$dir/shard-$k.result"
}
export -f run_shard

echo "$count programs over $# binaries, $(wc -l <"$tasks") shards, $jobs at a time, seeds $seed.., logs in $log_dir"
start=$(date +%s)
xargs -P "$jobs" -L 1 bash -c 'run_shard "$@" '"$seed"' '"$log_dir" _ <"$tasks"
wall=$(($(date +%s) - start))

failed=0
printf '%-26s %9s %7s %10s %10s %10s\n' test programs shards mismatches errors cpu_s
for bin in "$@"; do
  spec=$(test_of "$bin")
  name=${spec% *}
  short=$(basename "$bin" | sed 's/-[0-9a-f]*$//')
  programs=0 n=0 mism=0 errs=0 cpu=0
  while read -r b _ k cases; do
    [ "$b" = "$bin" ] || continue
    n=$((n + 1))
    read -r rc _ user sys <"$log_dir/shard-$k.result"
    cpu=$(awk -v a="$cpu" -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", a + u + s }')
    if [ "$rc" = 0 ] && grep -q "^test result: ok. 1 passed" "$log_dir/shard-$k.log"; then
      programs=$((programs + cases))
    else
      failed=$((failed + 1))
      if grep -q "minimal failing input" "$log_dir/shard-$k.log"; then mism=$((mism + 1)); else errs=$((errs + 1)); fi
      echo "FAILED shard $k (exit $rc, log $log_dir/shard-$k.log); rerun:" \
        "PROPTEST_RNG_SEED=$((seed + k)) PROPTEST_CASES=$cases $bin $name --exact --nocapture" >&2
    fi
  done <"$tasks"
  printf '%-26s %9s %7s %10s %10s %10s\n' "$short" "$programs" "$n" "$mism" "$errs" "$cpu"
done
echo "wall: $wall s"
[ "$failed" -eq 0 ]
